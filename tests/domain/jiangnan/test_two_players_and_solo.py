"""2-Player Rules (vassals) and Solo Bot Rules with its difficulty levels."""

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.bot import bot_income, bot_turn
from domain.jiangnan.commands import (
    DiscardTile,
    SendVassal,
    VisitDistrict,
)
from domain.jiangnan.events import BotTileDrawn
from domain.jiangnan.play import Play
from domain.jiangnan.scoring import final_scoring
from domain.jiangnan.table import boat_ranking
from domain.jiangnan.upkeep import draft_order
from domain.kernel import Rng
from tests.support import given_state

from .helpers import Story, play, run, types


# --- 2 players ----------------------------------------------------------------------------------
@pytest.mark.parametrize("chapter,tiles", [(1, 6), (3, 8)])
def test_two_player_setup_with_vassal_colours(chapter, tiles):
    state, _ = GAME.start(JiangnanOptions(players=2, chapter=chapter), "2p")
    assert len(state.p) == 4 and state.cfg.vassals and state.order == [0, 1]
    assert len(state.offer) == 6 and len(state.upkeep_tiles) == tiles
    assert all(p.track == [] and p.scholars == 3 and p.servants == 25 for p in state.p[2:])


def test_vassal_scholar_goes_to_the_discarded_tiles_district():
    state = Story(
        2, "ch", drawn={0: ["S01", "S05"]}
    ).state  # discard S01 (Society): the vassal (colour 2) goes there
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.tracks["society"] == [2] and after.tracks["teahouse"] == [0] and after.p[2].scholars == 2


def test_full_district_and_last_space_precedence_send_the_vassal_to_rest():
    # both Teahouse: the main colour takes the last space
    state = Story(2, "ch", drawn={0: ["S06", "S05"]}).scholars("teahouse", 1, 3, 1).state
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.tracks["teahouse"] == [1, 3, 1, 0] and after.tracks["rest"] == [2]


def test_two_district_tile_lets_you_choose_the_vassals_district():
    # 3-01: Society or Parlour, drafted in an earlier Upkeep
    state = Story(2, "ch").next_round(drafted={0: ["3-01"]}, drawn={0: ["3-01", "S05"]}).state
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert GAME.legal_moves(after, 0) == [SendVassal(district="society"), SendVassal(district="parlour")]
    given_state(GAME, after).when(0, SendVassal(district="tavern")).raises("wrong_district")
    _, after = play(after, 0, SendVassal(district="parlour"))
    assert after.tracks["parlour"] == [2] and after.steps[-1].kind == "publish_or_inspire"


def test_boats_count_vassals_for_their_owner_and_their_ties():
    boat = Story(2, "ch").state.river[0]
    state = Story(2, "ch").boarded(boat, 0, 1, 3).state
    assert state.boats[boat].spaces == [[0, 1], [1, 1], [3, 1], [-1, 0]]
    assert boat_ranking(state, boat) == [1, 0]
    state = Story(2, "ch").boarded(boat, 2, 1).state  # the vassal's rightmost servant wins the tie
    assert state.boats[boat].spaces == [[2, 1], [1, 1], [-1, 0], [-1, 0]]
    assert boat_ranking(state, boat) == [0, 1]


def test_only_main_colours_draft_and_score():
    state = Story(2, "ch").scholars("society", 0, 2, 1).scholars("rest", 3).state
    assert draft_order(state) == [1, 0]
    out = final_scoring(state)
    assert len(out) == 2


def test_advanced_variant_discards_any_tile():
    story = Story(2, "ch", variant=True, drawn={0: ["S01", "S05", "S09", "S03"]})
    state = story.gained(0, "earlier costs", coins=-3).state
    _, after = play(state, 0, VisitDistrict(slot=3, district="parlour"))  # needs 1 Coin: discard a coin tile
    assert GAME.legal_moves(after, 0) == [DiscardTile(slot=0), DiscardTile(slot=2)]
    given_state(GAME, after).when(0, DiscardTile(slot=1)).raises("cannot_discard")
    _, after = play(after, 0, DiscardTile(slot=2))
    assert (
        after.p[0].discarded == ["S09"] and after.tracks["tavern"] == [2] and after.tracks["parlour"] == [0]
    )


# --- solo -----------------------------------------------------------------------------------------
def solo(difficulty="easy", **kw):
    return solo_story(difficulty, **kw).state


def solo_story(difficulty="easy", **kw):
    return Story(1, "ch", difficulty=difficulty, **kw)


def bot_plays(state, tile):
    """The Bot's turn with the first seed whose draw from its bag is *tile*."""
    assert tile in state.p[1].bag
    for i in range(1000):
        c = Play(state, Rng(f"bot-{i}"))
        bot_turn(c, 1)
        if next(e for e in c.events if isinstance(e, BotTileDrawn)).tile == tile:
            return c.events, c.state
    raise AssertionError(f"no seed draws {tile}")


def test_solo_setup():
    state, _events = GAME.start(JiangnanOptions(players=1), "solo")
    bot = state.p[1]
    assert state.cfg.bot == 1 and state.order == [0, 1] and GAME.to_act(state) == [0]
    assert bot.coins == 0 and sum(bot.ideas.values()) == 0 and len(bot.bag) == 12 and bot.track == []
    assert len(bot.published) == 1 and bot.unpublished == [] and bot.talent is None
    assert len(state.offer) == 5 and len(state.upkeep_tiles) == 6
    state = solo(chapter=2)
    assert state.p[0].talent is not None and state.p[1].talent is None


def test_bot_society_and_teahouse_publish_for_free():
    state = solo()
    events, after = bot_plays(state, "S01")
    bot = after.p[1]
    assert after.tracks["society"] == [1] and after.next_order == [1]
    assert len(bot.published) == 2 and bot.vp == 0 and bot.coins == 0  # Easy: no payout
    events, after = bot_plays(state, "S05")
    kind = C.PORTFOLIOS[after.p[1].published[-1]]["type"]
    assert after.displays["teahouse"][0] == [kind, -1]  # no Bot Servant
    assert "BotTileDrawn" in types(events)


def test_bot_parlour_hires_from_the_stack_and_travels_whole_paths():
    state = solo()
    _, after = bot_plays(state, "S03")
    assert len(after.p[1].assistants) == 1 and len(after.muse_stack) == len(state.muse_stack) - 1
    _, after = bot_plays(state, "S07")
    assert after.p[1].cities == ["A1", "A2", "A3"]
    _, again = bot_plays(after, "S08")
    assert again.p[1].cities == ["A1", "A2", "A3", "B1", "B2"]


def test_bot_goes_to_rest_when_the_district_is_full():
    state = solo_story().scholars("tavern", 0, 0, 0, 1).state
    _, after = bot_plays(state, "S09")
    assert after.tracks["rest"] == [1] and len(after.p[1].published) == 1


def test_hard_bot_gains_the_payout_and_master_places_servants():
    state = solo("hard")
    _, after = bot_plays(state, "S01")
    pid = after.p[1].published[-1]
    payout = C.PORTFOLIOS[pid]["payout"]
    assert after.p[1].vp == payout.get("vp", 0) and after.p[1].coins == payout.get("coin", 0)
    story = solo_story(
        "master", teahouse=["novel", "painting", "painting"], tavern=["drama", "drama", "novel"]
    )
    state = story.display_tiles("tavern", ("novel", 1), ("drama", 1)).state
    assert (
        state.displays["tavern"] == [["drama", 1], ["novel", 1], ["drama", -1]] and state.p[1].servants == 23
    )
    _, after = bot_plays(state, "S09")
    kind = C.PORTFOLIOS[after.p[1].published[-1]]["type"]
    assert after.displays["tavern"][0] == [kind, 1] and after.p[1].vp >= 2


@pytest.mark.parametrize(
    "difficulty,coins,vp", [("easy", 0, 0), ("hard", 0, 0), ("expert", 2, 3), ("master", 3, 4)]
)
def test_bot_upkeep_income_by_difficulty(difficulty, coins, vp):
    kinds = ["novel", "drama", "painting"]  # the Bot's starting Painting has no income
    story = solo_story(difficulty, teahouse=kinds, tavern=kinds, bot_portfolio="A2").age2_swapped()
    story.published(1, "B8", "C8")  # 2 Coins (Drama) and 3 VP (Novel, for free)
    story.display_tiles("teahouse", ("drama", 1)).display_tiles("tavern", ("drama", 1))
    state = story.state
    assert state.p[1].published == ["A2", "B8", "C8"] and state.p[1].servants == 23
    assert (
        state.displays["teahouse"] == state.displays["tavern"] == [["drama", 1], ["novel", -1], ["drama", -1]]
    )
    c = Play(state, Rng("x"))
    bot_income(c, 1)
    assert c.state.p[1].coins == coins and c.state.p[1].vp == vp


def test_bot_exemptions_in_upkeep():
    state = solo_story().gained(1, "earlier costs", spirit=-3).holds(1, "A1").upkeep("spirits").state
    assert state.p[1].unpublished == ["A1"]
    _, after = run(state)
    assert after.p[1].spirit == 1
    story = solo_story().scholars("society", 1, 0).upkeep("draft")
    assert draft_order(story.state) == [0]
    state = story.runs().state
    assert state.phase == "drafting" and state.draft_queue == [0]


@pytest.mark.parametrize("difficulty,degree", [("master", 0), ("nightmare", 1), ("inferno", 2)])
def test_nightmare_and_inferno_degrees(difficulty, degree):
    state, _ = GAME.start(JiangnanOptions(players=1, difficulty=difficulty), "deg")
    assert state.p[1].degree == degree and state.p[0].degree == 0


def test_normal_bot_scores_its_coins_and_the_solo_outcome():
    state = solo_story("normal").gained(1, "bot income", coins=7).state
    assert final_scoring(state)[1]["bot coins"] == 7
    assert "bot coins" not in final_scoring(solo("easy"))[1]

    def ended(human, bot):  # the game ends with these totals, Final Scoring included
        story = solo_story("normal").gained(1, "bot income", coins=7)
        final = [sum(v for k, v in b.items() if k != "before") for b in final_scoring(story.state)]
        story.gained(0, "earlier turns", vp=human - final[0]).gained(1, "earlier turns", vp=bot - final[1])
        state = story.final_scored().state
        assert state.finished and state.final[1]["bot coins"] == 7
        return state

    out = GAME.outcome(ended(30, 25))
    assert out.winners == [0] and out.details["bot"]["score"] == 25 and out.scores[0].score == 30
    assert GAME.outcome(ended(30, 31)).winners == []

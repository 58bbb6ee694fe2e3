"""Chapters 2-6: setups, free configuration, talents, the side-B districts, shops B, pointers B/C,
advanced action tiles, mixed / tighter drafting, goals G-L and the advanced final scoring."""

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    ActivateAssistant,
    ActivateNovel,
    ChooseShop,
    ChooseTalent,
    DiscardPortfolio,
    DrawPortfolio,
    ExchangeIdeas,
    MoveBoatServant,
    MoveServant,
    Pass,
    PlaceServant,
    Publish,
    PublishIn,
    PublishToTravel,
    SwapActionTile,
    TakeExam,
    TakeIdea,
    TakeIdeas,
    TakePortfolio,
    TravelTo,
    VisitDistrict,
)
from domain.jiangnan.events import TalentChosen
from domain.jiangnan.scoring import final_scoring
from domain.jiangnan.state import Frame
from domain.jiangnan.table import boat_ranking, metric, pointed
from domain.kernel import Rng
from tests.support import given_state

from .helpers import Story, final_scoring_example, play, run, types

FOUR = C.TALENT_POOLS["four"]


def talented(talent, seat=0, **kw):
    """A Chapter 2 game (seed "ch") in which *seat* took *talent* in the Talent draft (a talent of
    the advanced pool: the free configuration drafts that pool, offering it)."""
    if talent in FOUR:
        return Story(kw.pop("players", 4), "ch", chapter=2, talent_picks={seat: talent}, **kw)
    offer = [talent, *(t for t in ("A16", "A09", "A08", "A01", "A02", "A04", "A07") if t != talent)][:8]
    return Story(
        kw.pop("players", 4),
        "ch",
        chapter=2,
        talents="advanced",
        talent_offer=offer,
        talent_picks={seat: talent},
        **kw,
    )


# --- Game Chapters: the printed setups -------------------------------------------------------------
BOARD_1, BOARD_2, BOARD_3 = ["society", "teahouse"], ["travel", "temple_fair"], ["tavern", "parlour"]
"""The District Boards (jiangnan-3): side B of board 1 is the Society's, of board 2 the Travel
district's, of board 3 the Parlour's."""


@pytest.mark.parametrize(
    "chapter,districts,goals,tiles,talent_pool",
    [
        (2, [*BOARD_1, *BOARD_2, *BOARD_3], "GHIJKL", 12, "four"),
        (3, [*BOARD_2, *BOARD_3, *BOARD_1], "ABCDEF", 15, "four"),
        (4, [*BOARD_3, *BOARD_1, *BOARD_2], "ABCDEF", 15, "advanced"),
        (5, [*BOARD_1, *BOARD_2, *BOARD_3], "GHIJKL", 12, "advanced"),
        (6, [*BOARD_1, *BOARD_2, *BOARD_3], "ABCDEFGHIJKL", None, "characters"),
    ],
)
def test_chapter_setups(chapter, districts, goals, tiles, talent_pool):
    state, _ = GAME.start(JiangnanOptions(players=4, chapter=chapter), f"setup-{chapter}")
    cfg = state.cfg
    assert state.districts == districts and set(state.goals) <= set(goals) and len(state.goals) == 5
    assert (
        cfg.exam == (chapter in (3, 6))
        and cfg.artisans == (chapter in (4, 6))
        and cfg.charm == (chapter in (5, 6))
    )
    assert (
        cfg.talents == talent_pool
        and cfg.advanced_tiles == (chapter > 2)
        and cfg.mixed_ages == (chapter != 3)
    )
    assert cfg.pointer == {2: "A", 3: "A", 4: "B", 5: "C"}.get(chapter, cfg.pointer) and cfg.pointer in "ABC"
    assert cfg.overlay == {2: "B", 3: "A", 4: "B", 5: "B"}.get(chapter, cfg.overlay)
    if tiles is not None:
        assert len(state.upkeep_tiles) == tiles
    ages = {C.ACTION_TILES[t]["age"] for t in state.upkeep_tiles}
    assert ages <= ({1, 2} if cfg.mixed_ages else {1})
    sides = {s[0] for s in state.shops}
    assert (
        sides == {"A"} if chapter in (2, 3, 5) else (sides == {"B"} if chapter == 4 else sides <= {"A", "B"})
    )
    assert sorted(s[1] for s in state.shops) == list("123456")
    if talent_pool == "four":
        assert state.talent_offer == ["A01", "A02", "A03", "A04"]
        assert set(state.muse_stack + state.muses) == set(C.MUSES_WITH_TALENTS)
    else:
        assert len(state.talent_offer) == 8 and set(state.talent_offer) <= set(C.TALENT_POOLS[talent_pool])
        assert state.muses == [None] * 4 and state.muse_stack == []  # formed after the draft
    if cfg.charm:
        assert state.charm in C.CHARMS and len(state.charm_column) == 5


def test_free_configuration_overrides_the_chapter():
    state, _ = GAME.start(
        JiangnanOptions(
            players=3,
            chapter=1,
            map="B2-A3-B1",
            pointer="C",
            goals="A-L",
            upkeep="B",
            action_tiles="advanced",
            shops="B",
            overlay="B",
            talents="characters",
        ),
        "free",
    )
    assert state.districts == [*BOARD_2, *BOARD_3, *BOARD_1]
    assert state.cfg.exam and state.cfg.artisans and not state.cfg.charm
    assert state.cfg.pointer == "C" and len(state.upkeep_tiles) == 12 and {s[0] for s in state.shops} == {"B"}
    assert len(state.talent_offer) == 7


def test_advanced_talent_draft_reverse_order_and_the_muse_stack():
    state, _ = GAME.start(JiangnanOptions(players=3, chapter=4), "draft")
    for _ in range(3):
        seat = GAME.to_act(state)[0]
        state = GAME.fold(state, GAME.decide(state, seat, GAME.legal_moves(state, seat)[0], Rng("d", 0)))
    offer = list(state.talent_offer)
    assert len(offer) == 7 and GAME.to_act(state) == [2]  # reverse player order
    given_state(GAME, state).when(2, ChooseTalent(talent="A20")).raises("talent_not_available")
    for seat in (2, 1, 0):
        assert GAME.to_act(state) == [seat]
        _, state = play(state, seat, GAME.legal_moves(state, seat)[0])
    talents = {p.talent for p in state.p}
    assert talents == set(offer[:3]) and state.phase == "actions"
    muses = set(state.muse_stack + [m for m in state.muses if m])
    assert muses == {"B" + t[1:] for t in C.TALENT_POOLS["advanced"] if t not in talents} and len(muses) == 13


def test_four_great_talents_and_wealthy_start():
    seat = 3  # the first to choose, in reverse player order
    offer = ["A12", "A16", "A17", "A18", "A19", "A20", "A01", "A02"]
    story = Story(4, "wealth", chapter=6, talent_offer=offer, talent_picks={seat: "A12"})
    first = next(e for e in story.events if isinstance(e, TalentChosen))
    assert first == TalentChosen(seat=seat, talent="A12")
    after = story.state
    assert after.p[seat].coins == 9 and after.p[seat].ideas == {"drama": 3, "novel": 3, "painting": 3}


# --- Talent powers ----------------------------------------------------------------------------------
def test_acclaim_doubles_the_payout_and_patron_the_servant_income():
    story = talented("A04", drawn={0: ["S06", "S05"]}).holds(0, "B3").gained(0, "inspiration", drama=2)
    state = story.visits(0, "teahouse").state  # S06: a Spirit
    assert state.p[0].talent == "A04" and state.p[0].ideas["drama"] == 3
    _, after = play(state, 0, Publish(portfolio="B3"))
    assert after.p[0].vp == 6  # 3 VP payout doubled
    story = talented("A11", drawn={0: ["S01", "S05"]}, teahouse=["novel", "drama", "painting"])
    state = story.display_tiles("teahouse", ("drama", 0)).state
    assert state.displays["teahouse"] == [["drama", 0], ["novel", -1], ["drama", -1]]
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.p[0].coins == 3 + 1 + 2  # discard coin + 2 for the one servant


def test_wanderer_doubles_passing_and_city_bonuses():
    story = talented("A05", drawn={0: ["S10", "S11"]}, shops=["A1", "A5", "A2", "A3", "A4", "A6"])
    state = story.gained(0, "earlier costs", spirit=-2).visits(0, "temple_fair").state  # S10: a Drama
    assert state.p[0].spirit == 2 and state.p[0].fair == 0
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))  # path 0: spirit
    assert after.p[0].spirit == 4 and after.p[0].spirits_tiles == 1


def test_royalty_doubles_drama_and_novel_income():
    seat = 0  # first in turn order
    state = talented("A06", seat).age2_swapped().published(seat, "B8", "C8").upkeep("income").state
    assert state.order[0] == seat
    coins = state.p[seat].coins
    _, after = run(state)
    assert after.p[seat].coins == coins + 4
    _, after = play(after, seat, ActivateNovel(portfolio="C8"))
    assert after.p[seat].vp == 6


def test_captain_wins_ties_and_scores_3_vp_for_first_place():
    story = talented("A14", 2)
    last = story.state.river[-1]
    state = story.boarded(last, 1, 2).upkeep("boats").state
    assert state.boats[last].spaces == [[1, 1], [2, 1], [-1, 0], [-1, 0]]
    assert boat_ranking(state, last) == [2, 1] and all(t == [] for t in state.tracks.values())
    _, after = run(state)
    assert GAME.to_act(after) == [2] and after.p[2].vp == 3


def test_frugal_pays_no_coins_and_calm_ignores_assistants():
    # discard S10 (drama), visit the Tavern
    state = talented("A10", drawn={0: ["S10", "S09"]}).gained(0, "earlier costs", coins=-3).state
    assert VisitDistrict(slot=1, district="tavern") in GAME.legal_moves(state, 0)
    _, after = play(state, 0, VisitDistrict(slot=1, district="tavern"))
    assert after.p[0].coins == 0 and after.p[0].spirit == 5
    story = talented("A01")
    for seat in (0, 1):  # each published its starting Portfolio and hired 2 Assistants
        story.published(seat, *story.state.p[seat].unpublished).hired(seat, *story.state.muses[:2])
    state = story.upkeep("spirits").state
    for seat in (0, 1):
        p = state.p[seat]
        assert len(p.assistants) == 2 and p.spirit == 4 and p.unpublished == []
    _, after = run(state)
    assert after.p[0].spirit == 3 and after.p[1].spirit == 1


def test_charming_takes_one_more_at_society_and_an_extra_muse_servant():
    offer = ["A13", "A16", "A01", "A02", "A03", "A04", "A09", "A08"]
    story = Story(4, "ch", chapter=4, talent_offer=offer, talent_picks={0: "A13"}, drawn={0: ["S04", "S01"]})
    state = story.visits(0, "society").state
    _, after = play(state, 0, TakeIdeas(ideas=["drama", "drama"]))
    assert after.steps[-1].kind == "society_extra" and Pass() in GAME.legal_moves(after, 0)
    _, after = play(after, 0, TakeIdea(idea="novel"))
    assert after.p[0].ideas["drama"] == 3 and after.p[0].ideas["novel"] == 2
    offer = ["A15", "A16", "A01", "A02", "A03", "A04", "A09", "A08"]
    story = Story(4, "ch", chapter=4, talent_offer=offer, talent_picks={0: "A15"}, drawn={0: ["S10", "S03"]})
    state = story.visits(0, "parlour").state
    assert state.steps[-1].kind == "muse" and state.steps[-1].arg == "parlour"
    a, b = state.muses[:2]
    _, after = play(state, 0, PlaceServant(muse=a))
    assert after.steps[-1].kind == "muse" and after.steps[-1].arg == "talent"
    ideas = dict(after.p[0].ideas)
    _, after = play(after, 0, PlaceServant(muse=b))
    assert after.p[0].ideas == ideas and after.muse_servants[b] == [0]


# --- Imperial Exam (Society side B) -----------------------------------------------------------------
def test_imperial_exam_juren_then_gongshi():
    def exam(degree=0, painting=0, *portfolios):  # seat 0 kept B1 and visits the Society (S06: Spirit)
        story = Story(3, "ch", chapter=3, starting={0: "B1"}, drawn={0: ["S06", "S01"]}).holds(0, *portfolios)
        if degree:
            story.degree(0, degree)
        gain = 1 if degree == 0 else 2
        story.gained(0, "inspiration", drama=gain, novel=gain, painting=gain - 1 + painting)
        return story.visits(0, "society").state

    state = exam(0, 0, "A1")
    assert state.p[0].unpublished == ["B1", "A1"] and state.p[0].ideas == {
        "drama": 2,
        "novel": 2,
        "painting": 1,
    }
    given_state(GAME, state).when(0, TakeExam()).raises("cannot_take_exam")
    state = exam(0, 1, "A1")
    _, after = play(state, 0, TakeExam())
    assert after.p[0].degree == 1 and GAME.legal_moves(after, 0) == [
        DiscardPortfolio(portfolio="A1"),
        DiscardPortfolio(portfolio="B1"),
    ]
    for _ in range(2):
        _, after = play(after, 0, GAME.legal_moves(after, 0)[0])
    for _ in range(6):
        assert after.steps[-1].kind == "exam_ideas"
        _, after = play(after, 0, GAME.legal_moves(after, 0)[0])
    q = after.p[0]
    assert q.unpublished == [] and sum(q.ideas.values()) == 0 and q.published == []
    assert metric(after, 0, "drama") == 1 and metric(after, 0, "published") == 3  # acts as 1 of each type
    state = exam(1, 1, "A1", "C1")
    assert state.p[0].degree == 1 and sorted(state.p[0].unpublished) == ["A1", "B1", "C1"]
    assert state.p[0].ideas == {"drama": 3, "novel": 3, "painting": 3}
    _, after = play(state, 0, TakeExam())
    assert after.p[0].degree == 2 and after.steps[-1].n == 3 and after.steps[-2].n == 9
    state = exam(2, 1, "A1", "C1")
    assert state.p[0].degree == 2
    assert TakeExam() not in GAME.legal_moves(state, 0)


def test_degrees_score_in_public_scoring_but_give_no_income():
    story = Story(3, "ch", chapter=3)
    for seat in range(3):
        story.degree(seat, 2)
    state = story.upkeep("income").state
    coins = [p.coins for p in state.p]
    _, after = run(state)
    assert [p.coins for p in after.p] == coins
    from domain.jiangnan.upkeep import public_points

    after = story.trends("drama", "painting").state
    assert after.p[0].degree == 2 and after.trend_track == ["drama", "painting"]
    assert public_points(after, 0, 2) == 8


# --- Traveling Artisans (Travel side B) -------------------------------------------------------------
def test_traveling_artisans_publish_instead_of_paying():
    story = Story(3, "ch6", chapter=4, starting={0: "C1"}, drawn={0: ["S10", "S07"]})  # S10: a Drama
    story.gained(0, "earlier costs", coins=-3, spirit=-1, novel=1)
    state = story.visits(0, "travel").state
    p = state.p[0]
    assert (p.coins, p.unpublished, p.ideas["novel"], p.spirit) == (0, ["C1"], 2, 3)
    displays = [list(map(list, v)) for v in state.displays.values()]
    moves = GAME.legal_moves(state, 0)
    assert moves == [PublishToTravel(portfolio="C1")]
    _, after = play(state, 0, PublishToTravel(portfolio="C1"))
    assert after.p[0].coins == 2 and after.p[0].published == ["C1"]
    assert [list(map(list, v)) for v in after.displays.values()] == displays
    city = GAME.legal_moves(after, 0)[0].city
    ideas = dict(after.p[0].ideas)
    _, after = play(after, 0, TravelTo(city=city))
    assert (
        after.p[0].cities == [city] and after.p[0].ideas == ideas and after.p[0].spirit == 4
    )  # no City Bonus


# --- Charming Scholar (Parlour side B) --------------------------------------------------------------
def test_charm_tile_extra_servant_and_new_charm_each_round():
    def parlour(*cities):  # S10: a Drama
        story = Story(3, "ch", chapter=5, drawn={0: ["S10", "S03"]}).charm("E").travelled(0, *cities)
        return story.visits(0, "parlour").state

    state = parlour("A1")
    assert state.charm == "E" and state.p[0].cities == ["A1"] and state.p[0].servants == 24
    a, _b = state.muses[:2]
    _, after = play(state, 0, PlaceServant(muse=a))
    assert after.steps[-1].arg == "charm"
    ideas = dict(after.p[0].ideas)
    _, after = play(after, 0, PlaceServant(muse=a))
    assert a in after.p[0].assistants and after.p[0].ideas == ideas  # hired, no second bonus
    state = parlour()
    _, after = play(state, 0, PlaceServant(muse=a))
    assert after.steps[-1].kind != "muse"
    state = Story(3, "ch", chapter=5).upkeep("board").state
    bottom = state.charm_column[-1]
    events, after = run(state)
    assert after.charm == bottom and len(after.charm_column) == 4 and "CharmReplaced" in types(events)


# --- Shops B1-B6 and the Special Action Pointer B / C -------------------------------------------------
def shop_story(shop):
    """Chapter 4, Shops B: *shop* one space clockwise of the Temple Fair start; seat 0 has the
    Temple Fair tile S11 and the rightmost S06 (a Spirit)."""
    others = [s for s in C.SHOPS_B if s != shop]
    return Story(3, "ch", chapter=4, shops=[others[0], shop, *others[1:]], drawn={0: ["S06", "S11"]})


def shop_state(shop, story=None):
    """Seat 0 visits the Temple Fair (its Servant at the start) with *shop* one space clockwise."""
    state = (story or shop_story(shop)).visits(0, "temple_fair").state
    assert state.shops[1] == shop and state.p[0].fair == 0 and state.steps[-1].kind == "fair"
    return state


def test_shop_b5_liquor_and_b6_calligraphy():
    state = shop_state("B5")
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert after.p[0].coins == 3 + 5
    state = shop_state("B6")
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert GAME.legal_moves(after, 0) == [DrawPortfolio(), Pass()]
    _, after = play(after, 0, DrawPortfolio())
    assert len(after.p[0].unpublished) == 2 and after.steps[-1].kind == "stack_draw"
    _, after = play(after, 0, DrawPortfolio())
    assert len(after.p[0].unpublished) == 3 and after.steps[-1].kind != "stack_draw"


def test_shop_b1_publishes_in_a_chosen_district_for_1_coin():
    state = shop_state("B1", shop_story("B1").holds(0, "B1").gained(0, "inspiration", drama=1))
    assert "B1" in state.p[0].unpublished and state.p[0].ideas["drama"] == 2
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert PublishIn(portfolio="B1", district="tavern") in GAME.legal_moves(after, 0)
    _, after = play(after, 0, PublishIn(portfolio="B1", district="tavern"))
    assert after.displays["tavern"][0] == ["drama", 0] and after.p[0].coins == 3 - 1


def test_shop_b2_b3_b4():
    state = shop_state("B3")
    assert state.p[0].ideas == {"drama": 1, "novel": 1, "painting": 1}
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    for give, take in (("drama", "novel"), ("painting", "novel"), ("novel", "drama")):
        _, after = play(after, 0, ExchangeIdeas(give=[give], take=[take]))
    assert after.p[0].ideas == {"drama": 1, "novel": 2, "painting": 0}
    assert after.steps[-1].kind != "exchange"
    story = Story(
        3,
        "ch",
        chapter=4,
        shops=["B1", "B2", "B3", "B4", "B5", "B6"],
        drawn={0: ["S06", "S11", "S03", "S04"]},
    )
    state = shop_state("B2", story.used(0, "S03", "S04"))
    assert state.p[0].used == ["S03", "S04", "S11"]
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    _, after = play(after, 0, SwapActionTile(tile="S03", slot=0))
    assert after.steps[-1].kind == "swap_tile" and Pass() in GAME.legal_moves(after, 0)
    story = shop_story("B4")
    a, b = story.state.river[0], story.state.river[1]
    state = shop_state("B4", story.boarded(a, 0))
    assert state.boats[a].spaces == [[0, 1], [-1, 0], [-1, 0], [-1, 0]] and state.p[0].servants == 24
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    _, after = play(after, 0, MoveBoatServant(from_boat=a, to_boat=b))
    assert after.boats[b].spaces[0] == [0, 1] and after.p[0].coins == 3


def test_pointer_b_and_c_point_at_two_shops_and_rotate():
    story = Story(3, "ch", chapter=4, travel={"A1": "T12"}, drawn={0: ["S10", "S07"]})  # A1: special action
    state = story.state
    assert state.cfg.pointer == "B" and pointed(state) == [0, 1]
    state = story.visits(0, "travel").state
    _, after = play(state, 0, TravelTo(city="A1"))
    assert after.steps[-1].kind == "pick_shop"
    assert GAME.legal_moves(after, 0) == [ChooseShop(shop=state.shops[0]), ChooseShop(shop=state.shops[1])]
    given_state(GAME, after).when(0, ChooseShop(shop=state.shops[3])).raises("shop_not_pointed")
    story = Story(3, "ch", chapter=5)
    assert story.state.cfg.pointer == "C" and pointed(story.state) == [0, 3]
    state = story.upkeep("board").state
    _, after = run(state)
    assert pointed(after) == [1, 4]


# --- Advanced Action Tiles, mixed and tighter drafting ----------------------------------------------
def test_advanced_tile_discard_bonus_portfolio_before_the_district_action():
    # 1-A1: Gain a Portfolio, drafted in Round 1
    state = Story(3, "ch", chapter=3).next_round(drafted={0: ["1-A1"]}, drawn={0: ["1-A1", "S05"]}).state
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.steps[-1].kind == "take_portfolio" and after.steps[-2].kind == "district"
    pid = after.display[0]
    _, after = play(after, 0, TakePortfolio(portfolio=pid))
    assert pid in after.p[0].unpublished and after.steps[-1].kind == "publish_or_inspire"


def test_advanced_tile_special_action_bonus():
    # 1-A2: Activate Special Action (Liquor Shop at the pointer), drafted in Round 1
    story = Story(3, "ch", chapter=3, shops=["A5", "A1", "A2", "A3", "A4", "A6"])
    state = story.next_round(drafted={0: ["1-A2"]}, drawn={0: ["1-A2", "S05"]}).state
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.p[0].spirits_tiles == 1 and after.steps[-1].kind == "publish_or_inspire"


@pytest.mark.parametrize("chapter,players,count", [(4, 3, 12), (4, 4, 15), (5, 4, 12), (2, 3, 9), (3, 3, 12)])
def test_refill_counts_by_upkeep_side_and_mixed_ages(chapter, players, count):
    story = Story(players, "ch", chapter=chapter).upkeep("events", 1)
    state = story.state
    after = story.runs().state
    assert len(after.upkeep_tiles) == count
    ages = {C.ACTION_TILES[t]["age"] for t in after.upkeep_tiles}
    assert ages <= ({1, 2} if after.cfg.mixed_ages else {2})
    after = story.upkeep("events", 2).runs().state
    assert len(after.upkeep_tiles) == count and {C.ACTION_TILES[t]["age"] for t in after.upkeep_tiles} <= (
        {3, 4} if after.cfg.mixed_ages else {3}
    )
    if after.cfg.mixed_ages:  # the gold bag is kept for Round 3
        assert len(after.tile_pool) == len(C.tile_pool([3, 4], after.cfg.advanced_tiles)) - count
    advanced = any(C.ACTION_TILES[t].get("advanced") for t in after.upkeep_tiles + state.upkeep_tiles)
    assert advanced or not after.cfg.advanced_tiles or count < 12


# --- Advanced Final Scoring and Scoring Goals G-L ---------------------------------------------------
def test_final_scoring_example_under_the_advanced_overlay():
    story, (orange, green, _white) = final_scoring_example(seed="ch", players=4, chapter=2, goals="A-L")
    state = story.state
    assert state.cfg.overlay == "B"
    out = final_scoring(state)
    # 5 x 4 Dramas; 1 set x 5; 2 x 2 assistants; 1+2+3+4 scenery; 4 ideas -> 1
    assert out[orange] == {"before": 0, "goals": 20, "sets": 5, "assistants": 4, "scenery": 10, "ideas": 1}
    assert out[green]["goals"] == 6


@pytest.mark.parametrize(
    "goal,first,second",
    [
        ("G", 4 * 5, 2 * 2),
        ("H", 4 * 3, 2 * 2),
        ("I", 4 * 3, 2 * 2),
        ("J", 5 * 1, 3 * 0),
        ("K", 3 * 6, 1 * 6),
        ("L", 3 * 5, 1 * 2),
    ],
)
def test_scoring_goals_g_to_l(goal, first, second):
    column = [*[g for g in "GHIJKL" if g != goal][:4], goal]
    story = Story(3, "ch", chapter=2, goal_column=column, starting={0: "C1", 1: "C4", 2: "C6"})
    boat = story.trends("drama").state.river[0]  # the only boat with a goal so far
    story.boarded(boat, 0, 0, 0, 1, 1, 2)
    story.gained(0, "rest", spirit=1).gained(1, "earlier costs", spirit=-2)
    story.published(0, "B1", "B2", "B3", "C1", "A1")  # 3 dramas, 1 novel, 1 painting
    state = story.published(1, "B4", "B5").state
    assert state.boats[boat].goal == goal and state.boats[boat].spaces == [[0, 3], [1, 2], [2, 1], [-1, 0]]
    assert state.p[0].spirit == 5 and state.p[1].spirit == 2
    out = final_scoring(state)
    assert out[0]["goals"] == first and out[1]["goals"] == second and out[2]["goals"] == 0


def test_spirits_tiles_are_used_before_final_scoring_when_goal_g_counts_spirit():
    """Spirit Level Track: a Spirits Tile may be discarded "anytime" for +3 Spirit.  Goal G scores
    the Spirit Level at the end: every held Spirits Tile is used before Final Scoring (it can only
    raise the holder's score; none is wasted at Spirit 6)."""
    story = Story(3, "ch", chapter=2, goal_column=["H", "I", "J", "K", "G"])
    boat = story.trends("drama").state.river[0]  # the only boat with a goal
    story.boarded(boat, 0, 0, 0, 1, 1)
    story.gained(0, "rest", spirit=2).spirits_tiles(0)
    story.gained(1, "earlier costs", spirit=-3).spirits_tiles(1, 2)
    state = story.upkeep("events", 6).state
    assert state.boats[boat].goal == "G" and state.boats[boat].spaces == [[0, 3], [1, 2], [-1, 0], [-1, 0]]
    events, after = run(state)
    assert types(events)[1:5] == [
        "SpiritsTileUsed",
        "ResourcesChanged",
        "SpiritsTileUsed",
        "ResourcesChanged",
    ]
    assert after.finished and after.p[1].spirit == 6 and after.p[1].spirits_tiles == 0
    assert after.p[0].spirits_tiles == 1  # already at 6: kept
    assert after.final[0]["goals"] == 4 * 6 and after.final[1]["goals"] == 2 * 6


def test_wanderer_doubles_a_peddler_city_bonus_only_during_a_travel_or_temple_fair_visit():
    """A03/A05: "When you visit the Travel or Temple Fair district, gain double ... for the City
    Bonus".  The Peddler (A2) from the Temple Fair doubles; from B03 in Upkeep it does not."""
    from domain.jiangnan.events import ResourcesChanged, StepEnded, Travelled

    shops, travel = ["A1", "A2", "A5", "A3", "A4", "A6"], {"A1": "T01"}  # A1: a Novel Idea
    story = talented("A05", drawn={0: ["S10", "S11"]}, shops=shops, travel=travel)  # S10: a Drama
    story.gained(0, "earlier costs", spirit=-3).visits(0, "temple_fair")
    _, visit = play(story.state, 0, MoveServant(distance=1, clockwise=True))  # path 0: Spirit, doubled
    assert visit.steps[-1].arg == "peddler" and visit.p[0].spirit == 3
    assert given_state(GAME, visit).when(0, TravelTo(city="A1")).events()[:4] == [
        StepEnded(),
        ResourcesChanged(seat=0, why="travel", spirit=1),
        Travelled(seat=0, city="A1"),
        ResourcesChanged(seat=0, why="city bonus", novel=2),
    ]
    story = talented("A05", shops=["A2", "A1", "A5", "A3", "A4", "A6"], travel=travel, muses=["B03"])
    _, state = run(story.hired(0, "B03").upkeep("income").state)
    assert state.steps[-1] == Frame(kind="income", seat=0) and state.p[0].spirit == 4
    _, away = play(state, 0, ActivateAssistant(assistant="B03"))
    assert away.steps[-1].arg == "peddler_away"
    assert given_state(GAME, away).when(0, TravelTo(city="A1")).events()[:4] == [
        StepEnded(),
        ResourcesChanged(seat=0, why="travel", spirit=1),
        Travelled(seat=0, city="A1"),
        ResourcesChanged(seat=0, why="city bonus", novel=1),
    ]

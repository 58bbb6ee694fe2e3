"""Upkeep phase steps 1-6, final scoring and the assistant powers."""

from domain.jiangnan import GAME
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    ActivateAssistant,
    ActivateNovel,
    ChooseTrend,
    DraftTile,
    EndIncome,
    ExchangeIdeas,
    MoveBoatServant,
    MoveServant,
    PlaceOnBoat,
    PlaceServant,
    Publish,
    Rest,
    SwapActionTile,
    TakeIdea,
    TakeIdeas,
    TakePortfolio,
    TakeServantIncome,
    TravelTo,
    UseSpiritsTile,
)
from domain.jiangnan.scoring import final_scoring
from domain.jiangnan.state import Frame
from domain.jiangnan.upkeep import draft_order, public_points
from tests.support import given_state

from .helpers import Story, drive, final_scoring_example, play, run, started, types


# --- 1. Personal Income -------------------------------------------------------------------------
def test_personal_income():
    seat = 0  # first in turn order
    story = Story(teahouse=["novel", "drama", "painting"], muses=["B10"])
    story.published(seat, "B1", "C1", "C2").hired(seat, "B10")
    story.display_tiles("teahouse", ("drama", seat)).display_tiles("tavern", ("novel", seat), ("drama", seat))
    state = story.upkeep("income").state
    assert state.order[0] == seat and state.displays["teahouse"] == [
        ["drama", seat],
        ["novel", -1],
        ["drama", -1],
    ]
    assert state.displays["tavern"] == [["drama", seat], ["novel", seat], ["drama", -1]]
    _events, after = run(state)
    q = after.p[seat]
    assert q.coins == 3 + 1 and q.vp == 0  # drama income first; the servants' income when chosen
    moves = GAME.legal_moves(after, seat)
    assert moves == [
        ActivateNovel(portfolio="C1"),
        ActivateNovel(portfolio="C2"),
        ActivateAssistant(assistant="B10"),
        TakeServantIncome(district="teahouse"),
        TakeServantIncome(district="tavern"),
        EndIncome(),
    ]
    _, after = play(after, seat, ActivateNovel(portfolio="C1"))
    assert after.p[seat].ideas["novel"] == 0 and after.p[seat].vp == C.PORTFOLIOS["C1"]["income"]["vp"]
    given_state(GAME, after).when(seat, ActivateNovel(portfolio="C2")).raises(
        "cannot_activate"
    )  # no novel idea left
    _, after = play(after, seat, ActivateAssistant(assistant="B10"))
    assert after.p[seat].coins == 6
    given_state(GAME, after).when(seat, ActivateAssistant(assistant="B10")).raises(
        "cannot_activate"
    )  # once per round
    _, after = play(after, seat, TakeServantIncome(district="tavern"))
    assert after.p[seat].vp == C.PORTFOLIOS["C1"]["income"]["vp"] + 2  # tavern servants
    given_state(GAME, after).when(seat, TakeServantIncome(district="tavern")).raises("cannot_activate")
    _, after = play(after, seat, EndIncome())  # the teahouse servant's Coin, not taken yet
    assert after.income_pos >= 1 and after.p[seat].coins == 7


# --- 2. Resolve Boats -------------------------------------------------------------------------
def test_servant_placement_example():
    """Placement from the rightmost scholar: Purple, Green, White.  Green already has a servant in
    the first space: Purple takes the second, Green joins its own, White takes the third."""
    purple, green, white = 0, 1, 2
    story = Story()
    d = story.state.districts[2]
    boat = story.state.river[2]
    story.boarded(boat, green).scholars(d, purple, green, white).scholars("rest", 3)
    state = story.upkeep("boats").state
    assert state.boats[boat].spaces == [[green, 1], [-1, 0], [-1, 0], [-1, 0]]
    _events, after = run(state)
    assert after.boats[boat].spaces == [[green, 2], [purple, 1], [white, 1], [-1, 0]]
    assert after.p[3].servants == 25  # resting scholars place none


def test_boat_resolution_example():
    """2 Green, 1 Purple, 1 White: Green wins and chooses; servants return; the other trend is
    removed; the boat goes to the leftmost river board with the bottom goal tile."""
    purple, green, white = 0, 1, 2
    last = Story().state.river[-1]
    story = Story(boat_trends={last: ["drama", "painting"]}).boarded(last, purple, green, green, white)
    state = story.upkeep("boats").state
    assert state.boats[last].spaces == [[purple, 1], [green, 2], [white, 1], [-1, 0]]
    bottom_goal = state.goals[-1]
    _events, after = run(state)
    assert after.phase == "trend" and GAME.to_act(after) == [green]
    assert GAME.legal_moves(after, green) == [ChooseTrend(trend="drama"), ChooseTrend(trend="painting")]
    _, after = play(after, green, ChooseTrend(trend="painting"))
    assert after.trend_track == ["painting"]
    assert all(p.servants == 25 for p in after.p)
    assert after.river[0] == last and after.boats[last].goal == bottom_goal and after.boats[last].trends == []
    assert len(after.goals) == 4


def test_boat_tie_goes_to_the_earlier_placed_and_empty_boat_takes_the_rightmost_trend():
    last = Story().state.river[-1]
    state = Story().boarded(last, 2, 1).upkeep("boats").state
    assert state.boats[last].spaces == [[2, 1], [1, 1], [-1, 0], [-1, 0]]
    _, after = run(state)
    assert GAME.to_act(after) == [2]
    state = Story(boat_trends={last: ["gold", "scenery"]}).upkeep("boats").state
    assert state.boats[last].spaces == [[-1, 0]] * 4
    events, after = run(state)
    assert after.trend_track == ["scenery"] and "TrendChosen" in types(events)


def test_no_goal_tile_in_round_6():
    state = Story().trends(*["drama"] * 5).upkeep("boats", 6).state
    assert state.goals == [] and state.trend_track == ["drama"] * 5
    last = state.river[-1]
    events, after = run(state)
    if after.phase == "trend":
        seat = GAME.to_act(after)[0]
        _, after = play(after, seat, GAME.legal_moves(after, seat)[0])
    assert after.finished and last not in after.river and "ActionTileDrafted" not in types(events)


# --- 3. Drafting ------------------------------------------------------------------------------
def test_drafting_order_example():
    """Purple A, Green B, White C, Orange D: D, B, C, A, A, B, C, B, D, C, D, A."""
    a, b, c, d = 0, 1, 2, 3
    story = Story()
    first, second, third = story.state.districts[:3]  # the three leftmost Scholar Tracks
    story.scholars(first, a, c, b, d).scholars(second, b, c, b, a).scholars(third, a, d, c, d)
    state = story.upkeep("draft").state
    assert draft_order(state) == [d, b, c, a, a, b, c, b, d, c, d, a]
    _, after = run(state)
    assert after.phase == "drafting" and GAME.to_act(after) == [d]
    tile = after.upkeep_tiles[0]
    _, after = play(after, d, DraftTile(tile=tile))
    assert after.p[d].drafted == [tile] and GAME.to_act(after) == [b]
    given_state(GAME, after).when(b, DraftTile(tile=tile)).raises("tile_not_available")


def test_no_drafting_in_rounds_5_and_6():
    state = Story().scholars("society", 0, 1).upkeep("draft", 5).state
    events, after = run(state)
    assert "ActionTileDrafted" not in types(events) and all(t == [] for t in after.tracks.values())
    assert all(p.scholars == 3 for p in after.p)


# --- 4. Upkeep events ---------------------------------------------------------------------------
def test_refill_action_tiles_by_age():
    for rnd, age in ((1, "2-"), (2, "3-"), (3, "4-")):
        state = Story(players=3).upkeep("events", rnd).state
        _, after = run(state)
        assert len(after.upkeep_tiles) == 9 and all(t.startswith(age) for t in after.upkeep_tiles)


def test_public_scoring_examples():
    state = Story().trends("drama", "gold").published(0, "B1").gained(0, "income", coins=5).state
    assert state.p[0].published == ["B1"] and state.p[0].coins == 8
    assert public_points(state, 0, 2) == 4
    story = Story().trends("drama", "gold", "drama", "assistant").published(0, "B1", "B2", "B3")
    state = story.gained(0, "income", coins=9).state
    assert state.p[0].coins == 12
    assert public_points(state, 0, 3) == 24
    story = Story(muses=["B01"]).trends("drama", "gold", "drama", "assistant", "novel", "scenery")
    story.published(0, "B1", "B2", "B3", "B4", "B5").gained(0, "income", coins=18)
    state = story.hired(0, "B01").travelled(0, "A1").state
    p = state.p[0]
    assert (p.published, p.coins, p.assistants, p.cities) == (
        ["B1", "B2", "B3", "B4", "B5"],
        21,
        ["B01"],
        ["A1"],
    )
    assert public_points(state, 0, 4) == 64


def test_refill_draw_bags_in_round_2_with_exactly_12_tiles():
    state = drive(started(), lambda s: s.round == 3)
    assert state.phase == "actions" and state.turn_pos <= 1
    for p in state.p:
        rested = 3 - p.scholars  # a mandatory rest already used 2 of the 12 tiles
        assert p.drafted == [] and len(p.used) == rested
        assert len(p.bag) + len(p.track) == 12 - 2 * rested and len(p.track) == 4


def test_age_2_swap_in_round_3():
    state = Story().upkeep("events", 3).state
    events, after = run(state)
    assert "Age2Swapped" in types(events)
    assert len(after.display) == 4 and all(C.PORTFOLIOS[p]["age"] == 2 for p in after.display + after.stack)


# --- 5. Update Board Status --------------------------------------------------------------------
def test_turn_order_adjustment_example():
    """Green, White, Purple, Orange; White then Purple visited the Society: White, Purple, Green, Orange."""
    green, white, purple, orange = 0, 1, 2, 3
    state = Story().visited_society(white, purple).upkeep("board").state
    assert state.order == [green, white, purple, orange] and state.next_order == [white, purple]
    _, after = run(state)
    assert after.order == [white, purple, green, orange] and after.pointer == 1 and after.next_order == []


# --- 6. Consume Spirits and Mandatory Rest --------------------------------------------------------
def test_spirit_consumption_example_and_mandatory_rest():
    state = Story(muses=["B01", "B02"]).hired(0, "B01", "B02").upkeep("spirits").state
    assert state.order == [0, 1, 2, 3] and state.p[0].unpublished == ["C1"]
    _events, after = run(state)
    assert after.p[0].spirit == 0 and GAME.to_act(after) == [0]
    assert GAME.legal_moves(after, 0) == [Rest(slot=i) for i in range(4)]
    tile = after.p[0].track[2]
    rightmost = after.p[0].track[0]
    _, rested = play(after, 0, Rest(slot=2))
    p = rested.p[0]
    assert (
        rested.tracks["rest"] == [0]
        and p.scholars == 2
        and p.used[-1] == tile
        and p.discarded[-1] == rightmost
    )
    assert p.coins >= 5 and p.spirit >= 4 and len(p.track) == 4
    assert rested.round == 2 and rested.phase == "actions"
    # the next round: 2 turns as normal, the third skipped
    end = drive(rested, lambda s: s.phase == "income")
    assert end.tracks["rest"].count(0) >= 1 and sum(1 for t in end.tracks.values() for x in t if x == 0) == 3


def test_spirits_tile_prevents_mandatory_rest():
    state = Story().gained(0, "earlier costs", spirit=-3).spirits_tiles(0).upkeep("spirits").state
    _, after = run(state)
    assert GAME.to_act(after) == [0] and UseSpiritsTile() in GAME.legal_moves(after, 0)
    _, after = play(after, 0, UseSpiritsTile())
    assert after.p[0].spirit == 3 and after.p[0].scholars == 3 and after.tracks["rest"] == []


# --- Final scoring ------------------------------------------------------------------------------
def test_final_scoring_example():
    story, (orange, green, white) = final_scoring_example()
    state = story.published(white, "B9", "B10", "B11", "B12").state
    out = final_scoring(state)
    assert out[orange] == {"before": 0, "goals": 20, "sets": 4, "assistants": 6, "scenery": 8, "ideas": 1}
    assert out[green]["goals"] == 6 and out[white]["goals"] == 0


def test_game_end_and_tie_break_by_final_turn_order():
    story = Story().turn_order(2, 0, 1, 3)
    for seat in range(4):
        story.gained(seat, "earlier turns", vp=10, drama=-1, novel=-1, painting=-1)
    state = story.upkeep("events", 6).state
    events, after = run(state)
    assert after.finished and types(events)[-1] == "FinalScored" and GAME.to_act(after) == []
    out = GAME.outcome(after)
    assert out.winners == [2] and [s.rank for s in out.scores] == [2, 3, 1, 4]
    given_state(GAME, after).when(0, EndIncome()).raises("game_over")


# --- assistant powers -------------------------------------------------------------------------
def income_with(assistant, *more, story=None):
    """Personal Income c.: seat 0, first in turn order, has hired *assistant* (and *more*) and may
    activate it.  Assistants B17-B20 are characters: their game drafts Talents (the seats take A16
    and three of A17-A20, none with a power, leaving the Muse of *assistant*)."""
    if story is None:
        story = income_story(assistant, *more)
    state = story.hired(0, assistant, *more).upkeep("income").state
    _, state = run(state)
    assert state.steps[-1] == Frame(kind="income", seat=0) and state.p[0].assistants == [assistant, *more]
    return state


def income_story(assistant, *more, **setup):
    if int(assistant[1:]) <= 16:
        return Story(muses=[assistant, *more], **setup)
    taken = [t for t in ("A16", "A17", "A18", "A19", "A20") if t != "A" + assistant[1:]][:4]
    return Story(
        talents="characters",
        talent_offer=[*taken, "A01", "A02", "A03", "A04"],
        talent_picks=dict(enumerate(taken)),
        muses=[assistant, *more],
        **setup,
    )


def test_simple_assistant_powers():
    expected = {
        "B01": ("spirit", 2),
        "B04": ("painting", 1),
        "B09": ("drama", 1),
        "B10": ("coins", 2),
        "B16": ("novel", 1),
        "B19": ("vp", 2),
    }
    for a, (what, n) in expected.items():
        state = income_with(a)
        _, after = play(state, 0, ActivateAssistant(assistant=a))
        before, now = state.p[0], after.p[0]
        if what in ("spirit", "coins", "vp"):
            assert getattr(now, what) - getattr(before, what) == n, a
        else:
            assert now.ideas[what] - before.ideas[what] == n, a


def test_b02_b11_count_servants_on_display_tracks():
    story = income_story("B02").display_tiles("teahouse", ("drama", 1), ("novel", 0), ("drama", 0))
    state = income_with("B02", story=story)
    assert state.displays["teahouse"] == [["drama", 0], ["novel", 0], ["drama", 1]]
    _, after = play(state, 0, ActivateAssistant(assistant="B02"))
    assert after.p[0].coins == 6
    story = income_story("B11").display_tiles("tavern", ("drama", 1), ("novel", 1), ("drama", 0))
    state = income_with("B11", story=story)
    assert state.displays["tavern"] == [["drama", 0], ["novel", 1], ["drama", 1]]
    _, after = play(state, 0, ActivateAssistant(assistant="B11"))
    assert after.p[0].vp == 2


def test_b03_b05_b06_b07_b08():
    state = income_with("B03", story=income_story("B03", shops=["A5", "A1", "A2", "A3", "A4", "A6"]))
    _, after = play(state, 0, ActivateAssistant(assistant="B03"))
    assert after.p[0].coins == 2 and after.p[0].spirits_tiles == 1
    state = income_with("B05")
    _, after = play(state, 0, ActivateAssistant(assistant="B05"))
    assert GAME.legal_moves(after, 0)[:2] == [
        MoveServant(distance=1, clockwise=True),
        MoveServant(distance=1, clockwise=False),
    ]
    _, after = play(after, 0, MoveServant(distance=1, clockwise=True))
    assert after.p[0].fair == 1 and after.p[0].spirit == 5 and after.steps[-1].kind == "income"
    state = income_with("B06")
    _, after = play(state, 0, ActivateAssistant(assistant="B06"))
    _, after = play(after, 0, TakeIdea(idea="novel"))
    assert after.p[0].ideas["novel"] == 2
    state = income_with("B07")
    _, after = play(state, 0, ActivateAssistant(assistant="B07"))
    _, after = play(after, 0, PlaceOnBoat(boat=4))
    assert after.p[0].coins == 1 and after.boats[4].spaces[0] == [0, 1]
    state = income_with("B08")
    _, after = play(state, 0, ActivateAssistant(assistant="B08"))
    _, after = play(after, 0, ExchangeIdeas(give=["novel", "drama"], take=["painting", "painting"]))
    assert after.p[0].ideas == {"drama": 0, "novel": 0, "painting": 3}


def test_b12_b13_b14_b15():
    story = Story(muses=["B12"], drawn={0: ["S04", "S01"]})  # seat 0's first turn: S01 at the Society
    state = income_with("B12", story=story.visits(0, "society", TakeIdeas(ideas=["drama", "drama"])))
    assert state.p[0].used == ["S01"]
    track = list(state.p[0].track)
    _, after = play(state, 0, ActivateAssistant(assistant="B12"))
    _, after = play(after, 0, SwapActionTile(tile="S01", slot=1))
    assert after.p[0].track[1] == "S01" and after.p[0].used == [track[1]]
    state = income_with("B13", story=income_story("B13", travel={"A1": "T04"}))
    _, after = play(state, 0, ActivateAssistant(assistant="B13"))
    _, after = play(after, 0, TravelTo(city="A1"))
    assert after.p[0].cities == ["A1"] and after.p[0].coins == 2 and after.p[0].ideas["painting"] == 1
    state = income_with("B14", story=income_story("B14").boarded(1, 0, 0))
    assert state.boats[1].spaces == [[0, 2], [-1, 0], [-1, 0], [-1, 0]]
    _, after = play(state, 0, ActivateAssistant(assistant="B14"))
    _, after = play(after, 0, MoveBoatServant(from_boat=1, to_boat=2))
    assert after.boats[1].spaces[0] == [0, 1] and after.boats[2].spaces[0] == [0, 1] and after.p[0].coins == 2
    state = income_with("B15")
    muse = state.muses[0]
    _, after = play(state, 0, ActivateAssistant(assistant="B15"))
    _, after = play(after, 0, PlaceServant(muse=muse))
    assert after.muse_servants[muse] == [0] and after.p[0].coins == 2


def test_b17_to_b20():
    state = income_with("B17")
    _, after = play(state, 0, ActivateAssistant(assistant="B17"))
    pid = after.display[0]
    _, after = play(after, 0, TakePortfolio(portfolio=pid))
    assert after.p[0].unpublished[-1] == pid and after.p[0].coins == 2
    state = income_with("B18")
    n = len(state.p[0].unpublished)
    _, after = play(state, 0, ActivateAssistant(assistant="B18"))
    assert len(after.p[0].unpublished) == n + 1 and len(after.stack) == len(state.stack) - 1
    state = income_with(
        "B20", story=income_story("B20", starting={0: "C1"}).gained(0, "inspiration", novel=1)
    )
    assert state.p[0].unpublished == ["C1"] and state.p[0].ideas["novel"] == 2
    _, after = play(state, 0, ActivateAssistant(assistant="B20"))
    _, after = play(after, 0, Publish(portfolio="C1"))
    assert after.p[0].published == ["C1"] and after.p[0].coins == 1 + C.PORTFOLIOS["C1"]["payout"]["coin"]
    assert after.displays == state.displays
    # with 1 Coin (B01 still to activate, so the income decision is pending)
    story = income_story("B20", "B01").gained(0, "earlier costs", coins=-2)
    state = income_with("B20", "B01", story=story)
    given_state(GAME, state).when(0, ActivateAssistant(assistant="B20")).raises("cannot_activate")


def test_trend_choice_then_drafting_begins_exact_events():
    from domain.jiangnan.events import PhaseBegan, StepBegan, StepEnded, TrendChosen

    last = Story().state.river[-1]
    story = Story(boat_trends={last: ["novel", "gold"]}).boarded(last, 2).scholars("society", 1)
    state = story.upkeep("boats").state
    assert state.boats[last].spaces == [[2, 1], [-1, 0], [-1, 0], [-1, 0]] and state.p[2].servants == 24
    _, state = run(state)
    given_state(GAME, state).when(2, ChooseTrend(trend="gold")).then(
        [
            StepEnded(),
            TrendChosen(seat=2, trend="gold"),
            PhaseBegan(phase="draft", round=1),
            PhaseBegan(phase="drafting", round=1, queue=[1]),
            StepBegan(step=Frame(kind="draft", seat=1)),
        ]
    )
    given_state(GAME, state).when(2, ChooseTrend(trend="drama")).raises("no_such_trend")
    given_state(GAME, state).when(1, ChooseTrend(trend="gold")).raises("not_your_turn")


# --- audit fixes (jiangnan-2) -------------------------------------------------------------------
def test_a_drama_published_during_personal_income_pays_its_coin_income():
    """Upkeep 1: "Each tile may only be activated once per round. You may activate them in any
    order to your benefit" - a Drama published through B03 (Shop A1 Printing Press) during
    Personal Income has not given its income yet: its Coins come at once."""
    from domain.jiangnan.events import PortfolioPublished, ResourcesChanged, StepEnded
    from tests.support import given_state as given

    story = income_story("B03", shops=["A1", "A2", "A3", "A4", "A5", "A6"]).holds(0, "B1")
    state = income_with("B03", story=story.gained(0, "inspiration", drama=1))
    assert state.shops[state.pointer] == "A1" and state.p[0].ideas["drama"] == 2
    _, state = play(state, 0, ActivateAssistant(assistant="B03"))
    _, state = play(state, 0, TakeIdea(idea="novel"))
    assert state.steps[-1].kind == "publish"
    after = (
        given(GAME, state)
        .when(0, Publish(portfolio="B1"))
        .then(
            [
                StepEnded(),
                ResourcesChanged(seat=0, why="publishing cost", drama=-2),
                PortfolioPublished(seat=0, portfolio="B1", where="printing_press"),
                ResourcesChanged(seat=0, why="publishing payout", vp=2),
                ResourcesChanged(seat=0, why="drama income", coins=1),
            ]
        )
    )
    assert after.p[0].coins == 3 - 1 + 1 and after.steps[-1].kind == "income"

"""The jiangnan-3 rules audit: each finding as given/when/then, built from events (the facts of a
scene are folded, never assigned), with the rulebook sentence it rests on.  Where a finding changed
a rule, the jiangnan-2 reading is shown too: a game set up under jiangnan-2 keeps it."""

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    ActivateAssistant,
    DiscardPortfolio,
    EndIncome,
    MoveServant,
    PayIdea,
    PlaceServant,
    PublishIn,
    TakeExam,
    TakeServantIncome,
)
from domain.jiangnan.events import (
    Age2StackFormed,
    BoatServantPlaced,
    CharmReplaced,
    DisplayTileAdded,
    FairMoved,
    FinalScored,
    MuseHired,
    PortfolioTaken,
    ResourcesChanged,
    ServantIncomeTaken,
    StepBegan,
)
from domain.jiangnan.rules import setup as setup_under
from domain.jiangnan.state import Frame
from domain.jiangnan.table import boat_ranking, power
from domain.kernel import InvalidOptions, Rng
from tests.support import given, random_playout

from .helpers import drafted_per_round, opening, reach

VERSIONS = ["jiangnan-3", "jiangnan-2"]


def _first(until, rules_version: str = "jiangnan-3", **options):
    """The options and events of the first game (over a few seeds) that reaches ``until``."""
    for i in range(50):
        opts, events = opening(f"scene-{i}", rules_version, **options)
        reached = reach(opts, events, until)
        if reached is not None:
            return opts, reached
    raise AssertionError("no game reached the scene")


def _at(kind: str, seat: int | None = None, arg: str | None = None):
    """The condition "a decision of this kind is pending (for this seat, with this argument)"."""

    def pending(s) -> bool:
        if not s.steps:
            return False
        f = s.steps[-1]
        return f.kind == kind and seat in (None, f.seat) and arg in (None, f.arg)

    return pending


# --- 1. Imperial Exam: "Discarded Portfolio Tiles are removed from the game" ---------------------------
@pytest.mark.parametrize("rules_version", VERSIONS)
def test_portfolios_discarded_by_the_exam_never_come_back(rules_version):
    """Imperial Exam: "Discard 2 unpublished Portfolio Tiles ... Discarded Portfolio Tiles are removed
    from the game."  Given chapter 3, round 3, the Age 2 stack already formed and a player holding B8
    and B9 with 6 Ideas at the Society; when they take the Juren exam discarding B8 and B9, then after
    the round-3 Upkeep Events (Swap Age 2 Portfolio Tiles) neither is in the new stack or display.
    jiangnan-2 shuffled every Age 2 tile no player held back in, exam discards included."""
    options, events = _first(
        lambda s: s.round == 3 and _at("society")(s), rules_version, players=3, chapter=3
    )
    seat = given(GAME, events, options).state.steps[-1].seat
    age2 = C.portfolios_of_age(2)
    scene = [
        Age2StackFormed(stack=age2),  # the Age 1 stack ran out: the Age 2 stack is formed
        PortfolioTaken(seat=seat, portfolio="B8", source="stack"),
        PortfolioTaken(seat=seat, portfolio="B9", source="stack"),
        ResourcesChanged(seat=seat, drama=6),
    ]
    game = given(GAME, [*events, *scene], options)
    events = [*events, *scene, *game.when(seat, TakeExam()).events()]
    for command in [DiscardPortfolio(portfolio="B8"), DiscardPortfolio(portfolio="B9")] + [
        PayIdea(idea="drama")
    ] * 6:
        events += given(GAME, events, options).when(seat, command).events()
    events = reach(options, events, lambda s: s.portfolio_age == 2)  # the round-3 swap happened
    state = given(GAME, events, options).state
    society = {*state.stack, *state.display, *(p for batch in state.bottom for p in batch)}
    assert state.p[seat].degree == 1 and {"B8", "B9"}.isdisjoint(state.p[seat].unpublished)
    if rules_version == "jiangnan-3":
        assert {"B8", "B9"}.isdisjoint(society)
        held = {p for q in state.p for p in q.unpublished + q.published}
        assert society == set(age2) - held - {"B8", "B9"}  # every other Age 2 tile not held
    else:
        assert {"B8", "B9"} <= society


# --- 2. Free configuration: "Each player will draft 3 new Action Tiles per round" ----------------------
# (every configuration, exhaustively: test_configurations.py)
def test_a_configuration_that_cannot_be_set_up_as_printed_is_refused():
    """Draft New Action Tiles: "Each player will draft 3 new Action Tiles per round"; Mixed Ages
    Drafting fills the Upkeep board at setup and in Round 1 from one silver bag (Ages 1+2, 24 basic
    tiles), and side B takes "4 Players: 15 Action Tiles".  Given 4 players, Chapter 2 (basic tiles,
    Mixed Ages) and side B, when the game is set up, then it is refused naming why: 9 tiles are left
    for the 12 drafts of Round 2.  The same with side B drawn at random.  jiangnan-2 set such a game
    up, and in Round 2 three Scholars drafted nothing."""
    with pytest.raises(InvalidOptions) as refused:
        GAME.start(JiangnanOptions(players=4, chapter=2, upkeep="B"), "refused")
    assert str(refused.value) == (
        "cannot be set up as printed: side B of the Upkeep board takes 15 Action Tiles at 4 players, and "
        "Mixed Ages Drafting's silver bag of 24 basic Age 1 and 2 tiles has 9 left for the Round 2 draft, "
        "where the 4 players draft 12 (3 each); with side A or the advanced tiles it can be"
    )
    with pytest.raises(InvalidOptions, match=r"^upkeep random may draw side B: cannot be set up as printed"):
        GAME.start(JiangnanOptions(players=4, chapter=2, upkeep="random"), "refused")
    options, events = opening("old", "jiangnan-2", players=4, chapter=2, upkeep="B")
    events = reach(options, events, lambda s: s.round == 3)
    assert sum(drafted_per_round(events, 4)[2]) == 9


def test_side_b_with_the_basic_tiles_and_no_mixed_ages_is_played():
    """Game Setup 7 / Upkeep Events a: side B takes 15 tiles at 4 players, and there are 12 basic
    tiles of Age 1 (and of Age 2): all of them are placed ("Put the remaining Action Tiles of the
    indicated Age back in the box" - none remain), and the 12 drafts of the round take them.  Given
    4 players, Chapter 1 with side B (also drawn at random), when the game is set up, then it is
    accepted (the first jiangnan-3 refused it), every Age 1 tile is on the Upkeep board, and every
    player drafts 3 tiles in each of Rounds 1-4."""
    for upkeep in ("B", "random"):
        options = JiangnanOptions(players=4, chapter=1, upkeep=upkeep, action_tiles="basic", mixed_ages=False)
        state, _ = GAME.start(options, "accepted")
        if state.cfg.upkeep == "B":
            assert sorted(state.upkeep_tiles) == sorted(C.tile_pool([1], False))
        result = random_playout(GAME, options, f"side-b-{upkeep}")
        assert drafted_per_round(result.events, 4) == {r: [3] * 4 for r in C.DRAFT_ROUNDS}


# --- 3. Hidden information: the drawn tile lies on the public Action Track ------------------------------
def test_a_draw_is_public_and_the_bag_stays_hidden():
    """ "The contents of your draw bag is hidden information. Everything else you have is public
    information": given a turn that replenishes the Action Track, the drawn tile is recorded for
    everybody (it is on the track every view shows) while the bag is shown to its owner only."""
    options, events = opening("draw", players=3)
    game = given(GAME, events, options)
    seat = GAME.to_act(game.state)[0]
    rest = next(m for m in GAME.legal_moves(game.state, seat) if type(m).__name__ == "Rest")
    new = game.when(seat, rest).events()
    drawn = [e for e in new if type(e).__name__ == "ActionTileDrawn"]
    assert drawn and all(e.visible_to() is None for e in new)
    after = GAME.fold(given(GAME, events, options).state, new)
    for viewer in (None, *range(3)):
        board = GAME.view(after, viewer).player_boards[seat]
        assert drawn[-1].tile in board.track
        assert board.bag == (sorted(after.p[seat].bag) if viewer == seat else None)


# --- 4. Personal Income: "You may activate them in any order to your benefit" ---------------------------
def _income_scene(rules_version: str):
    """Shops side B with the Printing Press (B1) under pointer A, and seat 0 with Assistant B03:
    the events up to seat 0's Personal Income, with a displayed Portfolio it can publish."""
    seed = next(
        f"income-{i}"
        for i in range(500)
        if (t := GAME.start(JiangnanOptions(players=3, shops="B"), f"income-{i}")[0]).shops[0] == "B1"
        and "B03" in t.muses
    )
    options, events = opening(seed, rules_version, players=3, shops="B")
    events += [MuseHired(seat=0, muse="B03"), ResourcesChanged(seat=0, coins=20)]
    events = reach(options, events, _at("income", 0))
    state = given(GAME, events, options).state
    pid = state.display[0]
    kind = C.PORTFOLIOS[pid]["type"]
    return (
        options,
        [
            *events,
            PortfolioTaken(seat=0, portfolio=pid),
            ResourcesChanged(seat=0, **{kind: C.PORTFOLIOS[pid]["cost"]}),
        ],
        pid,
    )


@pytest.mark.parametrize("rules_version", VERSIONS)
def test_a_servant_placed_during_income_earns_its_income(rules_version):
    """Personal Income: "d. Gain 1 Coin for each of your Servants in the Teahouse district ... Each
    tile may only be activated once per round. You may activate them in any order to your benefit."
    Given seat 0 at its income with Assistant B03 and the pointer on Shop B1; when it activates B03,
    publishes in the Teahouse through B1 (a Servant on the new Display Tile) and ends its income,
    then the Teahouse income counts that Servant.  jiangnan-2 paid it first, before the Servant."""
    options, events, pid = _income_scene(rules_version)
    state = given(GAME, events, options).state
    before = sum(1 for _, owner in state.displays["teahouse"] if owner == 0)
    for command in (ActivateAssistant(assistant="B03"), PublishIn(portfolio=pid, district="teahouse")):
        events += given(GAME, events, options).when(0, command).events()
    state = given(GAME, events, options).state
    now = sum(1 for _, owner in state.displays["teahouse"] if owner == 0)
    assert state.displays["teahouse"][0][1] == 0 and now >= 1
    ended = given(GAME, events, options).when(0, EndIncome()).events()
    paid = [e.coins for e in ended if isinstance(e, ResourcesChanged) and e.why == "teahouse servants"]
    if rules_version == "jiangnan-3":
        assert ServantIncomeTaken(seat=0, district="teahouse") in ended and paid == [now]
    else:  # taken at the start of the income, with the Servants there then
        assert paid == [] and before < now


def test_the_servant_income_may_also_be_taken_before_an_activation():
    """ "in any order to your benefit": given seat 0 at its income with a Servant in the Teahouse and
    no Coin, Assistant B03 ("pay 1 Coin") cannot be activated; when it takes the Teahouse income
    first, then it can."""
    options, events, _pid = _income_scene("jiangnan-3")
    state = given(GAME, events, options).state
    kind = next(k for k, left in state.display_supply.items() if left > 0)
    events += [
        DisplayTileAdded(district="teahouse", kind=kind, seat=0),  # published there earlier
        ResourcesChanged(seat=0, coins=-state.p[0].coins),
    ]
    game = given(GAME, events, options)
    servants = sum(1 for _, owner in game.state.displays["teahouse"] if owner == 0)
    assert ActivateAssistant(assistant="B03") not in GAME.legal_moves(game.state, 0)
    game.when(0, ActivateAssistant(assistant="B03")).raises("cannot_activate")
    after = game.when(0, TakeServantIncome(district="teahouse")).then(
        [
            ServantIncomeTaken(seat=0, district="teahouse"),
            ResourcesChanged(seat=0, coins=servants, why="teahouse servants"),
        ]
    )
    assert ActivateAssistant(assistant="B03") in GAME.legal_moves(after, 0)
    given(GAME, events, options).when(0, TakeServantIncome(district="society")).raises("wrong_district")


# --- 5. Talents A07/A14 at Final Scoring ------------------------------------------------------------
@pytest.mark.parametrize("rules_version", VERSIONS)
def test_a_captain_scores_3_vp_for_each_goal_boat_it_wins(rules_version):
    """A07/A14: "Each time you win first place for boat resolution, you gain 3 VP", and Final Scoring
    1 is "Resolve the 5 Boat Tiles with Scoring Goal Tiles".  Given a player with A07 holding the
    majority on every goal boat in Round 6; when the game ends, then Final Scoring pays them 3 VP per
    goal boat they win (jiangnan-2: only the trend boats paid)."""
    seed = next(
        f"captain-{i}"
        for i in range(200)
        if "A07" in GAME.start(JiangnanOptions(players=3, talents="advanced"), f"captain-{i}")[0].talent_offer
    )
    options, events = opening(seed, rules_version, talent="A07", players=3, talents="advanced")
    captain = next(i for i, p in enumerate(given(GAME, events, options).state.p) if p.talent == "A07")
    events = reach(options, events, lambda s: s.round == 6 and s.phase == "actions")
    state = given(GAME, events, options).state
    goal_boats = [b for b in state.river if b >= 0 and state.boats[b].goal]
    assert len(goal_boats) == 5
    events += [BoatServantPlaced(seat=captain, boat=b) for b in goal_boats for _ in range(6)]
    events = reach(options, events, lambda s: s.finished)
    final = next(i for i, e in enumerate(events) if isinstance(e, FinalScored))
    before = given(GAME, events[:final], options).state
    won = [b for b in goal_boats if boat_ranking(before, b)[0] == captain]
    assert won and power(before, captain) == "captain"
    breakdown = events[final].breakdown[captain]
    if rules_version == "jiangnan-3":
        assert breakdown["boat talent"] == C.CAPTAIN_VP * len(won)
    else:
        assert "boat talent" not in breakdown


# --- 6. The Parlour is on District Board 3 ---------------------------------------------------------
def test_the_parlour_is_on_board_3_and_charm_c_counts_the_boat_below_it():
    """Chapter 5: "use Side B of the Parlour district board", map A1-A2-B3: the Parlour is on board 3,
    the rightmost in Chapters 1, 2, 5 and 6.  Charm C: "1 or more Servants in the Boat Tile beneath
    the Parlour district".  Given Chapter 5 with Charm C in play and a Servant of the visiting player
    on the boat below the Parlour (the rightmost river position); when they place their Servant on a
    Muse, then they may place another - not with the Servant on the boat below the Society."""

    def first_parlour_visit(s) -> bool:  # before any Servant of the visitor is on a boat
        seat = s.steps[-1].seat if s.steps else -1
        return _at("muse", arg="parlour")(s) and all(sp[0] != seat for b in s.boats for sp in b.spaces)

    options, events = _first(first_parlour_visit, players=3, chapter=5)
    state = given(GAME, events, options).state
    assert state.districts[4:] == ["tavern", "parlour"]
    seat = state.steps[-1].seat
    muse = next(m for m in state.muses if m)
    charm = StepBegan(step=Frame(kind="muse", seat=seat, arg="charm"))
    for district, met in (("society", False), ("parlour", True)):
        boat = state.river[state.districts.index(district)]
        scene = [*events, CharmReplaced(charm="C"), BoatServantPlaced(seat=seat, boat=boat)]
        new = given(GAME, scene, options).when(seat, PlaceServant(muse=muse)).events()
        assert (charm in new) == met, district


def test_jiangnan_2_games_keep_their_layout():
    """A game set up under jiangnan-2 keeps the boards it was laid out with (Parlour on board 1)."""
    old = setup_under(JiangnanOptions(players=3), Rng("layout", 0), "jiangnan-2")[0]
    new = setup_under(JiangnanOptions(players=3), Rng("layout", 0))[0]
    assert old.rules_version == "jiangnan-2" and old.districts[:2] == ["society", "parlour"]
    assert new.rules_version == "jiangnan-3" and new.districts == [
        "society",
        "teahouse",
        "travel",
        "temple_fair",
        "tavern",
        "parlour",
    ]


# --- 7. The Temple Fair start (a reading: docs/games/jiangnan.md) --------------------------------------
def test_every_temple_fair_servant_starts_on_the_pointed_shop():
    """Temple Fair: "a. Pay 0 Coins and move your Servant 1 space ... Gain the Passing Bonus shown on
    each path your Servant passes through" - a move starts from a Shop, so the Servant is on one
    before the first visit; the setup text (steps 10-14 are not printed) names none, and the only
    space it marks is the one the pointer points to ("straight up"): every Servant starts there,
    an assumption the data file marks.  Given the first Temple Fair visit of the game, when the
    Servant moves 1 space clockwise, then it passes path 0 and stops on space 1."""
    assert C.FAIR_START == 0 and not C.DATA.fair_start.printed and "assumed" in C.DATA.fair_start.source
    options, events = opening("fair", players=3)
    assert all(p.fair == C.FAIR_START for p in given(GAME, events, options).state.p)
    events = reach(options, events, _at("fair", arg="district"))
    state = given(GAME, events, options).state
    seat = state.steps[-1].seat
    assert state.p[seat].fair == C.FAIR_START
    new = given(GAME, events, options).when(seat, MoveServant(distance=1, clockwise=True)).events()
    assert FairMoved(seat=seat, to=1) in new
    bonus = [e for e in new if isinstance(e, ResourcesChanged) and e.why == "passing bonus"]
    assert C.PASSING_BONUS[0] == ["spirit"] and [e.spirit for e in bonus] == (
        [1] if state.p[seat].spirit < C.SPIRIT_MAX else []
    )

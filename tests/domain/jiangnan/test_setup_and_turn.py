"""Game Setup, the starting portfolio choice, the Player Turn, Rest and hidden information."""

import msgspec
import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    ChooseStartingPortfolio,
    DrawInspiration,
    Pass,
    Rest,
    UseSpiritsTile,
    VisitDistrict,
)
from domain.jiangnan.events import ActionTileDrawn
from domain.jiangnan.evolve import EVOLVER
from domain.kernel import InvalidOptions, redact_for
from tests.support import given, given_state

from .helpers import Story, opening, play, started, types


@pytest.mark.parametrize("players,tiles", [(3, 9), (4, 12)])
def test_chapter_1_setup(players, tiles):
    state, _events = GAME.start(JiangnanOptions(players=players), "setup")
    # District Boards A1-A2-A3: board 1 Society (side B: "Side B of the Society district"), board 2
    # Travel ("Side B of the Travel district board"), board 3 Parlour ("Side B of the Parlour district board")
    assert state.districts == ["society", "teahouse", "travel", "temple_fair", "tavern", "parlour"]
    assert sorted(state.districts) == sorted(C.DISTRICTS) and state.rules_version == "jiangnan-3"
    assert len(state.upkeep_tiles) == tiles and all(t.startswith("1-") for t in state.upkeep_tiles)
    assert len(state.offer) == 4 + players and state.display == []
    assert len(state.stack) == 21 - 4 - players
    assert sorted(state.shops) == list(C.SHOPS_A) and state.pointer == 0
    assert len(state.travel) == 10 and len(set(state.travel.values())) == 10
    assert len([m for m in state.muses if m]) == 4 and len(state.muse_stack) == 12
    assert set(state.muses + state.muse_stack) == {f"B{n:02d}" for n in range(1, 17)}
    assert sorted(len(v) for v in state.displays.values()) == [3, 3]
    kinds = [k for v in state.displays.values() for k, _ in v]
    assert sorted(kinds) == sorted(list(C.IDEAS) * 2)
    assert len(state.goals) == 5 and set(state.goals) <= set("ABCDEF")
    combos = set()
    for boat in state.boats:  # both trend placement rules
        assert len(boat.trends) == 2 and boat.trends[0] != boat.trends[1]
        combos.add(frozenset(boat.trends))
    assert len(combos) == 6
    for p in state.p:
        assert len(p.track) == 4 and len(p.bag) == 8
        assert sorted(p.track + p.bag) == sorted(C.STARTING_TILES)
        assert p.coins == 3 and p.spirit == 4 and p.ideas == {"drama": 1, "novel": 1, "painting": 1}
        assert p.scholars == 3 and p.servants == 25
    # the starting portfolio choice, in reverse turn order
    assert GAME.to_act(state) == [players - 1]


@pytest.mark.parametrize(
    "options",
    [
        JiangnanOptions(players=5),
        JiangnanOptions(players=4, chapter=7),
        JiangnanOptions(players=3, variant=True),
        JiangnanOptions(players=3, difficulty="hard"),
        JiangnanOptions(players=1, difficulty="impossible"),
        JiangnanOptions(players=4, map="A1-A1-B3"),
        JiangnanOptions(players=4, talents="all"),
        JiangnanOptions(players=4, pointer="D"),
    ],
)
def test_unsupported_options(options):
    with pytest.raises(InvalidOptions):
        GAME.start(options, "x")


def test_starting_portfolios_each_keep_one_and_the_rest_form_the_display():
    state, _ = GAME.start(JiangnanOptions(players=3), "pick")
    first = state.offer[0]
    given_state(GAME, state).when(0, ChooseStartingPortfolio(portfolio=first)).raises("not_your_turn")
    given_state(GAME, state).when(2, ChooseStartingPortfolio(portfolio="B15")).raises("illegal_move")
    _, state = play(state, 2, ChooseStartingPortfolio(portfolio=first))
    assert state.p[2].unpublished == [first] and GAME.to_act(state) == [1]
    _, state = play(state, 1, GAME.legal_moves(state, 1)[0])
    _events, state = play(state, 0, GAME.legal_moves(state, 0)[0])
    assert len(state.display) == 4 and state.offer == []
    assert state.phase == "actions" and state.round == 1 and GAME.to_act(state) == [0]


def test_player_turn_five_steps():
    state = Story(drawn={0: ["S01", "S05", "S07", "S12"]}).state  # S01 (rightmost): Society, coin
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    q = after.p[0]
    assert q.used == ["S05"] and q.discarded == ["S01"]
    assert q.coins == 4  # discard bonus
    assert after.tracks["teahouse"] == [0]
    assert after.steps[-1].kind == "publish_or_inspire"
    _events, after = play(after, 0, DrawInspiration())
    q = after.p[0]
    assert q.track[:2] == ["S07", "S12"] and len(q.track) == 4 and len(q.bag) == 6  # slid right, refilled
    assert GAME.to_act(after) == [after.order[1]]


def test_age_3_tiles_offer_either_district():
    # 3-01: Society or Parlour, an Age 3 tile drafted in an earlier Upkeep
    state = Story().next_round(drafted={0: ["3-01"]}, drawn={0: ["S01", "3-01"]}).state
    moves = GAME.legal_moves(state, 0)
    assert (
        VisitDistrict(slot=1, district="society") in moves
        and VisitDistrict(slot=1, district="parlour") in moves
    )
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="travel")).raises("wrong_district")


def test_discard_bonus_may_pay_the_visit():
    # rightmost S09 gives 1 coin; S10 is a Tavern tile
    state = Story(drawn={0: ["S09", "S10"]}).gained(0, "earlier costs", coins=-3).state
    assert VisitDistrict(slot=1, district="tavern") in GAME.legal_moves(state, 0)
    _, after = play(state, 0, VisitDistrict(slot=1, district="tavern"))
    assert after.p[0].coins == 0 and after.p[0].spirit == 5
    # now the discarded tile gives a drama idea
    state = Story(drawn={0: ["S10", "S09"]}).gained(0, "earlier costs", coins=-3).state
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="tavern")).raises("insufficient_coins")


def test_full_scholar_track_cannot_be_visited():
    state = Story(drawn={0: ["S12", "S01"]}).scholars("society", 1, 2, 3, 1).state
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="society")).raises("district_full")


def test_wrong_seat_and_wrong_step():
    state = started()
    given_state(GAME, state).when(1, Rest(slot=0)).raises("not_your_turn")
    given_state(GAME, state).when(0, DrawInspiration()).raises("not_now")
    given_state(GAME, state).when(0, Pass()).raises("not_now")
    given_state(GAME, state).when(0, UseSpiritsTile()).raises("no_spirits_tile")


def test_rest_example():
    """Green has no coins and cannot visit any of its 4 districts: Rest with the third tile,
    discard the rightmost for 1 Spirit, gain 2 Coins and 4 Spirit (capped at 6)."""
    # travel/spirit, parlour, tavern, travel: 1-07 and 1-08 drafted in the round before
    story = Story().next_round(drafted={0: ["1-07", "1-08"]}, drawn={0: ["1-07", "S04", "S10", "1-08"]})
    state = story.gained(0, "earlier costs", coins=-3, spirit=-2).state
    assert GAME.legal_moves(state, 0) == [Rest(slot=i) for i in range(4)]
    _events, after = play(state, 0, Rest(slot=2))
    q = after.p[0]
    assert after.tracks["rest"] == [0] and q.scholars == 2
    assert q.used == ["S10"] and q.discarded == ["1-07"]
    assert q.coins == 2 and q.spirit == 6


def test_spirits_tile_any_time():
    state = Story().spirits_tiles(0).gained(0, "earlier costs", spirit=-2).state
    assert UseSpiritsTile() in GAME.legal_moves(state, 0)
    _, after = play(state, 0, UseSpiritsTile())
    assert after.p[0].spirit == 5 and after.p[0].spirits_tiles == 0 and GAME.to_act(after) == [0]
    state = Story().spirits_tiles(0).gained(0, "rest", spirit=2).state
    given_state(GAME, state).when(0, UseSpiritsTile()).raises("spirit_full")


def test_drawn_tiles_are_public_but_the_bags_are_hidden():
    """ "The contents of your draw bag is hidden information. Everything else you have is public
    information": a drawn tile lies on the Action Track, which every view shows, so the draw is
    public (jiangnan-3; jiangnan-2 showed it to its owner only); the bag stays hidden."""
    state, events = GAME.start(JiangnanOptions(players=3), "hidden")
    drawn = [e for e in events if isinstance(e, ActionTileDrawn)]
    assert len(drawn) == 12
    for e in drawn:
        assert e.visible_to() is None
        assert redact_for(e, (e.seat + 1) % 3) == e and redact_for(e, None) == e
        assert e.tile in GAME.view(state, None).player_boards[e.seat].track
    assert all(e.visible_to() is None for e in events)
    v = GAME.view(state, 1)
    assert v.player_boards[1].bag == sorted(state.p[1].bag)
    assert v.player_boards[0].bag is None and v.player_boards[0].bag_count == 8
    assert "stack" not in msgspec.to_builtins(v.board) and v.board.portfolio_stack_count == len(state.stack)
    assert GAME.view(state, None).player_boards[1].bag is None


def test_given_folds_setup_events():
    state, events = GAME.start(JiangnanOptions(players=4), "fold")
    assert given(GAME, events, JiangnanOptions(players=4)).state == state
    assert GAME.to_act(state) == [3] and types(events)[0] == "GameSetUp"


def test_rejections_reveal_neither_the_stack_nor_a_bag():
    """Hidden information: a Portfolio in the stack and one nobody can see are refused alike, and
    another seat's legal moves are empty (a bag's tiles never appear in a message)."""
    from domain.jiangnan.commands import TakePortfolios

    state = Story(drawn={0: ["S04", "S01"]}).visits(0, "society").state
    hidden, held = state.stack[0], state.p[1].unpublished[0]
    shown = state.display[0]
    a = (
        given_state(GAME, state)
        .when(0, TakePortfolios(portfolios=[shown, hidden]))
        .raises("portfolio_not_displayed")
    )
    b = (
        given_state(GAME, state)
        .when(0, TakePortfolios(portfolios=[shown, held]))
        .raises("portfolio_not_displayed")
    )
    assert str(a) == str(b) and hidden not in str(a)
    assert GAME.legal_moves(state, 1) == []
    given_state(GAME, state).when(1, DrawInspiration()).raises("not_your_turn")
    bag_tile = state.p[0].bag[0]
    msg = str(given_state(GAME, state).when(0, VisitDistrict(slot=9, district="society")).raises("not_now"))
    assert bag_tile not in msg


def test_evolve_has_one_handler_per_event_type():
    """``evolve`` dispatches on the event's type: every event of the game has its handler, and
    the table names nothing else."""
    assert set(EVOLVER.handlers) == set(GAME.event_types)
    assert len(GAME.event_types) == len(set(GAME.event_types))


def test_the_view_keeps_its_json_field_names():
    """The view is the public contract: its own Structs, with the JSON fields clients know (a
    player board omits ``talent`` and ``degree`` until they are set)."""
    options, events = opening(players=2, chapter=6, seed="view")
    state = given(GAME, events, options).state
    seat = GAME.to_act(state)[0]
    view = msgspec.json.decode(msgspec.json.encode(GAME.view(state, seat)))
    assert list(view) == [
        "kind", "players", "round", "phase", "order", "next_order", "to_act", "step", "you", "player_boards",
        "board", "finished", "rules_version",
    ]  # fmt: skip
    board = [
        "coins", "vp", "spirit", "ideas", "bag", "track", "used", "drafted", "discarded", "acquired",
        "scholars", "servants", "proxies", "unpublished", "published", "assistants", "cities", "fair",
        "spirits_tiles", "society_visited", "refreshed", "income_used",
    ]  # fmt: skip
    assert list(view["player_boards"][seat]) == [*board, "talent", "bag_count"]
    assert list(view["player_boards"][2]) == [*board, "bag_count"]  # a vassal colour
    assert list(view["board"]) == [
        "districts", "scholar_tracks", "portfolio_offer", "portfolio_display", "portfolio_stack_count",
        "portfolio_age", "display_tracks", "display_supply", "shops", "pointer", "travel_tiles", "muses",
        "muse_servants", "muse_stack_count", "upkeep_tiles", "boats", "river", "upkeep_boat", "goal_column",
        "trend_track", "spirits_supply", "draft_queue", "final", "config", "talent_offer", "charm",
        "charm_column", "pointed_shops", "bot", "vassals",
    ]  # fmt: skip
    assert view["step"] == {"kind": "turn", "seat": seat, "arg": "", "n": 0}
    assert list(view["board"]["boats"][0]) == ["trends", "goal", "spaces"]
    assert list(view["board"]["config"]) == [
        "exam", "artisans", "charm", "talents", "advanced_tiles", "mixed_ages", "pointer", "upkeep",
        "overlay", "vassals", "variant", "bot", "difficulty",
    ]  # fmt: skip
    assert view["board"]["vassals"] == {"0": 2, "1": 3} and view["board"]["bot"] is None
    names = {type(GAME.view(state, None)).__name__, type(GAME.view(state, None).board).__name__}
    assert names == {"JiangnanView", "JiangnanBoardView"}

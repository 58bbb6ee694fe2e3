"""Random playouts: complete games at 3 and 4 players with invariants checked at every step."""

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from tests.support import random_playout


def check(state, events) -> None:
    s = state
    for i, p in enumerate(s.p):
        assert 0 <= p.spirit <= C.SPIRIT_MAX
        assert p.coins >= 0 and p.vp >= 0
        assert all(v >= 0 for v in p.ideas.values())
        # 12 starting tiles plus every drafted tile are somewhere (bag, track, used, drafted, discarded).
        assert len(p.bag) + len(p.track) + len(p.used) + len(p.drafted) + len(p.discarded) == p.acquired
        assert p.acquired <= 12 + 3 * len(C.DRAFT_ROUNDS)
        assert len(p.track) <= C.TRACK_SIZE
        # the bag has no order: it is kept sorted
        assert p.bag == sorted(p.bag)
        placed = sum(1 for d in s.displays.values() for _, owner in d if owner == i)
        placed += sum(v.count(i) for v in s.muse_servants.values())
        placed += sum(cnt for b in s.boats for seat, cnt in b.spaces if seat == i)
        placed += len(p.cities)
        assert p.servants + placed == C.SERVANTS + p.proxies
        assert p.servants >= 0 and p.proxies >= 0
    # hidden information: nobody else sees a bag's contents, and no view has a bag order
    last = events[-1]
    if last.visible_to() is not None or len(events) % 7 == 0:
        for viewer in (None, 0):
            v = GAME.view(s, viewer)
            for i, board in enumerate(v.player_boards):
                if viewer != i and not s.finished:
                    assert board["bag"] is None
                else:
                    assert board["bag"] == sorted(board["bag"])


@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts(players):
    for i in range(200):
        result = random_playout(GAME, JiangnanOptions(players=players), f"jn-{players}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


@pytest.mark.parametrize("players", [3, 4])
def test_every_listed_move_is_accepted(players):
    for i in range(3):
        random_playout(GAME, JiangnanOptions(players=players), f"all-{players}-{i}", check_all_legal_moves=True)


def test_describe_narrates_every_event():
    result = random_playout(GAME, JiangnanOptions(players=4), "narrate")
    state = GAME.initial(JiangnanOptions(players=4))
    for event in result.events:
        line = GAME.describe(state, event)
        assert isinstance(line, str)
        state = GAME.evolve(state, event)


def test_anything_not_listed_is_rejected_with_a_rule_code():
    from domain.jiangnan.commands import (
        ActivateAssistant, ChooseTrend, DraftTile, DrawInspiration, EndIncome, ExchangeIdeas, MoveBoatServant,
        MoveServant, Pass, PlaceOnBoat, PlaceServant, Publish, RefreshPortfolios, Rest, SwapActionTile,
        TakeIdea, TakeIdeas, TakePortfolio, TakePortfolios, TravelTo, UseSpiritsTile, VisitDistrict,
    )
    from domain.kernel import Rng, RuleViolation

    pool = [
        VisitDistrict(slot=0, district="society"), VisitDistrict(slot=3, district="parlour"), VisitDistrict(slot=9, district="travel"),
        Rest(slot=0), Rest(slot=5), RefreshPortfolios(), TakePortfolios(portfolios=["A1"]), TakeIdeas(ideas=["gold", "drama"]),
        TakePortfolio(portfolio="C15"), TakeIdea(idea="painting"), Publish(portfolio="A1"), DrawInspiration(),
        PlaceServant(muse="B20"), TravelTo(city="A3"), TravelTo(city="Z9"), MoveServant(distance=4, clockwise=True),
        MoveServant(distance=3, clockwise=False), PlaceOnBoat(boat=9), MoveBoatServant(from_boat=0, to_boat=0),
        ExchangeIdeas(give=["drama"], take=["novel"]), SwapActionTile(tile="S01", slot=7), ActivateAssistant(assistant="B01"),
        EndIncome(), ChooseTrend(trend="gold"), DraftTile(tile="4-01"), Pass(), UseSpiritsTile(),
    ]
    for g in range(2):
        state, events = GAME.start(JiangnanOptions(players=3 + g), f"fuzz-{g}")
        chooser = Rng(f"fuzz-{g}/chooser")
        while not state.finished:
            seat = GAME.to_act(state)[0]
            legal = GAME.legal_moves(state, seat)
            for command in pool:
                for who in range(state.players):
                    try:
                        GAME.decide(state, who, command, Rng("f", 0))
                    except RuleViolation as v:
                        assert v.code and (who != seat) == (v.code == "not_your_turn")
                    else:
                        assert who == seat and command in legal
            state = GAME.fold(state, GAME.decide(state, seat, chooser.choice(legal), Rng("p", len(events))))


def test_views_and_components_encode():
    import msgspec

    result = random_playout(GAME, JiangnanOptions(players=3), "views")
    for viewer in (None, 0, 1, 2):
        v = GAME.view(result.state, viewer)
        assert msgspec.json.decode(msgspec.json.encode(v))["finished"] is True
        assert all(board["bag"] is not None for board in v.player_boards)  # revealed after the end
    msgspec.json.encode(GAME.components())
    out = GAME.outcome(result.state)
    assert sorted(s.rank for s in out.scores) == [1, 2, 3] and out.winners == [s.seat for s in out.scores if s.rank == 1]
    assert all(set(s.breakdown) >= {"goals", "sets", "assistants", "scenery", "ideas", "during the game"} for s in out.scores)

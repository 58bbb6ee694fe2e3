"""Take-backs: every public event that makes a hidden fact known is listed in ``REVEALING``.

Yangtze hides the bag's contents and the goods behind each screen that were never on the river
(the starting goods).  The view carries the per-viewer part in ``known_goods`` alone, so a viewer's
knowledge is the set of goods whose place it can see: the river, the box and its ``known_goods``.
A command that draws nothing and emits no private and no ``REVEALING`` event must not grow that
set for any seat but the actor, nor for a spectator.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from domain.kernel import Event, Rng
from domain.kernel.bots import bot_rng, choose
from domain.yangtze import GAME
from domain.yangtze.events import REVEALING, FinalScoring, GoodExchanged, GoodReturned, GoodsSold
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.versions import YANGTZE_2
from domain.yangtze.view import YangtzeView

PER_VIEWER = {"seat", "known_goods"}
"""The only view fields that may differ between viewers (checked by the test below)."""


def known(view: YangtzeView) -> set[int]:
    """The goods whose place this viewer can see."""
    goods = {g for g in view.river if g is not None} | set(view.box)
    for screen in view.known_goods:
        goods |= set(screen)
    return goods


def shared_part(view: YangtzeView) -> dict:
    data = msgspec.to_builtins(view)
    return {k: v for k, v in data.items() if k not in PER_VIEWER}


def steps(players: int, seed: str, levels: dict[int, str], version: str | None = None) -> Iterator:
    """Each command of one game: (state before, seat, events, draws, state after)."""
    options = YangtzeOptions(players=players)
    state, events = GAME.start(options, seed, version)
    position = len(events)
    chooser = Rng(seed + "/chooser")
    moves = 0
    while GAME.outcome(state) is None:
        seats = GAME.to_act(state)
        seat = seats[chooser.below(len(seats))]
        legal = GAME.legal_moves(state, seat)
        level = levels.get(seat, "random")
        view = GAME.view(state, seat)
        move = choose(GAME, level, view, seat, legal, bot_rng(seed, position, seat))
        rng = Rng(seed, position)
        new = GAME.decide(state, seat, move, rng)
        after = GAME.fold(msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=GAME.state_type), new)
        yield state, seat, new, rng.draws, after
        state = after
        position += len(new)
        moves += 1
        assert moves < 20_000


def leaks(before, seat: int, events: list[Event], after, revealing: frozenset[type]) -> list[str]:
    """What a command judged undoable would have revealed (empty: nothing)."""
    players = before.players
    viewers = [None, *range(players)]
    for s in (before, after):
        parts = [shared_part(GAME.view(s, v)) for v in viewers]
        assert all(p == parts[0] for p in parts), "a view differs beyond known_goods"
    if any(e.visible_to() is not None for e in events):
        return []
    if any(type(e) in revealing for e in events):
        return []
    out = []
    for viewer in viewers:
        if viewer == seat:
            continue
        grown = known(GAME.view(after, viewer)) - known(GAME.view(before, viewer))
        if grown:
            out.append(f"{viewer} learns {sorted(grown)} from {events!r}")
    return out


GAMES = [
    (2, "rev-a", {0: "heuristic"}, None),
    (3, "rev-b", {1: "heuristic", 2: "heuristic"}, None),
    (4, "rev-c", {}, None),
    (4, "rev-d", {0: "heuristic", 3: "heuristic"}, YANGTZE_2),
    (2, "rev-e", {}, None),
    *((2 + i % 3, f"rev-{i}", {i % 2: "heuristic"}, None if i % 4 else YANGTZE_2) for i in range(15)),
]


@pytest.mark.parametrize(("players", "seed", "levels", "version"), GAMES)
def test_an_undoable_command_reveals_nothing(players, seed, levels, version):
    undoable = 0
    for before, seat, events, draws, after in steps(players, seed, levels, version):
        if draws:
            continue
        problems = leaks(before, seat, events, after, REVEALING)
        assert not problems, problems
        undoable += 1
    assert undoable > 10


def test_the_check_catches_a_missing_revealing_event():
    """Without any one of the events that are not draws, the check above finds the leak."""
    for missing in (GoodsSold, GoodReturned, GoodExchanged, FinalScoring):
        found = False
        for players, seed, levels, version in GAMES:
            for before, seat, events, draws, after in steps(players, seed, levels, version):
                if draws == 0 and leaks(before, seat, events, after, REVEALING - {missing}):
                    found = True
                    break
            if found:
                break
        assert found, f"removing {missing.__name__} went unnoticed"

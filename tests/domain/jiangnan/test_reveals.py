"""Take-backs: a command whose events are all public, none in ``REVEALING``, and whose decide drew
no randomness must not let any other seat (or a spectator) learn something hidden from it before.

Jiangnan's views differ between viewers only in the draw bags (``bag``: to its owner, to everybody
once the game is over).  The check, per command and per other viewer ``o``: every field of
``view(after, o)`` that differs from ``view(before, o)`` was not hidden from ``o`` before (null for
``o`` while another viewer saw it), and afterwards is either the same in every viewer's view or on
``o``'s own player board."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan.events import REVEALING, FinalScored
from domain.kernel import Rng


def _leaves(node: Any, path: tuple = ()) -> dict[tuple, Any]:
    """Flatten a JSON value: dicts and lists of dicts recurse, other values are leaves."""
    if isinstance(node, dict):
        out: dict[tuple, Any] = {}
        for k, v in node.items():
            out.update(_leaves(v, (*path, k)))
        return out
    if isinstance(node, list) and any(isinstance(x, dict) for x in node):
        out = {}
        for i, v in enumerate(node):
            out.update(_leaves(v, (*path, i)))
        return out
    return {path: node}


def _views(state: Any, viewers: list[int | None]) -> dict[int | None, dict[tuple, Any]]:
    return {v: _leaves(msgspec.to_builtins(GAME.view(state, v))) for v in viewers}


def _leaks(before: Any, after: Any, actor: int, players: int) -> list[str]:
    viewers: list[int | None] = [None, *range(players)]
    vb, va = _views(before, viewers), _views(after, viewers)
    found = []
    for o in viewers:
        if o == actor:
            continue
        for path in set(vb[o]) | set(va[o]):
            if path == ("you",) or vb[o].get(path) == va[o].get(path):
                continue
            hidden_before = vb[o].get(path) is None and any(vb[v].get(path) is not None for v in viewers)
            if hidden_before:
                found.append(f"viewer {o}: {path} was hidden, now {va[o].get(path)!r}")
                continue
            own = o is not None and path[:2] == ("player_boards", o)
            public = all(va[v].get(path) == va[o].get(path) for v in viewers)
            if not (own or public):
                found.append(f"viewer {o}: {path} became {va[o].get(path)!r}, not seen by all")
    return found


def _play(options: JiangnanOptions, seed: str, revealing: frozenset[type]) -> tuple[int, list[str]]:
    """A random game; returns (commands checked, leaks found)."""
    state, events = GAME.start(options, seed)
    position = len(events)
    chooser = Rng(seed + "/chooser")
    checked, leaks = 0, []
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        command = chooser.choice(GAME.legal_moves(state, seat))
        rng = Rng(seed, position)
        new = GAME.decide(state, seat, command, rng)
        after = GAME.fold(msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=type(state)), new)
        quiet = all(e.visible_to() is None and type(e) not in revealing for e in new)
        if quiet and rng.draws == 0:
            checked += 1
            leaks += [f"{command!r}: {leak}" for leak in _leaks(state, after, seat, options.players)]
        state = after
        position += len(new)
    return checked, leaks


GAMES = [
    (JiangnanOptions(players=3), "reveal-a"),
    (JiangnanOptions(players=4, chapter=6), "reveal-b"),
    (JiangnanOptions(players=2), "reveal-c"),
    (JiangnanOptions(players=1, chapter=3), "reveal-d"),
    (JiangnanOptions(players=3, chapter=5, mixed_ages=True, shops="B"), "reveal-e"),
    (JiangnanOptions(players=2, chapter=4, variant=True), "reveal-f"),
    (JiangnanOptions(players=1, chapter=6, difficulty="inferno"), "reveal-g"),
    (JiangnanOptions(players=4, chapter=2, talents="characters"), "reveal-h"),
]


def test_commands_outside_revealing_leak_nothing():
    for options, seed in GAMES:
        checked, leaks = _play(options, seed, REVEALING)
        assert checked > 20
        assert not leaks, leaks[:5]


def test_the_check_catches_a_missing_reveal():
    """Without FinalScored (the game ends: every bag opens) the check must report the leak."""
    _, leaks = _play(*GAMES[0], REVEALING - {FinalScored})
    assert any("bag" in leak for leak in leaks)

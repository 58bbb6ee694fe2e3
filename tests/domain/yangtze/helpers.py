"""Small builders for Yangtze tests: exact tables without going through random draws."""

from __future__ import annotations

from typing import Any

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.events import GameSetUp, StartingGoodsDrawn
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.state import State


def lux(good: int, colour: int) -> int:
    """A luxury tile: good 0..4, colour 0..4."""
    return 5 * good + colour


def daily(good: int, colour: int) -> int:
    """A daily-needs tile: good 0..5, colour 0..5."""
    return 25 + 6 * good + colour


RULER = {
    kind if kind != C.BRANCH_INCOME else f"{kind}_{p}": C.RULER_FIRST + i
    for i, (kind, p) in enumerate(C.RULER_ORDERS)
}
"""Ruler token id by order kind (branch income: "branch_income_<type>")."""


def branch(typ: int, k: int) -> int:
    """Branch token of type *typ*; k = 0, 1 green (1, 2 dots), k = 2, 3, 4 brown (3, 5, 8 dots)."""
    return C.BRANCH_FIRST + 5 * typ + k


DEFAULT_RIVER = [daily(5, c) for c in range(6)] + [lux(4, 0), lux(4, 1)]


def setup_events(
    players: int = 2, river: list[int] | None = None, hands: list[list[int]] | None = None
) -> list:
    river = list(river if river is not None else DEFAULT_RIVER)
    if hands is None:
        hands = [[] for _ in range(players)]
    events: list[Any] = [GameSetUp(players=players, river=river)]
    events += [StartingGoodsDrawn(seat=s, goods=list(h)) for s, h in enumerate(hands)]
    return events


def table(
    players: int = 2, river: list[int] | None = None, hands: list[list[int]] | None = None, **fields: Any
) -> State:
    """A folded table with the given river and hands, then *fields* overwritten (e.g. bag=[...],
    track=[...])."""
    state = GAME.fold(GAME.initial(YangtzeOptions(players=players)), setup_events(players, river, hands))
    for name, value in fields.items():
        setattr(state, name, value)
    return state

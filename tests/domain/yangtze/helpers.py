"""Small builders for Yangtze tests: exact tables without going through random draws, and complete
games to walk through."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.kernel import Rng
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    Bid,
    DoneSelling,
    EndTurn,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    SellBundle,
)
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


def thrifty_choice(rnd: random.Random, state: State, legal: list) -> Any:
    """A less reckless player than uniform choice: bids small, buys when it can, sells big bundles
    sometimes, plays cards now and then -- so that games reach the 12th ruler."""
    by: dict[type, list] = {}
    for m in legal:
        by.setdefault(type(m), []).append(m)
    cards = by.get(PlayLiquidity, []) + by.get(PlaySellCard, [])
    if cards and rnd.random() < 0.03:
        return rnd.choice(cards)
    if Bid in by or (Pass in by and state.phase == "auction"):
        if Bid in by and rnd.random() < 0.5:
            return by[Bid][min(len(by[Bid]) - 1, rnd.randrange(3))]
        return Pass()
    if DoneSelling in by:
        return rnd.choice(by[SellBundle]) if SellBundle in by and rnd.random() < 0.6 else DoneSelling()
    if PurchaseGood in by or EndTurn in by:
        if SellBundle in by and (PurchaseGood not in by or rnd.random() < 0.3):
            return max(by[SellBundle], key=lambda m: len(m.goods))
        if PurchaseGood in by and rnd.random() < 0.95:
            return rnd.choice(by[PurchaseGood])
        return EndTurn()
    return rnd.choice(legal)


def tables(players: int, seed: str, *, thrifty: bool = False) -> Iterator[tuple[State, int]]:
    """Play one complete game (uniform choices, or :func:`thrifty_choice`); yield every table at
    which a seat must decide, with the events so far counted (for the command's Rng position)."""
    state, events = GAME.start(YangtzeOptions(players=players), seed)
    count = len(events)
    chooser, rnd = Rng(seed + "/chooser"), random.Random(seed)
    while GAME.outcome(state) is None:
        yield state, count
        seats = GAME.to_act(state)
        seat = seats[chooser.below(len(seats))]
        legal = GAME.legal_moves(state, seat)
        command = thrifty_choice(rnd, state, legal) if thrifty else chooser.choice(legal)
        new = GAME.decide(state, seat, command, Rng(seed, count))
        state = GAME.fold(state, new)
        count += len(new)

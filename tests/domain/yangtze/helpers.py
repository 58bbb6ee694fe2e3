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
from domain.yangtze.events import (
    BidPlaced,
    BranchDrawn,
    BranchWon,
    GameSetUp,
    GoodDrawn,
    GoodPurchased,
    LiquidityCardPlayed,
    Passed,
    PurchaseSkipped,
    SellCardPlayed,
    SellingDone,
    StartingGoodsDrawn,
    TurnEnded,
)
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.state import State
from domain.yangtze.versions import RULES_VERSION


def lux(good: int, colour: int) -> int:
    """A luxury tile: good 0..4, colour 0..4."""
    return 5 * good + colour


def daily(good: int, colour: int) -> int:
    """A daily-needs tile: good 0..5, colour 0..5."""
    return 25 + 6 * good + colour


RULER = {
    kind if kind != C.BRANCH_INCOME else f"{kind}_{'_'.join(map(str, types))}": C.RULER_FIRST + i
    for i, (kind, types) in enumerate(C.RULER_ORDERS)
}
"""Ruler token id by order kind (branch income: "branch_income_<type>")."""


def branch(typ: int, k: int) -> int:
    """Branch token of type *typ*; k = 0, 1 green (1, 2 dots), k = 2, 3, 4 brown (3, 5, 8 dots)."""
    return C.BRANCH_FIRST + 5 * typ + k


DEFAULT_RIVER = [daily(5, c) for c in range(6)] + [lux(4, 0), lux(4, 1)]


def setup_events(
    players: int = 2,
    river: list[int] | None = None,
    hands: list[list[int]] | None = None,
    version: str = RULES_VERSION,
) -> list:
    """The opening events of a table with the given river and hands, under rules *version*."""
    river = list(river if river is not None else DEFAULT_RIVER)
    if hands is None:
        hands = [[] for _ in range(players)]
    events: list[Any] = [GameSetUp(players=players, river=river, rules_version=version)]
    events += [StartingGoodsDrawn(seat=s, goods=list(h)) for s, h in enumerate(hands)]
    return events


def table(
    players: int = 2,
    river: list[int] | None = None,
    hands: list[list[int]] | None = None,
    version: str = RULES_VERSION,
    **fields: Any,
) -> State:
    """A folded table with the given river and hands, then *fields* overwritten (e.g. bag=[...],
    track=[...]).  Older tests build tables this way; new ones fold events only."""
    state = GAME.fold(
        GAME.initial(YangtzeOptions(players=players)), setup_events(players, river, hands, version)
    )
    for name, value in fields.items():
        setattr(state, name, value)
    return state


# --- tables folded from events only ---------------------------------------------------------------
class Story:
    """A table told as the events a game could have produced (no state field is assigned): set up
    with the given river and hands under rules *version*, then what :meth:`auction_round`,
    :meth:`sell_card_used` and :meth:`liquidity_used` add.  ``state`` folds them."""

    def __init__(
        self,
        players: int = 2,
        river: list[int] | None = None,
        hands: list[list[int]] | None = None,
        version: str = RULES_VERSION,
    ) -> None:
        self.players = players
        self.events: list[Any] = setup_events(players, river, hands, version)

    @property
    def state(self) -> State:
        return GAME.fold(GAME.initial(YangtzeOptions(players=self.players)), self.events)

    def auction_round(self, wins: list[tuple[int, int, int]]) -> Story:
        """Seat 0 buys the good at Shanghai (price 4); the refill draws each branch token of
        *wins* ``(seat, token, price)``: that seat bids the price, every other seat passes.  Then
        the smallest good in the bag fills the river, and the others buy nothing until it is seat
        0's turn again."""
        s = self.state
        assert s.phase == "turn" and s.active == 0 and s.river[7] is not None
        events: list[Any] = [GoodPurchased(seat=0, slot=7, good=s.river[7], price=C.PRICES[7])]
        for seat, token, price in wins:
            events.append(BranchDrawn(token=token))
            for other in range(self.players):
                events.append(BidPlaced(seat=seat, amount=price) if other == seat else Passed(seat=other))
            events.append(BranchWon(seat=seat, token=token, price=price))
        events.append(GoodDrawn(good=min(t for t in s.bag if C.is_good(t))))
        events.append(TurnEnded(seat=0, next=1 % self.players))
        for seat in range(1, self.players):
            events += [PurchaseSkipped(seat=seat), TurnEnded(seat=seat, next=(seat + 1) % self.players)]
        self.events += events
        return self

    def sell_card_used(self, *seats: int) -> Story:
        """Each seat played its sell card earlier and sold nothing with it."""
        for seat in seats:
            self.events += [SellCardPlayed(seat=seat), SellingDone(seat=seat)]
        return self

    def liquidity_used(self, seat: int, *values: int) -> Story:
        """The seat redeemed these liquidity cards earlier."""
        self.events += [LiquidityCardPlayed(seat=seat, value=v) for v in values]
        return self


def seed_drawing(state: State, *draws: Any) -> str:
    """A seed whose draws (``Rng(seed, 0)``, as a command given it draws from this table's bag)
    are *draws* in order: each a token id or a predicate on the token drawn."""
    for i in range(200_000):
        seed = f"draw-{i}"
        rng, bag = Rng(seed, 0), list(state.bag)
        for want in draws:
            token = bag.pop(rng.below(len(bag)))
            if not (want(token) if callable(want) else token == want):
                break
        else:
            return seed
    raise AssertionError(f"no seed draws {draws}")


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

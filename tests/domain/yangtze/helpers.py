"""Small builders for Yangtze tests: exact tables without going through random draws, and complete
games to walk through."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from domain.kernel import Rng
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    Bid,
    DeclineOrder,
    DoneSelling,
    EndTurn,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    ReturnGood,
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
    RulerDrawn,
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
) -> State:
    """A folded table with the given river and hands, just set up."""
    return GAME.fold(
        GAME.initial(YangtzeOptions(players=players)), setup_events(players, river, hands, version)
    )


SPARE = [lux(4, 2), lux(4, 3), lux(4, 4)]
"""Goods on no test's river or screen: the goods at Shanghai that :class:`Story` rounds buy when the
river is to hold :data:`DEFAULT_RIVER` again after them."""


# --- tables folded from events only ---------------------------------------------------------------
class Story:
    """A table told as the events a game could have produced (no state field is assigned): set up
    with the given river and hands under rules *version*, then what the methods below add (each
    tells one situation).  ``state`` folds them.

    *rounds*: how many rounds (:meth:`auction_round`, :meth:`ruler_round`) will be told when the
    river is to be :data:`DEFAULT_RIVER` after them -- it is set up shifted by that many places, with
    :data:`SPARE` goods at its end, and each round's refill draws the good that shifts it back."""

    def __init__(
        self,
        players: int = 2,
        river: list[int] | None = None,
        hands: list[list[int]] | None = None,
        version: str = RULES_VERSION,
        rounds: int = 0,
    ) -> None:
        if rounds:
            assert river is None and rounds <= len(SPARE)
            river = [*DEFAULT_RIVER[rounds:], *SPARE[:rounds]]
        self.players = players
        self.events: list[Any] = setup_events(players, river, hands, version)
        self._refills: list[int] = DEFAULT_RIVER[:rounds][::-1]

    @property
    def state(self) -> State:
        return GAME.fold(GAME.initial(YangtzeOptions(players=self.players)), self.events)

    def _refill(self, state: State) -> int:
        """The good a round's refill draws: the one that shifts the river back (``rounds``), or the
        smallest good in the bag."""
        good = self._refills.pop(0) if self._refills else min(t for t in state.bag if C.is_good(t))
        assert good in state.bag, f"good {good} is not in the bag"
        return good

    def _play(self, seat: int, command: Any, draws: list[Any] | None = None) -> list[Any]:
        """Decide *command* on the table so far and add its events; the draws from the bag it makes
        are the first of *draws* (removed from the list), chosen with :func:`seed_drawing`."""
        state = self.state
        seed = seed_drawing(state, *draws[:2]) if draws else "story"
        events = GAME.decide(state, seat, command, Rng(seed, 0))
        drawn = [e for e in events if isinstance(e, (GoodDrawn, BranchDrawn, RulerDrawn))]
        if draws is not None:
            assert len(drawn) <= len(draws), f"{command!r} drew more than {draws}"
            del draws[: len(drawn)]
        else:
            assert not drawn, f"{command!r} drew from the bag"
        self.events += events
        return events

    def auction_round(self, wins: list[tuple[int, int, int]]) -> Story:
        """Seat 0 buys the good at Shanghai (price 4); the refill draws each branch token of
        *wins* ``(seat, token, price)``: that seat bids the price, every other seat passes.  Then
        the smallest good in the bag (or the one ``rounds`` asks for) fills the river, and the
        others buy nothing until it is seat 0's turn again."""
        s = self.state
        assert s.phase == "turn" and s.active == 0 and s.river[7] is not None
        events: list[Any] = [GoodPurchased(seat=0, slot=7, good=s.river[7], price=C.PRICES[7])]
        for seat, token, price in wins:
            events.append(BranchDrawn(token=token))
            for other in range(self.players):
                events.append(BidPlaced(seat=seat, amount=price) if other == seat else Passed(seat=other))
            events.append(BranchWon(seat=seat, token=token, price=price))
        events.append(GoodDrawn(good=self._refill(s)))
        events.append(TurnEnded(seat=0, next=1 % self.players))
        for seat in range(1, self.players):
            events += [PurchaseSkipped(seat=seat), TurnEnded(seat=seat, next=(seat + 1) % self.players)]
        self.events += events
        return self

    def ruler_round(self, ruler: int, wins: Sequence[tuple[int, int, int]] = ()) -> Story:
        """Seat 0 buys the good at Shanghai (price 4); the refill draws each branch token of *wins*
        ``(seat, token, price)`` (that seat bids the price, every other seat passes), then the
        ruler token *ruler*.  Its order goes round, each seat answering it the plainest way: no
        card played before it, a question-mark order declined, the good it got last put back for a
        return order, the first ruler chosen for a repeat order, the largest liquidity card
        redeemed for a debt.  Then the smallest good in the bag (or the one ``rounds`` asks for)
        fills the river, and the others buy nothing until it is seat 0's turn again.  Played as
        commands, so every event is one the rules give."""
        s = self.state
        assert s.phase == "turn" and s.active == 0 and s.river[7] is not None
        bids = {token: (seat, price) for seat, token, price in wins}
        draws: list[Any] = [*bids, ruler, self._refill(s)]
        self._play(0, PurchaseGood(slot=7), draws)
        self._answer(bids, draws)
        return self._others_buy_nothing()

    def turn(self, seat: int, *purchases: PurchaseGood, wins: Sequence[tuple[int, int, int]] = ()) -> Story:
        """The seat whose turn it is makes *purchases* (with the free-good or buy-two card as they
        say); the refill draws each branch token of *wins* ``(seat, token, price)`` (that seat bids
        the price, every other seat passes), then the smallest goods in the bag.  Played as
        commands."""
        s = self.state
        assert s.phase == "turn" and s.active == seat
        gaps = s.river.count(None) + len(purchases)
        bids = {token: (winner, price) for winner, token, price in wins}
        draws: list[Any] = [*bids, *sorted(t for t in s.bag if C.is_good(t))[:gaps]]
        for purchase in purchases:
            self._play(seat, purchase, draws)
        self._answer(bids, draws)
        assert self.state.active == (seat + 1) % self.players
        return self

    def _answer(self, bids: dict[int, tuple[int, int]], draws: list[Any]) -> None:
        """Answer the auctions (the winner bids its price, the others pass) and the rulers' orders
        (:meth:`_plainest_answer`) until a turn waits."""
        while (s := self.state).phase in ("auction", "ruler"):
            seat = GAME.to_act(s)[0]
            if s.phase == "auction":
                winner, price = bids[s.auction_token]
                answer: Any = Bid(amount=price) if seat == winner and s.high_bidder != seat else Pass()
            else:
                answer = self._plainest_answer(s, seat)
            self._play(seat, answer, draws)
        assert not draws and s.phase == "turn"

    @staticmethod
    def _plainest_answer(s: State, seat: int) -> Any:
        legal = GAME.legal_moves(s, seat)
        moves = [m for m in legal if not isinstance(m, (PlayLiquidity, PlaySellCard))]
        if not moves:  # a debt: the seat redeems a liquidity card
            return max((m for m in legal if isinstance(m, PlayLiquidity)), key=lambda m: m.value)
        last = s.screens[seat][-1] if s.screens[seat] else -1
        for plain in (Pass(), DeclineOrder(), ReturnGood(good=last)):
            if plain in moves:
                return plain
        return moves[0]

    def _others_buy_nothing(self) -> Story:
        while (s := self.state).active != 0:
            self._play(s.active, EndTurn())
        assert GAME.outcome(self.state) is None
        return self

    def bought_nothing(self, seat: int) -> Story:
        """The seat whose turn it is buys nothing and ends its turn."""
        assert self.state.active == seat
        self._play(seat, EndTurn())
        assert GAME.outcome(self.state) is None
        return self

    def sold(self, seat: int, goods: list[int]) -> Story:
        """At the start of its turn the seat sold *goods* as one bundle."""
        self._play(seat, SellBundle(goods=list(goods)))
        return self

    def sold_with_the_sell_card(self, seat: int, *bundles: list[int]) -> Story:
        """The seat played its sell card and sold *bundles* with it."""
        self._play(seat, PlaySellCard())
        for goods in bundles:
            self._play(seat, SellBundle(goods=list(goods)))
        self._play(seat, DoneSelling())
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

"""Yangtze's events (past tense).  Random outcomes (draws from the bag) are recorded in them."""

from __future__ import annotations

from domain.kernel import Event, Seat

from .versions import YANGTZE_2


class YangtzeEvent(Event, frozen=True, tag=lambda name: f"yangtze.{name}"):
    pass


class GameSetUp(YangtzeEvent, frozen=True):
    players: int
    river: list[int]
    """The goods placed on the river, index 0 at the open end."""
    rules_version: str = YANGTZE_2
    """The rules the game is played under (a game set up before this field existed: yangtze-2)."""


class StartingGoodsDrawn(YangtzeEvent, frozen=True):
    """Goods drawn from the bag behind a screen: only their owner sees them."""

    seat: int
    goods: list[int]
    count: int = 0

    def visible_to(self) -> tuple[Seat, ...] | None:
        return (self.seat,)

    def redacted(self) -> Event | None:
        return StartingGoodsDrawn(seat=self.seat, goods=[], count=len(self.goods))


class GoodsSold(YangtzeEvent, frozen=True):
    seat: int
    goods: list[int]
    value: int
    via: str = "turn"
    """"turn" (start of the turn), "card" (sell-any-time card) or "order" (a ruler's order)."""


class SellCardPlayed(YangtzeEvent, frozen=True):
    seat: int


class SellingDone(YangtzeEvent, frozen=True):
    seat: int


class LiquidityCardPlayed(YangtzeEvent, frozen=True):
    seat: int
    value: int
    forced: bool = False
    """Redeemed to settle a tax debt."""


class GoodPurchased(YangtzeEvent, frozen=True):
    seat: int
    slot: int
    good: int
    price: int
    free: bool = False
    buy_two: bool = False


class PurchaseSkipped(YangtzeEvent, frozen=True):
    seat: int


class GoodDrawn(YangtzeEvent, frozen=True):
    """A good drawn from the bag and pushed onto the river at the open end."""

    good: int


class BranchDrawn(YangtzeEvent, frozen=True):
    token: int


class BidPlaced(YangtzeEvent, frozen=True):
    seat: int
    amount: int


class Passed(YangtzeEvent, frozen=True):
    seat: int


class BranchWon(YangtzeEvent, frozen=True):
    seat: int
    token: int
    price: int


class BranchDiscarded(YangtzeEvent, frozen=True):
    token: int


class RulerDrawn(YangtzeEvent, frozen=True):
    token: int
    spot: int


class OrderExecuted(YangtzeEvent, frozen=True):
    """An order that needs no decision: branch income (amount > 0) or a tax (amount < 0)."""

    seat: int
    order: str
    amount: int
    forgiven: int = 0


class GoodReturned(YangtzeEvent, frozen=True):
    seat: int
    good: int


class GoodExchanged(YangtzeEvent, frozen=True):
    seat: int
    good: int
    """The good put on the river."""
    slot: int
    taken: int
    """The good taken from the river."""


class LiquidityBoughtBack(YangtzeEvent, frozen=True):
    seat: int
    value: int


class RulerChosen(YangtzeEvent, frozen=True):
    seat: int
    spot: int


class OrderDeclined(YangtzeEvent, frozen=True):
    seat: int


class ResponsePassed(YangtzeEvent, frozen=True):
    """The seat plays no card before an automatic order is applied to it (yangtze-3)."""

    seat: int


class OrderSkipped(YangtzeEvent, frozen=True):
    """The order has nothing to act on for this seat (e.g. no good to return: forgiven)."""

    seat: int
    order: str
    reason: str


class RulerResolved(YangtzeEvent, frozen=True):
    spot: int


class TurnEnded(YangtzeEvent, frozen=True):
    seat: int
    next: int


class FinalScoring(YangtzeEvent, frozen=True):
    reason: str
    bundles: list[list[list[int]]]
    """Each seat's goods, sold as the best partition into bundles."""
    breakdown: list[dict[str, int]]
    totals: list[int]


EVENTS = (
    GameSetUp,
    StartingGoodsDrawn,
    GoodsSold,
    SellCardPlayed,
    SellingDone,
    LiquidityCardPlayed,
    GoodPurchased,
    PurchaseSkipped,
    GoodDrawn,
    BranchDrawn,
    BidPlaced,
    Passed,
    BranchWon,
    BranchDiscarded,
    RulerDrawn,
    OrderExecuted,
    GoodReturned,
    GoodExchanged,
    LiquidityBoughtBack,
    RulerChosen,
    OrderDeclined,
    ResponsePassed,
    OrderSkipped,
    RulerResolved,
    TurnEnded,
    FinalScoring,
)


REVEALING: frozenset[type] = frozenset(
    {
        GameSetUp,
        GoodDrawn,
        BranchDrawn,
        RulerDrawn,
        GoodsSold,
        GoodReturned,
        GoodExchanged,
        FinalScoring,
    }
)
"""Public events that reveal information some seat could not see before (take-backs: a command
with one of these cannot be undone).  Hidden in Yangtze: the bag's contents and the goods behind
each screen that were never seen on the river (the two starting goods drawn behind it).
GameSetUp: the goods drawn from the bag onto the river (drawn with the Rng).
GoodDrawn: a good drawn from the bag pushed onto the river (drawn with the Rng).
BranchDrawn: a branch token drawn from the bag (drawn with the Rng).
RulerDrawn: a ruler token drawn from the bag (drawn with the Rng).
GoodsSold: goods taken from behind the seller's screen into the box (a starting good made known).
GoodReturned: a good from behind the screen put in the box (which one: possibly a starting good).
GoodExchanged: a good from behind the screen put on the river (possibly a starting good).
FinalScoring: every screen's goods laid open for the bundles of the final scoring."""

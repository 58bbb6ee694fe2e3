"""Special Cards (rulebook "Special Cards"): six per player, each used once.

* buy two goods, one free good: flags on ``PurchaseGood``; the values they may take are here,
  the purchase itself is in :mod:`.turn`;
* sell at any time: ``PlaySellCard`` opens a sale for that seat (``SellBundle`` .. ``DoneSelling``);
* liquidity 10 / 15 / 20: ``PlayLiquidity``, at any time.

"Any time" is any moment the game waits for a decision, from any seat, and -- yangtze-3 -- a
response window before an automatic order a card could change (:mod:`.rulers`, docs/games/yangtze.md).
"""

from __future__ import annotations

from domain.kernel import Command, Event
from domain.kernel.decision import Decision, Refusal

from . import components as C
from .bundles import bundle_value, possible_bundles, sale_refusal
from .commands import DoneSelling, PlayLiquidity, PlaySellCard, SellBundle
from .events import GoodsSold, LiquidityCardPlayed, SellCardPlayed, SellingDone
from .state import State

R_CARDS = "Yangtze: Special Cards"

ANY_TIME = (PlayLiquidity, PlaySellCard)
"""The cards a seat may play whether or not the game waits for it."""

_NO = (False,)
_EITHER = (False, True)


# --- buy two, free good (flags on a purchase) -----------------------------------------------------
def free_good_choices(state: State, seat: int) -> tuple[bool, ...]:
    """Special Cards: "he takes the good without paying for it", once: ``free=True`` only while the
    card is unused (so only one of two goods bought with the buy-two card can be free)."""
    return _EITHER if C.FREE_GOOD in state.cards[seat] else _NO


def buy_two_choices(state: State, seat: int) -> tuple[bool, ...]:
    """Special Cards: "buy two goods instead of one during his turn": ``buy_two=True`` only on the
    turn's first purchase, while the card is unused."""
    return _EITHER if state.stage == "sell" and C.BUY_TWO in state.cards[seat] else _NO


def card_refusal(card: str) -> Refusal:
    """The refusal of a flag on a purchase that the card does not allow now."""
    if card == C.FREE_GOOD:
        return Refusal("card_not_available", "you have already used your free-good card", R_CARDS)
    return Refusal("card_not_available", "you cannot play the buy-two card now", R_CARDS)


# --- liquidity and the sell card, at any time -----------------------------------------------------
def playable_cards(state: State, seat: int) -> list[str]:
    """Special Cards: the seat's unused cards ("After a card is used, it is taken out of the game"),
    less the sell card while a sale with it is open (one such sale at a time)."""
    cards = state.cards[seat]
    if state.window is None:
        return cards
    return [card for card in cards if card != C.SELL_ANYTIME]


def any_time_refusal(state: State, seat: int, card: str) -> Refusal | None:
    if card in playable_cards(state, seat):
        return None
    if card in state.cards[seat]:
        return Refusal(
            "sale_in_progress", "a sale with the sell card is in progress; wait until it is done", R_CARDS
        )
    if card == C.SELL_ANYTIME:
        return Refusal("card_not_available", "you have already used your sell card", R_CARDS)
    return Refusal("card_not_available", "you have no unused liquidity card of that value", R_CARDS)


def decide_any_time(
    state: State, seat: int, command: PlayLiquidity | PlaySellCard, *, forced: bool = False
) -> list[Event]:
    """The card played; *forced* when the seat redeems a liquidity card because a tax exceeds its
    money (Rulers, additional notes; the seat chose which card, yangtze-3)."""
    if isinstance(command, PlaySellCard):
        card = C.SELL_ANYTIME
    else:
        card = C.liquidity_card(command.value)
    refusal = any_time_refusal(state, seat, card)
    if refusal is not None:
        raise refusal.error()
    if isinstance(command, PlaySellCard):
        return [SellCardPlayed(seat=seat)]
    return [LiquidityCardPlayed(seat=seat, value=command.value, forced=forced)]


def any_time_moves(state: State, seat: int, moves: list[Command]) -> None:
    for card in playable_cards(state, seat):
        if card in C.LIQUIDITY:
            moves.append(PlayLiquidity(value=C.LIQUIDITY[card]))
        elif card == C.SELL_ANYTIME:
            moves.append(PlaySellCard())


# --- the sale opened by the sell card -------------------------------------------------------------
def _sale_check(state: State, seat: int, command: Command) -> Refusal | None:
    """Special Cards: "sell one or more bundles of goods any time", then ``DoneSelling``."""
    match command:
        case SellBundle(goods=goods):
            return sale_refusal(state.screens[seat], goods)
        case DoneSelling():
            return None
    return Refusal("finish_selling", "sell bundles or finish selling (DoneSelling) first", R_CARDS)


def _sale_play(state: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """A bundle sold, or the sale ended, which lets the game go on (a pending ruler's order may
    have nothing left to act on)."""
    if isinstance(command, SellBundle):
        goods = command.goods
        return [GoodsSold(seat=seat, goods=list(goods), value=bundle_value(goods), via="card")], False
    return [SellingDone(seat=seat)], True


def _sale_moves(state: State, seat: int) -> list[Command]:
    return [*map(SellBundle, possible_bundles(state.screens[seat])), DoneSelling()]


SALE = Decision(R_CARDS, (SellBundle, DoneSelling), _sale_moves, _sale_check, _sale_play, legal=_sale_moves)
"""The sale opened by the sell card (Special Cards)."""


def no_sale_open() -> Refusal:
    return Refusal("no_sale_open", "you are not selling with the sell card", R_CARDS)

"""A player's turn (rulebook "Game Play"): "1. Sell bundle(s) of goods", then "2. Purchase One
Good" -- or buy nothing (``EndTurn``).  The river is refilled afterwards (:mod:`.flow`)."""

from __future__ import annotations

from domain.kernel import Command, Event, Seat
from domain.kernel.decision import Decision, Refusal

from . import components as C
from .bundles import R_SELL, bundle_value, possible_bundles, sale_refusal
from .cards import buy_two_choices, card_refusal, free_good_choices
from .commands import EndTurn, PurchaseGood, SellBundle
from .events import GoodPurchased, GoodsSold, PurchaseSkipped
from .state import State, money, river_slots

R_BUY = "Yangtze: 2. Purchase One Good"


def to_act(state: State) -> list[Seat]:
    """Game Play (the active seat, clockwise), Branches (the bidder), Rulers (the seat the order
    applies to), Special Cards (a seat selling with the sell card)."""
    if state.window is not None:
        return [state.window]
    ph = state.phase
    if ph == "turn":
        return [state.active]
    if ph == "auction" and state.auction_turn is not None:  # None only between the last pass and its close
        return [state.auction_turn]
    if ph == "ruler" and state.ruler_queue:
        return [state.ruler_queue[0]]
    return []


def selling_refusal(state: State) -> Refusal | None:
    """1. Sell a Bundle of Goods: "only at the beginning of his turn" (the sell card aside)."""
    if state.stage != "sell":
        return Refusal(
            "selling_not_allowed",
            "goods are sold only at the start of your turn (or with the sell card)",
            R_SELL,
        )
    return None


PRICE = {False: C.PRICES, True: [0] * C.RIVER_LENGTH}
"""2. Purchase One Good: the price at each trading house is its number -- or nothing with the
free-good card (keyed by ``free``)."""


def affordable(cash: int, slot: int, free: bool) -> bool:
    """2. Purchase One Good: "Purchases that would exceed the money amount of the player are not
    allowed" (*cash*: the buyer's money)."""
    return PRICE[free][slot] <= cash


def purchase_refusal(state: State, seat: int, slot: int, free: bool, buy_two: bool) -> Refusal | None:
    """2. Purchase One Good: "any one good from the Yangtze river" (a good in front of a trading
    house), with the cards the seat may play on it, for no more than its money."""
    if slot not in river_slots(state):
        return Refusal("no_good_there", "there is no good in front of that trading house", R_BUY)
    if free not in free_good_choices(state, seat):
        return card_refusal(C.FREE_GOOD)
    if buy_two not in buy_two_choices(state, seat):
        return card_refusal(C.BUY_TWO)
    if not affordable(money(state, seat), slot, free):
        return Refusal("insufficient_money", "purchases may not exceed your money", R_BUY)
    return None


def _turn_check(state: State, seat: int, command: Command) -> Refusal | None:
    """Game Play: sell (only at the start of the turn), purchase one good, or buy nothing."""
    match command:
        case SellBundle(goods=goods):
            return selling_refusal(state) or sale_refusal(state.screens[seat], goods)
        case PurchaseGood(slot=slot, free=free, buy_two=two):
            return purchase_refusal(state, seat, slot, free, two)
        case EndTurn():
            return None
    return Refusal("not_now", "that decision is not asked for now: sell, purchase or end the turn", R_BUY)


def _turn_play(state: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """The accepted answer's events; the flag says whether the game goes on by itself afterwards
    (refill, next turn): after a purchase or ``EndTurn``, not after a sale or a buy-two purchase."""
    match command:
        case SellBundle(goods=goods):
            return [GoodsSold(seat=seat, goods=list(goods), value=bundle_value(goods), via="turn")], False
        case PurchaseGood(slot=slot, free=free, buy_two=two):
            good = state.river[slot]
            assert good is not None
            cost = PRICE[free][slot]
            return [
                GoodPurchased(seat=seat, slot=slot, good=good, price=cost, free=free, buy_two=two)
            ], not two
    return [PurchaseSkipped(seat=seat)], True


def _turn_moves(state: State, seat: int) -> list[Command]:
    moves: list[Command] = []
    if selling_refusal(state) is None:
        moves.extend(map(SellBundle, possible_bundles(state.screens[seat])))
    # The purchases that pass purchase_refusal: its rules, one loop each.
    cash = money(state, seat)
    frees = free_good_choices(state, seat)
    twos = buy_two_choices(state, seat)
    for slot in river_slots(state):
        for free in frees:
            if affordable(cash, slot, free):
                for two in twos:
                    moves.append(PurchaseGood(slot=slot, free=free, buy_two=two))
    moves.append(EndTurn())
    return moves


TURN = Decision(
    "Yangtze: Game Play",
    (SellBundle, PurchaseGood, EndTurn),
    _turn_moves,
    _turn_check,
    _turn_play,
    legal=_turn_moves,
)
"""The active seat's decision: "1. Sell bundle(s) of goods", then "2. Purchase One Good"."""

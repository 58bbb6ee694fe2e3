"""Rulers (rulebook "Rulers"): a drawn ruler's order applies once to each player, starting with
the player whose turn it is.

Orders that need no decision (branch income, the three taxes) are applied at once; an order with
nothing to act on for a seat is skipped.  A question-mark order may be declined, "All other orders
must be executed!".  Which token carries which order is assumed (components.py, docs).
"""

from __future__ import annotations

from domain.kernel import Command, Event, RuleViolation

from . import components as C
from .bundles import bundle_value, possible_bundles, sale_refusal
from .commands import BuyBackLiquidity, ChooseRuler, DeclineOrder, ExchangeGood, ReturnGood, SellBundle
from .events import (
    GoodExchanged,
    GoodReturned,
    GoodsSold,
    LiquidityBoughtBack,
    LiquidityCardPlayed,
    OrderDeclined,
    OrderExecuted,
    OrderSkipped,
    RulerChosen,
)
from .state import State, can_pay, money, river_slots

R_RULER = "Yangtze: Rulers"


def current_order(s: State) -> tuple[str, int]:
    """The order applying to ``ruler_queue[0]``: the drawn ruler's, or the one a repeat order chose."""
    assert s.ruler_current is not None
    return C.ruler_order(s.ruler_current)


# --- what each order lets a seat choose -----------------------------------------------------------
def buy_back_values(s: State, seat: int) -> list[int]:
    """Rulers, buy-back order: "any one of your own liquidity cards"; "The price is equal to the
    value you received when it was sold" -- and must be paid."""
    return sorted({v for v in s.liquidity_used[seat] if can_pay(s, seat, v)})


def other_rulers(s: State) -> list[int]:
    """Rulers, repeat order: "Choose any one of the face up rulers already on the table" (not a
    repeat order itself, which would never end)."""
    return [spot for spot, token in enumerate(s.rulers) if C.ruler_order(token)[0] != C.REPEAT_ORDER]


def order_moves(s: State, seat: int, kind: str) -> list[Command]:
    """The ways *seat* can execute an order that needs its decision (DeclineOrder aside)."""
    if kind == C.RETURN_GOOD:
        return [ReturnGood(good=g) for g in sorted(s.screens[seat])]
    if kind == C.SELL_BUNDLE:
        return list(map(SellBundle, possible_bundles(s.screens[seat])))
    if kind == C.BUY_BACK_LIQUIDITY:
        return [BuyBackLiquidity(value=v) for v in buy_back_values(s, seat)]
    if kind == C.EXCHANGE_GOOD:
        slots = river_slots(s)
        return [ExchangeGood(good=g, slot=slot) for g in sorted(s.screens[seat]) for slot in slots]
    if kind == C.REPEAT_ORDER:
        return [ChooseRuler(spot=spot) for spot in other_rulers(s)]
    return []


_NOTHING_TO_DO = {
    # Rulers, additional notes: without a good to put in the box, "his debts will be forgiven".
    C.RETURN_GOOD: "no good to return: forgiven",
    C.SELL_BUNDLE: "no good to sell",
    C.BUY_BACK_LIQUIDITY: "no used liquidity card that can be paid for",
    C.EXCHANGE_GOOD: "nothing to exchange",
    C.REPEAT_ORDER: "no other ruler on the table",
}
"""Why an order that needs a decision is skipped for a seat that has no way to execute it."""


# --- orders without a decision --------------------------------------------------------------------
def _tax(s: State, seat: int, order: str, due: int) -> list[Event]:
    """Rulers, additional notes: a tax beyond the player's money is forgiven, "If, however, the
    player still has a liquidity card, he must redeem it to settle his debts"."""
    total = money(s, seat)
    out: list[Event] = []
    if total < due:
        # assumed: the largest cards first, only as many as needed (docs/games/yangtze.md, item 6).
        for value in sorted((C.LIQUIDITY[c] for c in s.cards[seat] if c in C.LIQUIDITY), reverse=True):
            out.append(LiquidityCardPlayed(seat=seat, value=value, forced=True))
            total += value
            if total >= due:
                break
    out.append(OrderExecuted(seat=seat, order=order, amount=-due, forgiven=max(0, due - total)))
    return out


def order_step(s: State, seat: int) -> list[Event]:
    """The events of the current order for *seat* when it needs no decision; [] when it does."""
    kind, param = current_order(s)
    if kind == C.BRANCH_INCOME:
        # Rulers: "advanced 2 spaces" for each branch of the shown type (it never hurts: automatic).
        count = sum(1 for b in s.branches[seat] if C.branch_type(b) == param)
        return [OrderExecuted(seat=seat, order=kind, amount=C.BRANCH_INCOME_PER_TOKEN * count)]
    if kind == C.TAX_MONEY:
        # Rulers: "For every 10 money units a player possesses on his money track" pay 1 (the
        # track only, not the coins).
        return _tax(s, seat, kind, max(0, s.track[seat]) // 10)
    if kind == C.TAX_GOODS:
        # Rulers: pay 1 "for every goods token found behind your own player screen".
        return _tax(s, seat, kind, len(s.screens[seat]))
    if kind == C.TAX_BRANCHES:
        # Rulers: pay 1 "for every branch token in front of your own player screen".
        return _tax(s, seat, kind, len(s.branches[seat]))
    if not order_moves(s, seat, kind):
        return [OrderSkipped(seat=seat, order=kind, reason=_NOTHING_TO_DO[kind])]
    return []


# --- orders with a decision -----------------------------------------------------------------------
def decide_order(s: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """The seat's way of executing (or declining) the current order; the order then goes on."""
    kind, param = current_order(s)
    match command:
        case DeclineOrder():
            if kind not in C.OPTIONAL_ORDERS:
                raise RuleViolation("order_mandatory", "this ruler's order must be executed", rule=R_RULER)
            return [OrderDeclined(seat=seat)], True
        case ReturnGood(good=good) if kind == C.RETURN_GOOD:
            if good not in s.screens[seat]:
                raise RuleViolation("good_not_held", "you do not hold that good", rule=R_RULER)
            return [GoodReturned(seat=seat, good=good)], True
        case SellBundle(goods=goods) if kind == C.SELL_BUNDLE:
            refusal = sale_refusal(s.screens[seat], goods)
            if refusal is not None:
                raise refusal
            return [GoodsSold(seat=seat, goods=list(goods), value=bundle_value(goods), via="order")], True
        case BuyBackLiquidity(value=value) if kind == C.BUY_BACK_LIQUIDITY:
            if value not in s.liquidity_used[seat]:
                raise RuleViolation(
                    "card_not_available", "you have no used liquidity card of that value", rule=R_RULER
                )
            if not can_pay(s, seat, value):
                raise RuleViolation("insufficient_money", "you cannot pay for that card", rule=R_RULER)
            return [LiquidityBoughtBack(seat=seat, value=value)], True
        case ExchangeGood(good=good, slot=slot) if kind == C.EXCHANGE_GOOD:
            if good not in s.screens[seat]:
                raise RuleViolation("good_not_held", "you do not hold that good", rule=R_RULER)
            if slot not in river_slots(s):
                raise RuleViolation(
                    "no_good_there", "there is no good in front of that trading house", rule=R_RULER
                )
            taken = s.river[slot]
            assert taken is not None
            return [GoodExchanged(seat=seat, good=good, slot=slot, taken=taken)], True
        case ChooseRuler(spot=spot) if kind == C.REPEAT_ORDER:
            if spot not in other_rulers(s):
                raise RuleViolation("no_such_ruler", "choose another face-up ruler", rule=R_RULER)
            return [RulerChosen(seat=seat, spot=spot)], True
    raise RuleViolation("not_now", f"the ruler's order is: {C.order_text(kind, param)}", rule=R_RULER)


def ruler_moves(s: State, seat: int, moves: list[Command]) -> None:
    kind, _param = current_order(s)
    moves.extend(order_moves(s, seat, kind))
    if kind in C.OPTIONAL_ORDERS:
        moves.append(DeclineOrder())

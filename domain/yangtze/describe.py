"""One-line narration of an event for replays (``yamen replay``)."""

from __future__ import annotations

from domain.kernel import Event

from . import components as C
from . import events as E
from .state import State


def _goods(goods: list[int]) -> str:
    return ", ".join(C.good_name(g) for g in goods)


def _reign(state: State, spot: int | None = None) -> str:
    if spot is None:
        spot = len(state.rulers) - 1
    return C.REIGNS[spot] if 0 <= spot < len(C.REIGNS) else "the ruler"


def describe(state: State, event: Event) -> str:
    """One line narrating *event* (``state`` is the table just before it)."""
    t = type(event)
    e = event
    if t is E.GameSetUp:
        return f"{e.players} players; the river holds {_goods(e.river)}"
    if t is E.StartingGoodsDrawn:
        if e.goods:
            return f"Seat {e.seat} drew {_goods(e.goods)} behind the screen"
        return f"Seat {e.seat} drew {e.count} goods behind the screen"
    if t is E.GoodsSold:
        how = {"turn": "", "card": " with the sell card", "order": " for the ruler's order"}.get(e.via, "")
        return f"Seat {e.seat} sold {_goods(e.goods)} for {e.value}{how}"
    if t is E.SellCardPlayed:
        return f"Seat {e.seat} played the sell card"
    if t is E.SellingDone:
        return f"Seat {e.seat} finished selling"
    if t is E.LiquidityCardPlayed:
        why = " to settle a tax debt" if e.forced else ""
        return f"Seat {e.seat} redeemed a liquidity card for {e.value}{why}"
    if t is E.GoodPurchased:
        extra = " (buy-two card)" if e.buy_two else ""
        if e.free:
            return f"Seat {e.seat} took {C.good_name(e.good)} for free (free-good card){extra}"
        return f"Seat {e.seat} bought {C.good_name(e.good)} for {e.price}{extra}"
    if t is E.PurchaseSkipped:
        return f"Seat {e.seat} bought nothing"
    if t is E.GoodDrawn:
        return f"{C.good_name(e.good)} drawn and pushed onto the river"
    if t is E.BranchDrawn:
        return f"Branch {C.branch_name(e.token)} drawn: auction"
    if t is E.BidPlaced:
        return f"Seat {e.seat} bid {e.amount}"
    if t is E.Passed:
        return f"Seat {e.seat} passed"
    if t is E.BranchWon:
        return f"Seat {e.seat} won the {C.branch_name(e.token)} branch for {e.price}"
    if t is E.BranchDiscarded:
        return f"Nobody bid: the {C.branch_name(e.token)} branch leaves the game"
    if t is E.RulerDrawn:
        return f"{_reign(state, e.spot)}'s order: {C.order_text(*C.ruler_order(e.token))}"
    if t is E.OrderExecuted:
        if e.amount >= 0:
            return f"Seat {e.seat} received {e.amount} ({C.ORDER_TEXT[e.order]})"
        paid = -e.amount - e.forgiven
        forgiven = f", {e.forgiven} forgiven" if e.forgiven else ""
        return f"Seat {e.seat} paid {paid} in taxes{forgiven}"
    if t is E.GoodReturned:
        return f"Seat {e.seat} put {C.good_name(e.good)} back in the box"
    if t is E.GoodExchanged:
        return f"Seat {e.seat} exchanged {C.good_name(e.good)} for {C.good_name(e.taken)} on the river"
    if t is E.LiquidityBoughtBack:
        return f"Seat {e.seat} bought back a liquidity card for {e.value}"
    if t is E.RulerChosen:
        tok = state.rulers[e.spot] if e.spot < len(state.rulers) else None
        text = C.order_text(*C.ruler_order(tok)) if tok is not None else "?"
        return f"Seat {e.seat} chose {_reign(state, e.spot)}'s order: {text}"
    if t is E.OrderDeclined:
        return f"Seat {e.seat} declined the order"
    if t is E.ResponsePassed:
        return f"Seat {e.seat} played no card before the order"
    if t is E.OrderSkipped:
        return f"Seat {e.seat}: {e.reason}"
    if t is E.RulerResolved:
        return f"{_reign(state, e.spot)}'s order has gone round"
    if t is E.TurnEnded:
        return f"Seat {e.seat}'s turn ended; seat {e.next} is next"
    if t is E.FinalScoring:
        best = max(e.totals) if e.totals else 0
        winners = [str(s) for s, v in enumerate(e.totals) if v == best]
        return f"Game over ({e.reason}); final money {e.totals}; winner: seat {' and '.join(winners)}"
    return type(event).__name__

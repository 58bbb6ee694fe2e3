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
    match event:
        case E.GameSetUp():
            return f"{event.players} players; the river holds {_goods(event.river)}"
        case E.StartingGoodsDrawn():
            if event.goods:
                return f"Seat {event.seat} drew {_goods(event.goods)} behind the screen"
            return f"Seat {event.seat} drew {event.count} goods behind the screen"
        case E.GoodsSold():
            how = {"turn": "", "card": " with the sell card", "order": " for the ruler's order"}.get(
                event.via, ""
            )
            return f"Seat {event.seat} sold {_goods(event.goods)} for {event.value}{how}"
        case E.SellCardPlayed():
            return f"Seat {event.seat} played the sell card"
        case E.SellingDone():
            return f"Seat {event.seat} finished selling"
        case E.LiquidityCardPlayed():
            why = " to settle a tax debt" if event.forced else ""
            return f"Seat {event.seat} redeemed a liquidity card for {event.value}{why}"
        case E.GoodPurchased():
            extra = " (buy-two card)" if event.buy_two else ""
            if event.free:
                return f"Seat {event.seat} took {C.good_name(event.good)} for free (free-good card){extra}"
            return f"Seat {event.seat} bought {C.good_name(event.good)} for {event.price}{extra}"
        case E.PurchaseSkipped():
            return f"Seat {event.seat} bought nothing"
        case E.GoodDrawn():
            return f"{C.good_name(event.good)} drawn and pushed onto the river"
        case E.BranchDrawn():
            return f"Branch {C.branch_name(event.token)} drawn: auction"
        case E.BidPlaced():
            return f"Seat {event.seat} bid {event.amount}"
        case E.Passed():
            return f"Seat {event.seat} passed"
        case E.BranchWon():
            return f"Seat {event.seat} won the {C.branch_name(event.token)} branch for {event.price}"
        case E.BranchDiscarded():
            return f"Nobody bid: the {C.branch_name(event.token)} branch leaves the game"
        case E.RulerDrawn():
            return f"{_reign(state, event.spot)}'s order: {C.order_text(*C.ruler_order(event.token))}"
        case E.OrderExecuted():
            if event.amount >= 0:
                return f"Seat {event.seat} received {event.amount} ({C.ORDER_TEXT[event.order]})"
            paid = -event.amount - event.forgiven
            forgiven = f", {event.forgiven} forgiven" if event.forgiven else ""
            return f"Seat {event.seat} paid {paid} in taxes{forgiven}"
        case E.GoodReturned():
            return f"Seat {event.seat} put {C.good_name(event.good)} back in the box"
        case E.GoodExchanged():
            given, taken = C.good_name(event.good), C.good_name(event.taken)
            return f"Seat {event.seat} exchanged {given} for {taken} on the river"
        case E.LiquidityBoughtBack():
            return f"Seat {event.seat} bought back a liquidity card for {event.value}"
        case E.RulerChosen():
            tok = state.rulers[event.spot] if event.spot < len(state.rulers) else None
            text = C.order_text(*C.ruler_order(tok)) if tok is not None else "?"
            return f"Seat {event.seat} chose {_reign(state, event.spot)}'s order: {text}"
        case E.OrderDeclined():
            return f"Seat {event.seat} declined the order"
        case E.ResponsePassed():
            return f"Seat {event.seat} played no card before the order"
        case E.OrderSkipped():
            return f"Seat {event.seat}: {event.reason}"
        case E.RulerResolved():
            return f"{_reign(state, event.spot)}'s order has gone round"
        case E.TurnEnded():
            return f"Seat {event.seat}'s turn ended; seat {event.next} is next"
        case E.FinalScoring():
            best = max(event.totals) if event.totals else 0
            winners = " and ".join(str(s) for s, v in enumerate(event.totals) if v == best)
            return f"Game over ({event.reason}); final money {event.totals}; winner: seat {winners}"
        case _:
            return type(event).__name__

"""Rulers (rulebook "Rulers"): a drawn ruler's order applies once to each player, starting with
the player whose turn it is.

Orders that need no decision (branch income, the three taxes) are applied at once; an order with
nothing to act on for a seat is skipped.  A question-mark order may be declined, "All other orders
must be executed!".  Which token carries which order is assumed (components.json, docs).

Under yangtze-3 an automatic order may still wait for the seat it applies to (:func:`waiting_for`):
for its answer to the any-time cards (a response window, closed by ``Pass``) when a card could
change what the order does to it, and for its choice of the liquidity card that settles a debt.
"""

from __future__ import annotations

from domain.kernel import Command, Event
from domain.kernel.decision import Decision, Refusal

from . import components as C
from .bundles import MOST_FROM_ANY, bundle_value, possible_bundles, sale_refusal
from .commands import (
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    ExchangeGood,
    Pass,
    ReturnGood,
    SellBundle,
)
from .events import (
    GoodExchanged,
    GoodReturned,
    GoodsSold,
    LiquidityBoughtBack,
    LiquidityCardPlayed,
    OrderDeclined,
    OrderExecuted,
    OrderSkipped,
    ResponsePassed,
    RulerChosen,
)
from .state import State, can_pay, money, river_slots, rules_of
from .versions import YANGTZE_2

R_RULER = "Yangtze: Rulers"
R_CARDS = "Yangtze: Special Cards"

ORDER = "order"
"""The order needs the seat's decision (return, sell, buy back, exchange, repeat)."""
RESPOND = "respond"
"""yangtze-3: before an automatic order, the seat may play an any-time card first, or ``Pass``."""
DEBT = "debt"
"""yangtze-3: a tax exceeds the seat's money and it holds liquidity cards: it chooses which to redeem."""


def current_order(state: State) -> tuple[str, tuple[int, ...]]:
    """The order applying to ``ruler_queue[0]``: the drawn ruler's, or the one a repeat order chose."""
    assert state.ruler_current is not None
    return C.ruler_order(state.ruler_current)


# --- what each order lets a seat choose -----------------------------------------------------------
def buy_back_values(state: State, seat: int) -> list[int]:
    """Rulers, buy-back order: "any one of your own liquidity cards"; "The price is equal to the
    value you received when it was sold" -- and must be paid."""
    return sorted({v for v in state.liquidity_used[seat] if can_pay(state, seat, v)})


def other_rulers(state: State) -> list[int]:
    """Rulers, repeat order: "Choose any one of the face up rulers already on the table" (not a
    repeat order itself, which would never end)."""
    return [spot for spot, token in enumerate(state.rulers) if C.ruler_order(token)[0] != C.REPEAT_ORDER]


def order_moves(state: State, seat: int, kind: str) -> list[Command]:
    """The ways *seat* can execute an order that needs its decision (DeclineOrder aside)."""
    if kind == C.RETURN_GOOD:
        return [ReturnGood(good=g) for g in sorted(state.screens[seat])]
    if kind == C.SELL_BUNDLE:
        return list(map(SellBundle, possible_bundles(state.screens[seat])))
    if kind == C.BUY_BACK_LIQUIDITY:
        return [BuyBackLiquidity(value=v) for v in buy_back_values(state, seat)]
    if kind == C.EXCHANGE_GOOD:
        slots = river_slots(state)
        return [ExchangeGood(good=g, slot=slot) for g in sorted(state.screens[seat]) for slot in slots]
    if kind == C.REPEAT_ORDER:
        return [ChooseRuler(spot=spot) for spot in other_rulers(state)]
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
def branch_income(state: State, seat: int, types: tuple[int, ...]) -> int:
    """Rulers: "For each branch type displayed on the ruler token in front of your own player
    screen, the coin marker on the money track may be advanced 2 spaces towards 60" -- 2 for each
    type shown that the seat has a branch of (yangtze-2: 2 for each of its branch tokens of a type
    shown).  It never hurts, so it is applied by itself."""
    held = [C.branch_type(b) for b in state.branches[seat]]
    if rules_of(state) == YANGTZE_2:
        return C.BRANCH_INCOME_STEP * sum(1 for t in held if t in types)
    return C.BRANCH_INCOME_STEP * len(set(types).intersection(held))


def tax_due(state: State, seat: int, kind: str) -> int:
    if kind == C.TAX_MONEY:
        # Rulers: "For every 10 money units a player possesses on his money track" pay 1 (the
        # track only, not the coins).
        return max(0, state.track[seat]) // 10
    if kind == C.TAX_GOODS:
        # Rulers: pay 1 "for every goods token found behind your own player screen".
        return len(state.screens[seat])
    # Rulers: pay 1 "for every branch token in front of your own player screen".
    return len(state.branches[seat])


def _liquidity(state: State, seat: int) -> list[int]:
    """The values of the seat's unused liquidity cards."""
    return [C.LIQUIDITY[c] for c in state.cards[seat] if c in C.LIQUIDITY]


def debt_choice(state: State, seat: int, due: int) -> bool:
    """Rulers, additional notes: "If, however, the player still has a liquidity card, he must redeem
    it to settle his debts" -- which card is the player's choice (yangtze-3), asked only when it
    matters: two cards or more, and not all of them needed."""
    cash = money(state, seat)
    if cash >= due:
        return False
    values = _liquidity(state, seat)
    return len(values) >= 2 and cash + sum(values) - min(values) >= due


def could_respond(state: State, seat: int, kind: str, due: int) -> bool:
    """Special Cards: the sell card and the liquidity cards may be played "any time".  Before an
    order is applied to a seat without its decision, the seat is asked only when a card it holds
    could make the order take less from it (or offer it what it otherwise could not); anywhere else
    a card played at the next decision does as well (docs/games/yangtze.md, response windows).
    Judged from what every seat sees (a sale: by the number of goods behind the screen, not which
    they are), so that being asked reveals nothing hidden."""
    screen = state.screens[seat]
    sale = C.SELL_ANYTIME in state.cards[seat] and bool(screen)
    values = _liquidity(state, seat)
    if kind == C.TAX_GOODS:
        # selling goods first leaves fewer goods to tax
        return sale
    if kind == C.TAX_BRANCHES:
        # selling first could pay a debt that would otherwise cost a liquidity card
        return sale and bool(values) and money(state, seat) < due
    if kind == C.TAX_MONEY:
        # money raised first could pass 60 on the track, turning 50 into a coin the tax ignores
        most = sum(values) + (MOST_FROM_ANY[len(screen)] if sale else 0)
        return state.track[seat] + most > C.TRACK_MAX
    if kind == C.BUY_BACK_LIQUIDITY:
        # money raised first could pay for a used liquidity card
        used = state.liquidity_used[seat]
        most = sum(values) + (MOST_FROM_ANY[len(screen)] if sale else 0)
        return bool(used) and most > 0 and money(state, seat) + most >= min(used)
    return False


def waiting_for(state: State, seat: int) -> str | None:
    """What the current order waits for from *seat* (``ruler_queue[0]``): :data:`ORDER`,
    :data:`RESPOND`, :data:`DEBT`, or None when it applies (or is skipped) by itself."""
    kind, _types = current_order(state)
    if kind == C.BRANCH_INCOME:
        return None
    legacy = rules_of(state) == YANGTZE_2
    if kind in C.TAXES:
        if legacy:
            return None
        due = tax_due(state, seat, kind)
        if state.responded is not True and could_respond(state, seat, kind, due):
            return RESPOND
        return DEBT if debt_choice(state, seat, due) else None
    if order_moves(state, seat, kind):
        return ORDER
    if not legacy and state.responded is not True and could_respond(state, seat, kind, 0):
        return RESPOND
    return None


def waits_on_cards(state: State, seat: int) -> bool:
    """Whether a card *seat* plays now may change what the current order waits for (yangtze-3: the
    order applies to *seat* and no sale is open); the game must then go on after the card."""
    return (
        state.phase == "ruler"
        and state.window is None
        and bool(state.ruler_queue)
        and state.ruler_queue[0] == seat
        and rules_of(state) != YANGTZE_2
    )


def owes(state: State, seat: int) -> bool:
    """Whether *seat* is asked to choose the liquidity card that settles its debt now."""
    return waits_on_cards(state, seat) and waiting_for(state, seat) == DEBT


def _tax(state: State, seat: int, order: str, due: int) -> list[Event]:
    """Rulers, additional notes: a tax beyond the player's money is forgiven, "If, however, the
    player still has a liquidity card, he must redeem it to settle his debts".  Here the cards
    need no choice (yangtze-3: none, one, or all needed -- see :func:`debt_choice`); yangtze-2
    redeemed the largest first, only as many as needed, without asking."""
    total = money(state, seat)
    out: list[Event] = []
    if total < due:
        for value in sorted(_liquidity(state, seat), reverse=True):
            out.append(LiquidityCardPlayed(seat=seat, value=value, forced=True))
            total += value
            if total >= due:
                break
    out.append(OrderExecuted(seat=seat, order=order, amount=-due, forgiven=max(0, due - total)))
    return out


def order_step(state: State, seat: int) -> list[Event]:
    """The events of the current order for *seat* when it waits for nothing; [] when it does."""
    kind, types = current_order(state)
    if kind == C.BRANCH_INCOME:
        return [OrderExecuted(seat=seat, order=kind, amount=branch_income(state, seat, types))]
    if waiting_for(state, seat) is not None:
        return []
    if kind in C.TAXES:
        return _tax(state, seat, kind, tax_due(state, seat, kind))
    return [OrderSkipped(seat=seat, order=kind, reason=_NOTHING_TO_DO[kind])]


# --- orders with a decision -----------------------------------------------------------------------
def _order_check(state: State, seat: int, command: Command) -> Refusal | None:
    """The seat's way of executing (or declining) the current order: the order's own rule, or the
    window to answer it with a card (Special Cards), or a debt to pay with one."""
    kind, types = current_order(state)
    waiting = waiting_for(state, seat)
    if isinstance(command, DeclineOrder) and kind not in C.OPTIONAL_ORDERS:
        return Refusal("order_mandatory", "this ruler's order must be executed", R_RULER)
    if waiting == RESPOND:
        if isinstance(command, Pass):
            return None
        return Refusal(
            "not_now",
            f"play a card before the order is applied ({C.order_text(kind, types)}), or pass",
            R_CARDS,
        )
    if waiting == DEBT:
        return Refusal(
            "not_now",
            "the tax exceeds your money: redeem one of your liquidity cards (PlayLiquidity)",
            R_RULER,
        )
    match command:
        case DeclineOrder():
            return None
        case ReturnGood(good=good) if kind == C.RETURN_GOOD:
            if good not in state.screens[seat]:
                return Refusal("good_not_held", "you do not hold that good", R_RULER)
            return None
        case SellBundle(goods=goods) if kind == C.SELL_BUNDLE:
            return sale_refusal(state.screens[seat], goods)
        case BuyBackLiquidity(value=value) if kind == C.BUY_BACK_LIQUIDITY:
            if value not in state.liquidity_used[seat]:
                return Refusal("card_not_available", "you have no used liquidity card of that value", R_RULER)
            if not can_pay(state, seat, value):
                return Refusal("insufficient_money", "you cannot pay for that card", R_RULER)
            return None
        case ExchangeGood(good=good, slot=slot) if kind == C.EXCHANGE_GOOD:
            if good not in state.screens[seat]:
                return Refusal("good_not_held", "you do not hold that good", R_RULER)
            if slot not in river_slots(state):
                return Refusal("no_good_there", "there is no good in front of that trading house", R_RULER)
            return None
        case ChooseRuler(spot=spot) if kind == C.REPEAT_ORDER:
            if spot not in other_rulers(state):
                return Refusal("no_such_ruler", "choose another face-up ruler", R_RULER)
            return None
    return Refusal("not_now", f"the ruler's order is: {C.order_text(kind, types)}", R_RULER)


def _order_play(state: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """The accepted answer's events; the order then goes on."""
    match command:
        case Pass():
            return [ResponsePassed(seat=seat)], True
        case DeclineOrder():
            return [OrderDeclined(seat=seat)], True
        case ReturnGood(good=good):
            return [GoodReturned(seat=seat, good=good)], True
        case SellBundle(goods=goods):
            return [GoodsSold(seat=seat, goods=list(goods), value=bundle_value(goods), via="order")], True
        case BuyBackLiquidity(value=value):
            return [LiquidityBoughtBack(seat=seat, value=value)], True
        case ExchangeGood(good=good, slot=slot):
            taken = state.river[slot]
            assert taken is not None
            return [GoodExchanged(seat=seat, good=good, slot=slot, taken=taken)], True
    assert isinstance(command, ChooseRuler)
    return [RulerChosen(seat=seat, spot=command.spot)], True


def _ruler_moves(state: State, seat: int) -> list[Command]:
    waiting = waiting_for(state, seat)
    if waiting == RESPOND:
        return [Pass()]  # the cards themselves are listed as any-time cards
    if waiting == DEBT:
        return []  # the liquidity cards are listed as any-time cards
    kind, _types = current_order(state)
    moves = order_moves(state, seat, kind)
    if kind in C.OPTIONAL_ORDERS:
        moves.append(DeclineOrder())
    return moves


RULER_ORDER = Decision(
    R_RULER,
    (Pass, DeclineOrder, ReturnGood, SellBundle, BuyBackLiquidity, ExchangeGood, ChooseRuler),
    _ruler_moves,
    _order_check,
    _order_play,
    legal=_ruler_moves,
)
"""The decision a ruler's order asks of the seat it applies to (Rulers)."""

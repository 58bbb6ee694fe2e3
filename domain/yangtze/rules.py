"""Yangtze's rules: setup, decide, evolve, to_act, legal_moves.

Flow (rulebook "Game Play"): a turn is "sell bundles, then purchase one good"; a purchase empties
a place on the river, which is refilled from the bag; a ruler or branch drawn on the way is dealt
with ("Rulers", "Branches") before the next draw.  ``_advance`` runs every step that needs no
decision (draws, automatic orders, the end of a turn or of the game) inside ``decide``, so the
state only ever rests where some seat must decide.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from domain.kernel import (
    Command,
    Event,
    GameOver,
    InvalidOptions,
    NotYourTurn,
    Options,
    Rng,
    RuleViolation,
    Seat,
)

from . import components as C
from .bundles import bundle_kind, bundle_value, possible_bundles
from .commands import (
    Bid,
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    DoneSelling,
    EndTurn,
    ExchangeGood,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    ReturnGood,
    SellBundle,
)
from .events import (
    BidPlaced,
    BranchDiscarded,
    BranchDrawn,
    BranchWon,
    FinalScoring,
    GameSetUp,
    GoodDrawn,
    GoodExchanged,
    GoodPurchased,
    GoodReturned,
    GoodsSold,
    LiquidityBoughtBack,
    LiquidityCardPlayed,
    OrderDeclined,
    OrderExecuted,
    OrderSkipped,
    Passed,
    PurchaseSkipped,
    RulerChosen,
    RulerDrawn,
    RulerResolved,
    SellCardPlayed,
    SellingDone,
    StartingGoodsDrawn,
    TurnEnded,
)
from .scoring import final_scoring
from .state import State, money

R_SETUP = "Yangtze: Game Setup"
R_SELL = "Yangtze: 1. Sell a Bundle of Goods"
R_BUY = "Yangtze: 2. Purchase One Good"
R_BRANCH = "Yangtze: Branches"
R_RULER = "Yangtze: Rulers"
R_CARDS = "Yangtze: Special Cards"


class YangtzeOptions(Options, frozen=True, kw_only=True):
    players: Annotated[int, Meta(ge=2, le=4, description="2 to 4 players")] = 4


# --- setup (rulebook "Game Setup") -------------------------------------------------------------
def initial(options: YangtzeOptions) -> State:
    return State()


def setup(options: YangtzeOptions, rng: Rng) -> list[Event]:
    if options.players not in (2, 3, 4):
        raise InvalidOptions("Yangtze is played by 2 to 4 players")
    # Rulers and branches drawn during setup go straight back into the bag, so each draw is a
    # uniform choice among the goods still in the bag.
    goods = list(range(C.GOODS_COUNT))
    drawn = []
    for _ in range(C.RIVER_LENGTH):
        drawn.append(goods.pop(rng.below(len(goods))))
    # Each good is pushed in at the open end, so the first one drawn ends up at Shanghai.
    events: list[Event] = [GameSetUp(players=options.players, river=drawn[::-1])]
    for seat in range(options.players):
        mine = [goods.pop(rng.below(len(goods))) for _ in range(C.START_GOODS)]
        events.append(StartingGoodsDrawn(seat=seat, goods=mine, count=len(mine)))
    return events


# --- money (rulebook "1. Sell a Bundle of Goods": track and 50-coins) ----------------------------
def _gain(s: State, seat: int, amount: int) -> None:
    """1. Sell a Bundle of Goods: "If a player's money level exceeds 60, he receives a coin with a
    value of 50 and resets his marking coin on the track board by 50 points." """
    track = s.track[seat] + amount
    while track > C.TRACK_MAX:
        track -= C.COIN_VALUE
        s.coins[seat] += 1
    s.track[seat] = track


def _pay(s: State, seat: int, amount: int) -> None:
    """1. Sell a Bundle of Goods: the 50-coins "may be exchanged at any time if the money on the
    money track board drops to 0 or falls below 0".  Exchanging at exactly 0 is the player's
    option and never helps him (the money tax counts the track only), so a coin is exchanged only
    when the track would fall below 0."""
    track = s.track[seat] - amount
    while track < 0 and s.coins[seat] > 0:
        track += C.COIN_VALUE
        s.coins[seat] -= 1
    s.track[seat] = track


# --- evolve ------------------------------------------------------------------------------------
def _next_ruler_seat(s: State) -> None:
    s.ruler_queue.pop(0)
    s.ruler_current = s.rulers[-1]


def _clockwise_from(seat: int, players: int) -> list[int]:
    """Every seat once, in player order, starting with ``seat``."""
    return [*range(seat, players), *range(seat)]


def _out_of_bag(s: State, token: int) -> None:
    """A token drawn from the bag leaves it.  The bag is built in token order and only ever loses
    tokens, each of which is in it once, so bisection finds the very token ``list.remove`` would
    (without comparing it with every token before it: branches and rulers sit at the end)."""
    bag = s.bag
    i = bisect_left(bag, token)
    if i < len(bag) and bag[i] == token:
        del bag[i]
    else:
        bag.remove(token)


def _take_out_of_screen(s: State, seat: int, goods: Iterable[int]) -> None:
    screen, public = s.screens[seat], s.public[seat]
    for good in goods:
        screen.remove(good)
        if good in public:
            public.remove(good)


def _good_drawn(s: State, e: GoodDrawn) -> None:
    # 2. Purchase One Good: placed at the open side, "pushing any other tiles along the river
    # until the resulting gap is filled".
    _out_of_bag(s, e.good)
    river = s.river
    del river[river.index(None)]
    river.insert(0, e.good)
    s.refills -= 1


def _goods_sold(s: State, e: GoodsSold) -> None:
    # 1. Sell a Bundle of Goods: the tokens go in the box (not in the bag!).
    seat = e.seat
    _take_out_of_screen(s, seat, e.goods)
    s.box.extend(e.goods)
    _gain(s, seat, e.value)
    s.acted = True
    if e.via == "order":
        _next_ruler_seat(s)


def _good_purchased(s: State, e: GoodPurchased) -> None:
    # 2. Purchase One Good (Special Cards: free good, buy two -- refill only after both).
    seat = e.seat
    s.river[e.slot] = None
    s.screens[seat].append(e.good)
    s.public[seat].append(e.good)
    _pay(s, seat, e.price)
    if e.free:
        s.cards[seat].remove(C.FREE_GOOD)
    s.acted = True
    if e.buy_two:
        s.cards[seat].remove(C.BUY_TWO)
        s.stage = "second"
    else:
        s.phase = "refill"
        s.refills = s.river.count(None)


def _purchase_skipped(s: State, e: PurchaseSkipped) -> None:
    s.phase = "refill"
    s.refills = s.river.count(None)


def _turn_ended(s: State, e: TurnEnded) -> None:
    # Game Play: clockwise; the note's idle round is counted here.
    s.active = e.next
    s.phase = "turn"
    s.stage = "sell"
    s.idle = 0 if s.acted else s.idle + 1
    s.acted = False
    s.refills = 0


def _bid_placed(s: State, e: BidPlaced) -> None:
    s.high_bid = e.amount
    s.high_bidder = e.seat
    auction_in = s.auction_in
    i = auction_in.index(e.seat)
    s.auction_turn = auction_in[(i + 1) % len(auction_in)]


def _passed(s: State, e: Passed) -> None:
    auction_in = s.auction_in
    i = auction_in.index(e.seat)
    del auction_in[i]
    s.auction_turn = auction_in[i % len(auction_in)] if auction_in else None


def _branch_drawn(s: State, e: BranchDrawn) -> None:
    # Branches: auctioned at once, the drawer first, then the others in player order.
    _out_of_bag(s, e.token)
    s.phase = "auction"
    s.auction_token = e.token
    s.auction_in = _clockwise_from(s.active, s.players)
    s.auction_turn = s.active
    s.high_bid = 0
    s.high_bidder = None


def _auction_closed(s: State) -> None:
    s.phase = "refill"
    s.auction_token = None
    s.auction_in = []
    s.auction_turn = None
    s.high_bid = 0
    s.high_bidder = None


def _branch_won(s: State, e: BranchWon) -> None:
    _pay(s, e.seat, e.price)
    s.branches[e.seat].append(e.token)
    _auction_closed(s)


def _branch_discarded(s: State, e: BranchDiscarded) -> None:
    s.removed_branches.append(e.token)
    _auction_closed(s)


def _ruler_drawn(s: State, e: RulerDrawn) -> None:
    # Rulers: next open spot; the order goes once round, starting with the active player.
    _out_of_bag(s, e.token)
    s.rulers.append(e.token)
    s.phase = "ruler"
    s.ruler_queue = _clockwise_from(s.active, s.players)
    s.ruler_current = e.token


def _order_executed(s: State, e: OrderExecuted) -> None:
    if e.amount >= 0:
        _gain(s, e.seat, e.amount)
    else:
        _pay(s, e.seat, -e.amount - e.forgiven)
    _next_ruler_seat(s)


def _good_returned(s: State, e: GoodReturned) -> None:
    _take_out_of_screen(s, e.seat, (e.good,))
    s.box.append(e.good)
    _next_ruler_seat(s)


def _good_exchanged(s: State, e: GoodExchanged) -> None:
    seat = e.seat
    _take_out_of_screen(s, seat, (e.good,))
    s.screens[seat].append(e.taken)
    s.public[seat].append(e.taken)
    s.river[e.slot] = e.good
    _next_ruler_seat(s)


def _liquidity_bought_back(s: State, e: LiquidityBoughtBack) -> None:
    # Rulers, buy-back order: the card returns to the player's unused cards.
    _pay(s, e.seat, e.value)
    s.liquidity_used[e.seat].remove(e.value)
    s.cards[e.seat].append(C.liquidity_card(e.value))
    _next_ruler_seat(s)


def _ruler_chosen(s: State, e: RulerChosen) -> None:
    s.ruler_current = s.rulers[e.spot]


def _order_declined(s: State, e: OrderDeclined) -> None:
    _next_ruler_seat(s)


def _order_skipped(s: State, e: OrderSkipped) -> None:
    _next_ruler_seat(s)


def _ruler_resolved(s: State, e: RulerResolved) -> None:
    s.phase = "refill"
    s.ruler_queue = []
    s.ruler_current = None


def _liquidity_card_played(s: State, e: LiquidityCardPlayed) -> None:
    s.cards[e.seat].remove(C.liquidity_card(e.value))
    s.liquidity_used[e.seat].append(e.value)
    _gain(s, e.seat, e.value)


def _sell_card_played(s: State, e: SellCardPlayed) -> None:
    s.cards[e.seat].remove(C.SELL_ANYTIME)
    s.window = e.seat


def _selling_done(s: State, e: SellingDone) -> None:
    s.window = None


def _starting_goods_drawn(s: State, e: StartingGoodsDrawn) -> None:
    for g in e.goods:
        _out_of_bag(s, g)
    s.screens[e.seat].extend(e.goods)


def _game_set_up(s: State, e: GameSetUp) -> None:
    # Game Setup: 30 on the money track, six special cards each, seat 0 starts.
    n = e.players
    s.players = n
    s.river = list(e.river)
    on_river = set(e.river)
    s.bag = [t for t in C.ALL_TOKENS if t not in on_river]
    s.screens = [[] for _ in range(n)]
    s.public = [[] for _ in range(n)]
    s.track = [C.START_MONEY] * n
    s.coins = [0] * n
    s.cards = [list(C.SPECIAL_CARDS) for _ in range(n)]
    s.liquidity_used = [[] for _ in range(n)]
    s.branches = [[] for _ in range(n)]
    s.phase = "turn"
    s.stage = "sell"
    s.active = 0


def _final_scoring(s: State, e: FinalScoring) -> None:
    # End of Game and Final Scoring.
    s.phase = "over"
    s.window = None
    s.final_reason = e.reason
    s.final_bundles = [[list(b) for b in seat] for seat in e.bundles]
    s.final_breakdown = [dict(b) for b in e.breakdown]
    s.final_totals = list(e.totals)


_HANDLERS: dict[type, Callable[[State, Any], None]] = {
    GoodDrawn: _good_drawn, GoodsSold: _goods_sold, GoodPurchased: _good_purchased,
    PurchaseSkipped: _purchase_skipped, TurnEnded: _turn_ended, BidPlaced: _bid_placed, Passed: _passed,
    BranchDrawn: _branch_drawn, BranchWon: _branch_won, BranchDiscarded: _branch_discarded,
    RulerDrawn: _ruler_drawn, OrderExecuted: _order_executed, GoodReturned: _good_returned,
    GoodExchanged: _good_exchanged, LiquidityBoughtBack: _liquidity_bought_back, RulerChosen: _ruler_chosen,
    OrderDeclined: _order_declined, OrderSkipped: _order_skipped, RulerResolved: _ruler_resolved,
    LiquidityCardPlayed: _liquidity_card_played, SellCardPlayed: _sell_card_played,
    SellingDone: _selling_done, StartingGoodsDrawn: _starting_goods_drawn, GameSetUp: _game_set_up,
    FinalScoring: _final_scoring,
}
"""One function per event, named after it: applying a fact costs one dictionary look-up."""


def evolve(state: State, event: Event) -> State:
    _HANDLERS[type(event)](state, event)
    return state


# --- who acts ----------------------------------------------------------------------------------
def to_act(state: State) -> list[Seat]:
    """Game Play (the active seat, clockwise), Branches (the bidder), Rulers (the seat the order
    applies to), Special Cards (a seat selling with the sell card)."""
    s = state
    if s.window is not None:
        return [s.window]
    ph = s.phase
    if ph == "turn":
        return [s.active]
    if ph == "auction":
        return [s.auction_turn]  # type: ignore[list-item]
    if ph == "ruler" and s.ruler_queue:
        return [s.ruler_queue[0]]
    return []


# --- automatic steps ---------------------------------------------------------------------------
def _copy(s: State) -> State:
    c = msgspec.structs.replace(s)
    c.bag = list(s.bag)
    c.river = list(s.river)
    c.screens = [list(x) for x in s.screens]
    c.public = [list(x) for x in s.public]
    c.track = list(s.track)
    c.coins = list(s.coins)
    c.cards = [list(x) for x in s.cards]
    c.liquidity_used = [list(x) for x in s.liquidity_used]
    c.branches = [list(x) for x in s.branches]
    c.rulers = list(s.rulers)
    c.box = list(s.box)
    c.removed_branches = list(s.removed_branches)
    c.auction_in = list(s.auction_in)
    c.ruler_queue = list(s.ruler_queue)
    return c


def _tax(s: State, seat: int, order: str, due: int) -> list[Event]:
    """Rulers, additional notes: debts below 0 are forgiven, but an unused liquidity card must be
    redeemed first (assumed: the largest first, as many as needed)."""
    total = money(s, seat)
    out: list[Event] = []
    if total < due:
        # assumed: the player's best choice is taken for him: the largest cards first, only as many
        # as needed (every unused card scores 30 at the end whatever its value, so this gives the
        # most money for the fewest cards).
        for value in sorted((C.LIQUIDITY[c] for c in s.cards[seat] if c in C.LIQUIDITY), reverse=True):
            out.append(LiquidityCardPlayed(seat=seat, value=value, forced=True))
            total += value
            if total >= due:
                break
    out.append(OrderExecuted(seat=seat, order=order, amount=-due, forgiven=max(0, due - total)))
    return out


def _affordable_buy_backs(s: State, seat: int) -> list[int]:
    """Rulers, buy-back order: "The price is equal to the value you received when it was sold." """
    cash = money(s, seat)
    return sorted({v for v in s.liquidity_used[seat] if v <= cash})


def _other_rulers(s: State) -> list[int]:
    """Rulers, repeat order: "Choose any one of the face up rulers already on the table" (not the
    repeat order itself, which would never end)."""
    return [spot for spot, tok in enumerate(s.rulers) if C.ruler_order(tok)[0] != C.REPEAT_ORDER]


def _order_step(s: State, seat: int) -> list[Event]:
    """Rulers: the events of applying the current order to *seat* when it needs no decision; []
    when the seat must decide."""
    kind, param = C.ruler_order(s.ruler_current)  # type: ignore[arg-type]
    if kind == C.BRANCH_INCOME:
        # Rulers: "advanced 2 spaces" for each branch of the shown type (never hurts: automatic).
        count = sum(1 for b in s.branches[seat] if C.branch_type(b) == param)
        return [OrderExecuted(seat=seat, order=kind, amount=C.BRANCH_INCOME_PER_TOKEN * count)]
    if kind == C.TAX_MONEY:
        # Rulers: "For every 10 money units a player possesses on his money track" pay 1.
        return _tax(s, seat, kind, max(0, s.track[seat]) // 10)  # the track only, not the coins
    if kind == C.TAX_GOODS:
        # Rulers: pay 1 "for every goods token found behind your own player screen".
        return _tax(s, seat, kind, len(s.screens[seat]))
    if kind == C.TAX_BRANCHES:
        # Rulers: pay 1 "for every branch token in front of your own player screen".
        return _tax(s, seat, kind, len(s.branches[seat]))
    if kind == C.RETURN_GOOD:
        # Rulers, additional notes: without a good to put in the box, "his debts will be forgiven".
        if not s.screens[seat]:
            return [OrderSkipped(seat=seat, order=kind, reason="no good to return: forgiven")]
    elif kind == C.SELL_BUNDLE:
        if not s.screens[seat]:
            return [OrderSkipped(seat=seat, order=kind, reason="no good to sell")]
    elif kind == C.BUY_BACK_LIQUIDITY:
        if not _affordable_buy_backs(s, seat):
            return [OrderSkipped(seat=seat, order=kind, reason="no used liquidity card that can be paid for")]
    elif kind == C.EXCHANGE_GOOD:
        if not s.screens[seat] or all(g is None for g in s.river):
            return [OrderSkipped(seat=seat, order=kind, reason="nothing to exchange")]
    elif kind == C.REPEAT_ORDER and not _other_rulers(s):
        return [OrderSkipped(seat=seat, order=kind, reason="no other ruler on the table")]
    return []


def _advance(s: State, rng: Rng, out: list[Event]) -> None:
    """Run every step that needs no decision, appending (and applying) its events."""

    def emit(e: Event) -> None:
        out.append(e)
        evolve(s, e)

    n = s.players
    while True:
        if s.window is not None:
            return
        ph = s.phase
        if ph == "refill":
            if s.refills > 0 and s.bag:
                # 2. Purchase One Good: draw until a good fills the gap; rulers and branches are
                # dealt with first.
                token = s.bag[rng.below(len(s.bag))]
                if C.is_good(token):
                    emit(GoodDrawn(good=token))
                elif C.is_ruler(token):
                    emit(RulerDrawn(token=token, spot=len(s.rulers)))
                else:
                    emit(BranchDrawn(token=token))
                continue
            emit(TurnEnded(seat=s.active, next=(s.active + 1) % n))
            if s.idle >= n:
                # Game Play, note: a whole round in which nobody acts ends the game.
                emit(final_scoring(s, "a full round passed in which nobody bought or sold"))
            return
        if ph == "ruler":
            if not s.ruler_queue:
                emit(RulerResolved(spot=len(s.rulers) - 1))
                if len(s.rulers) == C.RULER_COUNT:
                    # End of Game: the 12th ruler's order is executed, then the final scoring.
                    emit(final_scoring(s, "the 12th ruler's order was executed"))
                    return
                continue
            events = _order_step(s, s.ruler_queue[0])
            if not events:
                return
            for e in events:
                emit(e)
            continue
        return


# --- decide ------------------------------------------------------------------------------------
def _bad(code: str, message: str, rule: str) -> RuleViolation:
    return RuleViolation(code, message, rule=rule)


def _check_bundle(s: State, seat: int, goods: list[int]) -> int:
    """1. Sell a Bundle of Goods: the goods must be behind the seller's screen and form a bundle."""
    screen = s.screens[seat]
    if not goods or len(set(goods)) != len(goods) or any(g not in screen for g in goods):
        raise _bad("good_not_held", "you do not hold all of these goods", R_SELL)
    if bundle_kind(list(goods)) is None:
        raise _bad(
            "not_a_bundle",
            "a bundle is goods of one category showing the same good, colour or symbol",
            R_SELL,
        )
    return bundle_value(list(goods))


def decide(state: State, seat: Seat, command: Command, rng: Rng) -> list[Event]:
    s = state
    if s.phase == "over":
        raise GameOver()
    if not isinstance(seat, int) or not 0 <= seat < s.players:
        raise NotYourTurn()
    # Special cards usable at any time (rulebook "Special Cards").
    if isinstance(command, PlayLiquidity):
        if C.liquidity_card(command.value) not in s.cards[seat]:
            raise _bad("card_not_available", "you have no unused liquidity card of that value", R_CARDS)
        return [LiquidityCardPlayed(seat=seat, value=command.value)]
    if isinstance(command, PlaySellCard):
        if C.SELL_ANYTIME not in s.cards[seat]:
            raise _bad("card_not_available", "you have already used your sell card", R_CARDS)
        if s.window is not None:
            raise _bad(
                "sale_in_progress", "a sale with the sell card is in progress; wait until it is done", R_CARDS
            )
        return [SellCardPlayed(seat=seat)]
    if seat not in to_act(s):
        raise NotYourTurn()
    if s.window == seat:
        if isinstance(command, SellBundle):
            value = _check_bundle(s, seat, command.goods)
            return [GoodsSold(seat=seat, goods=list(command.goods), value=value, via="card")]
        if isinstance(command, DoneSelling):
            # A pending ruler's order may have nothing left to act on after the sale.
            events = [SellingDone(seat=seat)]
            scratch = _copy(s)
            evolve(scratch, events[0])
            _advance(scratch, rng, events)
            return events
        raise _bad("finish_selling", "sell bundles or finish selling (DoneSelling) first", R_CARDS)
    if isinstance(command, DoneSelling):
        raise _bad("no_sale_open", "you are not selling with the sell card", R_CARDS)
    if s.phase == "turn":
        events, more = _decide_turn(s, seat, command)
    elif s.phase == "auction":
        events, more = _decide_auction(s, seat, command)
    else:
        events, more = _decide_ruler(s, seat, command)
    if more:
        scratch = _copy(s)
        for e in events:
            evolve(scratch, e)
        _advance(scratch, rng, events)
    return events


def _decide_turn(s: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """Game Play: "1. Sell bundle(s) of goods" (only at the beginning of the turn), then "2. Purchase
    One Good" (optional); the buy-two and free-good cards are flags (Special Cards)."""
    if isinstance(command, SellBundle):
        if s.stage != "sell":
            raise _bad(
                "selling_not_allowed",
                "goods are sold only at the start of your turn (or with the sell card)",
                R_SELL,
            )
        value = _check_bundle(s, seat, command.goods)
        return [GoodsSold(seat=seat, goods=list(command.goods), value=value, via="turn")], False
    if isinstance(command, PurchaseGood):
        slot, free, two = command.slot, command.free, command.buy_two
        if not 0 <= slot < C.RIVER_LENGTH or s.river[slot] is None:
            raise _bad("no_good_there", "there is no good in front of that trading house", R_BUY)
        if free and C.FREE_GOOD not in s.cards[seat]:
            raise _bad("card_not_available", "you have already used your free-good card", R_CARDS)
        if two and (s.stage != "sell" or C.BUY_TWO not in s.cards[seat]):
            raise _bad("card_not_available", "you cannot play the buy-two card now", R_CARDS)
        price = 0 if free else C.PRICES[slot]
        if price > money(s, seat):
            raise _bad("insufficient_money", "purchases may not exceed your money", R_BUY)
        good = s.river[slot]
        assert good is not None
        return [GoodPurchased(seat=seat, slot=slot, good=good, price=price, free=free, buy_two=two)], not two
    if isinstance(command, EndTurn):
        return [PurchaseSkipped(seat=seat)], True
    raise _bad("not_now", "that decision is not asked for now: sell, purchase or end the turn", R_BUY)


def _decide_auction(s: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """Branches: the drawer bids or passes first, then the others in player order, "until there's
    only one player left with the highest bid"; nobody bidding puts the token in the box."""
    token = s.auction_token
    assert token is not None
    if isinstance(command, Bid):
        amount = command.amount
        if amount <= s.high_bid or amount < 1:
            raise _bad("bid_too_low", f"bid more than {s.high_bid}", R_BRANCH)
        if amount > money(s, seat):
            raise _bad("insufficient_money", "you may not bid more than your money", R_BRANCH)
        events: list[Event] = [BidPlaced(seat=seat, amount=amount)]
        if len(s.auction_in) == 1:
            events.append(BranchWon(seat=seat, token=token, price=amount))
            return events, True
        return events, False
    if isinstance(command, Pass):
        events = [Passed(seat=seat)]
        left = [x for x in s.auction_in if x != seat]
        if not left:
            events.append(BranchDiscarded(token=token))
            return events, True
        if len(left) == 1 and s.high_bidder == left[0]:
            events.append(BranchWon(seat=left[0], token=token, price=s.high_bid))
            return events, True
        return events, False
    raise _bad("not_now", "a branch is being auctioned: bid or pass", R_BRANCH)


def _decide_ruler(s: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """Rulers: the orders that need a decision; a question-mark order may be declined, "All other
    orders must be executed!"."""
    kind, _param = C.ruler_order(s.ruler_current)  # type: ignore[arg-type]
    if isinstance(command, DeclineOrder):
        if kind not in C.OPTIONAL_ORDERS:
            raise _bad("order_mandatory", "this ruler's order must be executed", R_RULER)
        return [OrderDeclined(seat=seat)], True
    if kind == C.RETURN_GOOD and isinstance(command, ReturnGood):
        if command.good not in s.screens[seat]:
            raise _bad("good_not_held", "you do not hold that good", R_RULER)
        return [GoodReturned(seat=seat, good=command.good)], True
    if kind == C.SELL_BUNDLE and isinstance(command, SellBundle):
        value = _check_bundle(s, seat, command.goods)
        return [GoodsSold(seat=seat, goods=list(command.goods), value=value, via="order")], True
    if kind == C.BUY_BACK_LIQUIDITY and isinstance(command, BuyBackLiquidity):
        value = command.value
        if value not in s.liquidity_used[seat]:
            raise _bad("card_not_available", "you have no used liquidity card of that value", R_RULER)
        if value > money(s, seat):
            raise _bad("insufficient_money", "you cannot pay for that card", R_RULER)
        return [LiquidityBoughtBack(seat=seat, value=value)], True
    if kind == C.EXCHANGE_GOOD and isinstance(command, ExchangeGood):
        good, slot = command.good, command.slot
        if good not in s.screens[seat]:
            raise _bad("good_not_held", "you do not hold that good", R_RULER)
        if not 0 <= slot < C.RIVER_LENGTH or s.river[slot] is None:
            raise _bad("no_good_there", "there is no good in front of that trading house", R_RULER)
        taken = s.river[slot]
        assert taken is not None
        return [GoodExchanged(seat=seat, good=good, slot=slot, taken=taken)], True
    if kind == C.REPEAT_ORDER and isinstance(command, ChooseRuler):
        spot = command.spot
        if spot not in _other_rulers(s):
            raise _bad("no_such_ruler", "choose another face-up ruler", R_RULER)
        return [RulerChosen(seat=seat, spot=spot)], True
    raise _bad("not_now", f"the ruler's order is: {C.order_text(kind, _param)}", R_RULER)


# --- legal moves -------------------------------------------------------------------------------
def legal_moves(state: State, seat: Seat) -> list[Command]:
    """The decision asked of *seat* now, plus its any-time cards (Special Cards: liquidity, sell)."""
    s = state
    if s.phase == "over" or not 0 <= seat < s.players:
        return []
    moves: list[Command] = []
    acting = s.window == seat or (s.window is None and seat in to_act(s))
    if acting:
        _decision_moves(s, seat, moves)
    for card in s.cards[seat]:
        if card in C.LIQUIDITY:
            moves.append(PlayLiquidity(value=C.LIQUIDITY[card]))
        elif card == C.SELL_ANYTIME and s.window is None:
            moves.append(PlaySellCard())
    return moves


def _decision_moves(s: State, seat: int, moves: list[Command]) -> None:
    if s.window == seat:
        moves.extend(SellBundle(goods=b) for b in possible_bundles(s.screens[seat]))
        moves.append(DoneSelling())
        return
    ph = s.phase
    if ph == "turn":
        if s.stage == "sell":
            moves.extend(SellBundle(goods=b) for b in possible_bundles(s.screens[seat]))
        cash = money(s, seat)
        cards = s.cards[seat]
        free = C.FREE_GOOD in cards
        two = s.stage == "sell" and C.BUY_TWO in cards
        for slot, good in enumerate(s.river):
            if good is None:
                continue
            if C.PRICES[slot] <= cash:
                moves.append(PurchaseGood(slot=slot))
                if two:
                    moves.append(PurchaseGood(slot=slot, buy_two=True))
            if free:
                moves.append(PurchaseGood(slot=slot, free=True))
                if two:
                    moves.append(PurchaseGood(slot=slot, free=True, buy_two=True))
        moves.append(EndTurn())
    elif ph == "auction":
        moves.append(Pass())
        moves.extend(Bid(amount=a) for a in range(s.high_bid + 1, money(s, seat) + 1))
    elif ph == "ruler":
        kind, _ = C.ruler_order(s.ruler_current)  # type: ignore[arg-type]
        if kind == C.RETURN_GOOD:
            moves.extend(ReturnGood(good=g) for g in sorted(s.screens[seat]))
        elif kind == C.SELL_BUNDLE:
            moves.extend(SellBundle(goods=b) for b in possible_bundles(s.screens[seat]))
        elif kind == C.BUY_BACK_LIQUIDITY:
            moves.extend(BuyBackLiquidity(value=v) for v in _affordable_buy_backs(s, seat))
        elif kind == C.EXCHANGE_GOOD:
            for g in sorted(s.screens[seat]):
                moves.extend(ExchangeGood(good=g, slot=i) for i, r in enumerate(s.river) if r is not None)
        elif kind == C.REPEAT_ORDER:
            moves.extend(ChooseRuler(spot=i) for i in _other_rulers(s))
        if kind in C.OPTIONAL_ORDERS:
            moves.append(DeclineOrder())

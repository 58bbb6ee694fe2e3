"""evolve(state, event): applies a fact in place.  Never validates, never fails.

One handler per event, named after it, each with the rulebook section whose effect it records.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from msgspec import UNSET

from domain.kernel.evolver import Evolver, Handler
from domain.kernel.table import handlers as table_handlers

from . import components as C
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
    ResponsePassed,
    RulerChosen,
    RulerDrawn,
    RulerResolved,
    SellCardPlayed,
    SellingDone,
    StartingGoodsDrawn,
    TurnEnded,
)
from .state import State
from .turn import to_act
from .versions import YANGTZE_2


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
    money track board drops to 0 or falls below 0"; at exactly 0 the player keeps them (see
    docs/games/yangtze.md, Money)."""
    track = s.track[seat] - amount
    while track < 0 and s.coins[seat] > 0:
        track += C.COIN_VALUE
        s.coins[seat] -= 1
    s.track[seat] = track


# --- the events ----------------------------------------------------------------------------------
def _next_ruler_seat(s: State) -> None:
    s.ruler_queue.pop(0)
    s.ruler_current = s.rulers[-1]
    s.responded = UNSET


def _clockwise_from(seat: int, players: int) -> list[int]:
    """Every seat once, in player order, starting with ``seat``."""
    return [*range(seat, players), *range(seat)]


def _out_of_bag(s: State, token: int) -> None:
    """A token drawn from the bag leaves it.  The bag is kept in token order (built sorted, it only
    loses tokens), so bisection finds the token ``list.remove`` would, without a linear scan."""
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
    # Game Play: buying is optional; the gaps (a buy-two purchase's) are refilled all the same.
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
    # Branches: the others bid in player order, among the seats still in.
    s.high_bid = e.amount
    s.high_bidder = e.seat
    auction_in = s.auction_in
    i = auction_in.index(e.seat)
    s.auction_turn = auction_in[(i + 1) % len(auction_in)]


def _passed(s: State, e: Passed) -> None:
    # Branches: a pass leaves the auction.
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
    # Branches: the winner pays his bid; the token lies face up in front of his screen.
    _pay(s, e.seat, e.price)
    s.branches[e.seat].append(e.token)
    _auction_closed(s)


def _branch_discarded(s: State, e: BranchDiscarded) -> None:
    # Branches: "If no player bids for the branch token, it is placed back in the box."
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
    # Rulers: branch income, or a tax less what is forgiven (additional notes).
    if e.amount >= 0:
        _gain(s, e.seat, e.amount)
    else:
        _pay(s, e.seat, -e.amount - e.forgiven)
    _next_ruler_seat(s)


def _good_returned(s: State, e: GoodReturned) -> None:
    # Rulers: "One already purchased goods token ... must be placed back in the box."
    _take_out_of_screen(s, e.seat, (e.good,))
    s.box.append(e.good)
    _next_ruler_seat(s)


def _good_exchanged(s: State, e: GoodExchanged) -> None:
    # Rulers: a good from behind the screen swaps places with one on the river (now public).
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
    # Rulers: the repeat order executes the chosen face-up ruler's order for this seat.
    s.ruler_current = s.rulers[e.spot]
    s.responded = UNSET


def _response_passed(s: State, e: ResponsePassed) -> None:
    # Special Cards, "any time": the seat lets the order be applied without playing a card first.
    s.responded = True


def _order_declined(s: State, e: OrderDeclined) -> None:
    _next_ruler_seat(s)


def _order_skipped(s: State, e: OrderSkipped) -> None:
    _next_ruler_seat(s)


def _ruler_resolved(s: State, e: RulerResolved) -> None:
    # Rulers: the order has gone round; "Only thereafter does the player draw another token".
    s.phase = "refill"
    s.ruler_queue = []
    s.ruler_current = None


def _liquidity_card_played(s: State, e: LiquidityCardPlayed) -> None:
    # Special Cards: liquidity cards raise the money level by 10, 15 or 20, once.
    s.cards[e.seat].remove(C.liquidity_card(e.value))
    s.liquidity_used[e.seat].append(e.value)
    _gain(s, e.seat, e.value)


def _sell_card_played(s: State, e: SellCardPlayed) -> None:
    # Special Cards: the sell card opens a sale for its owner.
    s.cards[e.seat].remove(C.SELL_ANYTIME)
    s.window = e.seat


def _selling_done(s: State, e: SellingDone) -> None:
    s.window = None


def _starting_goods_drawn(s: State, e: StartingGoodsDrawn) -> None:
    # Game Setup: two goods from the bag behind each screen.
    for g in e.goods:
        _out_of_bag(s, g)
    s.screens[e.seat].extend(e.goods)


def _game_set_up(s: State, e: GameSetUp) -> None:
    # Game Setup: 30 on the money track, six special cards each, seat 0 starts.
    n = e.players
    if e.rules_version != YANGTZE_2:
        s.rules_version = e.rules_version  # a yangtze-2 state leaves it UNSET (State.rules_version)
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


HANDLERS: dict[type, Handler] = {
    GoodDrawn: _good_drawn,
    GoodsSold: _goods_sold,
    GoodPurchased: _good_purchased,
    PurchaseSkipped: _purchase_skipped,
    TurnEnded: _turn_ended,
    BidPlaced: _bid_placed,
    Passed: _passed,
    BranchDrawn: _branch_drawn,
    BranchWon: _branch_won,
    BranchDiscarded: _branch_discarded,
    RulerDrawn: _ruler_drawn,
    OrderExecuted: _order_executed,
    GoodReturned: _good_returned,
    GoodExchanged: _good_exchanged,
    LiquidityBoughtBack: _liquidity_bought_back,
    RulerChosen: _ruler_chosen,
    OrderDeclined: _order_declined,
    ResponsePassed: _response_passed,
    OrderSkipped: _order_skipped,
    RulerResolved: _ruler_resolved,
    LiquidityCardPlayed: _liquidity_card_played,
    SellCardPlayed: _sell_card_played,
    SellingDone: _selling_done,
    StartingGoodsDrawn: _starting_goods_drawn,
    GameSetUp: _game_set_up,
    FinalScoring: _final_scoring,
}
"""One function per event, named after it: applying a fact costs one dictionary look-up."""


EVOLVER: Evolver[State] = Evolver(HANDLERS | table_handlers(State, to_act))
"""Yangtze's events and the table's (``domain.kernel.table.handlers``)."""
evolve = EVOLVER.evolve
fold = EVOLVER.fold

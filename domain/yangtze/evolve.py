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
def _gain(state: State, seat: int, amount: int) -> None:
    """1. Sell a Bundle of Goods: "If a player's money level exceeds 60, he receives a coin with a
    value of 50 and resets his marking coin on the track board by 50 points." """
    track = state.track[seat] + amount
    while track > C.TRACK_MAX:
        track -= C.COIN_VALUE
        state.coins[seat] += 1
    state.track[seat] = track


def _pay(state: State, seat: int, amount: int) -> None:
    """1. Sell a Bundle of Goods: the 50-coins "may be exchanged at any time if the money on the
    money track board drops to 0 or falls below 0"; at exactly 0 the player keeps them (see
    docs/games/yangtze.md, Money)."""
    track = state.track[seat] - amount
    while track < 0 and state.coins[seat] > 0:
        track += C.COIN_VALUE
        state.coins[seat] -= 1
    state.track[seat] = track


# --- the events ----------------------------------------------------------------------------------
def _next_ruler_seat(state: State) -> None:
    state.ruler_queue.pop(0)
    state.ruler_current = state.rulers[-1]
    state.responded = UNSET


def _clockwise_from(seat: int, players: int) -> list[int]:
    """Every seat once, in player order, starting with ``seat``."""
    return [*range(seat, players), *range(seat)]


def _out_of_bag(state: State, token: int) -> None:
    """A token drawn from the bag leaves it.  The bag is kept in token order (built sorted, it only
    loses tokens), so bisection finds the token ``list.remove`` would, without a linear scan."""
    bag = state.bag
    i = bisect_left(bag, token)
    if i < len(bag) and bag[i] == token:
        del bag[i]
    else:
        bag.remove(token)


def _take_out_of_screen(state: State, seat: int, goods: Iterable[int]) -> None:
    screen, public = state.screens[seat], state.public[seat]
    for good in goods:
        screen.remove(good)
        if good in public:
            public.remove(good)


def _good_drawn(state: State, event: GoodDrawn) -> None:
    # 2. Purchase One Good: placed at the open side, "pushing any other tiles along the river
    # until the resulting gap is filled".
    _out_of_bag(state, event.good)
    river = state.river
    del river[river.index(None)]
    river.insert(0, event.good)
    state.refills -= 1


def _goods_sold(state: State, event: GoodsSold) -> None:
    # 1. Sell a Bundle of Goods: the tokens go in the box (not in the bag!).
    seat = event.seat
    _take_out_of_screen(state, seat, event.goods)
    state.box.extend(event.goods)
    _gain(state, seat, event.value)
    state.acted = True
    if event.via == "order":
        _next_ruler_seat(state)


def _good_purchased(state: State, event: GoodPurchased) -> None:
    # 2. Purchase One Good (Special Cards: free good, buy two -- refill only after both).
    seat = event.seat
    state.river[event.slot] = None
    state.screens[seat].append(event.good)
    state.public[seat].append(event.good)
    _pay(state, seat, event.price)
    if event.free:
        state.cards[seat].remove(C.FREE_GOOD)
    state.acted = True
    if event.buy_two:
        state.cards[seat].remove(C.BUY_TWO)
        state.stage = "second"
    else:
        state.phase = "refill"
        state.refills = state.river.count(None)


def _purchase_skipped(state: State, event: PurchaseSkipped) -> None:
    # Game Play: buying is optional; the gaps (a buy-two purchase's) are refilled all the same.
    state.phase = "refill"
    state.refills = state.river.count(None)


def _turn_ended(state: State, event: TurnEnded) -> None:
    # Game Play: clockwise; the note's idle round is counted here.
    state.active = event.next
    state.phase = "turn"
    state.stage = "sell"
    state.idle = 0 if state.acted else state.idle + 1
    state.acted = False
    state.refills = 0


def _bid_placed(state: State, event: BidPlaced) -> None:
    # Branches: the others bid in player order, among the seats still in.
    state.high_bid = event.amount
    state.high_bidder = event.seat
    auction_in = state.auction_in
    i = auction_in.index(event.seat)
    state.auction_turn = auction_in[(i + 1) % len(auction_in)]


def _passed(state: State, event: Passed) -> None:
    # Branches: a pass leaves the auction.
    auction_in = state.auction_in
    i = auction_in.index(event.seat)
    del auction_in[i]
    state.auction_turn = auction_in[i % len(auction_in)] if auction_in else None


def _branch_drawn(state: State, event: BranchDrawn) -> None:
    # Branches: auctioned at once, the drawer first, then the others in player order.
    _out_of_bag(state, event.token)
    state.phase = "auction"
    state.auction_token = event.token
    state.auction_in = _clockwise_from(state.active, state.players)
    state.auction_turn = state.active
    state.high_bid = 0
    state.high_bidder = None


def _auction_closed(state: State) -> None:
    state.phase = "refill"
    state.auction_token = None
    state.auction_in = []
    state.auction_turn = None
    state.high_bid = 0
    state.high_bidder = None


def _branch_won(state: State, event: BranchWon) -> None:
    # Branches: the winner pays his bid; the token lies face up in front of his screen.
    _pay(state, event.seat, event.price)
    state.branches[event.seat].append(event.token)
    _auction_closed(state)


def _branch_discarded(state: State, event: BranchDiscarded) -> None:
    # Branches: "If no player bids for the branch token, it is placed back in the box."
    state.removed_branches.append(event.token)
    _auction_closed(state)


def _ruler_drawn(state: State, event: RulerDrawn) -> None:
    # Rulers: next open spot; the order goes once round, starting with the active player.
    _out_of_bag(state, event.token)
    state.rulers.append(event.token)
    state.phase = "ruler"
    state.ruler_queue = _clockwise_from(state.active, state.players)
    state.ruler_current = event.token


def _order_executed(state: State, event: OrderExecuted) -> None:
    # Rulers: branch income, or a tax less what is forgiven (additional notes).
    if event.amount >= 0:
        _gain(state, event.seat, event.amount)
    else:
        _pay(state, event.seat, -event.amount - event.forgiven)
    _next_ruler_seat(state)


def _good_returned(state: State, event: GoodReturned) -> None:
    # Rulers: "One already purchased goods token ... must be placed back in the box."
    _take_out_of_screen(state, event.seat, (event.good,))
    state.box.append(event.good)
    _next_ruler_seat(state)


def _good_exchanged(state: State, event: GoodExchanged) -> None:
    # Rulers: a good from behind the screen swaps places with one on the river (now public).
    seat = event.seat
    _take_out_of_screen(state, seat, (event.good,))
    state.screens[seat].append(event.taken)
    state.public[seat].append(event.taken)
    state.river[event.slot] = event.good
    _next_ruler_seat(state)


def _liquidity_bought_back(state: State, event: LiquidityBoughtBack) -> None:
    # Rulers, buy-back order: the card returns to the player's unused cards.
    _pay(state, event.seat, event.value)
    state.liquidity_used[event.seat].remove(event.value)
    state.cards[event.seat].append(C.liquidity_card(event.value))
    _next_ruler_seat(state)


def _ruler_chosen(state: State, event: RulerChosen) -> None:
    # Rulers: the repeat order executes the chosen face-up ruler's order for this seat.
    state.ruler_current = state.rulers[event.spot]
    state.responded = UNSET


def _response_passed(state: State, event: ResponsePassed) -> None:
    # Special Cards, "any time": the seat lets the order be applied without playing a card first.
    state.responded = True


def _order_declined(state: State, event: OrderDeclined) -> None:
    _next_ruler_seat(state)


def _order_skipped(state: State, event: OrderSkipped) -> None:
    _next_ruler_seat(state)


def _ruler_resolved(state: State, event: RulerResolved) -> None:
    # Rulers: the order has gone round; "Only thereafter does the player draw another token".
    state.phase = "refill"
    state.ruler_queue = []
    state.ruler_current = None


def _liquidity_card_played(state: State, event: LiquidityCardPlayed) -> None:
    # Special Cards: liquidity cards raise the money level by 10, 15 or 20, once.
    state.cards[event.seat].remove(C.liquidity_card(event.value))
    state.liquidity_used[event.seat].append(event.value)
    _gain(state, event.seat, event.value)


def _sell_card_played(state: State, event: SellCardPlayed) -> None:
    # Special Cards: the sell card opens a sale for its owner.
    state.cards[event.seat].remove(C.SELL_ANYTIME)
    state.window = event.seat


def _selling_done(state: State, event: SellingDone) -> None:
    state.window = None


def _starting_goods_drawn(state: State, event: StartingGoodsDrawn) -> None:
    # Game Setup: two goods from the bag behind each screen.
    for g in event.goods:
        _out_of_bag(state, g)
    state.screens[event.seat].extend(event.goods)


def _game_set_up(state: State, event: GameSetUp) -> None:
    # Game Setup: 30 on the money track, six special cards each, seat 0 starts.
    n = event.players
    if event.rules_version != YANGTZE_2:
        state.rules_version = event.rules_version  # a yangtze-2 state leaves it UNSET (State.rules_version)
    state.players = n
    state.river = list(event.river)
    on_river = set(event.river)
    state.bag = [t for t in C.ALL_TOKENS if t not in on_river]
    state.screens = [[] for _ in range(n)]
    state.public = [[] for _ in range(n)]
    state.track = [C.START_MONEY] * n
    state.coins = [0] * n
    state.cards = [list(C.SPECIAL_CARDS) for _ in range(n)]
    state.liquidity_used = [[] for _ in range(n)]
    state.branches = [[] for _ in range(n)]
    state.phase = "turn"
    state.stage = "sell"
    state.active = 0


def _final_scoring(state: State, event: FinalScoring) -> None:
    # End of Game and Final Scoring.
    state.phase = "over"
    state.window = None
    state.final_reason = event.reason
    state.final_bundles = [[list(b) for b in seat] for seat in event.bundles]
    state.final_breakdown = [dict(b) for b in event.breakdown]
    state.final_totals = list(event.totals)


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

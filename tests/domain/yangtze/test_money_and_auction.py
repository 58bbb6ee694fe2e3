"""Money track and 50-coins (rulebook "1. Sell a Bundle of Goods") and the branch auction
(rulebook "Branches")."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    Bid,
    DoneSelling,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    SellBundle,
)
from domain.yangtze.events import (
    BidPlaced,
    BranchDiscarded,
    BranchDrawn,
    BranchWon,
    GoodDrawn,
    GoodPurchased,
    GoodsSold,
    LiquidityCardPlayed,
    Passed,
    SellCardPlayed,
    SellingDone,
    TurnEnded,
)
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.state import money
from tests.support import given_state

from .helpers import DEFAULT_RIVER, Story, branch, daily, lux, seed_drawing, setup_events

# --- money track and coins -----------------------------------------------------------------------
SIX_RICE = [daily(0, c) for c in range(6)]
"""Six daily goods of one kind: a bundle worth 80."""


def _money(*events) -> tuple[int, int]:
    """Seat 0's (track, coins) after the setup (30 on the track, SIX_RICE behind its screen) and
    *events*."""
    state = GAME.fold(
        GAME.initial(YangtzeOptions(players=2)), [*setup_events(2, hands=[SIX_RICE, []]), *events]
    )
    return state.track[0], state.coins[0]


def test_a_track_above_60_converts_50_into_a_coin():
    l20, l10 = LiquidityCardPlayed(seat=0, value=20), LiquidityCardPlayed(seat=0, value=10)
    assert _money(l20, l10) == (60, 0)  # exactly 60 stays on the track
    assert _money(l20, l10, LiquidityCardPlayed(seat=0, value=15)) == (25, 1)
    assert _money(l20, l10, GoodsSold(seat=0, goods=SIX_RICE, value=80)) == (40, 2)  # 140: two coins


def test_coins_are_broken_back_when_the_track_falls_below_0():
    rich = [LiquidityCardPlayed(seat=0, value=20), GoodsSold(seat=0, goods=SIX_RICE, value=80)]
    assert _money(*rich) == (30, 2)

    def bought(slot: int) -> GoodPurchased:
        return GoodPurchased(seat=0, slot=slot, good=DEFAULT_RIVER[slot], price=C.PRICES[slot])

    down_to_0 = [bought(0), bought(1), bought(7), bought(5)]  # 10 + 10 + 4 + 6
    assert _money(*rich, *down_to_0) == (0, 2)  # at exactly 0 the player keeps his coins
    assert _money(*rich, *down_to_0, bought(6)) == (45, 1)


def test_sale_over_60_gives_a_coin():
    hand = [lux(2, c) for c in range(5)]
    state = Story(hands=[hand, []]).liquidity_used(0, 10).state  # 40 on the track
    after = (
        given_state(GAME, state)
        .when(0, SellBundle(goods=hand))
        .then([GoodsSold(seat=0, goods=hand, value=75)])
    )
    assert (after.track[0], after.coins[0]) == (15, 2) and money(after, 0) == 115


# --- branch auction ------------------------------------------------------------------------------
B = branch(0, 2)


def _auction(players=3, story: Story | None = None):
    """Seat 0 buys at Shanghai and draws branch B (on the table *story* tells, a new one by default;
    its river must be DEFAULT_RIVER)."""
    state = (story or Story(players=players)).state
    events = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7), seed=seed_drawing(state, B))
        .then([GoodPurchased(seat=0, slot=7, good=DEFAULT_RIVER[7], price=4), BranchDrawn(token=B)])
    )
    return events


def test_drawing_a_branch_starts_an_auction_with_the_drawer():
    state = _auction()
    assert state.phase == "auction" and GAME.to_act(state) == [0]
    assert state.auction_in == [0, 1, 2]


def test_the_drawer_bids_then_the_others_in_player_order_until_one_is_left():
    state = _auction()
    s1 = given_state(GAME, state).when(0, Bid(amount=3)).then([BidPlaced(seat=0, amount=3)])
    assert GAME.to_act(s1) == [1]
    s2 = given_state(GAME, s1).when(1, Bid(amount=5)).then([BidPlaced(seat=1, amount=5)])
    s3 = given_state(GAME, s2).when(2, Pass()).then([Passed(seat=2)])
    assert GAME.to_act(s3) == [0]
    s4 = (
        given_state(GAME, s3)
        .when(0, Pass(), seed=seed_drawing(s3, daily(0, 0)))
        .then(
            [
                Passed(seat=0),
                BranchWon(seat=1, token=B, price=5),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert s4.branches[1] == [B] and s4.track[1] == 25


def test_nobody_bids_the_token_leaves_the_game():
    state = _auction()
    s1 = given_state(GAME, state).when(0, Pass()).then([Passed(seat=0)])
    s2 = given_state(GAME, s1).when(1, Pass()).then([Passed(seat=1)])
    s3 = (
        given_state(GAME, s2)
        .when(2, Pass(), seed=seed_drawing(s2, daily(0, 0)))
        .then(
            [Passed(seat=2), BranchDiscarded(token=B), GoodDrawn(good=daily(0, 0)), TurnEnded(seat=0, next=1)]
        )
    )
    assert s3.removed_branches == [B] and all(b == [] for b in s3.branches)


def test_the_last_seat_in_may_still_bid_alone():
    state = _auction(players=2)
    s1 = given_state(GAME, state).when(0, Pass()).then([Passed(seat=0)])
    given_state(GAME, s1).when(1, Bid(amount=1), seed=seed_drawing(s1, daily(0, 0))).then(
        [
            BidPlaced(seat=1, amount=1),
            BranchWon(seat=1, token=B, price=1),
            GoodDrawn(good=daily(0, 0)),
            TurnEnded(seat=0, next=1),
        ]
    )


def test_no_bid_above_what_the_bidder_can_pay():
    # seat 1 paid 13 for a branch, then redeemed its liquidity cards: 62 is 12 and a coin
    story = Story(players=3, rounds=1).auction_round([(1, branch(1, 0), 13)]).liquidity_used(1, 20, 15, 10)
    state = _auction(story=story)
    assert (state.track[1], state.coins[1]) == (12, 1)
    s1 = given_state(GAME, state).when(0, Pass()).then([Passed(seat=0)])
    given_state(GAME, s1).when(1, Bid(amount=63)).raises("insufficient_money")
    given_state(GAME, s1).when(1, Bid(amount=62)).then([BidPlaced(seat=1, amount=62)])
    bids = [m.amount for m in GAME.legal_moves(s1, 1) if isinstance(m, Bid)]
    assert bids == list(range(1, 63))


def test_a_bid_must_be_higher():
    state = _auction()
    s1 = given_state(GAME, state).when(0, Bid(amount=5)).then([BidPlaced(seat=0, amount=5)])
    given_state(GAME, s1).when(1, Bid(amount=5)).raises("bid_too_low")
    given_state(GAME, s1).when(0, Bid(amount=9)).raises("not_your_turn")


def test_a_winner_pays_with_coins():
    # seat 1 redeemed its liquidity cards (75: 25 and a coin), then paid 20 for a branch
    story = Story(rounds=1).liquidity_used(1, 20, 15, 10).auction_round([(1, branch(1, 0), 20)])
    state = _auction(story=story)
    assert (state.track[1], state.coins[1]) == (5, 1)
    s1 = given_state(GAME, state).when(0, Pass()).then([Passed(seat=0)])
    after = (
        given_state(GAME, s1)
        .when(1, Bid(amount=20), seed=seed_drawing(s1, daily(0, 0)))
        .then(
            [
                BidPlaced(seat=1, amount=20),
                BranchWon(seat=1, token=B, price=20),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert (after.track[1], after.coins[1]) == (35, 0)


def test_liquidity_and_the_sell_card_raise_money_during_an_auction():
    hand = [lux(1, 0), lux(1, 1)]
    # seat 1 paid 20 for a branch: 10 left; seat 0 paid 4 for the good at Shanghai: 26
    story = Story(hands=[[], hand], rounds=1).auction_round([(1, branch(1, 0), 20)])
    state = _auction(story=story)
    assert state.track == [22, 10]
    s1 = given_state(GAME, state).when(0, Bid(amount=20)).then([BidPlaced(seat=0, amount=20)])
    assert Bid(amount=21) not in GAME.legal_moves(s1, 1)
    # seat 1 sells a bundle out of turn with its sell card
    s2 = given_state(GAME, s1).when(1, PlaySellCard()).then([SellCardPlayed(seat=1)])
    assert GAME.to_act(s2) == [1] and s2.window == 1
    given_state(GAME, s2).when(1, Bid(amount=21)).raises("finish_selling")
    s3 = (
        given_state(GAME, s2)
        .when(1, SellBundle(goods=hand))
        .then([GoodsSold(seat=1, goods=hand, value=15, via="card")])
    )
    s4 = given_state(GAME, s3).when(1, DoneSelling()).then([SellingDone(seat=1)])
    assert GAME.to_act(s4) == [1] and s4.window is None
    s5 = given_state(GAME, s4).when(1, PlayLiquidity(value=20)).then([LiquidityCardPlayed(seat=1, value=20)])
    assert money(s5, 1) == 45
    given_state(GAME, s5).when(1, Bid(amount=45)).then([BidPlaced(seat=1, amount=45)])

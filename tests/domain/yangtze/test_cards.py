"""Rulebook "Special Cards": buy two goods, sell at any time, one free good, liquidity; each once."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    DoneSelling,
    EndTurn,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    SellBundle,
)
from domain.yangtze.events import (
    GoodDrawn,
    GoodPurchased,
    GoodsSold,
    LiquidityCardPlayed,
    PurchaseSkipped,
    SellCardPlayed,
    SellingDone,
    TurnEnded,
)
from tests.support import given_state

from .helpers import DEFAULT_RIVER, Story, branch, daily, lux, seed_drawing, table

R = DEFAULT_RIVER


def test_buy_two_goods_and_refill_after_both():
    a, b = daily(0, 0), daily(0, 1)
    state = table()
    s1 = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7, buy_two=True))
        .then([GoodPurchased(seat=0, slot=7, good=R[7], price=4, buy_two=True)])
    )
    assert s1.river[7] is None and s1.stage == "second" and C.BUY_TWO not in s1.cards[0]
    assert GAME.to_act(s1) == [0]
    assert PurchaseGood(slot=2, buy_two=True) not in GAME.legal_moves(s1, 0)
    given_state(GAME, s1).when(0, PurchaseGood(slot=7)).raises("no_good_there")
    events = given_state(GAME, s1).when(0, PurchaseGood(slot=3), seed=seed_drawing(s1, a, b)).events()
    assert events[0] == GoodPurchased(seat=0, slot=3, good=R[3], price=8)
    first, second = events[1], events[2]
    assert (
        isinstance(first, GoodDrawn) and isinstance(second, GoodDrawn) and {first.good, second.good} == {a, b}
    )
    assert events[3] == TurnEnded(seat=0, next=1)
    after = GAME.fold(given_state(GAME, s1).state, events)
    # the first drawn is pushed in first, then pushed along by the second
    assert after.river == [second.good, first.good, R[0], R[1], R[2], R[4], R[5], R[6]]
    assert after.track[0] == 18 and sorted(after.screens[0]) == sorted([R[7], R[3]])


def test_buy_two_may_stop_after_the_first():
    state = table()
    s1 = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7, buy_two=True))
        .then([GoodPurchased(seat=0, slot=7, good=R[7], price=4, buy_two=True)])
    )
    given_state(GAME, s1).when(0, EndTurn(), seed=seed_drawing(s1, daily(0, 0))).then(
        [PurchaseSkipped(seat=0), GoodDrawn(good=daily(0, 0)), TurnEnded(seat=0, next=1)]
    )


def test_free_good():
    # seat 0 spent its 30 on the good at Shanghai and a branch; the river is R again
    state = Story(rounds=1).auction_round([(0, branch(0, 0), 26)]).state
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=0, free=True), seed=seed_drawing(state, daily(0, 0)))
        .then(
            [
                GoodPurchased(seat=0, slot=0, good=R[0], price=0, free=True),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert after.track[0] == 0 and C.FREE_GOOD not in after.cards[0]
    again = (
        given_state(GAME, after).when(1, EndTurn()).then([PurchaseSkipped(seat=1), TurnEnded(seat=1, next=0)])
    )
    given_state(GAME, again).when(0, PurchaseGood(slot=0, free=True)).raises("card_not_available")


def test_only_one_of_two_goods_is_free():
    state = table()
    s1 = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=0, free=True, buy_two=True))
        .then([GoodPurchased(seat=0, slot=0, good=R[0], price=0, free=True, buy_two=True)])
    )
    given_state(GAME, s1).when(0, PurchaseGood(slot=1, free=True)).raises("card_not_available")
    assert all(not m.free for m in GAME.legal_moves(s1, 0) if isinstance(m, PurchaseGood))
    events = given_state(GAME, s1).when(0, PurchaseGood(slot=1)).events()
    assert events[0].price == 10


def test_liquidity_cards_any_time_and_once():
    state = table()
    # seat 1 is not to act but may redeem a liquidity card
    s1 = (
        given_state(GAME, state)
        .when(1, PlayLiquidity(value=15))
        .then([LiquidityCardPlayed(seat=1, value=15)])
    )
    assert s1.track[1] == 45 and s1.liquidity_used[1] == [15] and GAME.to_act(s1) == [0]
    given_state(GAME, s1).when(1, PlayLiquidity(value=15)).raises("card_not_available")
    given_state(GAME, s1).when(1, PlayLiquidity(value=25)).raises("card_not_available")
    s2 = given_state(GAME, s1).when(1, PlayLiquidity(value=20)).then([LiquidityCardPlayed(seat=1, value=20)])
    assert (s2.track[1], s2.coins[1]) == (15, 1)


def test_sell_card_out_of_turn():
    hand = [daily(2, 0), daily(3, 0), daily(4, 0)]
    state = table(hands=[[], hand])
    s1 = given_state(GAME, state).when(1, PlaySellCard()).then([SellCardPlayed(seat=1)])
    assert GAME.to_act(s1) == [1]
    given_state(GAME, s1).when(0, PurchaseGood(slot=7)).raises("not_your_turn")
    given_state(GAME, s1).when(0, PlaySellCard()).raises("sale_in_progress")
    s2 = (
        given_state(GAME, s1)
        .when(1, SellBundle(goods=hand))
        .then([GoodsSold(seat=1, goods=hand, value=20, via="card")])
    )
    s3 = given_state(GAME, s2).when(1, DoneSelling()).then([SellingDone(seat=1)])
    assert GAME.to_act(s3) == [0] and C.SELL_ANYTIME not in s3.cards[1]
    given_state(GAME, s3).when(1, PlaySellCard()).raises("card_not_available")
    given_state(GAME, s3).when(0, DoneSelling()).raises("no_sale_open")


def test_sell_card_after_the_purchase_in_the_own_turn():
    state = table(hands=[[lux(0, 0)], []])
    s1 = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7, buy_two=True))
        .then([GoodPurchased(seat=0, slot=7, good=R[7], price=4, buy_two=True)])
    )
    s2 = given_state(GAME, s1).when(0, PlaySellCard()).then([SellCardPlayed(seat=0)])
    given_state(GAME, s2).when(0, SellBundle(goods=[lux(0, 0)])).then(
        [GoodsSold(seat=0, goods=[lux(0, 0)], value=3, via="card")]
    )

"""Rulebook "Special Cards": the sell card and the liquidity cards may be played "any time" -- also
before an order applied without a decision (yangtze-3).  A seat for which a card could change what
the order does to it is asked first (play a card, or ``Pass``); nobody else is, so the game never
waits for a seat that cannot respond."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    BuyBackLiquidity,
    DeclineOrder,
    DoneSelling,
    EndTurn,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    SellBundle,
)
from domain.yangtze.events import (
    GoodPurchased,
    GoodsSold,
    LiquidityCardPlayed,
    OrderExecuted,
    OrderSkipped,
    ResponsePassed,
    RulerDrawn,
    RulerResolved,
    SellCardPlayed,
    SellingDone,
)
from domain.yangtze.state import money
from domain.yangtze.versions import YANGTZE_2
from tests.support import given, given_state

from .helpers import RULER, Story, branch, daily, seed_drawing

BUNDLE = [daily(2, 0), daily(3, 0), daily(4, 0)]
"""Three daily goods of one colour: a bundle worth 20."""
ANY_TIME = {PlaySellCard(), PlayLiquidity(value=10), PlayLiquidity(value=15), PlayLiquidity(value=20)}


def _goods_tax_asked(version: str | None = None):
    """Seat 1 holds the bundle and its sell card; seat 0 has used its sell card.  Seat 0 buys and
    draws the goods tax: the events of that purchase and the table they lead to."""
    hands = [[], BUNDLE]
    story = Story(hands=hands) if version is None else Story(hands=hands, version=version)
    story.sell_card_used(0)
    seed = seed_drawing(story.state, RULER[C.TAX_GOODS], C.is_good)
    events = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed).events()
    return events, GAME.fold(story.state, events)


def test_a_seat_may_sell_with_its_card_before_the_goods_tax_of_another_seats_turn():
    """Special Cards: "The player may sell one or more bundles of goods any time in order to raise
    his money level"; Rulers: "Pay taxes! Move the coin marker in the 0 direction one space on the
    money track for every goods token found behind your own player screen."

    Given seat 1 holds three goods and its sell card, when seat 0 draws the goods tax, then seat 1
    is asked before it is taxed; it sells the bundle with its card and owes nothing."""
    events, asked = _goods_tax_asked()
    assert events == [
        GoodPurchased(seat=0, slot=7, good=events[0].good, price=4),
        RulerDrawn(token=RULER[C.TAX_GOODS], spot=0),
        OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-1),  # no card to play: taxed at once
    ]
    assert GAME.to_act(asked) == [1]
    moves = GAME.legal_moves(asked, 1)
    assert moves[0] == Pass() and set(moves[1:]) == ANY_TIME and len(moves) == 5
    given_state(GAME, asked).when(1, DeclineOrder()).raises("order_mandatory")
    given_state(GAME, asked).when(1, EndTurn()).raises("not_now")
    given_state(GAME, asked).when(0, Pass()).raises("not_your_turn")
    selling = given_state(GAME, asked).when(1, PlaySellCard()).then([SellCardPlayed(seat=1)])
    sold = (
        given_state(GAME, selling)
        .when(1, SellBundle(goods=BUNDLE))
        .then([GoodsSold(seat=1, goods=BUNDLE, value=20, via="card")])
    )
    events = given_state(GAME, sold).when(1, DoneSelling(), seed=seed_drawing(sold, C.is_good)).events()
    assert events[:3] == [
        SellingDone(seat=1),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=0),
        RulerResolved(spot=0),
    ]
    assert money(GAME.fold(sold, events), 1) == 30 + 20


def test_a_seat_that_passes_is_taxed_as_before():
    """Special Cards: "any time" is a right, not a duty: ``Pass`` lets the order apply."""
    _events, asked = _goods_tax_asked()
    events = given_state(GAME, asked).when(1, Pass(), seed=seed_drawing(asked, C.is_good)).events()
    assert events[:3] == [
        ResponsePassed(seat=1),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-3),
        RulerResolved(spot=0),
    ]
    assert C.SELL_ANYTIME in GAME.fold(asked, events).cards[1]


def test_nobody_is_asked_who_has_no_card_that_could_change_the_tax():
    """Special Cards: the window is for a seat that can respond -- without its sell card (or
    without goods) selling cannot lower the goods tax, so the game does not wait."""
    story = Story(hands=[[], BUNDLE]).sell_card_used(0, 1)
    seed = seed_drawing(story.state, RULER[C.TAX_GOODS], C.is_good)
    events = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed).events()
    assert events[2:5] == [
        OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-1),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-3),
        RulerResolved(spot=0),
    ]


def test_a_liquidity_card_may_pass_60_before_the_money_tax():
    """Special Cards: liquidity cards "may use these any time in order to raise his money level";
    1. Sell a Bundle of Goods: "If a player's money level exceeds 60, he receives a coin with a
    value of 50"; Rulers: "For every 10 money units a player possesses on his money track" pay 1.

    Given seat 1 has 55 on its track and its 20 card, when seat 0 draws the money tax, then seat 1
    may redeem the 20 first: 75 is a coin and 25, and it pays 2 instead of 5."""
    story = Story().sell_card_used(0).liquidity_used(1, 10, 15).liquidity_used(0, 10, 15, 20)
    seed = seed_drawing(story.state, RULER[C.TAX_MONEY])
    asked = (
        given(GAME, story.events)
        .when(0, PurchaseGood(slot=7), seed=seed)
        .then(
            [
                GoodPurchased(seat=0, slot=7, good=story.state.river[7], price=4),
                RulerDrawn(token=RULER[C.TAX_MONEY], spot=0),
                OrderExecuted(seat=0, order=C.TAX_MONEY, amount=-2),  # 21 on the track, no card left
            ]
        )
    )
    assert GAME.to_act(asked) == [1] and GAME.legal_moves(asked, 1) == [
        Pass(),
        PlaySellCard(),
        PlayLiquidity(value=20),
    ]
    events = (
        given_state(GAME, asked)
        .when(1, PlayLiquidity(value=20), seed=seed_drawing(asked, C.is_good))
        .events()
    )
    assert events[:3] == [
        LiquidityCardPlayed(seat=1, value=20),
        OrderExecuted(seat=1, order=C.TAX_MONEY, amount=-2),
        RulerResolved(spot=0),
    ]
    after = GAME.fold(asked, events)
    assert (after.track[1], after.coins[1]) == (23, 1)


def test_a_window_before_the_branch_tax_then_the_choice_of_card():
    """Rulers: "Pay taxes! For every branch token in front of your own player screen ..."; additional
    notes: "If, however, the player still has a liquidity card, he must redeem it to settle his
    debts"; Special Cards: the sell card "any time".

    Given seat 1 has nothing left on its track, three branches, goods and all its cards, when the
    branch tax comes to it, then it may first sell (it passes), then chooses the card to redeem."""
    story = Story(hands=[[], BUNDLE]).sell_card_used(0)
    story.auction_round([(1, branch(0, 0), 10), (1, branch(1, 0), 10), (1, branch(2, 0), 10)])
    seed = seed_drawing(story.state, RULER[C.TAX_BRANCHES])
    asked = GAME.fold(
        story.state, given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed).events()
    )
    assert money(asked, 1) == 0 and GAME.to_act(asked) == [1]
    assert GAME.legal_moves(asked, 1)[0] == Pass()
    owing = given_state(GAME, asked).when(1, Pass()).then([ResponsePassed(seat=1)])
    assert GAME.to_act(owing) == [1] and set(GAME.legal_moves(owing, 1)) == ANY_TIME
    given_state(GAME, owing).when(1, Pass()).raises("not_now")
    events = (
        given_state(GAME, owing)
        .when(1, PlayLiquidity(value=15), seed=seed_drawing(owing, C.is_good))
        .events()
    )
    assert events[:2] == [
        LiquidityCardPlayed(seat=1, value=15, forced=True),
        OrderExecuted(seat=1, order=C.TAX_BRANCHES, amount=-3),
    ]


def test_a_liquidity_card_may_pay_for_a_buy_back_the_seat_could_not_afford():
    """Rulers: "Purchase back any one of your own liquidity cards ... The price is equal to the
    value you received when it was sold"; Special Cards: liquidity cards "any time".

    Given seat 1 used its 20 and has 5 left, when the buy-back ruler comes to it, then instead of
    skipping the order it may first redeem its 15, and then buy the 20 back."""
    story = Story().sell_card_used(0, 1).liquidity_used(1, 20).auction_round([(1, branch(0, 0), 45)])
    assert money(story.state, 1) == 5
    seed = seed_drawing(story.state, RULER[C.BUY_BACK_LIQUIDITY])
    asked = (
        given(GAME, story.events)
        .when(0, PurchaseGood(slot=7), seed=seed)
        .then(
            [
                GoodPurchased(seat=0, slot=7, good=story.state.river[7], price=4),
                RulerDrawn(token=RULER[C.BUY_BACK_LIQUIDITY], spot=0),
                OrderSkipped(
                    seat=0, order=C.BUY_BACK_LIQUIDITY, reason="no used liquidity card that can be paid for"
                ),
            ]
        )
    )
    assert GAME.legal_moves(asked, 1) == [Pass(), PlayLiquidity(value=10), PlayLiquidity(value=15)]
    given_state(GAME, asked).when(1, DeclineOrder()).raises("not_now")
    offered = (
        given_state(GAME, asked)
        .when(1, PlayLiquidity(value=15))
        .then([LiquidityCardPlayed(seat=1, value=15)])
    )
    assert BuyBackLiquidity(value=20) in GAME.legal_moves(offered, 1)


def test_a_yangtze_2_game_has_no_response_window():
    """A game set up under yangtze-2 finishes under it: the goods tax is applied at once."""
    events, after = _goods_tax_asked(YANGTZE_2)
    assert events[2:5] == [
        OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-1),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-3),
        RulerResolved(spot=0),
    ]
    assert GAME.to_act(after) == [1] and after.phase == "turn"

"""Rulebook "Rulers": placement, the order going round from the drawer, all nine order types,
optional (question-mark) orders, and forgiven debts."""

from __future__ import annotations

import pytest

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    EndTurn,
    ExchangeGood,
    PurchaseGood,
    ReturnGood,
    SellBundle,
)
from domain.yangtze.events import (
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
    RulerChosen,
    RulerDrawn,
    RulerResolved,
    TurnEnded,
)
from domain.yangtze.versions import YANGTZE_2
from tests.support import given_state

from .helpers import DEFAULT_RIVER, RULER, SPARE, Story, branch, daily, lux, seed_drawing

SHANGHAI = DEFAULT_RIVER[7]
NO_LIQUIDITY = ["buy_two", "sell_anytime", "free_good"]
NO_ANY_TIME = ["buy_two", "free_good"]
"""No card to play before an automatic order: no response window (yangtze-3)."""
REFILL = daily(1, 5)
"""The good drawn onto the river once a ruler's order has gone round."""


def _draw(kind: str, story: Story | None = None):
    """The active seat buys at Shanghai (price 4) on the table *story* tells (a new one by
    default) and draws the ruler *kind*, then REFILL once its order has gone round; returns the
    events and the folded state."""
    story = story or Story()
    state = story.state
    seed = seed_drawing(state, RULER[kind], REFILL)
    events = given_state(GAME, state).when(state.active, PurchaseGood(slot=7), seed=seed).events()
    return events, GAME.fold(story.state, events)


def test_rulers_are_placed_in_order_nurhaci_first():
    placed = [RULER[C.TAX_GOODS], RULER[C.TAX_BRANCHES], RULER[C.RETURN_GOOD]]
    story = Story()
    for ruler in placed:
        story.ruler_round(ruler)
    before = story.state
    assert before.rulers == placed
    events, _state = _draw(f"{C.BRANCH_INCOME}_0", story)
    assert events[1] == RulerDrawn(token=RULER[f"{C.BRANCH_INCOME}_0"], spot=3)
    assert C.REIGNS[0] == "Nurhaci" and C.REIGNS[-1] == "Puyi"
    assert GAME.describe(before, events[1]).startswith("Kangxi's order")


def test_the_order_applies_to_every_player_starting_with_the_drawer():
    events, _state = _draw(C.TAX_BRANCHES, Story(players=3).bought_nothing(0))
    executed = [e.seat for e in events if isinstance(e, OrderExecuted)]
    assert executed == [1, 2, 0]
    assert events[-3:] == [RulerResolved(spot=0), GoodDrawn(good=REFILL), TurnEnded(seat=1, next=2)]


def test_yangtze_2_branch_income_2_per_branch_token_of_the_shown_type():
    # yangtze-2 read "For each branch type displayed" as each branch token of that type; games
    # set up under yangtze-2 keep it (yangtze-3: test_branch_income.py).
    # seat 0 paid 4 for a good and 2 for each of three branches, seat 1 10 for one; each redeemed
    # its 10 card: both at 30 again
    story = Story(version=YANGTZE_2, rounds=1).liquidity_used(0, 10).liquidity_used(1, 10)
    story.auction_round(
        [(0, branch(0, 0), 2), (0, branch(0, 3), 2), (0, branch(1, 0), 2), (1, branch(0, 4), 10)]
    )
    assert story.state.track == [30, 30]
    events, state = _draw(f"{C.BRANCH_INCOME}_0", story)
    assert events == [
        GoodPurchased(seat=0, slot=7, good=SHANGHAI, price=4),
        RulerDrawn(token=RULER[f"{C.BRANCH_INCOME}_0"], spot=0),
        OrderExecuted(seat=0, order=C.BRANCH_INCOME, amount=4),
        OrderExecuted(seat=1, order=C.BRANCH_INCOME, amount=2),
        RulerResolved(spot=0),
        GoodDrawn(good=REFILL),
        TurnEnded(seat=0, next=1),
    ]
    assert state.track == [30, 32]


def test_branch_income_beyond_60_gives_a_coin():
    # "advanced 2 spaces towards 60" gives the direction, not a cap ("1. Sell a Bundle of Goods":
    # above 60 the player receives a coin of 50).
    # seat 0 paid 4 for a good (SPARE[0]) and 15 for two warehouse branches, redeemed its liquidity
    # cards (56) and sold the good (59); seat 1 buys and draws the ruler
    story = Story().auction_round([(0, branch(1, 0), 7), (0, branch(1, 2), 8)]).liquidity_used(0, 10, 15, 20)
    story.sold(0, story.state.screens[0]).bought_nothing(0)
    assert (story.state.track[0], story.state.coins[0]) == (59, 0)
    events, state = _draw(f"{C.BRANCH_INCOME}_1", story)
    assert OrderExecuted(seat=0, order=C.BRANCH_INCOME, amount=2) in events
    assert (state.track[0], state.coins[0]) == (11, 1)


def test_tax_on_money_counts_the_track_only():
    # seat 0 sold six rice (110: 60 and a coin) and redeemed its liquidity cards (155: 55 and two
    # coins), then paid 4 for a good and 12 for a branch (139); seat 1 paid 21 for a branch (9)
    six_rice = [daily(0, c) for c in range(6)]
    story = Story(hands=[six_rice, []]).sell_card_used(0).sold(0, six_rice).liquidity_used(0, 20, 15, 10)
    story.auction_round([(0, branch(0, 0), 12), (1, branch(1, 0), 21)])
    before = story.state
    assert (before.track, before.coins) == ([39, 9], [2, 0]) and before.cards[0] == NO_ANY_TIME
    events, state = _draw(C.TAX_MONEY, story)
    # seat 0: 35 on the track after buying (the two coins are not counted) -> 3
    assert [e for e in events if isinstance(e, OrderExecuted)] == [
        OrderExecuted(seat=0, order=C.TAX_MONEY, amount=-3),
        OrderExecuted(seat=1, order=C.TAX_MONEY, amount=0),
    ]
    assert (state.track[0], state.coins[0]) == (32, 2)


def test_tax_on_goods_behind_the_screen():
    events, state = _draw(
        C.TAX_GOODS, Story(hands=[[lux(0, 0), lux(0, 1)], [daily(0, 0)]]).sell_card_used(0, 1)
    )
    assert [e.amount for e in events if isinstance(e, OrderExecuted)] == [-3, -1]
    assert state.track == [23, 29]


def test_tax_on_branches():
    events, _state = _draw(
        C.TAX_BRANCHES, Story().auction_round([(0, branch(0, 0), 1), (0, branch(2, 3), 1)])
    )
    assert [e.amount for e in events if isinstance(e, OrderExecuted)] == [-2, 0]


def test_taxes_break_a_coin():
    # seat 1 redeemed its liquidity cards (75: 25 and a coin), then paid 24 for a branch: 1 and a coin
    story = Story(hands=[[], [lux(0, 0), lux(0, 1)]]).sell_card_used(0, 1).liquidity_used(1, 20, 15, 10)
    story.auction_round([(1, branch(0, 0), 24)])
    assert (story.state.track[1], story.state.coins[1]) == (1, 1) and story.state.cards[1] == NO_ANY_TIME
    _events, state = _draw(C.TAX_GOODS, story)
    assert (state.track[1], state.coins[1]) == (49, 0)


def test_a_track_down_to_exactly_0_keeps_the_coin_and_owes_no_money_tax():
    # "1. Sell a Bundle of Goods": coins "may be exchanged" when the track drops to 0 -- the
    # player's option, which would only raise his money tax; he keeps the coin.
    # both redeemed their liquidity cards (75: 25 and a coin); seat 0 paid 4 for a good and 17 for a
    # branch (4 and a coin), seat 1 45 for a branch (30)
    story = Story(rounds=1).sell_card_used(0, 1).liquidity_used(0, 20, 15, 10).liquidity_used(1, 20, 15, 10)
    story.auction_round([(0, branch(0, 0), 17), (1, branch(1, 0), 45)])
    state = story.state
    assert (state.track, state.coins) == ([4, 30], [1, 0]) and state.cards == [NO_ANY_TIME, NO_ANY_TIME]
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7), seed=seed_drawing(state, RULER[C.TAX_MONEY], REFILL))
        .then(
            [
                GoodPurchased(seat=0, slot=7, good=SHANGHAI, price=4),
                RulerDrawn(token=RULER[C.TAX_MONEY], spot=0),
                OrderExecuted(seat=0, order=C.TAX_MONEY, amount=0),
                OrderExecuted(seat=1, order=C.TAX_MONEY, amount=-3),
                RulerResolved(spot=0),
                GoodDrawn(good=REFILL),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert (after.track, after.coins) == ([0, 27], [1, 0])


def test_a_debt_below_0_is_forgiven_when_nothing_is_left():
    hand = [lux(g, 0) for g in range(4)] + [daily(0, 0)]
    # seat 1 redeemed its liquidity cards (75: 25 and a coin), then paid 73 for a branch: 2
    story = Story(hands=[[], hand]).sell_card_used(0, 1).liquidity_used(1, 20, 15, 10)
    story.auction_round([(1, branch(0, 0), 73)])
    assert (story.state.track[1], story.state.coins[1]) == (2, 0) and story.state.cards[1] == NO_ANY_TIME
    events, state = _draw(C.TAX_GOODS, story)
    assert OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-5, forgiven=3) in events
    assert state.track[1] == 0 and state.coins[1] == 0


def test_yangtze_2_an_unused_liquidity_card_must_be_redeemed_first():
    # yangtze-2 redeemed the largest card without asking (yangtze-3: the player chooses,
    # test_debts.py).
    hand = [lux(g, 0) for g in range(4)] + [daily(0, 0)]
    # seat 1 paid 28 for a branch: 2 left, and it holds its liquidity cards
    story = Story(version=YANGTZE_2, hands=[[], hand]).auction_round([(1, branch(0, 0), 28)])
    assert story.state.track[1] == 2 and {"liquidity_20", "liquidity_10"} <= set(story.state.cards[1])
    events, state = _draw(C.TAX_GOODS, story)
    assert events[3:5] == [
        LiquidityCardPlayed(seat=1, value=20, forced=True),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-5, forgiven=0),
    ]
    assert state.track[1] == 17 and "liquidity_10" in state.cards[1] and state.liquidity_used[1] == [20]


def test_yangtze_2_a_debt_is_settled_with_the_largest_liquidity_cards_first():
    # Rulers, additional notes: "he must redeem it to settle his debts".  yangtze-2 chose for the
    # player the fewest, largest cards: one 20 instead of 10 + 15 (yangtze-3: test_debts.py).
    hand = [lux(g, c) for g in range(4) for c in range(3)]
    # seat 1 paid 29 for a branch: 1 left; seat 0 sold the good it bought then
    story = Story(version=YANGTZE_2, hands=[[], hand], rounds=1).auction_round([(1, branch(0, 0), 29)])
    story.sold(0, [SPARE[0]])
    state = story.state
    assert state.track[1] == 1 and state.screens[0] == [] and state.cards[1] == C.SPECIAL_CARDS
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7), seed=seed_drawing(state, RULER[C.TAX_GOODS], REFILL))
        .then(
            [
                GoodPurchased(seat=0, slot=7, good=SHANGHAI, price=4),
                RulerDrawn(token=RULER[C.TAX_GOODS], spot=0),
                OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-1),  # the good just bought
                LiquidityCardPlayed(seat=1, value=20, forced=True),
                OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-12),
                RulerResolved(spot=0),
                GoodDrawn(good=REFILL),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert after.track[1] == 9
    assert after.cards[1] == [*NO_LIQUIDITY, "liquidity_10", "liquidity_15"]
    assert after.liquidity_used[1] == [20]


def test_liquidity_redeemed_and_the_rest_forgiven():
    hand = [lux(g, c) for g in range(4) for c in range(3)] + [daily(0, c) for c in range(3)]
    # seat 1 redeemed its 20 and 15 cards (65: 15 and a coin), then paid 64 for a branch: 1
    story = Story(hands=[[], hand]).sell_card_used(0, 1).liquidity_used(1, 20, 15)
    story.auction_round([(1, branch(0, 0), 64)])
    assert (story.state.track[1], story.state.coins[1]) == (1, 0)
    assert story.state.cards[1] == [*NO_ANY_TIME, "liquidity_10"]
    events, state = _draw(C.TAX_GOODS, story)
    assert LiquidityCardPlayed(seat=1, value=10, forced=True) in events  # one card: no choice
    assert OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-15, forgiven=4) in events
    assert state.track[1] == 0 and state.cards[1] == NO_ANY_TIME


def test_return_a_good_is_mandatory_and_forgiven_without_goods():
    _events, state = _draw(C.RETURN_GOOD, Story(hands=[[lux(0, 0)], []]))
    assert GAME.to_act(state) == [0]
    moves = GAME.legal_moves(state, 0)
    assert ReturnGood(good=lux(0, 0)) in moves and ReturnGood(good=SHANGHAI) in moves
    assert DeclineOrder() not in moves
    given_state(GAME, state).when(0, DeclineOrder()).raises("order_mandatory")
    given_state(GAME, state).when(0, ReturnGood(good=daily(3, 3))).raises("good_not_held")
    after = (
        given_state(GAME, state)
        .when(0, ReturnGood(good=lux(0, 0)), seed=seed_drawing(state, REFILL))
        .then(
            [
                GoodReturned(seat=0, good=lux(0, 0)),
                OrderSkipped(seat=1, order=C.RETURN_GOOD, reason="no good to return: forgiven"),
                RulerResolved(spot=0),
                GoodDrawn(good=REFILL),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert after.screens[0] == [SHANGHAI] and after.box == [lux(0, 0)]


def test_sell_a_bundle_order_is_optional():
    hand = [lux(1, 0), lux(1, 2)]
    _events, state = _draw(C.SELL_BUNDLE, Story(hands=[[], hand]))
    s1 = given_state(GAME, state).when(0, DeclineOrder()).then([OrderDeclined(seat=0)])
    assert GAME.to_act(s1) == [1]
    assert SellBundle(goods=hand) in GAME.legal_moves(s1, 1)
    given_state(GAME, s1).when(1, SellBundle(goods=hand), seed=seed_drawing(s1, REFILL)).then(
        [
            GoodsSold(seat=1, goods=hand, value=15, via="order"),
            RulerResolved(spot=0),
            GoodDrawn(good=REFILL),
            TurnEnded(seat=0, next=1),
        ]
    )


def test_buy_back_a_liquidity_card_at_its_value():
    # seat 0 redeemed its 20 and 15 cards (65: 15 and a coin), then paid 4 for a good and 41 for a
    # branch: 20; seat 1 redeemed its 15 card
    story = Story().liquidity_used(0, 20, 15).liquidity_used(1, 15)
    story.auction_round([(0, branch(0, 0), 41)])
    assert (story.state.track[0], story.state.coins[0]) == (20, 0)
    events, state = _draw(C.BUY_BACK_LIQUIDITY, story)
    # seat 0 has 16 after buying: only the 15 card can be paid for
    assert OrderSkipped not in map(type, events)
    assert [m for m in GAME.legal_moves(state, 0) if isinstance(m, BuyBackLiquidity)] == [
        BuyBackLiquidity(value=15)
    ]
    given_state(GAME, state).when(0, BuyBackLiquidity(value=20)).raises("insufficient_money")
    after = (
        given_state(GAME, state)
        .when(0, BuyBackLiquidity(value=15))
        .then([LiquidityBoughtBack(seat=0, value=15)])
    )
    assert after.track[0] == 1 and "liquidity_15" in after.cards[0] and after.liquidity_used[0] == [20]
    after2 = (
        given_state(GAME, after)
        .when(1, DeclineOrder(), seed=seed_drawing(after, REFILL))
        .then(
            [OrderDeclined(seat=1), RulerResolved(spot=0), GoodDrawn(good=REFILL), TurnEnded(seat=0, next=1)]
        )
    )
    assert after2.liquidity_used[1] == [15]


def test_buy_back_is_skipped_without_a_used_card():
    events, _state = _draw(C.BUY_BACK_LIQUIDITY)
    assert [type(e).__name__ for e in events[2:4]] == ["OrderSkipped", "OrderSkipped"]


def test_exchange_a_good_with_the_river():
    hidden = lux(2, 2)
    _events, state = _draw(C.EXCHANGE_GOOD, Story(hands=[[], [hidden]]))
    s1 = given_state(GAME, state).when(0, DeclineOrder()).then([OrderDeclined(seat=0)])
    given_state(GAME, s1).when(1, ExchangeGood(good=hidden, slot=7)).raises("no_good_there")  # the gap
    after = (
        given_state(GAME, s1)
        .when(1, ExchangeGood(good=hidden, slot=0), seed=seed_drawing(s1, REFILL))
        .then(
            [
                GoodExchanged(seat=1, good=hidden, slot=0, taken=DEFAULT_RIVER[0]),
                RulerResolved(spot=0),
                GoodDrawn(good=REFILL),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert after.screens[1] == [DEFAULT_RIVER[0]] and after.public[1] == [DEFAULT_RIVER[0]]
    assert after.river[:2] == [REFILL, hidden]  # put at trading house 0, then pushed along by the refill


def test_repeat_another_rulers_order():
    placed = [RULER[C.TAX_GOODS], RULER[f"{C.BRANCH_INCOME}_1"]]
    # round 1: seat 0 buys a good, pays 1 in goods taxes; round 2: it sells that good (3), buys
    # another and a branch for 4, seat 1 a warehouse branch for 12, and the income ruler pays seat 1
    # 2; each redeemed its 10 card: both at 30 again, seat 0 with one good
    story = Story().sell_card_used(0, 1).ruler_round(placed[0])
    story.sold(0, story.state.screens[0]).liquidity_used(0, 10).liquidity_used(1, 10)
    story.ruler_round(placed[1], wins=[(0, branch(0, 0), 4), (1, branch(1, 1), 12)])
    before = story.state
    assert before.rulers == placed and before.track == [30, 30] and len(before.screens[0]) == 1
    assert before.branches[1] == [branch(1, 1)] and before.cards[1] == [
        *NO_ANY_TIME,
        "liquidity_15",
        "liquidity_20",
    ]
    _events, state = _draw(C.REPEAT_ORDER, story)
    moves = GAME.legal_moves(state, 0)
    assert [m for m in moves if isinstance(m, ChooseRuler)] == [ChooseRuler(spot=0), ChooseRuler(spot=1)]
    given_state(GAME, state).when(0, ChooseRuler(spot=2)).raises("no_such_ruler")
    s1 = (
        given_state(GAME, state)
        .when(0, ChooseRuler(spot=0))
        .then([RulerChosen(seat=0, spot=0), OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-2)])
    )
    s2 = (
        given_state(GAME, s1)
        .when(1, ChooseRuler(spot=1), seed=seed_drawing(s1, REFILL))
        .then(
            [
                RulerChosen(seat=1, spot=1),
                OrderExecuted(seat=1, order=C.BRANCH_INCOME, amount=2),
                RulerResolved(spot=2),
                GoodDrawn(good=REFILL),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert s2.track == [24, 32]


def test_repeat_with_no_other_ruler_is_skipped():
    events, _state = _draw(C.REPEAT_ORDER)
    assert [type(e).__name__ for e in events[2:4]] == ["OrderSkipped", "OrderSkipped"]


def test_repeat_may_pick_an_order_needing_a_decision():
    # the return order came first: seat 0 put back the good it bought then, keeping lux(0, 0)
    story = Story(hands=[[lux(0, 0)], []]).ruler_round(RULER[C.RETURN_GOOD])
    assert story.state.screens[0] == [lux(0, 0)]
    _events, state = _draw(C.REPEAT_ORDER, story)
    s1 = given_state(GAME, state).when(0, ChooseRuler(spot=0)).then([RulerChosen(seat=0, spot=0)])
    assert GAME.to_act(s1) == [0] and DeclineOrder() not in GAME.legal_moves(s1, 0)
    s2 = (
        given_state(GAME, s1).when(0, ReturnGood(good=lux(0, 0))).then([GoodReturned(seat=0, good=lux(0, 0))])
    )
    assert GAME.to_act(s2) == [1] and s2.ruler_current == RULER[C.REPEAT_ORDER]


def test_a_pending_order_with_nothing_left_is_skipped_after_an_out_of_turn_sale():
    from domain.yangtze.commands import DoneSelling, PlaySellCard
    from domain.yangtze.events import SellCardPlayed, SellingDone

    _events, state = _draw(C.RETURN_GOOD, Story(hands=[[lux(0, 0)], []]))
    s1 = given_state(GAME, state).when(0, PlaySellCard()).then([SellCardPlayed(seat=0)])
    s2 = (
        given_state(GAME, s1)
        .when(0, SellBundle(goods=[lux(0, 0)]))
        .then([GoodsSold(seat=0, goods=[lux(0, 0)], value=3, via="card")])
    )
    s3 = (
        given_state(GAME, s2)
        .when(0, SellBundle(goods=[SHANGHAI]))
        .then([GoodsSold(seat=0, goods=[SHANGHAI], value=3, via="card")])
    )
    given_state(GAME, s3).when(0, DoneSelling(), seed=seed_drawing(s3, REFILL)).then(
        [
            SellingDone(seat=0),
            OrderSkipped(seat=0, order=C.RETURN_GOOD, reason="no good to return: forgiven"),
            OrderSkipped(seat=1, order=C.RETURN_GOOD, reason="no good to return: forgiven"),
            RulerResolved(spot=0),
            GoodDrawn(good=REFILL),
            TurnEnded(seat=0, next=1),
        ]
    )


@pytest.mark.parametrize("kind", [C.SELL_BUNDLE, C.BUY_BACK_LIQUIDITY, C.EXCHANGE_GOOD, C.REPEAT_ORDER])
def test_question_mark_orders_may_be_declined(kind):
    story = Story(hands=[[lux(0, 0)], [lux(1, 1)]]).ruler_round(RULER[C.TAX_GOODS])
    _events, state = _draw(kind, story.liquidity_used(0, 10).liquidity_used(1, 10))
    assert state.phase == "ruler"
    assert DeclineOrder() in GAME.legal_moves(state, 0)
    given_state(GAME, state).when(0, DeclineOrder()).then([OrderDeclined(seat=0)])
    given_state(GAME, state).when(0, EndTurn()).raises("not_now")


def test_after_the_ruler_the_draw_goes_on_until_a_good_is_drawn():
    _events, state = _draw(C.RETURN_GOOD, Story(hands=[[lux(0, 0)], [lux(1, 1)]]))
    s1 = (
        given_state(GAME, state)
        .when(0, ReturnGood(good=lux(0, 0)))
        .then([GoodReturned(seat=0, good=lux(0, 0))])
    )
    after = (
        given_state(GAME, s1)
        .when(1, ReturnGood(good=lux(1, 1)), seed=seed_drawing(s1, daily(0, 0)))
        .then(
            [
                GoodReturned(seat=1, good=lux(1, 1)),
                RulerResolved(spot=0),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert after.river[0] == daily(0, 0) and after.river.count(None) == 0

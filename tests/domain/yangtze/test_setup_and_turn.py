"""Rulebook "Game Setup", "Game Play", "1. Sell a Bundle of Goods", "2. Purchase One Good"."""

from __future__ import annotations

import pytest

from domain.kernel import InvalidOptions, redact_for
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import Bid, EndTurn, PurchaseGood, SellBundle
from domain.yangtze.events import (
    GameSetUp,
    GoodDrawn,
    GoodPurchased,
    GoodsSold,
    PurchaseSkipped,
    StartingGoodsDrawn,
    TurnEnded,
)
from domain.yangtze.evolve import EVOLVER
from domain.yangtze.rules import YangtzeOptions
from tests.support import given_state

from .helpers import DEFAULT_RIVER, Story, branch, daily, lux, seed_drawing, table


# --- setup ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    state, events = GAME.start(YangtzeOptions(players=players), "setup")
    assert isinstance(events[0], GameSetUp)
    # the river: a good in front of each of the 8 trading houses, prices 10..4
    assert len(state.river) == 8 and all(C.is_good(g) for g in state.river)
    assert C.PRICES == [10, 10, 9, 8, 7, 6, 5, 4]
    # the bag: 61 goods, 12 rulers, 20 branches in all, minus what was drawn
    on_table = state.river + [g for sc in state.screens for g in sc]
    assert sorted(state.bag + on_table) == list(range(61 + 12 + 20))
    assert sum(1 for t in state.bag if C.is_ruler(t)) == 12
    assert sum(1 for t in state.bag if C.is_branch(t)) == 20
    assert sum(1 for t in state.bag if C.is_good(t)) == 61 - 8 - 2 * players
    for seat in range(players):
        assert state.track[seat] == 30 and state.coins[seat] == 0
        assert len(state.screens[seat]) == 2 and all(C.is_good(g) for g in state.screens[seat])
        assert state.public[seat] == []
        assert sorted(state.cards[seat]) == sorted(C.SPECIAL_CARDS)
    assert state.phase == "turn" and state.active == 0 and GAME.to_act(state) == [0]


def test_branch_tokens_are_4_types_twice_green_three_times_brown():
    tokens = range(C.BRANCH_FIRST, C.BRANCH_FIRST + C.BRANCH_COUNT)
    for typ in range(4):
        mine = [t for t in tokens if C.branch_type(t) == typ]
        assert sorted(C.branch_colour(t) for t in mine) == ["brown"] * 3 + ["green"] * 2


def test_starting_goods_are_seen_only_by_their_owner():
    _state, events = GAME.start(YangtzeOptions(players=3), "hidden")
    drawn = [e for e in events if isinstance(e, StartingGoodsDrawn)]
    assert len(drawn) == 3
    for e in drawn:
        assert redact_for(e, e.seat) == e
        for viewer in (None, *(s for s in range(3) if s != e.seat)):
            shown = redact_for(e, viewer)
            assert shown is not None and shown.goods == [] and shown.count == 2


def test_unsupported_player_count():
    with pytest.raises(InvalidOptions):
        GAME.start(YangtzeOptions(players=5), "x")


# --- a turn: sell at the start, then purchase one good ------------------------------------------
def test_sell_a_bundle_at_the_start_of_the_turn():
    hand = [daily(1, 0), daily(1, 1), daily(1, 2), daily(1, 3)]
    state = table(hands=[hand, []])
    after = (
        given_state(GAME, state)
        .when(0, SellBundle(goods=hand))
        .then([GoodsSold(seat=0, goods=hand, value=35, via="turn")])
    )
    assert after.track[0] == 65 - 50 and after.coins[0] == 1 and after.screens[0] == []
    assert after.box == hand


def test_sell_several_bundles_then_buy():
    state = table(hands=[[lux(0, 0), lux(1, 1)], []])
    g = given_state(GAME, state)
    s1 = g.when(0, SellBundle(goods=[lux(0, 0)])).then([GoodsSold(seat=0, goods=[lux(0, 0)], value=3)])
    s2 = (
        given_state(GAME, s1)
        .when(0, SellBundle(goods=[lux(1, 1)]))
        .then([GoodsSold(seat=0, goods=[lux(1, 1)], value=3)])
    )
    assert s2.track[0] == 36
    given_state(GAME, s2).when(0, PurchaseGood(slot=7), seed=seed_drawing(s2, daily(0, 0))).then(
        [
            GoodPurchased(seat=0, slot=7, good=DEFAULT_RIVER[7], price=4),
            GoodDrawn(good=daily(0, 0)),
            TurnEnded(seat=0, next=1),
        ]
    )


def test_not_a_bundle_is_rejected():
    state = table(hands=[[lux(0, 0), lux(1, 1)], []])
    given_state(GAME, state).when(0, SellBundle(goods=[lux(0, 0), lux(1, 1)])).raises("not_a_bundle")


def test_selling_a_good_not_held_is_rejected():
    state = table(hands=[[lux(0, 0)], [lux(1, 1)]])
    v = given_state(GAME, state).when(0, SellBundle(goods=[lux(1, 1)])).raises("good_not_held")
    assert "1" not in v.message  # never names the other seat's goods


def test_only_the_active_seat_acts():
    state = table(hands=[[lux(0, 0)], [lux(1, 1)]])
    given_state(GAME, state).when(1, SellBundle(goods=[lux(1, 1)])).raises("not_your_turn")
    given_state(GAME, state).when(1, PurchaseGood(slot=7)).raises("not_your_turn")


def test_purchase_slides_the_river_and_refills_at_the_open_end():
    state = table()
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=3), seed=seed_drawing(state, daily(0, 0)))
        .then(
            [
                GoodPurchased(seat=0, slot=3, good=DEFAULT_RIVER[3], price=8),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    r = DEFAULT_RIVER
    assert after.river == [daily(0, 0), r[0], r[1], r[2], r[4], r[5], r[6], r[7]]
    assert after.track[0] == 22 and after.screens[0] == [r[3]] and after.public[0] == [r[3]]
    assert after.active == 1 and after.phase == "turn"


@pytest.mark.parametrize("slot,price", list(enumerate(C.PRICES)))
def test_price_is_the_trading_house_number(slot, price):
    state = table()
    events = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=slot), seed=seed_drawing(state, C.is_good))
        .events()
    )
    assert events[0].price == price


def test_purchases_may_not_exceed_the_money():
    # seat 0 paid 4 for the good at Shanghai and 17 for a branch: 9 left
    state = Story().auction_round([(0, branch(0, 0), 17)]).state
    given_state(GAME, state).when(0, PurchaseGood(slot=0)).raises("insufficient_money")
    given_state(GAME, state).when(0, PurchaseGood(slot=1)).raises("insufficient_money")
    assert given_state(GAME, state).when(0, PurchaseGood(slot=2)).events()[0].price == 9


def test_coins_pay_for_purchases():
    # seat 0 redeemed its liquidity cards (75: 25 and a coin), then paid 4 for the good at Shanghai
    # and 16 for a branch: 5 and a coin; the river is DEFAULT_RIVER again
    story = Story(rounds=1).liquidity_used(0, 20, 15, 10).auction_round([(0, branch(0, 0), 16)])
    state = story.state
    assert (state.track[0], state.coins[0]) == (5, 1)
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=0), seed=seed_drawing(state, daily(0, 0)))
        .then(
            [
                GoodPurchased(seat=0, slot=0, good=DEFAULT_RIVER[0], price=10),
                GoodDrawn(good=daily(0, 0)),
                TurnEnded(seat=0, next=1),
            ]
        )
    )
    assert (after.track[0], after.coins[0]) == (45, 0)


def test_no_good_in_an_empty_place():
    state = table()
    given_state(GAME, state).when(0, PurchaseGood(slot=8)).raises("no_good_there")


def test_selling_after_the_purchase_is_not_allowed():
    state = table(hands=[[lux(0, 0)], []])
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7, buy_two=True))
        .then([GoodPurchased(seat=0, slot=7, good=DEFAULT_RIVER[7], price=4, buy_two=True)])
    )
    given_state(GAME, after).when(0, SellBundle(goods=[lux(0, 0)])).raises("selling_not_allowed")


def test_a_turn_without_purchase():
    state = table()
    after = (
        given_state(GAME, state).when(0, EndTurn()).then([PurchaseSkipped(seat=0), TurnEnded(seat=0, next=1)])
    )
    assert after.idle == 1 and after.active == 1


def test_wrong_command_for_the_moment():
    given_state(GAME, table()).when(0, Bid(amount=3)).raises("not_now")


def test_legal_moves_of_a_turn():
    # seat 0 paid 4 for the good at Shanghai and 18 for a branch: 8 left
    state = Story(hands=[[lux(0, 0), lux(0, 1)], []]).auction_round([(0, branch(0, 0), 18)]).state
    moves = GAME.legal_moves(state, 0)
    assert SellBundle(goods=[lux(0, 0), lux(0, 1)]) in moves
    assert PurchaseGood(slot=3) in moves and PurchaseGood(slot=2) not in moves
    assert PurchaseGood(slot=0, free=True) in moves and PurchaseGood(slot=0, buy_two=True) not in moves
    assert PurchaseGood(slot=5, buy_two=True) in moves and EndTurn() in moves
    # the other seat can only play its any-time cards
    assert {type(m).__name__ for m in GAME.legal_moves(state, 1)} == {"PlayLiquidity", "PlaySellCard"}


def test_evolve_has_one_handler_per_event_type():
    """``evolve`` dispatches on the event's type: every event of the game has its handler, and
    the table names nothing else."""
    assert set(EVOLVER.handlers) == set(GAME.event_types)
    assert len(GAME.event_types) == len(set(GAME.event_types))

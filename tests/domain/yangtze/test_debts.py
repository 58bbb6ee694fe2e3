"""Rulebook "Rulers", additional notes (yangtze-3): a tax beyond the player's money is settled with
a liquidity card -- the one the player chooses -- and what is still missing is forgiven."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import DeclineOrder, EndTurn, Pass, PlayLiquidity, PurchaseGood
from domain.yangtze.events import (
    GoodDrawn,
    GoodPurchased,
    LiquidityCardPlayed,
    OrderExecuted,
    RulerDrawn,
    RulerResolved,
    TurnEnded,
)
from domain.yangtze.state import money
from domain.yangtze.versions import YANGTZE_2
from tests.support import given, given_state

from .helpers import RULER, Story, branch, lux, seed_drawing

TAX_GOODS = RULER[C.TAX_GOODS]
GOODS = [lux(g, c) for g in range(4) for c in range(5)]
"""Twenty luxury goods, none of them on the default river."""


def _in_debt(goods: int, price: int, version: str | None = None, used: tuple[int, ...] = ()) -> Story:
    """Seat 1 holds *goods* goods, has used its sell card (and the liquidity cards *used*), and
    paid *price* for a branch; seat 0 has used its sell card: no response window."""
    hands = [[], GOODS[:goods]]
    story = (
        Story(players=2, hands=hands) if version is None else Story(players=2, hands=hands, version=version)
    )
    story.sell_card_used(0, 1).liquidity_used(1, *used)
    return story.auction_round([(1, branch(0, 0), price)])


def test_the_player_chooses_which_liquidity_card_settles_the_debt():
    """Rulers, additional notes: "If a player has to pay taxes, but does not have enough money ...
    If, however, the player still has a liquidity card, he must redeem it to settle his debts."

    Given seat 1 owes 5 in goods taxes with 2 money and the 10, 15 and 20 cards, when the tax
    comes to it, then it is asked which card to redeem (it must redeem one: no pass, no decline);
    it redeems the 10, pays the 5 and keeps the 15 and the 20."""
    story = _in_debt(goods=5, price=28)
    before = story.state
    assert money(before, 1) == 2
    seed = seed_drawing(before, TAX_GOODS)
    asked = (
        given(GAME, story.events)
        .when(0, PurchaseGood(slot=7), seed=seed)
        .then(
            [
                GoodPurchased(seat=0, slot=7, good=before.river[7], price=4),
                RulerDrawn(token=TAX_GOODS, spot=0),
                OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-2),
            ]
        )
    )
    assert GAME.to_act(asked) == [1]
    assert GAME.legal_moves(asked, 1) == [
        PlayLiquidity(value=10),
        PlayLiquidity(value=15),
        PlayLiquidity(value=20),
    ]
    given_state(GAME, asked).when(1, Pass()).raises("not_now")
    given_state(GAME, asked).when(1, DeclineOrder()).raises("order_mandatory")
    given_state(GAME, asked).when(1, EndTurn()).raises("not_now")
    given_state(GAME, asked).when(1, PlayLiquidity(value=25)).raises("card_not_available")
    seed = seed_drawing(asked, C.is_good)
    events = given_state(GAME, asked).when(1, PlayLiquidity(value=10), seed=seed).events()
    assert events[:3] == [
        LiquidityCardPlayed(seat=1, value=10, forced=True),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-5),
        RulerResolved(spot=0),
    ]
    assert isinstance(events[3], GoodDrawn) and events[4:] == [TurnEnded(seat=0, next=1)]
    after = GAME.fold(asked, events)
    assert money(after, 1) == 2 + 10 - 5
    assert [c for c in after.cards[1] if c in C.LIQUIDITY] == ["liquidity_15", "liquidity_20"]


def test_a_card_that_does_not_cover_the_debt_asks_again():
    """Rulers, additional notes: "he must redeem it to settle his debts" -- as long as the debt
    stands and a choice remains, the player chooses the next card too."""
    story = _in_debt(goods=15, price=28)
    asked = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed_drawing(story.state, TAX_GOODS))
    s1 = GAME.fold(story.state, asked.events())
    s2 = (
        given_state(GAME, s1)
        .when(1, PlayLiquidity(value=10))
        .then([LiquidityCardPlayed(seat=1, value=10, forced=True)])
    )
    assert GAME.to_act(s2) == [1] and GAME.legal_moves(s2, 1) == [
        PlayLiquidity(value=15),
        PlayLiquidity(value=20),
    ]
    events = given_state(GAME, s2).when(1, PlayLiquidity(value=15), seed=seed_drawing(s2, C.is_good)).events()
    assert events[:2] == [
        LiquidityCardPlayed(seat=1, value=15, forced=True),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-15),
    ]


def test_no_question_when_every_card_is_needed():
    """Rulers, additional notes: "the amount that would take him below 0 will be forgiven. If,
    however, the player still has a liquidity card, he must redeem it" -- when all his cards are
    needed there is nothing to choose: both are redeemed at once."""
    story = _in_debt(goods=20, price=48, used=(20,))
    before = story.state
    assert money(before, 1) == 2
    events = (
        given(GAME, story.events)
        .when(0, PurchaseGood(slot=7), seed=seed_drawing(before, TAX_GOODS, C.is_good))
        .events()
    )
    assert events[3:6] == [
        LiquidityCardPlayed(seat=1, value=15, forced=True),
        LiquidityCardPlayed(seat=1, value=10, forced=True),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-20),
    ]


def test_a_yangtze_2_game_still_redeems_the_largest_card_for_the_player():
    """Rulers, additional notes: "he must redeem it" -- a game set up under yangtze-2 finishes
    under it: the 20 is redeemed without asking."""
    story = _in_debt(goods=5, price=28, version=YANGTZE_2)
    seed = seed_drawing(story.state, TAX_GOODS, C.is_good)
    events = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed).events()
    assert events[3:5] == [
        LiquidityCardPlayed(seat=1, value=20, forced=True),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=-5),
    ]

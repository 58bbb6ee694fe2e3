"""Rulebook "Rulers", branch income (yangtze-3): 2 for each branch *type* shown on the ruler token
that the player has in front of his screen -- not 2 for each branch token (yangtze-2)."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import PurchaseGood
from domain.yangtze.events import (
    GoodDrawn,
    GoodPurchased,
    OrderExecuted,
    RulerDrawn,
    RulerResolved,
    TurnEnded,
)
from domain.yangtze.rulers import branch_income
from domain.yangtze.state import money
from domain.yangtze.versions import YANGTZE_2
from tests.support import given

from .helpers import RULER, Story, branch, seed_drawing

HARBOUR, WAREHOUSE, BANK = 0, 1, 3
HARBOUR_INCOME = RULER[f"{C.BRANCH_INCOME}_{HARBOUR}"]


def _story(version: str | None = None) -> Story:
    """Seat 1 won two harbour branches and a bank, seat 0 one harbour branch."""
    story = Story(players=2) if version is None else Story(players=2, version=version)
    return story.auction_round(
        [
            (1, branch(HARBOUR, 0), 2),
            (1, branch(HARBOUR, 3), 2),
            (1, branch(BANK, 1), 2),
            (0, branch(HARBOUR, 2), 2),
        ]
    )


def test_branch_income_is_2_for_each_branch_type_shown_not_for_each_token():
    """Rulers: "For each branch type displayed on the ruler token in front of your own player
    screen, the coin marker on the money track may be advanced 2 spaces towards 60."

    Given seat 1 has two harbour branches and a bank, seat 0 one harbour branch, when seat 0 buys
    and draws the ruler showing the harbour, then each of them advances 2: one type shown, held."""
    story = _story()
    before = story.state
    seed = seed_drawing(before, HARBOUR_INCOME, C.is_good)
    when = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed)
    events = when.events()
    assert events[:5] == [
        GoodPurchased(seat=0, slot=7, good=before.river[7], price=4),
        RulerDrawn(token=HARBOUR_INCOME, spot=0),
        OrderExecuted(seat=0, order=C.BRANCH_INCOME, amount=2),
        OrderExecuted(seat=1, order=C.BRANCH_INCOME, amount=2),
        RulerResolved(spot=0),
    ]
    assert isinstance(events[5], GoodDrawn) and events[6] == TurnEnded(seat=0, next=1)
    after = GAME.fold(story.state, events)
    assert money(after, 1) == money(before, 1) + 2
    assert money(after, 0) == money(before, 0) - 4 + 2


def test_a_yangtze_2_game_keeps_2_for_each_branch_token():
    """Rulers: "For each branch type displayed on the ruler token ..." -- a game set up under
    yangtze-2 finishes under it: there seat 1's two harbour branches still give 4."""
    story = _story(YANGTZE_2)
    seed = seed_drawing(story.state, HARBOUR_INCOME, C.is_good)
    events = given(GAME, story.events).when(0, PurchaseGood(slot=7), seed=seed).events()
    assert events[2:4] == [
        OrderExecuted(seat=0, order=C.BRANCH_INCOME, amount=2),
        OrderExecuted(seat=1, order=C.BRANCH_INCOME, amount=4),
    ]


def test_a_ruler_showing_several_types_pays_for_each_type_held():
    """Rulers: "For each branch type displayed on the ruler token" -- a token showing the harbour
    and the warehouse pays 2 per type held (the data file may give a token several types)."""
    state = _story().state
    assert branch_income(state, 1, (HARBOUR, WAREHOUSE)) == 2
    assert branch_income(state, 1, (HARBOUR, BANK)) == 4
    assert branch_income(state, 1, (WAREHOUSE,)) == 0
    legacy = _story(YANGTZE_2).state
    assert branch_income(legacy, 1, (HARBOUR, BANK)) == 6

"""Rulebook "End of Game and Final Scoring"."""

from __future__ import annotations

from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.bundles import best_partition
from domain.yangtze.commands import EndTurn, PurchaseGood
from domain.yangtze.events import FinalScoring, OrderExecuted, PurchaseSkipped, RulerResolved, TurnEnded
from domain.yangtze.scoring import branch_majorities, branch_sets, final_scoring
from tests.support import given_state

from .helpers import RULER, Story, branch, daily, lux, seed_drawing, table

A, B, Cc, D = 0, 1, 2, 3
GREEN1, GREEN2, BROWN3, BROWN5, BROWN8 = 0, 1, 2, 3, 4


def _example_holdings():
    """The rulebook's final-scoring example (three players), with dots chosen to break its ties."""
    p1 = [
        branch(A, GREEN1),
        branch(B, GREEN1),
        branch(Cc, GREEN2),
        branch(A, BROWN3),
        branch(B, BROWN8),
        branch(Cc, BROWN5),
    ]
    p2 = [branch(Cc, GREEN1), branch(D, GREEN1), branch(B, BROWN5), branch(Cc, BROWN3), branch(D, BROWN3)]
    p3 = [branch(D, GREEN2), branch(A, BROWN5), branch(B, BROWN3), branch(Cc, BROWN8), branch(D, BROWN5)]
    return [p1, p2, p3]


def test_the_rulebook_final_scoring_example():
    holdings = _example_holdings()
    # green / brown sets
    assert [branch_sets(h) for h in holdings] == [
        {"green": 30, "brown": 30},
        {"green": 15, "brown": 30},
        {"green": 0, "brown": 50},
    ]
    # the four most / second-most rows, one per branch type
    maj = branch_majorities(holdings)
    rows = [[maj[seat][typ] for seat in range(3)] for typ in range(4)]
    assert rows == [
        [30, 0, 15],
        [30, 0, 15],
        [15, 30, 0],
        [0, 30, 15],
    ]


def test_no_second_place_for_a_lone_holder_and_ties_to_the_fewest_dots():
    maj = branch_majorities([[branch(A, BROWN8)], [], [branch(B, GREEN1)], [branch(B, GREEN2)]])
    assert maj[0][A] == 30 and sum(maj[s][A] for s in range(4)) == 30
    assert (maj[2][B], maj[3][B]) == (30, 15)


def test_dots_never_leave_a_tie_between_equal_counts():
    from itertools import combinations

    for typ in range(len(C.BRANCH_TYPES)):
        dots = [C.branch_dots(t) for t in range(C.BRANCH_FIRST, C.BRANCH_FIRST + C.BRANCH_COUNT)]
        dots = [d for t, d in enumerate(dots, start=C.BRANCH_FIRST) if C.branch_type(t) == typ]
        for k in range(1, len(dots)):
            sums = [sum(c) for c in combinations(dots, k)]
            assert len(sums) == len(set(sums))


def _example_table(hand: list[int]):
    """Three players who won the example's branches in one refill and used their cards: seat 0 kept
    *hand* and sold six rice (80), redeemed its 15 card, took a free good and bought a second one
    with the buy-two card (5), paid 56 for its branches and sold the two goods with its sell card
    (6): 70; seat 1 redeemed its liquidity cards (45), paid 73, took a free good and sold it: 5;
    seat 2 redeemed its liquidity cards, paid 69, took a free good and bought one (5) with the
    buy-two card, and sold both: 7."""
    six_rice = [daily(0, c) for c in range(6)]
    holdings = _example_holdings()
    prices = [[9, 9, 9, 9, 10, 10], [14, 14, 15, 15, 15], [13, 14, 14, 14, 14]]
    wins = [(seat, token, price) for seat in range(3) for token, price in zip(holdings[seat], prices[seat])]
    story = Story(players=3, hands=[[*hand, *six_rice], [], []]).sold(0, six_rice)
    story.liquidity_used(0, 15).liquidity_used(1, 10, 15, 20).liquidity_used(2, 10, 15, 20)
    free_two = PurchaseGood(slot=7, free=True, buy_two=True)
    story.turn(0, free_two, PurchaseGood(slot=6), wins=wins)
    story.turn(1, PurchaseGood(slot=7, free=True))
    story.turn(2, free_two, PurchaseGood(slot=6))
    for seat in range(3):
        bought = [g for g in story.state.screens[seat] if g not in hand]
        story.sold_with_the_sell_card(seat, *([g] for g in bought))
    return story.state


def test_final_scoring_sums_money_goods_branches_and_liquidity():
    hand = [daily(1, c) for c in range(4)]
    state = _example_table(hand)
    assert [state.track, state.coins] == [[20, 5, 7], [1, 0, 0]]
    assert state.branches == _example_holdings() and state.screens == [hand, [], []]
    assert state.cards == [["liquidity_10", "liquidity_20"], ["buy_two"], []]
    event = final_scoring(state, "test")
    assert event.breakdown[0] == {
        "money": 70,
        "goods bundles": 35,
        "branch sets": 60,
        "branch majorities": 75,
        "liquidity cards": 60,
    }
    assert event.bundles[0] == [hand]
    assert event.totals == [300, 5 + 45 + 60, 7 + 50 + 45]
    GAME.evolve(state, event)
    out = GAME.outcome(state)
    assert out is not None and out.winners == [0] and [s.rank for s in out.scores] == [1, 2, 3]
    assert out.summary == "Seat 0 wins with 300 money, 190 ahead"
    assert out.details["bundles"][0] == [hand]
    assert GAME.to_act(state) == []


def test_tied_money_shares_the_win():
    state = table(players=2)
    GAME.evolve(state, final_scoring(state, "test"))
    out = GAME.outcome(state)
    assert out.winners == [0, 1] and all(s.rank == 1 for s in out.scores)
    assert out.summary == "Seats 0, 1 share the win with 120 money"


def test_the_12th_ruler_is_executed_then_the_game_ends():
    eleven = [RULER[k] for k in RULER if k != C.TAX_GOODS]
    no_sell_card = [c for c in C.SPECIAL_CARDS if c != C.SELL_ANYTIME]  # no response window
    # eleven rounds, each drawing one of the eleven rulers; seat 0 sells the good it bought in each
    # at the start of its next turn, keeping lux(0, 0)
    story = Story(hands=[[lux(0, 0)], []]).sell_card_used(0)
    for ruler in eleven:
        story.ruler_round(ruler)
        for good in story.state.screens[0][1:]:
            story.sold(0, [good])
    state = story.state
    assert state.rulers == eleven and state.screens == [[lux(0, 0)], []]
    assert state.cards == [no_sell_card, list(C.SPECIAL_CARDS)]
    expected_goods = best_partition(state.screens[0] + [state.river[7]])[0]
    seed = seed_drawing(state, RULER[C.TAX_GOODS])
    events = given_state(GAME, state).when(0, PurchaseGood(slot=7), seed=seed).events()
    assert events[2:5] == [
        OrderExecuted(seat=0, order=C.TAX_GOODS, amount=-2),
        OrderExecuted(seat=1, order=C.TAX_GOODS, amount=0),
        RulerResolved(spot=11),
    ]
    final = events[5]
    assert isinstance(final, FinalScoring) and len(events) == 6
    assert final.reason == "the 12th ruler's order was executed"
    after = GAME.fold(given_state(GAME, state).state, events)
    assert after.phase == "over" and GAME.to_act(after) == [] and GAME.legal_moves(after, 0) == []
    assert GAME.outcome(after) is not None
    given_state(GAME, after).when(1, EndTurn()).raises("game_over")
    # every player sold everything at the best partition
    assert final.breakdown[0]["goods bundles"] == expected_goods


def test_a_full_round_with_nobody_acting_ends_the_game():
    state = table(players=3)
    s1 = (
        given_state(GAME, state).when(0, EndTurn()).then([PurchaseSkipped(seat=0), TurnEnded(seat=0, next=1)])
    )
    s2 = given_state(GAME, s1).when(1, EndTurn()).then([PurchaseSkipped(seat=1), TurnEnded(seat=1, next=2)])
    events = given_state(GAME, s2).when(2, EndTurn()).events()
    assert events[:2] == [PurchaseSkipped(seat=2), TurnEnded(seat=2, next=0)]
    assert isinstance(events[2], FinalScoring) and "nobody" in events[2].reason


def test_an_action_resets_the_idle_round():
    state = table(players=2)
    s1 = (
        given_state(GAME, state).when(0, EndTurn()).then([PurchaseSkipped(seat=0), TurnEnded(seat=0, next=1)])
    )
    s2 = given_state(GAME, s1).when(1, PurchaseGood(slot=7), seed=seed_drawing(s1, daily(0, 0))).events()
    assert not any(isinstance(e, FinalScoring) for e in s2)
    after = GAME.fold(given_state(GAME, s1).state, s2)
    assert after.idle == 0


def test_a_player_holding_every_branch_scores_at_most_220():
    # FACTS.md: "A player holding every branch could score at most 220 in the final branch scoring":
    # both colours complete (50 + 50) and the lone holder of all four types (4 x 30, no second).
    everything = list(range(C.BRANCH_FIRST, C.BRANCH_FIRST + C.BRANCH_COUNT))
    maj = branch_majorities([everything, []])
    assert sum(branch_sets(everything).values()) + sum(maj[0]) == 220 and sum(maj[1]) == 0

"""End of Game and Final Scoring (rulebook "End of Game and Final Scoring")."""

from __future__ import annotations

from domain.kernel import Outcome, Standing, lead, rank, winners

from .bundles import best_partition
from .components import (
    BRANCH_TYPES,
    BROWN,
    GREEN,
    LIQUIDITY,
    LIQUIDITY_FINAL_VALUE,
    MAJORITY_VALUES,
    SET_VALUES,
    branch_colour,
    branch_dots,
    branch_type,
)
from .events import FinalScoring
from .state import State, money

STEPS = ["money", "goods bundles", "branch sets", "branch majorities", "liquidity cards"]
"""Breakdown keys: money before the final scoring, then the rulebook's steps 1, 2 (sets, most /
second most) and 3."""


def branch_sets(tokens: list[int]) -> dict[str, int]:
    """2. Branches Scoring, sets: 2/3/4 different types of one colour score 15/30/50, green and
    brown separately."""
    out = {}
    for col in (GREEN, BROWN):
        types = {branch_type(t) for t in tokens if branch_colour(t) == col}
        out[col] = SET_VALUES.get(len(types), 0)
    return out


def branch_majorities(holdings: list[list[int]]) -> list[list[int]]:
    """2. Branches Scoring, most / second most, per branch type regardless of colour:
    result[seat][type].  Ties go to the fewest total dots; no second place for a lone holder."""
    n = len(holdings)
    result = [[0] * len(BRANCH_TYPES) for _ in range(n)]
    for typ in range(len(BRANCH_TYPES)):
        ranking = []
        for seat, tokens in enumerate(holdings):
            mine = [t for t in tokens if branch_type(t) == typ]
            if mine:
                ranking.append((-len(mine), sum(branch_dots(t) for t in mine), seat))
        ranking.sort()
        for place, (_c, _d, seat) in enumerate(ranking[: len(MAJORITY_VALUES)]):
            result[seat][typ] = MAJORITY_VALUES[place]
    return result


def final_scoring(state: State, reason: str) -> FinalScoring:
    n = state.players
    majorities = branch_majorities(state.branches)
    bundles, breakdown, totals = [], [], []
    for seat in range(n):
        value, parts = best_partition(state.screens[seat])
        bundles.append(parts)
        liquidity = sum(1 for c in state.cards[seat] if c in LIQUIDITY)
        row = {
            "money": money(state, seat),
            "goods bundles": value,
            "branch sets": sum(branch_sets(state.branches[seat]).values()),
            "branch majorities": sum(majorities[seat]),
            "liquidity cards": liquidity * LIQUIDITY_FINAL_VALUE,
        }
        breakdown.append(row)
        totals.append(sum(row.values()))
    return FinalScoring(reason=reason, bundles=bundles, breakdown=breakdown, totals=totals)


def outcome(state: State) -> Outcome | None:
    """The player with the most money wins; equal totals share the win (the rulebook gives no
    tie-break)."""
    if state.phase != "over":
        return None
    scores = rank(
        [
            Standing(seat=seat, score=total, breakdown=dict(state.final_breakdown[seat]), tiebreak=[])
            for seat, total in enumerate(state.final_totals)
        ]
    )
    first = winners(scores)
    best = scores[first[0]].score
    if len(first) > 1:
        summary = f"Seats {', '.join(map(str, first))} share the win with {best} money"
    elif len(first) < len(scores):
        summary = f"Seat {first[0]} wins with {best} money, {lead(scores)} ahead"
    else:
        summary = f"Seat {first[0]} wins with {best} money"
    return Outcome(
        winners=first,
        scores=scores,
        summary=summary,
        details={"reason": state.final_reason, "bundles": state.final_bundles},
    )

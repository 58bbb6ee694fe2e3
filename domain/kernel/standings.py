"""Ranking seats into an outcome: the same arithmetic for every title.

Each rulebook says how to compare two players (the score, then its tie-breaks); what follows
from that comparison — ranks, shared places, winners, the lead — is the same everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .game import Seat, SeatScore


class Standing(NamedTuple):
    """One seat's final result before ranking."""

    seat: Seat
    score: int
    breakdown: dict[str, int]
    tiebreak: list[int]
    """The values shown to players as the tie-break, in the rulebook's order."""
    key: tuple[int, ...] | None = None
    """What is compared, larger first; ``(score, *tiebreak)`` unless a rule compares otherwise
    (e.g. an earlier place in turn order wins: a smaller value is better, so negate it)."""


def rank(standings: Sequence[Standing]) -> list[SeatScore]:
    """Scores in seat order, ranked: 1 + the number of seats strictly ahead, so seats whose keys
    are equal after every tie-break share a place."""
    keys = [s.key if s.key is not None else (s.score, *s.tiebreak) for s in standings]
    return [
        SeatScore(
            seat=s.seat,
            score=s.score,
            rank=1 + sum(1 for other in keys if other > keys[i]),
            breakdown=s.breakdown,
            tiebreak=s.tiebreak,
        )
        for i, s in enumerate(standings)
    ]


def winners(scores: Sequence[SeatScore]) -> list[Seat]:
    """The seats in first place (several when they share it)."""
    return [s.seat for s in scores if s.rank == 1]


def lead(scores: Sequence[SeatScore]) -> int:
    """How many points first place is ahead of the best score not in first place (0 if none)."""
    best = max(s.score for s in scores)
    others = [s.score for s in scores if s.rank != 1]
    return best - max(others) if others else 0

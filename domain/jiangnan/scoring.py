"""Final Scoring (side A of the Final Scoring Overlay) and the outcome."""

from __future__ import annotations

from domain.kernel import Outcome, SeatScore

from . import components as C
from .state import State


def final_scoring(s: State) -> list[dict[str, int]]:
    from .rules import boat_ranking, metric

    out = [{"before": p.vp, "goals": 0, "sets": 0, "assistants": 0, "scenery": 0, "ideas": 0} for p in s.p]
    # 1. Resolve Scoring Goal Tiles: first and second place on each goal boat (ties: placed earlier).
    for boat in s.river:
        if boat < 0 or s.boats[boat].goal is None:
            continue
        kind = C.GOALS[s.boats[boat].goal]
        for place, seat in enumerate(boat_ranking(s, boat)[:2]):
            out[seat]["goals"] += C.GOAL_VP[place] * metric(s, seat, kind)
    for seat, p in enumerate(s.p):
        # 2. Sets of a Drama, a Novel and a Painting; 3. Assistants; 4. Scenery; 5. Ideas.
        out[seat]["sets"] = C.FINAL_SET_VP * min(metric(s, seat, k) for k in ("drama", "novel", "painting"))
        out[seat]["assistants"] = C.FINAL_ASSISTANT_VP * len(p.assistants)
        out[seat]["scenery"] = C.FINAL_SCENERY_VP * metric(s, seat, "scenery")
        out[seat]["ideas"] = sum(p.ideas.values()) // C.FINAL_IDEAS_PER_VP
    return out


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    s = state
    # Ties: the player earlier in the final round's turn order wins.
    key = {seat: (-s.p[seat].vp, s.order.index(seat)) for seat in range(s.players)}
    ranked = sorted(range(s.players), key=lambda seat: key[seat])
    scores = []
    for seat in range(s.players):
        breakdown = dict(s.final[seat]) if s.final else {}
        breakdown["during the game"] = breakdown.pop("before", 0)
        scores.append(SeatScore(seat=seat, score=s.p[seat].vp, rank=ranked.index(seat) + 1, breakdown=breakdown,
                                tiebreak=[s.order.index(seat)]))
    winner = ranked[0]
    margin = s.p[winner].vp - (s.p[ranked[1]].vp if len(ranked) > 1 else 0)
    summary = f"Seat {winner} wins with {s.p[winner].vp} VP" + (f", {margin} ahead" if margin else ", on turn order")
    return Outcome(winners=[winner], scores=scores, summary=summary)

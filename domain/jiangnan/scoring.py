"""Final Scoring (side A of the Final Scoring Overlay) and the outcome."""

from __future__ import annotations

from domain.kernel import Outcome, SeatScore

from . import components as C
from .state import State


def final_scoring(s: State) -> list[dict[str, int]]:
    from .rules import boat_ranking, boat_servants, level, metric, scorers

    colours = scorers(s) if s.config is not None else len(s.p)
    out = [{"before": p.vp, "goals": 0, "sets": 0, "assistants": 0, "scenery": 0, "ideas": 0} for p in s.p[:colours]]
    # 1. Resolve Scoring Goal Tiles: first and second place on each goal boat (ties: placed earlier).
    for boat in s.river:
        if boat < 0 or s.boats[boat].goal is None:
            continue
        goal = s.boats[boat].goal
        kind = C.GOALS[goal]
        for place, seat in enumerate(boat_ranking(s, boat)[:2]):
            if kind == "own_servants":  # H: each of their own Servants on this boat
                amount = boat_servants(s, boat, seat)
            elif kind == "all_servants":  # K: each Servant of any player on this boat
                amount = boat_servants(s, boat)
            else:
                amount = metric(s, seat, kind)
            out[seat]["goals"] += C.GOAL_VPS[goal][place] * amount
    advanced = s.cfg.overlay == "B"
    for seat, p in enumerate(s.p[:colours]):
        # 2. Sets of a Drama, a Novel and a Painting; 3. Assistants; 4. Scenery; 5. Ideas.
        sets = min(metric(s, seat, k) for k in ("drama", "novel", "painting"))
        n, scenery = len(p.assistants), metric(s, seat, "scenery")
        if advanced:  # Advanced Final Scoring (overlay side B): 5 per set, N squared, 1+2+...+N
            out[seat]["sets"] = C.FINAL_SET_VP_B * sets
            out[seat]["assistants"] = n * n
            out[seat]["scenery"] = scenery * (scenery + 1) // 2
        else:
            out[seat]["sets"] = C.FINAL_SET_VP * sets
            out[seat]["assistants"] = C.FINAL_ASSISTANT_VP * n
            out[seat]["scenery"] = C.FINAL_SCENERY_VP * scenery
        out[seat]["ideas"] = sum(p.ideas.values()) // C.FINAL_IDEAS_PER_VP
        if seat == s.cfg.bot and level(s) >= 1:  # Normal and above: 1 VP per Coin of the Bot
            out[seat]["bot coins"] = p.coins
    return out


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    s = state
    if s.cfg.bot >= 0:
        return _solo_outcome(s)
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


def _solo_outcome(s: State) -> Outcome:
    """Solo: the human (seat 0) wins by beating the Bot (ties: earlier in the final turn order)."""
    bot = s.cfg.bot
    human, robot = s.p[0].vp, s.p[bot].vp
    won = (human, -s.order.index(0)) > (robot, -s.order.index(bot))
    breakdown = dict(s.final[0]) if s.final else {}
    breakdown["during the game"] = breakdown.pop("before", 0)
    bot_breakdown = dict(s.final[bot]) if len(s.final) > bot else {}
    bot_breakdown["during the game"] = bot_breakdown.pop("before", 0)
    score = SeatScore(seat=0, score=human, rank=1 if won else 2, breakdown=breakdown, tiebreak=[s.order.index(0)])
    verdict = "beats" if won else "loses to"
    summary = f"Seat 0 {verdict} the {s.cfg.difficulty.capitalize()} Bot, {human} VP to {robot}"
    return Outcome(winners=[0] if won else [], scores=[score], summary=summary,
                   details={"bot": {"score": robot, "difficulty": s.cfg.difficulty, "breakdown": bot_breakdown}})

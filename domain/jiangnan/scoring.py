"""III. End of the Game: Final Scoring (overlay side A, or B: Advanced Final Scoring) and the outcome."""

from __future__ import annotations

from domain.kernel import Outcome, Standing, lead, rank, winners

from . import components as C
from .state import State
from .table import boat_ranking, boat_servants, level, metric, power, scorers, since


def final_scoring(s: State) -> list[dict[str, int]]:
    """VP per scoring step for every colour that scores ("before": the VP during the game)."""
    colours = scorers(s)
    out = [
        {"before": p.vp, "goals": 0, "sets": 0, "assistants": 0, "scenery": 0, "ideas": 0}
        for p in s.p[:colours]
    ]
    # 1. Resolve Scoring Goal Tiles: first and second place on each goal boat (ties: placed earlier).
    for boat in s.river:
        goal = s.boats[boat].goal if boat >= 0 else None
        if goal is None:
            continue
        kind = C.GOALS[goal]
        ranking = boat_ranking(s, boat)
        if ranking and power(s, ranking[0]) == "captain" and since(s, "jiangnan-3"):
            # A07/A14: "Each time you win first place for boat resolution, you gain 3 VP" - the goal
            # boats are resolved too ("Resolve the 5 Boat Tiles"); jiangnan-2 paid trend boats only.
            out[ranking[0]]["boat talent"] = out[ranking[0]].get("boat talent", 0) + C.CAPTAIN_VP
        for place, seat in enumerate(ranking[:2]):
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
        if seat == s.cfg.bot and level(s) >= 1:  # Solo, Normal and above: 1 VP per Coin of the Bot
            out[seat]["bot coins"] = p.coins
    return out


def _standing(s: State, colour: int) -> Standing:
    """A colour's VP and breakdown; ties: earlier in the final round's turn order (assumed)."""
    breakdown = dict(s.final[colour]) if len(s.final) > colour else {}
    breakdown["during the game"] = breakdown.pop("before", 0)
    turn = s.order.index(colour)
    vp = s.p[colour].vp
    return Standing(seat=colour, score=vp, breakdown=breakdown, tiebreak=[turn], key=(vp, -turn))


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    s = state
    if s.cfg.bot >= 0:
        return _solo_outcome(s)
    scores = rank([_standing(s, seat) for seat in range(s.players)])
    winner = winners(scores)[0]  # the turn order breaks every tie
    margin = lead(scores)
    summary = f"Seat {winner} wins with {s.p[winner].vp} VP" + (
        f", {margin} ahead" if margin else ", on turn order"
    )
    return Outcome(winners=[winner], scores=scores, summary=summary)


def _solo_outcome(s: State) -> Outcome:
    """Solo: the human (seat 0) wins by beating the Bot, which is no seat (ties: turn order)."""
    bot = s.cfg.bot
    human, robot = rank([_standing(s, 0), _standing(s, bot)])
    verdict = "beats" if human.rank == 1 else "loses to"
    summary = f"Seat 0 {verdict} the {s.cfg.difficulty.capitalize()} Bot, {human.score} VP to {robot.score}"
    details = {"bot": {"score": robot.score, "difficulty": s.cfg.difficulty, "breakdown": robot.breakdown}}
    return Outcome(winners=winners([human]), scores=[human], summary=summary, details=details)

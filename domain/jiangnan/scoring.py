"""III. End of the Game: Final Scoring (overlay side A, or B: Advanced Final Scoring) and the outcome."""

from __future__ import annotations

from domain.kernel import Outcome, Standing, lead, rank, winners

from . import components as C
from .state import State
from .table import boat_ranking, boat_servants, level, metric, power, scorers, since


def final_scoring(state: State) -> list[dict[str, int]]:
    """VP per scoring step for every colour that scores ("before": the VP during the game)."""
    colours = scorers(state)
    out = [
        {"before": p.vp, "goals": 0, "sets": 0, "assistants": 0, "scenery": 0, "ideas": 0}
        for p in state.p[:colours]
    ]
    # 1. Resolve Scoring Goal Tiles: first and second place on each goal boat (ties: placed earlier).
    for boat in state.river:
        goal = state.boats[boat].goal if boat >= 0 else None
        if goal is None:
            continue
        kind = C.GOALS[goal]
        ranking = boat_ranking(state, boat)
        if ranking and power(state, ranking[0]) == "captain" and since(state, "jiangnan-3"):
            # A07/A14: "Each time you win first place for boat resolution, you gain 3 VP" - the goal
            # boats are resolved too ("Resolve the 5 Boat Tiles"); jiangnan-2 paid trend boats only.
            out[ranking[0]]["boat talent"] = out[ranking[0]].get("boat talent", 0) + C.CAPTAIN_VP
        for place, seat in enumerate(ranking[:2]):
            if kind == "own_servants":  # H: each of their own Servants on this boat
                amount = boat_servants(state, boat, seat)
            elif kind == "all_servants":  # K: each Servant of any player on this boat
                amount = boat_servants(state, boat)
            else:
                amount = metric(state, seat, kind)
            out[seat]["goals"] += C.GOAL_VPS[goal][place] * amount
    advanced = state.cfg.overlay == "B"
    for seat, p in enumerate(state.p[:colours]):
        # 2. Sets of a Drama, a Novel and a Painting; 3. Assistants; 4. Scenery; 5. Ideas.
        sets = min(metric(state, seat, k) for k in ("drama", "novel", "painting"))
        n, scenery = len(p.assistants), metric(state, seat, "scenery")
        if advanced:  # Advanced Final Scoring (overlay side B): 5 per set, N squared, 1+2+...+N
            out[seat]["sets"] = C.FINAL_SET_VP_B * sets
            out[seat]["assistants"] = n * n
            out[seat]["scenery"] = scenery * (scenery + 1) // 2
        else:
            out[seat]["sets"] = C.FINAL_SET_VP * sets
            out[seat]["assistants"] = C.FINAL_ASSISTANT_VP * n
            out[seat]["scenery"] = C.FINAL_SCENERY_VP * scenery
        out[seat]["ideas"] = sum(p.ideas.values()) // C.FINAL_IDEAS_PER_VP
        if seat == state.cfg.bot and level(state) >= 1:  # Solo, Normal and above: 1 VP per Coin of the Bot
            out[seat]["bot coins"] = p.coins
    return out


def _standing(state: State, colour: int) -> Standing:
    """A colour's VP and breakdown; ties: earlier in the final round's turn order (assumed)."""
    breakdown = dict(state.final[colour]) if len(state.final) > colour else {}
    breakdown["during the game"] = breakdown.pop("before", 0)
    turn = state.order.index(colour)
    vp = state.p[colour].vp
    return Standing(seat=colour, score=vp, breakdown=breakdown, tiebreak=[turn], key=(vp, -turn))


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    if state.cfg.bot >= 0:
        return _solo_outcome(state)
    scores = rank([_standing(state, seat) for seat in range(state.players)])
    winner = winners(scores)[0]  # the turn order breaks every tie
    margin = lead(scores)
    summary = f"Seat {winner} wins with {state.p[winner].vp} VP" + (
        f", {margin} ahead" if margin else ", on turn order"
    )
    return Outcome(winners=[winner], scores=scores, summary=summary)


def _solo_outcome(state: State) -> Outcome:
    """Solo: the human (seat 0) wins by beating the Bot, which is no seat (ties: turn order)."""
    bot = state.cfg.bot
    human, robot = rank([_standing(state, 0), _standing(state, bot)])
    verdict = "beats" if human.rank == 1 else "loses to"
    summary = (
        f"Seat 0 {verdict} the {state.cfg.difficulty.capitalize()} Bot, {human.score} VP to {robot.score}"
    )
    details = {
        "bot": {"score": robot.score, "difficulty": state.cfg.difficulty, "breakdown": robot.breakdown}
    }
    return Outcome(winners=winners([human]), scores=[human], summary=summary, details=details)

"""Game End: scoring steps 1-6 and the tie-breaks."""

from __future__ import annotations

from domain.kernel import Outcome, Standing, lead, rank, winners

from . import board as B
from . import components as C
from .state import Player, State


def breakdown(player: Player) -> dict[str, int]:
    """Game End, scoring steps 1-6 (Yamen Support Tile Reference: "Flat +4 points")."""
    out: dict[str, int] = {}
    out["copper"] = player.copper // 10  # 1. every 10 copper
    out["silver"] = player.head_office + sum(player.regions[r].silver for r in B.branch_regions(player))  # 2.
    out["branches"] = sum(C.END_POINTS_TIER[C.region_tier(r)] for r in B.branch_regions(player))  # 3.
    out["reputation_track"] = sum(
        v for k, v in C.REPUTATION_END_POINTS.items() if player.reputation >= k
    )  # 4.
    out["exchange_track"] = sum(v for k, v in C.EXCHANGE_END_POINTS.items() if player.exchange >= k)
    out["branch_tellers"] = B.tellers_on_branches(player) // 2  # 5.
    out["branch_skills"] = skill_points(player)  # 6.
    out["yamen"] = 4 if "flat_points" in player.yamen else 0
    return out


def skill_points(player: Player) -> int:
    """Game End 6 / Tier 3 Branches (and Moscow): end-game branch skills."""
    pts = 0
    for c in C.COLORS:
        if B.active(player, f"end_{c}"):  # Guangzhou and twins
            pts += B.count_color(player, c)
    if B.active(player, "end_rep"):  # Shuntian
        pts += player.reputation // 5
    r = B.active(player, "end_tellers")  # Taipei
    if r:
        pts += player.regions[r].tellers + player.regions[r].managers
    if B.active(player, "end_exchange"):  # Jinan
        pts += player.exchange // 3
    r = B.active(player, "end_macau")  # Macau: 4 silver on it
    if r and player.regions[r].silver >= 4:
        pts += 3
    if B.active(player, "end_flat"):  # Moscow
        pts += 1
    return pts


def solo_values(player: Player, score: int) -> dict[str, int]:
    """What the storyline card's conditions are compared against."""
    return {
        "score": score,
        "reputation": player.reputation,
        "exchange": player.exchange,
        "branches": len(B.branch_regions(player)),
        "tier3": sum(1 for r in B.branch_regions(player) if C.region_tier(r) == 3),
        "tellers": B.tellers_on_branches(player),
    }


def verdict(values: dict[str, int], goals: dict[str, int]) -> str:
    """Solo Game End: if even one condition is not met the challenge fails."""
    return "success" if all(values[k] >= v for k, v in goals.items()) else "failure"


def _solo_outcome(state: State) -> Outcome:
    player = state.pl[0]
    bd = breakdown(player)
    score = sum(bd.values())
    story = C.STORYLINES[state.storyline]
    values = solo_values(player, score)
    normal, hard = verdict(values, story.normal), verdict(values, story.hard)
    summary = (
        f"solo, storyline {state.storyline} ({story.name}): {score} points - Normal {normal}, Hard {hard}"
    )
    return Outcome(
        winners=[0] if normal == "success" else [],
        scores=rank([Standing(0, score, bd, [player.copper % 10, player.reputation])]),
        summary=summary,
        details={
            "storyline": state.storyline,
            "normal": normal,
            "hard": hard,
            "values": values,
            "normal_goals": dict(story.normal),
            "hard_goals": dict(story.hard),
        },
    )


def outcome(state: State) -> Outcome | None:
    """How to Score: the highest score wins; Resolution Phase: ties go to more unconverted copper,
    then higher reputation, else the victory is shared (Game End (Solo): the storyline verdict)."""
    if state.phase != "end":
        return None
    if state.players == 1:
        return _solo_outcome(state)
    standings = []
    for seat, p in enumerate(state.pl):
        bd = breakdown(p)
        # Tie-breaks: more unconverted copper (left after step 1), then higher reputation.
        standings.append(Standing(seat, sum(bd.values()), bd, [p.copper % 10, p.reputation]))
    scores = rank(standings)
    first = winners(scores)
    best = max(sc.score for sc in scores)
    if len(first) > 1:
        summary = f"seats {', '.join(map(str, first))} share the victory with {best} points"
    else:
        ahead = lead(scores)
        summary = f"seat {first[0]} wins with {best} points" + (
            f", {ahead} ahead" if len(first) < len(scores) else ""
        )
    return Outcome(winners=first, scores=scores, summary=summary)

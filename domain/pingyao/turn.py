"""Whose turn it is (Game Flow; Action Phase): a pending sub-decision first, else the die whose turn
it is to act.  The one place that says who acts: ``to_act`` and ``decide`` both read it."""

from __future__ import annotations

from domain.kernel import Seat

from .state import Frame, State


def acting_turn(state: State) -> tuple[int, list[int]] | None:
    """Action Phase: the highest value acts first; equal values go round the table from the
    starting player, one die per player in turn (a player with equal dice picks which).
    A rerolled die acts at once ("regardless of whether it is that die's original turn")."""
    if state.forced_die >= 0:
        return state.dice[state.forced_die].owner, [state.forced_die]
    values = [d.value for d in state.dice if d.where == "number"]
    if not values:
        return None
    best = max(values)
    owners = {d.owner for d in state.dice if d.where == "number" and d.value == best}
    seat = owners.pop()
    if owners:  # several players: the fewest turns taken with this value, then from the starting player
        n, start = state.players, state.start_player
        acted = state.acted.get(str(best)) or [0] * n
        seat = min((seat, *owners), key=lambda owner: (acted[owner], (owner - start) % n))
    return seat, [
        i for i, d in enumerate(state.dice) if d.owner == seat and d.where == "number" and d.value == best
    ]


def pending(state: State) -> Frame | tuple[int, list[int]] | None:
    """What must be answered now: the first queued sub-decision, else (seat, dice) of the acting
    turn in the Action Phase, else nothing (the game is over or the flow runs by itself)."""
    if state.phase == "end":
        return None
    if state.frames:
        return state.frames[0]
    if state.phase == "action":
        return acting_turn(state)
    return None


def to_act(state: State) -> list[Seat]:
    now = pending(state)
    if now is None:
        return []
    return [now.seat] if isinstance(now, Frame) else [now[0]]

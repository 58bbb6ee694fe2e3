"""Whose turn it is (Game Flow; Action Phase): a pending sub-decision first, else the die whose turn
it is to act.  The one place that says who acts: ``to_act`` and ``decide`` both read it."""

from __future__ import annotations

from domain.kernel import Seat

from .state import Frame, State


def acting_turn(s: State) -> tuple[int, list[int]] | None:
    """Action Phase: the highest value acts first; equal values go round the table from the
    starting player, one die per player in turn (a player with equal dice picks which).
    A rerolled die acts at once ("regardless of whether it is that die's original turn")."""
    if s.forced_die >= 0:
        return s.dice[s.forced_die].owner, [s.forced_die]
    values = [d.value for d in s.dice if d.where == "number"]
    if not values:
        return None
    best = max(values)
    owners = {d.owner for d in s.dice if d.where == "number" and d.value == best}
    seat = owners.pop()
    if owners:  # several players: the fewest turns taken with this value, then from the starting player
        n, start = s.players, s.start_player
        acted = s.acted.get(str(best)) or [0] * n
        seat = min((seat, *owners), key=lambda x: (acted[x], (x - start) % n))
    return seat, [
        i for i, d in enumerate(s.dice) if d.owner == seat and d.where == "number" and d.value == best
    ]


def pending(s: State) -> Frame | tuple[int, list[int]] | None:
    """What must be answered now: the first queued sub-decision, else (seat, dice) of the acting
    turn in the Action Phase, else nothing (the game is over or the flow runs by itself)."""
    if s.phase == "end":
        return None
    if s.frames:
        return s.frames[0]
    if s.phase == "action":
        return acting_turn(s)
    return None


def to_act(s: State) -> list[Seat]:
    now = pending(s)
    if now is None:
        return []
    return [now.seat] if isinstance(now, Frame) else [now[0]]

"""Sub-decisions (Game Flow): choices that follow an action or a phase step, queued as ``Frame``s and
answered one at a time.  Each kind is one :class:`~domain.kernel.decision.Decision` (the kernel's,
as in every title): the commands that answer it, the candidates, the check that refuses a command
with a :class:`~domain.kernel.decision.Refusal` (the same check filters the candidates into the
legal moves) and the play of an accepted answer.  They are listed by kind in ``rules.SUB_DECISIONS``."""

from __future__ import annotations

from domain.kernel import Scratch
from domain.kernel.decision import Decision, Refusal

from . import events as E
from .state import Frame, State

__all__ = ["Decision", "Refusal", "queue"]


def queue(scratch: Scratch[State], seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """Put the sub-decisions an answer leads to in front of the pending ones, and record the
    one-time bonuses taken (reputation 2/8/13 tellers, the Tier-3 Yamen teller)."""
    if frames or bonuses:
        scratch.emit(E.DecisionQueued(frames=frames, seat=seat, bonuses=bonuses))

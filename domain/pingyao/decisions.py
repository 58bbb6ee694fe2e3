"""Sub-decisions (Game Flow): choices that follow an action or a phase step, queued as ``Frame``s and
answered one at a time.  Each kind is one record: the commands that answer it, the candidates, the
check that refuses a command (the same check filters the candidates into the legal moves) and
the effect of an accepted answer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from domain.kernel import Command, RuleViolation, Scratch

from . import events as E
from .state import Frame, State


class Refusal(NamedTuple):
    """Why a command is not allowed now: a stable code (part of the HTTP contract), a message that
    never reveals hidden information, and the rulebook section.  Cheap to make, so that the
    same check can filter every candidate; ``decide`` raises it as a ``RuleViolation``."""

    code: str
    message: str
    rule: str

    def error(self) -> RuleViolation:
        return RuleViolation(self.code, self.message, rule=self.rule)


class SubDecision(NamedTuple):
    """One kind of sub-decision (``Frame.kind``)."""

    answers: tuple[type[Command], ...]
    legal: Callable[[State, Frame], list[Command]]
    """The commands `refusal` lets through, in a stable order."""
    refusal: Callable[[State, Frame, Any], Refusal | None]
    """Why a command of an `answers` type (any field values) is not allowed, or None."""
    apply: Callable[[Scratch[State], Frame, Any], None]
    """Emit the events of an accepted answer."""


def filtered(
    candidates: Callable[[State, Frame], Iterable[Command]],
    refusal: Callable[[State, Frame, Any], Refusal | None],
) -> Callable[[State, Frame], list[Command]]:
    """`legal` for a decision with one field to choose: every candidate the check lets through.
    (Decisions of several fields compose their per-field checks the same way, field by field.)"""

    def legal(state: State, frame: Frame) -> list[Command]:
        return [c for c in candidates(state, frame) if refusal(state, frame, c) is None]

    return legal


def queue(scratch: Scratch[State], seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """Put the sub-decisions an answer leads to in front of the pending ones, and record the
    one-time bonuses taken (reputation 2/8/13 tellers, the Tier-3 Yamen teller)."""
    if frames or bonuses:
        scratch.emit(E.DecisionQueued(frames=frames, seat=seat, bonuses=bonuses))

"""A pending decision and its one rule: the shape ``decide`` and ``legal_moves`` share.

Whatever a seat must answer now (a step of a turn, a sub-decision queued by an action, a choice
in an auction) is one :class:`Decision`: the command types that answer it, the **candidates**
(every answer worth asking about — a superset of the legal ones, like a pseudo-legal move
generator), one **check** that refuses any command of those types with a :class:`Refusal`
naming the broken rule, and the **play** of an accepted answer.  ``legal_moves`` is the candidates
the check accepts (:meth:`Decision.legal_answers`); ``decide`` raises what the check returns, else
plays the command on a :class:`~domain.kernel.scratch.Scratch`.  There is no second function that
"explains" a refusal: the explanation is the check.

The functions of a decision take the title's own arguments — whatever identifies what is pending
(Pingyao: ``(state, frame)``; Jiangnan: ``(state, seat, frame)``; Yangtze: ``(state, seat)``) —
written *at* below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .errors import RuleViolation


class Refusal(NamedTuple):
    """Why a command may not answer the pending decision: a stable code (part of the HTTP
    contract), a message that never reveals hidden information, and the rulebook section.

    A tuple, not an exception, so that the same check can filter every candidate into the legal
    moves cheaply (listing the legal moves of a busy turn asks it hundreds of times);
    ``decide`` raises it as a :class:`RuleViolation` (:meth:`error`)."""

    code: str
    message: str
    rule: str

    def error(self) -> RuleViolation:
        return RuleViolation(self.code, self.message, rule=self.rule)


class Decision(NamedTuple):
    """One kind of pending decision and the one rule for each of its answers."""

    rule: str
    """The rulebook section of the decision."""
    answers: tuple[type, ...]
    """The command types that answer it."""
    candidates: Callable[..., Iterable[Any]]
    """``candidates(*at)``: every answer worth asking about, in a stable order."""
    check: Callable[..., Refusal | None]
    """``check(*at, command)``: the rule a command of an ``answers`` type (any field values)
    breaks, or ``None`` when it is allowed."""
    play: Callable[..., Any]
    """What an accepted answer does: ``play(scratch, *at[1:], command)`` emits its events on the
    scratch copy (Pingyao, Jiangnan); a title that settles its own events returns them instead
    (Yangtze: ``play(*at, command) -> (events, whether the game goes on by itself)``)."""
    optional: Callable[..., bool] | None = None
    """``optional(*at)``: whether the decision may be declined now ("you may"); ``None``: never."""
    legal: Callable[..., list[Any]] | None = None
    """``legal(*at)``, for a decision of several fields: its legal answers listed directly, each
    field filtered by its own part of the check, rather than every combination checked whole.
    Must equal the candidates the check accepts."""

    def legal_answers(self, *at: Any) -> list[Any]:
        """The candidates the check accepts (or :attr:`legal`'s list)."""
        if self.legal is not None:
            return self.legal(*at)
        check = self.check
        return [command for command in self.candidates(*at) if check(*at, command) is None]

    def may_decline(self, *at: Any) -> bool:
        """Whether :attr:`optional` says the decision may be declined now."""
        return self.optional is not None and self.optional(*at)

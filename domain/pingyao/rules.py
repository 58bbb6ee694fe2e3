"""Pingyao rules: ``decide`` and ``legal_moves`` over one legality source.

Whatever is pending - a queued sub-decision (``Frame``) or a die's turn in the Action Phase - is
one decision with one check, ``refusal``, that says why a command (any field values) may not
answer it.  ``legal_moves`` is what that check lets through (its per-field checks applied field by
field where a command has several); ``decide`` raises what it returns, else applies the answer on
a scratch copy and runs the automatic flow until some seat must decide again.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Command, Event, GameOver, NotYourTurn, Rng, RuleViolation, Scratch, Seat

from . import branches, exchange, preparation, resolution, solo, tellers, two_player
from .action_phase import DieTurn
from .decisions import Decision, Refusal
from .evolve import evolve
from .flow import advance
from .state import Frame, State
from .turn import pending

SUB_DECISIONS: dict[str, Decision] = {
    "prep": preparation.PREPARATION,
    "public_die": two_player.PUBLIC_DIE,
    "starting_region": solo.STARTING_REGION,
    "round_reward": solo.ROUND_REWARD,
    "reward_yamen": solo.REWARD_YAMEN,
    "extra_action": solo.EXTRA_ACTION,
    "choose_branch": branches.CHOOSE_BRANCH,
    "entry_skill": branches.ENTRY_SKILL,
    "place_teller": tellers.PLACE_TELLER,
    "move_silver": tellers.MOVE_SILVER,
    "choose_card": exchange.CHOOSE_CARD,
    "place_exchange": exchange.PLACE_EXCHANGE,
    "resolve_order": resolution.RESOLVE_ORDER,
    "transfer": resolution.TRANSFER,
}


class _Queued:
    """A queued sub-decision, bound to the state it is asked in."""

    __slots__ = ("decision", "frame", "state")

    def __init__(self, state: State, frame: Frame) -> None:
        self.state, self.frame, self.decision = state, frame, SUB_DECISIONS[frame.kind]

    def legal(self) -> list[Command]:
        return self.decision.legal_answers(self.state, self.frame)

    def refusal(self, command: Any) -> Refusal | None:
        if not isinstance(command, self.decision.answers):
            return Refusal("wrong_decision", f"a {self.frame.kind} decision is pending", "Game Flow")
        return self.decision.check(self.state, self.frame, command)

    def apply(self, scratch: Scratch[State], command: Any) -> None:
        self.decision.play(scratch, self.frame, command)


def _decision(state: State, seat: Seat) -> _Queued | DieTurn | RuleViolation:
    """The decision `seat` must answer now, or why it may not act."""
    if state.phase == "end":
        return GameOver()
    now = pending(state)
    if isinstance(now, Frame):
        return _Queued(state, now) if now.seat == seat else NotYourTurn()
    if now is not None and now[0] == seat:
        return DieTurn(state, seat, now[1])
    return NotYourTurn()


def refusal(state: State, seat: Seat, command: Command) -> RuleViolation | None:
    """Why `seat` may not give `command` now (any field values), or None if it may."""
    decision = _decision(state, seat)
    if isinstance(decision, RuleViolation):
        return decision
    why = decision.refusal(command)
    return None if why is None else why.error()


def legal_moves(state: State, seat: Seat) -> list[Command]:
    decision = _decision(state, seat)
    return [] if isinstance(decision, RuleViolation) else decision.legal()


def decide(state: State, seat: Seat, command: Command, rng: Rng) -> list[Event]:
    decision = _decision(state, seat)
    if isinstance(decision, RuleViolation):
        raise decision
    why = decision.refusal(command)
    if why is not None:
        raise why.error()
    x = Scratch(state, evolve, rng)
    decision.apply(x, command)
    advance(x)
    return x.events

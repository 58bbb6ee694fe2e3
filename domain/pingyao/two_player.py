"""Two-Player Game Rules: the two unused colours' dice are public dice, rolled and drafted before
each round - each into an action's resting area (at most 1 public die each) or out of play."""

from __future__ import annotations

from domain.kernel import Command, Scratch

from . import commands as K
from . import components as C
from . import events as E
from .actions import forbidden
from .decisions import Decision, Refusal
from .state import Frame, State

_RULE = "Two-Player Game Rules"
NOT_A_PUBLIC_DIE = Refusal("not_a_public_die", "choose one of the rolled public dice", _RULE)
UNKNOWN_ACTION = Refusal("unknown_action", "no such action", _RULE)
ACTION_CLOSED = Refusal("action_closed", "rounds 1-2: not Confucius Temple or Yamen", _RULE)
PUBLIC_DIE_LIMIT = Refusal("public_die_limit", "each resting area holds at most 1 public die", _RULE)


def roll_public_dice(scratch: Scratch[State]) -> None:
    """Before each round the starting player rolls the public dice (rounds 1-2: the two four-sided
    and two six-sided ones); then the players choose them one by one: start 1, second 2, start 2,
    second 1 (rounds 1-2: start 1, second 2, start 1)."""
    state = scratch.state
    scratch.emit(E.PhaseStarted(phase="draft"))
    values = [
        scratch.rng.between(1, C.DIE_SIDES[d.large]) if d.owner < 0 and d.where == "pool" else 0
        for d in state.dice
    ]
    scratch.emit(E.PublicDiceRolled(values=values))
    order = C.DRAFT_ORDER_EARLY if state.round < 3 else C.DRAFT_ORDER
    scratch.emit(
        E.DecisionQueued(
            frames=[Frame(kind="public_die", seat=(state.start_player + k) % state.players) for k in order]
        )
    )


def _die_refusal(state: State, die: int) -> Refusal | None:
    if not 0 <= die < len(state.dice) or state.dice[die].where != "draft":
        return NOT_A_PUBLIC_DIE
    return None


def _action_refusal(state: State, action: str) -> Refusal | None:
    """A resting area (rounds 1-2: not Confucius Temple or Yamen) without a public die, or "" (out of
    play this round)."""
    if action == "":
        return None
    if action not in C.ACTIONS:
        return UNKNOWN_ACTION
    if forbidden(state, action):
        return ACTION_CLOSED
    if any(d.owner < 0 and d.where == "rest" and d.action == action for d in state.dice):
        return PUBLIC_DIE_LIMIT
    return None


def _legal(state: State, frame: Frame) -> list[Command]:
    actions = [a for a in (*C.ACTIONS, "") if _action_refusal(state, a) is None]
    return [
        K.PlacePublicDie(die=i, action=a)
        for i in range(len(state.dice))
        if _die_refusal(state, i) is None
        for a in actions
    ]


def _refusal(state: State, frame: Frame, cmd: K.PlacePublicDie) -> Refusal | None:
    return _die_refusal(state, cmd.die) or _action_refusal(state, cmd.action)


def _apply(scratch: Scratch[State], frame: Frame, cmd: K.PlacePublicDie) -> None:
    scratch.emit(E.PublicDiePlaced(seat=frame.seat, die=cmd.die, action=cmd.action, frame=True))


PUBLIC_DIE = Decision("Two-Player Game Rules", (K.PlacePublicDie,), _legal, _refusal, _apply, legal=_legal)

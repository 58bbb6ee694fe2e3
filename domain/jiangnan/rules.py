"""Jiangnan's entry points: ``setup``, ``decide``, ``legal_moves``, ``to_act``.

A game is a stack of pending steps (``State.steps``); the decision on top belongs to one seat.
Each kind of step is a :class:`~domain.kernel.decision.Decision` (the kernel's, as in every title)
defined with its rulebook section; its ``check`` is the only place a rule is written:
:func:`legal_moves` lists the candidate answers it accepts,
:func:`why_not` returns what it refuses, :func:`decide` raises that refusal or plays the answer on
a scratch copy and runs the automatic steps (:func:`advance`) until somebody must decide again.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.kernel import Command, Event, GameOver, InvalidOptions, NotYourTurn, Rng, RuleViolation
from domain.kernel.decision import Decision, Refusal

from . import assistants, districts, shops, society, turn, upkeep, vassals
from . import components as C
from . import setup as game_setup
from .commands import ExchangeIdeas, Pass, TakeIdeas, TakePortfolios, UseSpiritsTile
from .events import SpiritsTileUsed
from .options import JiangnanOptions
from .play import Play, gain, refusal
from .state import EARLIER_VERSIONS, RULES_VERSION, Frame, State
from .table import to_act

STEPS: dict[str, Decision] = {
    **game_setup.STEPS,
    **turn.STEPS,
    **vassals.STEPS,
    **society.STEPS,
    **districts.STEPS,
    **shops.STEPS,
    **assistants.STEPS,
    **upkeep.STEPS,
}
"""Every kind of decision (``Frame.kind``), with its rule."""

AUTO: dict[str, Callable[[Play, Frame], None]] = turn.AUTO

PHASES: dict[str, Callable[[Play], None]] = {
    "start": game_setup.phase_start,
    "actions": turn.phase_actions,
    "income": upkeep.phase_income,
    "boats": upkeep.phase_boats,
    "trend": upkeep.phase_trend,
    "draft": upkeep.phase_draft,
    "drafting": upkeep.phase_drafting,
    "events": upkeep.phase_events,
    "board": upkeep.phase_board,
    "spirits": upkeep.phase_spirits,
    "mandatory": upkeep.phase_mandatory,
}
"""Gameplay: what happens in each phase of a round when no decision is pending."""

initial = game_setup.initial

__all__ = ["JiangnanOptions", "decide", "initial", "legal_moves", "setup", "to_act", "why_not"]


def setup(options: JiangnanOptions, rng: Rng, rules_version: str = RULES_VERSION) -> list[Event]:
    """Game Setup, up to the first decision (the starting Portfolios), under *rules_version*: the
    current rules, or an earlier version this code still judges (``Game.earlier_versions``), whose
    opening it re-creates event for event (what a verifier replaying an old record needs)."""
    if rules_version not in (RULES_VERSION, *EARLIER_VERSIONS):
        known = ", ".join((RULES_VERSION, *EARLIER_VERSIONS))
        raise InvalidOptions(f"this code sets games up under the rules versions {known}")
    c = game_setup.opening(options, rng, rules_version)
    advance(c)
    return c.events


def advance(scratch: Play) -> None:
    """Run automatic steps and phases until a decision is needed or the game is over."""
    state = scratch.state
    while not state.finished:
        if state.steps:
            top = state.steps[-1]
            auto = AUTO.get(top.kind)
            if auto is None:
                return
            auto(scratch, top)
        else:
            PHASES[state.phase](scratch)


# --- the rule of the Spirits Tile, an answer to any step ---------------------------------------------
def _spirits_refusal(state: State, seat: int) -> Refusal | None:
    """Spirit Level Track / Shop A5: discard a Spirits Tile "anytime" for +3 Spirit (assumed: while
    you are to act, and not at Spirit 6, where it would do nothing)."""
    player = state.p[seat]
    if player.spirits_tiles == 0:
        return refusal("no_spirits_tile", "you have no Spirits Tile", "Spirit Level Track")
    if player.spirit >= C.SPIRIT_MAX:
        return refusal("spirit_full", "your Spirit Level is already 6", "Spirit Level Track")
    return None


def _use_spirits_tile(scratch: Play, seat: int, frame: Frame) -> None:
    scratch.emit(SpiritsTileUsed(seat=seat))
    gain(scratch, seat, {"spirit": 3}, "spirits tile")
    if frame.kind == "mandatory_rest" and scratch.state.p[seat].spirit > 0:  # the Mandatory Rest is prevented
        scratch.end_step()


# --- what is legal, and why not --------------------------------------------------------------------
def legal_moves(state: State, seat: int) -> list[Command]:
    """Every answer to the pending step that its rule accepts, plus a Spirits Tile."""
    if state.finished or not state.steps:
        return []
    frame = state.steps[-1]
    if frame.seat != seat:
        return []
    step = STEPS[frame.kind]
    moves = step.legal_answers(state, seat, frame)
    if Pass in step.answers and (not moves or step.may_decline(state, seat, frame)):
        moves.append(Pass())
    if _spirits_refusal(state, seat) is None:
        moves.append(UseSpiritsTile())
    return moves


def why_not(state: State, seat: int, command: Command) -> RuleViolation | None:
    """The rule *command* breaks now, or ``None`` when it is legal (any well-typed command)."""
    if state.finished:
        return GameOver()
    if not state.steps or state.steps[-1].seat != seat:
        return NotYourTurn(rule="Gameplay")
    refused = _refusal(state, seat, command)
    return None if refused is None else refused.error()


def _refusal(state: State, seat: int, command: Command) -> Refusal | None:
    """The pending step's rule (or the Spirits Tile's) applied to *command*, from its seat."""
    if isinstance(command, UseSpiritsTile):
        return _spirits_refusal(state, seat)
    frame = state.steps[-1]
    step = STEPS[frame.kind]
    if not isinstance(command, step.answers):
        return refusal("not_now", f"that is not a decision of the current step ({frame.kind})", "Gameplay")
    if isinstance(command, Pass):  # "you may": optional, or nothing else can be done
        if step.may_decline(state, seat, frame):
            return None
        if any(step.check(state, seat, frame, m) is None for m in step.candidates(state, seat, frame)):
            return refusal("not_optional", "this action is not optional", step.rule)
        return None
    return step.check(state, seat, frame, command)


def _normalize(command: Command) -> Command:
    """Lists of choices are sets: compare them sorted."""
    if isinstance(command, TakePortfolios):
        return TakePortfolios(portfolios=sorted(command.portfolios))
    if isinstance(command, TakeIdeas):
        return TakeIdeas(ideas=sorted(command.ideas))
    if isinstance(command, ExchangeIdeas):
        return ExchangeIdeas(give=sorted(command.give), take=sorted(command.take))
    return command


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    """The events of *command*, or the :class:`RuleViolation` it breaks (the state is untouched)."""
    command = _normalize(command)
    violation = why_not(state, seat, command)
    if violation is not None:
        raise violation
    scratch = Play(state, rng)
    frame = scratch.state.steps[-1]
    if isinstance(command, UseSpiritsTile):
        _use_spirits_tile(scratch, seat, frame)
    elif isinstance(command, Pass):
        scratch.end_step()
    else:
        STEPS[frame.kind].play(scratch, seat, frame, command)
    advance(scratch)
    return scratch.events

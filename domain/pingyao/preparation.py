"""Preparation Phase 2-3: in player order, each player's Tier-1 activation skills (Tier 1 Branches:
Lasa, Changde, Jinzhou, Jiujiang; once per round each) and copper -> silver at 10:1; one ``prep``
decision per player, ended with ``EndPreparation``.  The die skills (Lasa, Changde, Jinzhou) are
also offered on the player's die's turn in the Action Phase (``action_phase``; the Changde example
there), from ``pingyao-3``."""

from __future__ import annotations

from collections.abc import Iterator

from domain.kernel import Command, Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Decision, Refusal
from .state import Die, Frame, Player, State

_STEP = {"die_minus": -1, "die_plus": +1}
"""Lasa: a die -1; Changde: a die +1."""
RECALL_COST = 2  # Jiujiang: "pay 2 copper coins to move one silver ingot"


SKILL_UNAVAILABLE = Refusal("skill_unavailable", "that skill cannot be used now", "Tier 1 Branches")
WRONG_DIE = Refusal(
    "skill_unavailable", "your dice in the number areas, within their faces", "Tier 1 Branches"
)
NO_BRANCH_SILVER = Refusal(
    "skill_unavailable", "choose one of your branches with silver", "Tier 1 Branches: Jiujiang"
)
RECALL_COPPER = Refusal("insufficient_copper", "Jiujiang costs 2 copper", "Tier 1 Branches: Jiujiang")
INVALID_AMOUNT = Refusal("invalid_amount", "convert at least 1 silver", "Preparation Phase 3")
CONVERT_COPPER = Refusal("insufficient_copper", "10 copper per silver", "Preparation Phase 3")


def _ready(player: Player, skill: str) -> bool:
    """Tier 1 Branches: the branch is staffed, and the skill is used "once per round"."""
    return skill not in player.used_round and B.active(player, skill) is not None


def _moved(state: State, seat: int, die: int, step: int) -> Die | None:
    """The seat's die in the number areas, if `step` keeps it within its faces ("not beyond the
    die's normal range": no wrapping); skills act only on dice still in the number areas."""
    if not 0 <= die < len(state.dice):
        return None
    d = state.dice[die]
    if d.owner != seat or d.where != "number" or not 1 <= d.value + step <= C.DIE_SIDES[d.large]:
        return None
    return d


def die_skill_candidates(state: State, seat: int) -> Iterator[K.AdjustDie | K.SwapDice]:
    """Lasa, Changde, Jinzhou: every use on the seat's dice in the number areas (a superset)."""
    player = state.pl[seat]
    mine = [i for i, d in enumerate(state.dice) if d.owner == seat and d.where == "number"]
    for skill in _STEP:
        if _ready(player, skill):
            yield from (K.AdjustDie(skill=skill, die=i) for i in mine)
    if _ready(player, "die_swap"):
        yield from (K.SwapDice(up=a, down=b) for a in mine for b in mine)


def die_skill_refusal(state: State, seat: int, cmd: K.AdjustDie | K.SwapDice) -> Refusal | None:
    """Tier 1 Branches: Lasa (-1), Changde (+1), Jinzhou (one die +1, another -1; "you must change
    both dice simultaneously"), once per round each, on the seat's dice in the number areas."""
    player = state.pl[seat]
    match cmd:
        case K.AdjustDie(skill=skill, die=die):  # Lasa / Changde
            if skill not in _STEP or not _ready(player, skill):
                return SKILL_UNAVAILABLE
            if _moved(state, seat, die, _STEP[skill]) is None:
                return WRONG_DIE
        case K.SwapDice(up=up, down=down):  # Jinzhou
            if not _ready(player, "die_swap"):
                return SKILL_UNAVAILABLE
            if up == down or _moved(state, seat, up, +1) is None or _moved(state, seat, down, -1) is None:
                return WRONG_DIE
    return None


def use_die_skill(scratch: Scratch[State], seat: int, cmd: K.AdjustDie | K.SwapDice) -> None:
    """Preparation 2: "If a die's value is changed by such an effect, move that die to the number
    area matching its new value" (the value is the number area)."""
    dice = scratch.state.dice
    match cmd:
        case K.AdjustDie(skill=skill, die=die):
            scratch.emit(E.DieAdjusted(seat=seat, skill=skill, die=die, value=dice[die].value + _STEP[skill]))
        case K.SwapDice(up=up, down=down):
            scratch.emit(E.DieAdjusted(seat=seat, skill="die_swap", die=up, value=dice[up].value + 1))
            scratch.emit(E.DieAdjusted(seat=seat, skill="die_swap", die=down, value=dice[down].value - 1))


def _candidates(state: State, frame: Frame) -> Iterator[Command]:
    player = state.pl[frame.seat]
    yield from die_skill_candidates(state, frame.seat)
    if _ready(player, "recall_silver"):
        yield from (K.RecallSilver(region=r) for r in B.branch_regions(player))
    yield from (K.ConvertCopper(silver=n) for n in range(1, player.copper // 10 + 1))
    yield K.EndPreparation()


def _refusal(state: State, frame: Frame, cmd: Command) -> Refusal | None:
    player = state.pl[frame.seat]
    match cmd:
        case K.AdjustDie() | K.SwapDice():  # Lasa / Changde / Jinzhou
            return die_skill_refusal(state, frame.seat, cmd)
        case K.RecallSilver(region=region):  # Jiujiang
            if not _ready(player, "recall_silver"):
                return SKILL_UNAVAILABLE
            if player.copper < RECALL_COST:
                return RECALL_COPPER
            if region not in B.branch_regions(player) or player.regions[region].silver < 1:
                return NO_BRANCH_SILVER
        case K.ConvertCopper(silver=silver):  # Preparation Phase 3: 10 copper = 1 silver
            if silver < 1:
                return INVALID_AMOUNT
            if player.copper < 10 * silver:
                return CONVERT_COPPER
    return None


def _apply(scratch: Scratch[State], frame: Frame, cmd: Command) -> None:
    seat = frame.seat
    match cmd:
        case K.AdjustDie() | K.SwapDice():
            use_die_skill(scratch, seat, cmd)
        case K.RecallSilver(region=region):
            scratch.emit(E.SilverRecalled(seat=seat, region=region, cost=RECALL_COST))
        case K.ConvertCopper(silver=silver):
            scratch.emit(E.CopperConverted(seat=seat, silver=silver))
        case K.EndPreparation():
            scratch.emit(E.PreparationEnded(seat=seat, frame=True))


PREPARATION = Decision(
    "Preparation Phase",
    (K.AdjustDie, K.SwapDice, K.RecallSilver, K.ConvertCopper, K.EndPreparation),
    _candidates,
    _refusal,
    _apply,
)


def has_choices(state: State, seat: int) -> bool:
    """Whether the seat has anything to do in Preparation besides ending it (else it is skipped)."""
    f = Frame(kind="prep", seat=seat)
    return any(
        not isinstance(c, K.EndPreparation) and _refusal(state, f, c) is None for c in _candidates(state, f)
    )

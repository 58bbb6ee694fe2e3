"""Bank Escort (鏢局), after the draw: keep one of the drawn branch tiles and open the branch
(Actions: no two branches with the same skill), then its on-entry skill (Branch Skill Reference)."""

from __future__ import annotations

from domain.kernel import Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Decision, Refusal, queue
from .exchange import draw_exchange, room_refusal
from .state import Frame, State
from .tellers import rep_bonuses, tier3_bonus


def buildable(state: State, seat: int, tile: str) -> bool:
    """Actions: "A player may not open two branches with identical skills"."""
    return C.TILES[tile].skill not in B.skills(state.pl[seat])


# --- choose_branch: Bank Escort, keep one of the 4 -------------------------------------------------
INVALID_BRANCH = Refusal(
    "invalid_branch", "choose one of the drawn tiles without a skill you already have", "Bank Escort"
)


def _branch_candidates(state: State, frame: Frame) -> list[K.ChooseBranch]:
    return [K.ChooseBranch(tile=t) for t in state.drawn]


def _branch_refusal(state: State, frame: Frame, cmd: K.ChooseBranch) -> Refusal | None:
    if cmd.tile not in state.drawn or not buildable(state, frame.seat, cmd.tile):
        return INVALID_BRANCH
    return None


def _offered(state: State, seat: int, skill: str) -> bool:
    """Branch Skill Reference: an optional on-entry skill is offered once, if it can be used then -
    Singapore and Suzhou cost 2 copper, Xinyizhou needs room for an exchange card, Tokyo tellers to
    recall; Incheon always."""
    player = state.pl[seat]
    if skill in ("entry_rep2", "entry_teller"):
        return player.copper >= 2
    if skill == "entry_exchange":
        return room_refusal(state, player) is None
    if skill == "entry_reset":
        return sum(r.tellers + r.managers + r.waiting for r in player.regions.values()) > 0
    return skill == "entry_copper_exchange"


def _open_branch(scratch: Scratch[State], frame: Frame, cmd: K.ChooseBranch) -> None:
    """Bank Escort: open the branch with its starting capital, the other tiles to the bottom;
    Actions: a Tier-1 branch +1 reputation at once, a waiting teller may move onto it;
    Branch Skill Reference: on-entry skills (Kobe automatic, the others optional, offered once)."""
    state, seat, region = scratch.state, frame.seat, frame.region
    player = state.pl[seat]
    tier = C.region_tier(region)
    rest = [t for t in state.drawn if t != cmd.tile]
    frames: list[Frame] = []
    bonuses: list[str] = []
    scratch.emit(E.BranchOpened(seat=seat, region=region, tile=cmd.tile, capital=C.CAPITAL[tier], frame=True))
    scratch.emit(E.BranchTilesReturned(seat=seat, tier=tier, count=len(rest), tiles=rest))
    if tier == 1:
        scratch.emit(E.ReputationGained(seat=seat, amount=1, reason="tier1_branch"))
    if player.regions[region].waiting:
        frames.append(Frame(kind="place_teller", seat=seat, region=region))
    skill = C.TILES[cmd.tile].skill
    if skill == "entry_rep1":  # Kobe: +1 reputation on entry
        scratch.emit(E.ReputationGained(seat=seat, amount=1, reason="Kobe"))
    elif _offered(state, seat, skill):
        frames.append(Frame(kind="entry_skill", seat=seat, skill=skill))
    rep_bonuses(state, seat, frames, bonuses)
    if tier == 3:
        tier3_bonus(state, seat, frames, bonuses)
    queue(scratch, seat, frames, bonuses)


CHOOSE_BRANCH = Decision("Bank Escort", (K.ChooseBranch,), _branch_candidates, _branch_refusal, _open_branch)


# --- entry_skill: Branch Skill Reference, immediate on-entry effects are optional ("may") ----------
def _entry_candidates(state: State, frame: Frame) -> list[K.UseEntrySkill]:
    return [K.UseEntrySkill(use=True), K.UseEntrySkill(use=False)]


def _entry_refusal(state: State, frame: Frame, cmd: K.UseEntrySkill) -> Refusal | None:
    return None  # offered only when it can be used; declining is always possible


def _entry_skill(scratch: Scratch[State], frame: Frame, cmd: K.UseEntrySkill) -> None:
    state, seat = scratch.state, frame.seat
    player = state.pl[seat]
    frames: list[Frame] = []
    bonuses: list[str] = []
    scratch.emit(E.EntrySkillDecided(seat=seat, skill=frame.skill, use=cmd.use, frame=True))
    if cmd.use:
        if frame.skill == "entry_rep2":  # Singapore: pay 2 copper, +2 reputation
            scratch.emit(E.ReputationGained(seat=seat, amount=2, cost=2, reason="Singapore"))
            rep_bonuses(state, seat, frames, bonuses)
        elif frame.skill == "entry_teller":  # Suzhou: pay 2 copper to recruit and place a teller
            frames.append(Frame(kind="place_teller", seat=seat, cost=2))
        elif frame.skill == "entry_exchange":  # Xinyizhou: a 1-month exchange without the fee
            frames += draw_exchange(scratch, seat, 1, 1, False)
        elif frame.skill == "entry_copper_exchange":  # Incheon: 2 copper and a 1-2 month exchange
            scratch.emit(E.CopperGained(seat=seat, amount=2, reason="Incheon"))
            if room_refusal(state, player) is None:
                frames += draw_exchange(scratch, seat, 1, 2, False)
        elif frame.skill == "entry_reset":  # Tokyo: recall every branch teller and reassign them
            n = sum(r.tellers + r.managers + r.waiting for r in player.regions.values())
            scratch.emit(E.TellersRecalled(seat=seat, count=n))
            frames += [Frame(kind="place_teller", seat=seat) for _ in range(n)]
    queue(scratch, seat, frames, bonuses)


ENTRY_SKILL = Decision(
    "Branch Skill Reference", (K.UseEntrySkill,), _entry_candidates, _entry_refusal, _entry_skill
)

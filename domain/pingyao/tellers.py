"""Branch tellers: placing one (Confucius Temple), the free ones (City God Temple: reputation 2, 8
and 13; the Tier-3 Yamen tile), and Confucius Temple 1-2's optional silver move."""

from __future__ import annotations

from domain.kernel import Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Decision, Refusal
from .state import Frame, State


def rep_bonuses(state: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """City God Temple, above the track: reputation 2, 8 and 13 each give a free branch teller,
    once per game, for any region (with or without a branch)."""
    player = state.pl[seat]
    for t in C.REPUTATION_TELLER_BONUS:
        key = f"rep{t}"
        if player.reputation >= t and key not in player.bonuses and key not in bonuses:
            bonuses.append(key)
            frames.append(Frame(kind="place_teller", seat=seat))


def tier3_bonus(state: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """Yamen Support Tile Reference, "Tier-3 branch with any value": once a Tier-3 branch is open,
    1 free branch teller (once)."""
    player = state.pl[seat]
    if (
        "tier3_any" in player.yamen
        and "tier3_teller" not in player.bonuses
        and any(player.regions[f"3{c}"].tile for c in C.COLORS)
    ):
        bonuses.append("tier3_teller")
        frames.append(Frame(kind="place_teller", seat=seat))


# --- place_teller: Confucius Temple (and every free or recruited teller) -----------------------------
INVALID_POSITION = Refusal("invalid_position", "no such free branch-teller position", "Confucius Temple")
MUST_PLACE = Refusal("invalid_position", "place the branch teller on a free position", "Confucius Temple")
TELLER_COPPER = Refusal("insufficient_copper", "cannot pay for the branch teller", "Confucius Temple")


def _open(state: State, frame: Frame, target: str) -> bool:
    """Confucius Temple: a free position; Actions: a teller waiting on a region where a branch opens
    "may" move onto the new branch (`f.region`), or stay."""
    region, _, slot = target.partition(":")
    player = state.pl[frame.seat]
    if frame.region:
        return region == frame.region and (slot == "wait" or B.open_position(player, region, slot))
    return B.open_position(player, region, slot)


def _teller_candidates(state: State, frame: Frame) -> list[K.PlaceTeller]:
    targets = B.teller_targets(state.pl[frame.seat], frame.region) + (
        [f"{frame.region}:wait"] if frame.region else []
    )
    return [K.PlaceTeller(target=t) for t in (*targets, "")]


def _teller_refusal(state: State, frame: Frame, cmd: K.PlaceTeller) -> Refusal | None:
    """A teller that cannot be paid for (Confucius Temple 5-6, Suzhou: 2 copper) or has no free
    position is lost (`target=""`); otherwise it must be placed."""
    affordable = state.pl[frame.seat].copper >= frame.cost
    if cmd.target == "":
        if affordable and (frame.region or B.has_teller_target(state.pl[frame.seat])):
            return MUST_PLACE
        return None
    if not affordable:
        return TELLER_COPPER
    if not _open(state, frame, cmd.target):
        return INVALID_POSITION
    return None


def _place_teller(scratch: Scratch[State], frame: Frame, cmd: K.PlaceTeller) -> None:
    scratch.emit(
        E.TellerPlaced(
            seat=frame.seat,
            target=cmd.target,
            cost=frame.cost if cmd.target else 0,
            source=f"{frame.region}:wait" if frame.region else "supply",
            frame=True,
        )
    )


PLACE_TELLER = Decision(
    "Confucius Temple", (K.PlaceTeller,), _teller_candidates, _teller_refusal, _place_teller
)


# --- move_silver: Confucius Temple 1-2, "you may move 1 silver ingot" to any branch ------------------
NOT_A_BRANCH = Refusal("invalid_region", "move the silver to one of your branches", "Confucius Temple")
NO_SILVER = Refusal("insufficient_silver", "the head office has no silver", "Confucius Temple")


def _move_candidates(state: State, frame: Frame) -> list[K.MoveSilver]:
    return [K.MoveSilver(region=r) for r in ("", *B.branch_regions(state.pl[frame.seat]))]


def _move_refusal(state: State, frame: Frame, cmd: K.MoveSilver) -> Refusal | None:
    player = state.pl[frame.seat]
    if cmd.region == "":
        return None
    if cmd.region not in B.branch_regions(player):
        return NOT_A_BRANCH
    if player.head_office < 1:
        return NO_SILVER
    return None


def _move_silver(scratch: Scratch[State], frame: Frame, cmd: K.MoveSilver) -> None:
    scratch.emit(
        E.SilverMoved(
            seat=frame.seat, source=C.HEAD_OFFICE, dest=cmd.region, reason="confucius_temple", frame=True
        )
    )


MOVE_SILVER = Decision("Confucius Temple", (K.MoveSilver,), _move_candidates, _move_refusal, _move_silver)

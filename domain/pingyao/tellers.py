"""Branch tellers: placing one (Confucius Temple), the free ones (City God Temple: reputation 2, 8
and 13; the Tier-3 Yamen tile), and Confucius Temple 1-2's optional silver move."""

from __future__ import annotations

from domain.kernel import Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Refusal, SubDecision, filtered
from .state import Frame, State


def rep_bonuses(s: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """City God Temple, above the track: reputation 2, 8 and 13 each give a free branch teller,
    once per game, for any region (with or without a branch)."""
    p = s.pl[seat]
    for t in C.REPUTATION_TELLER_BONUS:
        key = f"rep{t}"
        if p.reputation >= t and key not in p.bonuses and key not in bonuses:
            bonuses.append(key)
            frames.append(Frame(kind="place_teller", seat=seat))


def tier3_bonus(s: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """Yamen Support Tile Reference, "Tier-3 branch with any value": once a Tier-3 branch is open,
    1 free branch teller (once)."""
    p = s.pl[seat]
    if (
        "tier3_any" in p.yamen
        and "tier3_teller" not in p.bonuses
        and any(p.regions[f"3{c}"].tile for c in C.COLORS)
    ):
        bonuses.append("tier3_teller")
        frames.append(Frame(kind="place_teller", seat=seat))


# --- place_teller: Confucius Temple (and every free or recruited teller) -----------------------------
INVALID_POSITION = Refusal("invalid_position", "no such free branch-teller position", "Confucius Temple")
MUST_PLACE = Refusal("invalid_position", "place the branch teller on a free position", "Confucius Temple")
TELLER_COPPER = Refusal("insufficient_copper", "cannot pay for the branch teller", "Confucius Temple")


def _open(s: State, f: Frame, target: str) -> bool:
    """Confucius Temple: a free position; Actions: a teller waiting on a region where a branch opens
    "may" move onto the new branch (`f.region`), or stay."""
    region, _, slot = target.partition(":")
    p = s.pl[f.seat]
    if f.region:
        return region == f.region and (slot == "wait" or B.open_position(p, region, slot))
    return B.open_position(p, region, slot)


def _teller_candidates(s: State, f: Frame) -> list[K.PlaceTeller]:
    targets = B.teller_targets(s.pl[f.seat], f.region) + ([f"{f.region}:wait"] if f.region else [])
    return [K.PlaceTeller(target=t) for t in (*targets, "")]


def _teller_refusal(s: State, f: Frame, cmd: K.PlaceTeller) -> Refusal | None:
    """A teller that cannot be paid for (Confucius Temple 5-6, Suzhou: 2 copper) or has no free
    position is lost (`target=""`); otherwise it must be placed."""
    affordable = s.pl[f.seat].copper >= f.cost
    if cmd.target == "":
        if affordable and (f.region or B.has_teller_target(s.pl[f.seat])):
            return MUST_PLACE
        return None
    if not affordable:
        return TELLER_COPPER
    if not _open(s, f, cmd.target):
        return INVALID_POSITION
    return None


def _place_teller(x: Scratch[State], f: Frame, cmd: K.PlaceTeller) -> None:
    x.emit(
        E.TellerPlaced(
            seat=f.seat,
            target=cmd.target,
            cost=f.cost if cmd.target else 0,
            source=f"{f.region}:wait" if f.region else "supply",
            frame=True,
        )
    )


PLACE_TELLER = SubDecision(
    (K.PlaceTeller,), filtered(_teller_candidates, _teller_refusal), _teller_refusal, _place_teller
)


# --- move_silver: Confucius Temple 1-2, "you may move 1 silver ingot" to any branch ------------------
NOT_A_BRANCH = Refusal("invalid_region", "move the silver to one of your branches", "Confucius Temple")
NO_SILVER = Refusal("insufficient_silver", "the head office has no silver", "Confucius Temple")


def _move_candidates(s: State, f: Frame) -> list[K.MoveSilver]:
    return [K.MoveSilver(region=r) for r in ("", *B.branch_regions(s.pl[f.seat]))]


def _move_refusal(s: State, f: Frame, cmd: K.MoveSilver) -> Refusal | None:
    p = s.pl[f.seat]
    if cmd.region == "":
        return None
    if cmd.region not in B.branch_regions(p):
        return NOT_A_BRANCH
    if p.head_office < 1:
        return NO_SILVER
    return None


def _move_silver(x: Scratch[State], f: Frame, cmd: K.MoveSilver) -> None:
    x.emit(
        E.SilverMoved(
            seat=f.seat, source=C.HEAD_OFFICE, dest=cmd.region, reason="confucius_temple", frame=True
        )
    )


MOVE_SILVER = SubDecision(
    (K.MoveSilver,), filtered(_move_candidates, _move_refusal), _move_refusal, _move_silver
)

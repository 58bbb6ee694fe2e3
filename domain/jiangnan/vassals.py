"""2-Player Rules: each player's vassal colour places a Scholar below the district of the
discarded Action Tile (colours 2 and 3 are the vassals of seats 0 and 1)."""

from __future__ import annotations

from typing import Any

from domain.kernel.decision import Decision, Refusal

from . import components as C
from .commands import SendVassal
from .events import ScholarPlaced
from .play import Play, refusal
from .state import Frame, State


def place_vassal(scratch: Play, seat: int, tile: str | None) -> None:
    """After the discard: the vassal's Scholar goes below the district on the discarded tile (a
    choice on two-district tiles)."""
    if not scratch.state.cfg.vassals or tile is None:
        return
    districts = C.ACTION_TILES[tile]["districts"]
    if len(districts) > 1:
        scratch.push("vassal", seat, tile)
    else:
        send_vassal(scratch, seat, districts[0])


def send_vassal(scratch: Play, seat: int, district: str) -> None:
    """ "If the district is full, place the vassal's Scholar in the Rest Area" (the main Scholar was
    placed first, so it takes a last space)."""
    full = len(scratch.state.tracks[district]) >= C.SCHOLAR_SPACES
    scratch.emit(ScholarPlaced(seat=seat + scratch.state.players, district=C.REST if full else district))


def _vassal_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [SendVassal(district=d) for d in C.ACTION_TILES[frame.arg]["districts"]]


def _vassal_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.district in C.ACTION_TILES[frame.arg]["districts"]:
        return None
    return refusal("wrong_district", "the vassal goes to a district of the discarded tile", "2-Player Rules")


def _vassal_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    send_vassal(scratch, seat, cmd.district)


STEPS = {"vassal": Decision("2-Player Rules", (SendVassal,), _vassal_candidates, _vassal_check, _vassal_play)}

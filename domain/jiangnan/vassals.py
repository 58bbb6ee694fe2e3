"""2-Player Rules: each player's vassal colour places a Scholar below the district of the
discarded Action Tile (colours 2 and 3 are the vassals of seats 0 and 1)."""

from __future__ import annotations

from typing import Any

from domain.kernel import RuleViolation

from . import components as C
from .commands import SendVassal
from .events import ScholarPlaced
from .play import Play, Step, refusal
from .state import Frame, State


def place_vassal(c: Play, seat: int, tile: str | None) -> None:
    """After the discard: the vassal's Scholar goes below the district on the discarded tile (a
    choice on two-district tiles)."""
    if not c.state.cfg.vassals or tile is None:
        return
    districts = C.ACTION_TILES[tile]["districts"]
    if len(districts) > 1:
        c.push("vassal", seat, tile)
    else:
        send_vassal(c, seat, districts[0])


def send_vassal(c: Play, seat: int, d: str) -> None:
    """ "If the district is full, place the vassal's Scholar in the Rest Area" (the main Scholar was
    placed first, so it takes a last space)."""
    full = len(c.state.tracks[d]) >= C.SCHOLAR_SPACES
    c.emit(ScholarPlaced(seat=seat + c.state.players, district=C.REST if full else d))


def _vassal_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [SendVassal(district=d) for d in C.ACTION_TILES[f.arg]["districts"]]


def _vassal_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.district in C.ACTION_TILES[f.arg]["districts"]:
        return None
    return refusal("wrong_district", "the vassal goes to a district of the discarded tile", "2-Player Rules")


def _vassal_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    send_vassal(c, seat, cmd.district)


STEPS = {"vassal": Step("2-Player Rules", (SendVassal,), _vassal_candidates, _vassal_check, _vassal_play)}

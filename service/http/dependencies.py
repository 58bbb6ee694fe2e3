"""What handlers are given: the application's parts, and who is calling.

Declared once on the app with ``Provide``; a handler names what it needs (``reads``, ``moves``,
``caller``, ``player`` …) and never reaches into ``app.state`` or reads a token itself.
"""

from __future__ import annotations

from typing import Annotated

import structlog
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import HeaderParameter, PathParameter

from domain.kernel import Seat

from ..application import Application
from ..application.audit import Audit
from ..application.errors import InvalidPrecondition, InvalidToken, TokenRequired
from ..application.moves import Moves
from ..application.reads import Reads
from ..application.seats import Seats

GameId = Annotated[str, PathParameter(description="The game's id", max_length=64)]
Authorization = Annotated[
    str | None,
    HeaderParameter(
        name="Authorization",
        description="`Bearer <seat token>`; omit to act as a spectator",
        required=False,
    ),
]


def provide_application(state: State) -> Application:
    return state.application


def provide_seats(state: State) -> Seats:
    return state.application.seats


def provide_reads(state: State) -> Reads:
    return state.application.reads


def provide_moves(state: State) -> Moves:
    return state.application.moves


def provide_audit(state: State) -> Audit:
    return state.application.audit


async def provide_caller(
    game_id: GameId, seats: NamedDependency[Seats], authorization: Authorization = None
) -> Seat | None:
    """The seat the bearer token holds in this game; None for a spectator (no token)."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        raise InvalidToken("expected 'Authorization: Bearer ymn.<seat>.<secret>'")
    seat = await seats.authenticate(game_id, token.strip())
    structlog.contextvars.bind_contextvars(seat=seat)
    return seat


async def provide_player(caller: NamedDependency[Seat | None]) -> Seat:
    """The caller's seat, required (a spectator cannot move)."""
    if caller is None:
        raise TokenRequired("send the seat's token: 'Authorization: Bearer ymn.<seat>.<secret>'")
    return caller


def version_in(value: str | None, header: str) -> int | None:
    """The game version an ``If-Match`` / ``If-None-Match`` header names (``"12"``, ``W/"12"``);
    None when absent or ``*``."""
    if value is None or value.strip() == "*":
        return None
    text = value.strip()
    if text.startswith("W/"):
        text = text[2:]
    text = text.strip('"')
    if not (text.isascii() and text.isdecimal()):
        raise InvalidPrecondition(f'{header} must be a game version such as "12"')
    return int(text)


DEPENDENCIES = {
    "application": Provide(provide_application, sync_to_thread=False),
    "seats": Provide(provide_seats, sync_to_thread=False),
    "reads": Provide(provide_reads, sync_to_thread=False),
    "moves": Provide(provide_moves, sync_to_thread=False),
    "audit": Provide(provide_audit, sync_to_thread=False),
    "caller": Provide(provide_caller),
    "player": Provide(provide_player),
}

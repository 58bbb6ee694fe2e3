"""What handlers are given: the application's parts, and who is calling.

Declared once on the app with ``Provide``; a handler names what it needs (``reads``, ``moves``,
``caller``, ``player`` …) and never reaches into ``app.state`` or reads a token itself.
"""

from __future__ import annotations

from typing import Annotated

import structlog
from litestar.di import NamedDependency, Provide
from litestar.params import HeaderParameter, PathParameter

from domain.kernel import Seat

from ..application import Application
from ..application.errors import InvalidPrecondition, InvalidToken, TokenRequired

GameId = Annotated[str, PathParameter(description="The game's id", max_length=64, pattern="^[A-Za-z0-9_-]+$")]
Authorization = Annotated[
    str | None,
    HeaderParameter(
        name="Authorization",
        description="`Bearer <seat token>`; omit to act as a spectator",
        required=False,
    ),
]


App = NamedDependency[Application]
"""The application service (:class:`service.application.Application`)."""
Caller = NamedDependency[Seat | None]
"""The seat the caller's token holds in the game; None for a spectator."""
Player = NamedDependency[Seat]
"""The caller's seat, required: without a token the request is refused (401)."""


class ApplicationSlot:
    """The application an app serves, filled by its lifespan at start-up.  Handlers get it through
    ``Provide(slot.get)``: a provider without parameters costs no parsing per request."""

    def __init__(self) -> None:
        self.application: Application | None = None

    def get(self) -> Application:
        assert self.application is not None, "the app has not started"
        return self.application


async def provide_caller(
    game_id: GameId, application: NamedDependency[Application], authorization: Authorization = None
) -> Seat | None:
    """The seat the bearer token holds in this game; None for a spectator (no token)."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        raise InvalidToken("expected 'Authorization: Bearer ymn.<seat>.<secret>'")
    seat = await application.seats.authenticate(game_id, token.strip())
    structlog.contextvars.bind_contextvars(seat=seat)
    return seat


async def provide_player(caller: NamedDependency[Seat | None]) -> Seat:
    """The caller's seat, required (a spectator cannot move)."""
    if caller is None:
        raise TokenRequired("send the seat's token: 'Authorization: Bearer ymn.<seat>.<secret>'")
    return caller


VERSION_TAG = r'^\s*(\*|(W/)?"?[0-9]{1,18}"?)\s*$'
"""What If-Match and If-None-Match accept: a game version as an entity tag, or ``*``."""


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


def dependencies(slot: ApplicationSlot) -> dict[str, Provide]:
    """What handlers may ask for by name: ``application``, ``caller`` and ``player``."""
    return {
        "application": Provide(slot.get, sync_to_thread=False),
        "caller": Provide(provide_caller),
        "player": Provide(provide_player),
    }

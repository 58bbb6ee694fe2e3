"""What handlers are given: the application's parts, and who is calling.

Declared once on the app with ``Provide``; a handler names what it needs (``reads``, ``moves``,
``caller``, ``player``, ``principal`` …) and never reaches into ``app.state`` or reads a token itself.

The request's credential is read once (:func:`credential_of`, by the rate limit or whoever asks
first) and every route with a ``{game_id}`` passes one check, :func:`game_access` (run by the
innermost middleware, :class:`GameAccess`), which decides what the caller is in that game — a
seat, a spectator, or nobody who may see it (404) — so no game route can forget the visibility
check (:mod:`service.application.identity`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import structlog
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency, Provide
from litestar.exceptions import ValidationException
from litestar.params import HeaderParameter, PathParameter, SkipValidation
from litestar.types import ASGIApp, Receive, Scope, Send

from domain.kernel import Seat

from ..application import Application, identity
from ..application.errors import (
    AppKeyRequired,
    CredentialInUrl,
    InvalidPrecondition,
    PlayerRequired,
    TokenRequired,
)
from ..application.identity import Credential, SeatBearer

GAME_ID = "^[A-Za-z0-9_-]+$"
GameId = Annotated[str, PathParameter(description="The game's id", max_length=64, pattern=GAME_ID)]
Authorization = Annotated[
    str | None,
    HeaderParameter(
        name="Authorization",
        description=(
            "`Bearer <credential>`: a seat token `ymn.<seat>.<secret>`, an app key "
            "`ymk_<key_id>.<secret>`, a player credential `ymp_<id>.<secret>` or a player assertion "
            "(a JWT); omit to act as a spectator"
        ),
        required=False,
    ),
]


App = NamedDependency[Application]
"""The application service (:class:`service.application.Application`)."""
Caller = NamedDependency[Seat | None]
"""The seat the caller holds in the game; None for a spectator (anybody allowed to watch it)."""
Player = NamedDependency[Seat]
"""The caller's seat, required: without a token the request is refused (401)."""
Principal = NamedDependency[SkipValidation[identity.Principal | None]]
"""The app or player calling (:mod:`service.application.identity`); None for an anonymous caller or
a bare seat token (which means something only in its own game).  Not validated again: msgspec
converts no union of two dataclasses, and the value comes from :func:`provide_principal`."""


class ApplicationSlot:
    """The application an app serves, filled by its lifespan at start-up.  Handlers get it through
    ``Provide(slot.get)``: a provider without parameters costs no parsing per request."""

    def __init__(self) -> None:
        self.application: Application | None = None

    def get(self) -> Application:
        assert self.application is not None, "the app has not started"
        return self.application


CREDENTIAL_PARAMETERS = ("key", "token", "api_key", "apikey", "access_token")
"""Query parameters that would carry a credential in a URL, which proxies, browsers' histories and
access logs keep: refused outright (400 ``credential_in_url``)."""
_CREDENTIAL_STATE = "yamen.credential"
_VIEWER_STATE = "yamen.viewer"
_GAME_ID = re.compile(GAME_ID)


async def credential_of(
    connection: ASGIConnection[Any, Any, Any, Any], application: Application
) -> Credential | None:
    """The request's verified credential (None without one), read once per request: the rate
    limit, the game guard and the ``principal`` dependency share it."""
    state = connection.scope.setdefault("state", {})
    if _CREDENTIAL_STATE in state:
        return state[_CREDENTIAL_STATE]  # type: ignore[no-any-return]
    query = connection.scope.get("query_string", b"")
    if query:
        named = {name.lower() for name in connection.query_params}
        if found := sorted(named.intersection(CREDENTIAL_PARAMETERS)):
            raise CredentialInUrl(
                f"?{found[0]}= looks like a credential in the URL: send it as 'Authorization: Bearer …' "
                "(and revoke it if it was a real one: URLs end up in logs)"
            )
    credential = await application.identity.authenticate(connection.headers.get("authorization"))
    state[_CREDENTIAL_STATE] = credential
    return credential


class GameAccess:
    """Pure ASGI, the innermost middleware: every matched route with a ``{game_id}`` passes
    :func:`game_access` before its handler (and its dependencies, body parsing and hooks) runs.

    Not a Litestar guard: Litestar hands each guard a copy of the route handler on every request
    (``copy.copy`` of a large object); as a guard, the check cost an HTTP move 9 % more server CPU
    (A/B, ``docs/performance.md``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if "game_id" in scope.get("path_params", ()):
            await game_access(ASGIConnection(scope, receive, send))
        await self.app(scope, receive, send)


async def game_access(connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    """On a route with a ``{game_id}``, who the caller is in that game — or 404 ``game_not_found``
    when they may not see it (exactly as if it did not exist)."""
    game_id = connection.path_params.get("game_id")
    if not isinstance(game_id, str) or len(game_id) > 64 or not _GAME_ID.match(game_id):
        return  # no game here, or an id the route's own validation refuses (400)
    application: Application = connection.app.state.application
    credential = await credential_of(connection, application)
    seat = _named_seat(connection.query_params.get("seat"))
    on_seat = connection.path_params.get("seat")  # a route about one seat (claim, bot, token)
    viewer = await application.identity.viewer(
        game_id,
        credential,
        seat=seat,
        ticket=connection.query_params.get("ticket"),
        path_seat=on_seat if isinstance(on_seat, int) else None,
    )
    connection.scope["state"][_VIEWER_STATE] = viewer
    if viewer is not None:
        structlog.contextvars.bind_contextvars(seat=viewer)


MAX_SEAT = 16


def _named_seat(text: str | None) -> Seat | None:
    """The ``?seat=`` a player holding several seats of the game acts as (declared on every game
    operation: :func:`service.http.openapi.finish_openapi`)."""
    if text is None:
        return None
    if not (text.isascii() and text.isdecimal() and len(text) <= 2 and int(text) <= MAX_SEAT):
        raise ValidationException(
            detail="seat: a seat number from 0 to 16",
            extra=[{"key": "seat", "source": "query", "message": "a seat number from 0 to 16"}],
        )
    return int(text)


async def provide_caller(
    game_id: GameId,
    request: Request[Any, Any, Any],
    application: NamedDependency[Application],
    authorization: Authorization = None,
) -> Seat | None:
    """The seat the caller holds in this game; None for a spectator.  Decided by
    :func:`game_access` (*game_id* and *authorization* are declared here for the OpenAPI document).

    It names *application* only to be resolved after it: Litestar resolves dependencies of the same
    depth together in an anyio task group, tasks and cancel scope created per request, which cost a
    move over HTTP 15 % of its server CPU (A/B, ``docs/performance.md``; tests/http/test_dependencies.py
    keeps every route's dependencies one after another)."""
    del game_id, authorization, application
    return request.scope["state"].get(_VIEWER_STATE)


async def provide_player(caller: NamedDependency[Seat | None]) -> Seat:
    """The caller's seat, required (a spectator cannot move)."""
    if caller is None:
        raise TokenRequired("send the seat's token: 'Authorization: Bearer ymn.<seat>.<secret>'")
    return caller


async def provide_principal(
    request: Request[Any, Any, Any],
    application: NamedDependency[Application],
    authorization: Authorization = None,
) -> identity.Principal | None:
    """The app or player calling; None for anonymous callers and seat tokens."""
    del authorization  # read by credential_of; declared for the OpenAPI document
    credential = await credential_of(request, application)
    return None if credential is None or isinstance(credential, SeatBearer) else credential


async def provide_app_key(principal: Principal) -> identity.AppCaller:
    """The app calling with its key: an app's own business (its players) needs it."""
    if not isinstance(principal, identity.AppCaller):
        raise AppKeyRequired("send the app's key: 'Authorization: Bearer ymk_<key_id>.<secret>'")
    return principal


async def provide_me(principal: Principal) -> identity.PlayerCaller:
    """The player calling, with its credential or an assertion: a player's own business (its games)."""
    if not isinstance(principal, identity.PlayerCaller):
        raise PlayerRequired(
            "send the player's credential ('Authorization: Bearer ymp_<id>.<secret>') or an assertion"
        )
    return principal


AppKey = NamedDependency[identity.AppCaller]
"""The app whose key calls (401 ``app_key_required`` for anybody else)."""
Me = NamedDependency[identity.PlayerCaller]
"""The player calling (401 ``player_required`` for anybody else)."""


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
    """What handlers may ask for by name: ``application``, ``caller``, ``player``, ``principal``,
    ``app_key`` and ``me``."""
    return {
        "application": Provide(slot.get, sync_to_thread=False),
        "caller": Provide(provide_caller),
        "player": Provide(provide_player),
        "principal": Provide(provide_principal),
        "app_key": Provide(provide_app_key),
        "me": Provide(provide_me),
    }

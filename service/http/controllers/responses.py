"""Encoded answers as HTTP responses, with the version as their ``ETag``."""

from __future__ import annotations

import time
from typing import Any

from litestar import Response
from litestar.datastructures import MutableScopeHeaders, ResponseHeader
from litestar.types import Message, Scope

from ...application.documents import Encoded

JSON = "application/json"
SERVER_TIME = "Server-Time-Ms"
"""The service's clock (Unix milliseconds) when it answered: what a game's clock deadlines are
compared with (``table.clocks[].deadline_ms``), whatever the device's own clock says."""


async def stamp_server_time(message: Message, scope: Scope) -> None:
    """``Server-Time-Ms`` on every answer — documents, events, tickets, the catalogue, refusals,
    preflights: the app sends every message through this hook, so no answer can miss it."""
    if message["type"] == "http.response.start":
        MutableScopeHeaders.from_message(message)[SERVER_TIME] = str(int(time.time() * 1000))


def etag(version: int) -> str:
    return f'"{version}"'


CALLER_DEPENDENT = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}
"""An answer that depends on who asks (a seat's view, its legal moves): a browser must not show one
seat's answer to another (or to a spectator) in the same profile, and revalidates it by ETag."""


def encoded(answer: Encoded, *, vary: bool = True) -> Response[Any]:
    """*answer* as a response: its body (or 304 when there is none), its version as the ETag;
    marked as depending on the caller unless *vary* is False.  The body is JSON already, of the
    type the handler's return annotation names (which Litestar documents)."""
    headers = {"ETag": etag(answer.version)} if answer.version is not None else {}
    if vary:
        headers.update(CALLER_DEPENDENT)
    if answer.body is None:
        return Response(content=b"", status_code=304, headers=headers)
    return Response(content=answer.body, status_code=answer.status, media_type=JSON, headers=headers)


STANDBY_LAG = "Standby-Lag-Ms"
"""On an answer read from the Postgres standby: how far (ms) its replay trailed the primary when
last measured (``docs/scaling.md``).  Absent: the answer is as current as the primary."""


def standby_lag_header() -> ResponseHeader:
    return ResponseHeader(
        name=STANDBY_LAG,
        description=(
            "Present when a spectator's answer was read from a standby: its replay lag in ms (at most "
            "the service's bound). Send `min_version` to read nothing older than a version you have seen."
        ),
        documentation_only=True,
    )


def etag_header(description: str) -> ResponseHeader:
    return ResponseHeader(name="ETag", description=description, documentation_only=True)


LOCATION = "Location"


def json_answer(body: bytes, headers: dict[str, str] | None = None) -> Response[Any]:
    """A 200 answer whose body is JSON already (msgspec encodes it in one pass), of the type the
    handler's return annotation names (which Litestar documents)."""
    return Response(content=body, media_type=JSON, headers=headers)


def created(content: Any, location: str) -> Response[Any]:
    """A 201 answer for *content*, with the absolute path of what it created in ``Location``."""
    return Response(content=content, status_code=201, headers={LOCATION: location})


def location_header(description: str) -> ResponseHeader:
    return ResponseHeader(name=LOCATION, description=description, required=True, documentation_only=True)


def game_path(game_id: str) -> str:
    """The game's own URL (``GET`` reads it), as an absolute path."""
    return f"/v1/games/{game_id}"

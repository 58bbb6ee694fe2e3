"""Encoded answers as HTTP responses, with the version as their ``ETag``."""

from __future__ import annotations

import time

from litestar import Response
from litestar.datastructures import ResponseHeader

from ...application.documents import Encoded

JSON = "application/json"
SERVER_TIME = "Server-Time-Ms"
"""The service's clock (Unix milliseconds) when it answered: what a game's clock deadlines are
compared with (``table.clocks[].deadline_ms``), whatever the device's own clock says."""


def etag(version: int) -> str:
    return f'"{version}"'


CALLER_DEPENDENT = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}
"""An answer that depends on who asks (a seat's view, its legal moves): a browser must not show one
seat's answer to another (or to a spectator) in the same profile, and revalidates it by ETag."""


def encoded(answer: Encoded, *, vary: bool = True) -> Response:
    """*answer* as a response: its body (or 304 when there is none), its version as the ETag;
    marked as depending on the caller unless *vary* is False."""
    headers = {"ETag": etag(answer.version)} if answer.version is not None else {}
    headers[SERVER_TIME] = str(int(time.time() * 1000))
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


def server_time_header() -> ResponseHeader:
    return ResponseHeader(
        name=SERVER_TIME,
        description="The service's time (Unix ms) when it answered: compare clock deadlines with it",
        documentation_only=True,
    )


def etag_header(description: str) -> ResponseHeader:
    return ResponseHeader(name="ETag", description=description, documentation_only=True)

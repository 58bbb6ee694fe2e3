"""Encoded answers as HTTP responses, with the version as their ``ETag``."""

from __future__ import annotations

from litestar import Response
from litestar.datastructures import ResponseHeader

from ...application.documents import Encoded

JSON = "application/json"


def etag(version: int) -> str:
    return f'"{version}"'


CALLER_DEPENDENT = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}
"""An answer that depends on who asks (a seat's view, its legal moves): a browser must not show one
seat's answer to another (or to a spectator) in the same profile, and revalidates it by ETag."""


def encoded(answer: Encoded, *, vary: bool = True) -> Response:
    """*answer* as a response: its body (or 304 when there is none), its version as the ETag;
    marked as depending on the caller unless *vary* is False."""
    headers = {"ETag": etag(answer.version)} if answer.version is not None else {}
    if vary:
        headers.update(CALLER_DEPENDENT)
    if answer.body is None:
        return Response(content=b"", status_code=304, headers=headers)
    return Response(content=answer.body, status_code=answer.status, media_type=JSON, headers=headers)


def etag_header(description: str) -> ResponseHeader:
    return ResponseHeader(name="ETag", description=description, documentation_only=True)

"""Encoded answers as HTTP responses, with the version as their ``ETag``."""

from __future__ import annotations

from litestar import Response
from litestar.datastructures import ResponseHeader

from ...application.documents import Encoded

JSON = "application/json"


def etag(version: int) -> str:
    return f'"{version}"'


def encoded(answer: Encoded, *, vary: bool = False) -> Response:
    """*answer* as a response: its body (or 304 when there is none), its version as the ETag."""
    headers = {"ETag": etag(answer.version)} if answer.version is not None else {}
    if vary:
        headers["Vary"] = "Authorization"
    if answer.body is None:
        return Response(content=b"", status_code=304, headers=headers)
    return Response(content=answer.body, status_code=answer.status, media_type=JSON, headers=headers)


def etag_header(description: str) -> ResponseHeader:
    return ResponseHeader(name="ETag", description=description, documentation_only=True)

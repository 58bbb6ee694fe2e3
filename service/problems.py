"""RFC 9457 problem details with stable codes: the one place errors become HTTP answers."""

from __future__ import annotations

from typing import Any

import msgspec


class ProblemDetails(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An RFC 9457 problem.  ``type`` is a stable URI per code; ``code`` the same code bare."""

    type: str
    title: str
    status: int
    code: str
    detail: str | None = None
    instance: str | None = None
    rule: str | None = None
    """For rule violations: the rulebook section that forbids the move."""
    current_version: int | None = None
    """For 412 Precondition Failed: the game's version now."""
    errors: list[dict[str, Any]] | None = None


TYPE_BASE = "https://yamen.dev/problems/"

TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    412: "Precondition Failed",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    428: "Precondition Required",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class Problem(Exception):
    """Raised anywhere in the service to answer with a problem+json document."""

    def __init__(self, status: int, code: str, detail: str | None = None, **extra: Any) -> None:
        super().__init__(detail or code)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra

    def document(self, instance: str | None = None) -> ProblemDetails:
        return ProblemDetails(
            type=TYPE_BASE + self.code,
            title=TITLES.get(self.status, "Error"),
            status=self.status,
            code=self.code,
            detail=self.detail,
            instance=instance,
            **self.extra,
        )

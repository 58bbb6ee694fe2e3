"""Errors as RFC 9457 problem+json: the one map from a refusal to an HTTP answer.

Every refusal has a stable ``code`` (``type`` is the same code as a URI).  The application's
refusals (:mod:`service.application.errors`) and the rules' (:class:`RuleViolation`) map to a
status by their kind, here and nowhere else; :func:`problems` declares on each handler which
refusals it can answer with, so the OpenAPI document lists every status with its codes.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.types import ExceptionHandlersMap

from domain.kernel import NotYourTurn, RuleViolation

from ..application import errors as app
from ..codec import json_encoder
from ..infra.store import StoreRefused, StoreUnavailable
from .limits import BodyTimeout

log = structlog.get_logger("yamen.http")

PROBLEM = "application/problem+json"
TYPE_BASE = "https://yamen.dev/problems/"
RETRY_AFTER_SECONDS = 1
"""What a 503 asks a client to wait before retrying."""


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
    """For 412 ``version_mismatch`` and 409 ``version_not_reached``: the game's version now."""
    errors: list[dict[str, Any]] | None = None
    """For 400 Bad Request: what was wrong with each parameter or field."""
    postgres: str | None = None
    """For 503 ``not_ready``: Postgres' state (``ok``, ``unavailable``)."""
    redis: str | None = None
    """For 503 ``not_ready``: Redis' state (``ok``, ``unavailable``, ``memory`` without Redis)."""
    limit: int | None = None
    """For 429: the number the caller reached (requests a window, games a day, games at once)."""


TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    412: "Precondition Failed",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

STATUS: dict[type[Exception], int] = {
    app.Malformed: 400,
    app.Unauthenticated: 401,
    app.Forbidden: 403,
    NotYourTurn: 403,
    app.NotFound: 404,
    app.Conflict: 409,
    app.Stale: 412,
    app.TooLarge: 413,
    app.Unprocessable: 422,
    RuleViolation: 422,
    app.TooMany: 429,
    app.Unavailable: 503,
}
"""The status of each kind of refusal (the most specific class in an exception's MRO wins)."""


def status_of(kind: type[Exception]) -> int:
    for cls in kind.__mro__:
        if cls in STATUS:
            return STATUS[cls]
    raise KeyError(kind)


# --- answering ----------------------------------------------------------------------------------
def answer(
    request: Request[Any, Any, Any],
    status: int,
    code: str,
    detail: str | None,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response[bytes]:
    structlog.contextvars.bind_contextvars(code=code)
    headers = dict(headers or {})
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    elif status == 503:
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    problem = ProblemDetails(
        type=TYPE_BASE + code,
        title=TITLES.get(status, "Error"),
        status=status,
        code=code,
        detail=detail,
        instance=request.url.path,
        **extra,
    )
    return Response(
        content=json_encoder.encode(problem), status_code=status, media_type=PROBLEM, headers=headers
    )


def _on_refusal(request: Request[Any, Any, Any], exc: app.ApplicationError) -> Response[bytes]:
    extra = dict(exc.extra)
    retry_after = extra.pop("retry_after", None)
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return answer(request, status_of(type(exc)), exc.code, exc.detail, headers=headers, **extra)


def _on_rule_violation(request: Request[Any, Any, Any], exc: RuleViolation) -> Response[bytes]:
    return answer(request, status_of(type(exc)), exc.code, exc.message, rule=exc.rule)


def _on_validation(request: Request[Any, Any, Any], exc: ValidationException) -> Response[bytes]:
    extra = exc.extra if isinstance(exc.extra, list) else None
    errors = [e for e in (extra or []) if isinstance(e, dict)] or None
    # The message never echoes the request (it could carry a token).
    return answer(request, 400, "invalid_request", str(exc.detail), errors=errors)


_HTTP_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def _on_http(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    headers = dict(exc.headers or {})
    if exc.status_code == 429:
        # The IETF RateLimit headers say when the window resets; Retry-After says it to every client.
        headers.setdefault("Retry-After", headers.get("RateLimit-Reset", str(RETRY_AFTER_SECONDS)))
        detail = "too many requests from this caller; retry after the number of seconds in Retry-After"
        limit = headers.get("RateLimit-Limit")
        return answer(
            request, 429, "too_many_requests", detail, headers=headers, limit=int(limit) if limit else None
        )
    return answer(
        request,
        exc.status_code,
        _HTTP_CODES.get(exc.status_code, "http_error"),
        str(exc.detail),
        headers=headers,
    )


def _on_body_timeout(request: Request[Any, Any, Any], exc: BodyTimeout) -> Response[bytes]:
    return answer(request, 408, "body_timeout", str(exc), headers={"Connection": "close"})


def _on_store_down(request: Request[Any, Any, Any], exc: StoreUnavailable) -> Response[bytes]:
    log.error("postgres_unavailable", error=str(exc))
    return answer(request, 503, "store_unavailable", "the event store is unavailable; retry later")


def _on_store_refused(request: Request[Any, Any, Any], exc: StoreRefused) -> Response[bytes]:
    log.warning("postgres_refused_value", error=str(exc))
    return answer(request, 422, app.UnstorableValue.code, app.UnstorableValue.summary)


def _on_crash(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("unhandled_error", error=type(exc).__name__)
    return answer(request, 500, "internal_error", "an unexpected error occurred")


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    app.ApplicationError: _on_refusal,
    RuleViolation: _on_rule_violation,
    ValidationException: _on_validation,
    HTTPException: _on_http,
    StoreUnavailable: _on_store_down,
    StoreRefused: _on_store_refused,
    BodyTimeout: _on_body_timeout,
    Exception: _on_crash,
}


# --- declaring --------------------------------------------------------------------------------
class Rules:
    """Stands for every :class:`RuleViolation` in :func:`problems` (the codes are the games')."""


EDGE = {
    400: "`invalid_request`: a parameter, header or body is malformed (`errors` says which)",
    429: "`too_many_requests`: this caller sent more than its `limit` of requests (an app: its own "
    "requests a minute, for its key and its players; anybody else: per seat token, else per address); "
    "retry after `Retry-After` seconds (`RateLimit-*` headers say the policy)",
    503: "`store_unavailable`: Postgres is unavailable; retry after `Retry-After` seconds",
}


CREDENTIAL_REFUSALS: list[type[app.ApplicationError]] = [
    app.CredentialInUrl,
    app.InvalidToken,
    app.InvalidAppKey,
    app.AppDisabled,
    app.InvalidPlayerCredential,
    app.AssertionExpired,
    app.AssertionNotYetValid,
    app.AssertionWrongAudience,
    app.AssertionInvalid,
]
"""What any request may be refused for its credential, whatever the route: every request's
``Authorization`` is read and verified before it is counted against its caller's rate limit
(:class:`~service.http.limits.CallerLimitMiddleware`).  Every operation declares them."""


def problems(
    *refusals: type[app.ApplicationError] | type[Rules] | type[NotYourTurn],
) -> dict[int, ResponseSpec]:
    """The problem responses of a handler: malformed input (400), a refused credential, the event
    store down (503), and each of *refusals* under its status, with its code and meaning."""
    lines: dict[int, list[str]] = {status: [text] for status, text in EDGE.items()}
    for refusal in dict.fromkeys([*CREDENTIAL_REFUSALS, *refusals]):
        if issubclass(refusal, app.ApplicationError):
            lines.setdefault(status_of(refusal), []).append(f"`{refusal.code}`: {refusal.summary}")
        elif refusal is NotYourTurn:
            lines.setdefault(403, []).append("`not_your_turn`: another seat must act now")
        else:
            lines.setdefault(422, []).append(
                "a rule forbids the move: `code` is the rule's stable code and `rule` its rulebook section"
            )
    return {
        status: ResponseSpec(
            data_container=ProblemDetails,
            description="; ".join(texts),
            media_type=PROBLEM,
            generate_examples=False,
        )
        for status, texts in sorted(lines.items())
    }

"""What one client may ask of the service: how fast, how much, how slowly.

- **Rate limits** (Litestar's rate-limit middleware): per seat token when the request carries one,
  else per client address; the counts live in Redis when ``REDIS_URL`` is set (shared by every
  worker and replica), in the worker's memory otherwise.  Over the limit: 429 problem+json with
  ``Retry-After`` and the ``RateLimit-*`` headers.  ``YAMEN_RATE_LIMIT`` sets them.
- **Body size**: ``MAX_BODY_BYTES`` for every route but the import of a record, which reads its
  body itself up to ``MAX_RECORD_BYTES`` (:mod:`service.application.audit`); both answer 413.
- **Slow bodies**: a request whose body stops arriving for ``BODY_TIMEOUT_SECONDS`` is answered
  408 and its connection freed (the server bounds the headers: ``yamen serve``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import re
import time
from datetime import timedelta
from typing import Any

import structlog
from litestar import Request
from litestar.config.cors import CORSConfig
from litestar.middleware.rate_limit import RateLimitConfig, get_remote_address
from litestar.stores.base import Store
from litestar.stores.memory import MemoryStore
from litestar.stores.redis import RedisStore

from ..application.errors import RecordTooLarge
from ..infra.cache import redis_client, redis_cluster_client
from ..settings import Settings

log = structlog.get_logger("yamen.limits")

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body of any route but the record import (a command is a few hundred bytes)."""
BODY_TIMEOUT_SECONDS = 10.0
"""How long a request body may stall between two of its chunks."""
_UNITS = {"second", "minute", "hour", "day"}
_LIMIT = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour|day)\s*$")


class BodyTimeout(Exception):
    """The request body stopped arriving."""


def parse_rate_limit(text: str | None) -> tuple[str, int] | None:
    """``"1200/minute"`` -> ``("minute", 1200)``; ``"0"``, ``"off"`` or empty -> None (no limit)."""
    if text is None or text.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    match = _LIMIT.match(text)
    if match is None or int(match.group(1)) < 1:
        raise ValueError(
            f"a rate limit looks like '1200/minute' (units: {', '.join(sorted(_UNITS))}), not {text!r}"
        )
    return match.group(2), int(match.group(1))


def caller_identity(request: Request[Any, Any, Any], trusted: Proxies = ()) -> str:
    """Who a request counts against: its seat token (hashed: tokens never reach a store), else its
    client address — behind *trusted* proxies (a load balancer), the address they forwarded."""
    authorization = request.headers.get("authorization")
    if authorization:
        return "token:" + hashlib.sha256(authorization.encode()).hexdigest()[:32]
    return "address:" + client_address(request, trusted)


Proxies = tuple["ipaddress.IPv4Network | ipaddress.IPv6Network", ...]


def parse_proxies(text: str) -> Proxies:
    """``YAMEN_TRUSTED_PROXIES``: ``"10.0.0.0/8, 127.0.0.1"`` -> networks; empty -> none."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _trusted(address: str, trusted: Proxies) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def client_address(request: Request[Any, Any, Any], trusted: Proxies = ()) -> str:
    """The peer's address; when the peer is a trusted proxy, the right-most address in
    ``X-Forwarded-For`` that is not one (what the outermost trusted proxy saw), so a client cannot
    pick its own bucket by sending the header itself."""
    peer = get_remote_address(request)
    if not trusted or not _trusted(peer, trusted):
        return peer
    hops = [
        h.strip() for h in ",".join(request.headers.getall("x-forwarded-for", [])).split(",") if h.strip()
    ]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            return hop
    return peer


def rate_limit_config(limit: tuple[str, int], trusted: Proxies = ()) -> RateLimitConfig:
    unit, count = limit
    return RateLimitConfig(
        rate_limit=(unit, count),  # type: ignore[arg-type]
        identifier_for_request=lambda request: caller_identity(request, trusted),
        exclude=["/healthz", "/readyz", "/metrics"],  # probes and scrapes are not clients
        store="rate_limit",
    )


def rate_limit_store(settings: Settings) -> Store:
    """The counters shared by every worker and replica: on Redis (one server or a cluster) when
    configured, else in this process."""
    if settings.redis_cluster_nodes:
        client = redis_cluster_client(settings.redis_cluster_nodes, settings.redis_password)
        return FailOpen(RedisStore(client, namespace="yamen:rate"))  # type: ignore[arg-type]
    if settings.redis_url:
        return FailOpen(RedisStore(redis_client(settings.redis_url), namespace="yamen:rate"))
    return MemoryStore()


class FailOpen(Store):
    """A store whose failures read as "nothing stored": while Redis is down the rate limit is not
    enforced, rather than every request failing (a limit protects the service; it is never the
    reason it stops answering).  After a failure the backend is left alone for a second, so
    requests do not queue behind the middleware's lock waiting for a dead Redis."""

    def __init__(self, inner: Store, *, backoff_seconds: float = 1.0) -> None:
        self.inner = inner
        self.backoff = backoff_seconds
        self._down_until = 0.0

    def _down(self) -> bool:
        return time.monotonic() < self._down_until

    def _failed(self, op: str, exc: Exception) -> None:
        self._down_until = time.monotonic() + self.backoff
        _log_failure(op, exc)

    async def set(self, key: str, value: str | bytes, expires_in: int | timedelta | None = None) -> None:
        if self._down():
            return
        try:
            await self.inner.set(key, value, expires_in)
        except Exception as exc:  # noqa: BLE001 - any backend failure
            self._failed("set", exc)

    async def get(self, key: str, renew_for: int | timedelta | None = None) -> bytes | None:
        if self._down():
            return None
        try:
            return await self.inner.get(key, renew_for)
        except Exception as exc:  # noqa: BLE001 - any backend failure
            self._failed("get", exc)
            return None

    async def delete(self, key: str) -> None:
        with contextlib.suppress(Exception):
            await self.inner.delete(key)

    async def delete_all(self) -> None:
        with contextlib.suppress(Exception):
            await self.inner.delete_all()

    async def exists(self, key: str) -> bool:
        return await self.get(key) is not None

    async def expires_in(self, key: str) -> int | None:
        if self._down():
            return None
        try:
            return await self.inner.expires_in(key)
        except Exception as exc:  # noqa: BLE001 - any backend failure
            self._failed("expires_in", exc)
            return None


_last_failure_log = 0.0


def _log_failure(op: str, exc: Exception) -> None:
    global _last_failure_log
    if time.monotonic() - _last_failure_log > 5:  # once in a while, not once per request
        _last_failure_log = time.monotonic()
        log.warning("rate_limit_store_unavailable", op=op, error=type(exc).__name__)


async def read_body(request: Request[Any, Any, Any], limit: int) -> bytes:
    """The request body, refused with :class:`RecordTooLarge` (413) as soon as it exceeds *limit*."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RecordTooLarge(f"records up to {limit} bytes can be imported")
        chunks.append(chunk)
    return b"".join(chunks)


class BodyTimeoutMiddleware:
    """Pure ASGI: while a request's body is incomplete, each ``receive`` waits at most
    ``BODY_TIMEOUT_SECONDS``; once the body is in, ``receive`` is untouched (a live stream
    listens on it for the client leaving)."""

    def __init__(self, app: Any, *, seconds: float = BODY_TIMEOUT_SECONDS) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send)
            return
        complete = False

        async def timed_receive() -> Any:
            nonlocal complete
            if complete:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.seconds)
            except TimeoutError:
                raise BodyTimeout(f"no part of the request body arrived for {self.seconds:g} s") from None
            if message.get("type") != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        await self.app(scope, timed_receive, send)


EXPOSED_HEADERS = [
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit-Policy",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Server-Time-Ms",
    "Standby-Lag-Ms",
]
"""Response headers a page on another origin may read (the version tag, a created game, back-off)."""


def cors_config(origins: tuple[str, ...]) -> CORSConfig | None:
    """Cross-origin access for front ends served elsewhere; None when no origin is allowed."""
    if not origins:
        return None
    return CORSConfig(
        allow_origins=list(origins),
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=[
            "Authorization",
            "Content-Type",
            "If-Match",
            "If-None-Match",
            "Idempotency-Key",
            "Last-Event-ID",
        ],
        expose_headers=EXPOSED_HEADERS,
        allow_credentials=False,
        max_age=600,
    )

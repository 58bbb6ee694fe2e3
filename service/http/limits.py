"""What one client may ask of the service: how fast, how much, how slowly.

- **Rate limits** (:class:`CallerLimitMiddleware`): an app's traffic (its key, its players) in the
  app's own bucket at its own ``requests_per_minute``; anybody else per seat token when the request
  carries one, else per client address, at ``YAMEN_RATE_LIMIT``.  The counts live in Redis when
  ``REDIS_URL`` is set (shared by every worker and replica), in the worker's memory otherwise.
  Over the limit: 429 problem+json with ``Retry-After`` and the ``RateLimit-*`` headers.
- **Body size**: ``MAX_BODY_BYTES`` for every route but the import of a record, which reads its
  body itself up to ``MAX_RECORD_BYTES`` (:mod:`service.application.audit`); both answer 413.
- **Slow bodies**: a request whose body stops arriving for ``BODY_TIMEOUT_SECONDS`` is answered
  408 and its connection freed (the server bounds the headers: ``yamen serve``).
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, get_args

import structlog
from litestar import Request
from litestar.config.cors import CORSConfig
from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware import ASGIMiddleware
from litestar.middleware.rate_limit import DurationUnit, get_remote_address
from litestar.types import ASGIApp, Message, Method, Receive, ReceiveMessage, Scope, Send

from ..application import Application
from ..application.errors import ApplicationError, AppRequestsReached, RecordTooLarge
from ..application.identity import AppCaller, Credential, PlayerCaller
from ..infra.redis_connections import command_client
from ..settings import Settings
from .dependencies import credential_of

log = structlog.get_logger("yamen.limits")

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body of any route but the record import (a command is a few hundred bytes)."""
BODY_TIMEOUT_SECONDS = 10.0
"""How long a request body may stall between two of its chunks."""
_UNITS: dict[str, DurationUnit] = {unit: unit for unit in get_args(DurationUnit)}
_LIMIT = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour|day)\s*$")


class BodyTimeout(Exception):
    """The request body stopped arriving."""


def parse_rate_limit(text: str | None) -> tuple[DurationUnit, int] | None:
    """``"1200/minute"`` -> ``("minute", 1200)``; ``"0"``, ``"off"`` or empty -> None (no limit)."""
    if text is None or text.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    match = _LIMIT.match(text)
    if match is None or int(match.group(1)) < 1:
        raise ValueError(
            f"YAMEN_RATE_LIMIT: a rate limit looks like '1200/minute' "
            f"(units: {', '.join(sorted(_UNITS))}), not {text!r}"
        )
    return _UNITS[match.group(2)], int(match.group(1))


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


WINDOWS: dict[DurationUnit, int] = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
APP_WINDOW_SECONDS = 60
"""An app's requests are counted a minute at a time (``requests_per_minute``)."""
EXEMPT = ("/healthz", "/readyz", "/metrics")
"""Probes and scrapes are not clients: never counted, never refused."""
ADMIN = "/v1/admin/"
"""The operator's API: its bearer token is the operator's (:mod:`.controllers.admin`), no app's or
player's, so it is not read as one; its requests count per client address like anonymous ones."""

# Atomic on one key (so on a Redis Cluster too): count ARGV[2] requests, start the window with the
# first ones, and say when it ends.  A key never outlives its window: were the expiry lost (a crash
# between the two commands), the next count sets it again.
_COUNT = """
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if n == tonumber(ARGV[2]) or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
"""


class Counters(Protocol):
    async def count(self, key: str, window: int) -> tuple[int, float] | None:
        """Count one request in *key*'s window of *window* seconds (started by its first request):
        the requests counted so far in it and the seconds until it ends; None when the counters
        cannot be reached (the request is let through)."""
        ...


class MemoryCounters:
    """The counts in this process (no Redis): each worker counts on its own."""

    def __init__(self) -> None:
        self._windows: dict[str, tuple[int, float]] = {}
        self._swept = time.monotonic()

    async def count(self, key: str, window: int) -> tuple[int, float]:
        now = time.monotonic()
        if now - self._swept > 60:  # ended windows are dropped once a minute, not one by one
            self._windows = {k: w for k, w in self._windows.items() if w[1] > now}
            self._swept = now
        n, ends = self._windows.get(key, (0, 0.0))
        if ends <= now:
            n, ends = 0, now + window
        self._windows[key] = (n + 1, ends)
        return n + 1, ends - now


class _Counting:
    """The requests gathered for one round trip: how many per (bucket, window), and the answer."""

    __slots__ = ("counted", "requests")

    def __init__(self, counted: asyncio.Future[dict[tuple[str, int], tuple[int, float]] | None]) -> None:
        self.requests: dict[tuple[str, int], int] = {}
        self.counted = counted


class RedisCounters:
    """The counts in Redis (one server or a cluster), shared by every worker and replica.  While
    Redis cannot be reached the limit is not enforced, rather than every request failing (a limit
    protects the service; it is never the reason it stops answering); after a failure Redis is left
    alone for a second, so requests do not each wait for a dead Redis.

    Requests counted together share one round trip (as moves share the group commit): those that
    arrive while a count is in flight gather, and go in one pipeline with one ``INCRBY`` script per
    bucket, the k requests of a bucket taking the k counts up to what it returns, in the order they
    arrived.  One round trip per request cost a fifth of an HTTP move's throughput (an A/B in
    ``docs/performance.md``); a request now waits at most for the one in flight before its own."""

    def __init__(self, client: Any, *, backoff_seconds: float = 1.0) -> None:
        self.client = client
        self.backoff = backoff_seconds
        self._down_until = 0.0
        self._gathering: _Counting | None = None
        self._in_flight: asyncio.Future[None] | None = None

    async def count(self, key: str, window: int) -> tuple[int, float] | None:
        if time.monotonic() < self._down_until:
            return None
        loop = asyncio.get_running_loop()
        batch = self._gathering
        if batch is None or batch.counted.get_loop() is not loop:
            batch = self._gathering = _Counting(loop.create_future())
            if self._in_flight is None or self._in_flight.get_loop() is not loop:
                self._in_flight = asyncio.ensure_future(self._send_batches())
        bucket = (key, window)
        before = batch.requests.get(bucket, 0)
        batch.requests[bucket] = before + 1
        counted = await asyncio.shield(batch.counted)
        if counted is None:
            return None
        n, ends_in = counted[bucket]
        return n - batch.requests[bucket] + before + 1, ends_in

    async def _send_batches(self) -> None:
        try:
            while self._gathering is not None:
                await asyncio.sleep(0)  # let the requests arriving in this turn of the loop join
                batch, self._gathering = self._gathering, None
                counted: dict[tuple[str, int], tuple[int, float]] | None = None
                try:
                    pipe = self.client.pipeline(transaction=False)
                    for (key, window), requests in batch.requests.items():
                        pipe.eval(_COUNT, 1, RATE_PREFIX + key, window * 1000, requests)
                    replies = await pipe.execute()
                    counted = {
                        bucket: (int(n), int(ttl_ms) / 1000)
                        for bucket, (n, ttl_ms) in zip(batch.requests, replies, strict=True)
                    }
                except Exception as exc:  # noqa: BLE001 - any backend failure lets the batch through
                    self._down_until = time.monotonic() + self.backoff
                    _log_failure(exc)
                finally:
                    batch.counted.set_result(counted)
        finally:
            self._in_flight = None
            left, self._gathering = self._gathering, None
            if left is not None and not left.counted.done():
                left.counted.set_result(None)  # the sender was cancelled: let those requests through


RATE_PREFIX = "yamen:rate:"


def rate_counters(settings: Settings) -> Counters:
    """The counters shared by every worker and replica: on Redis (one server or a cluster, over TLS
    as configured) when configured, else in this process.  Built when the app is created, so a
    Redis setting that cannot work stops the start-up (:mod:`~service.infra.redis_connections`)."""
    client = command_client(settings)
    return RedisCounters(client) if client is not None else MemoryCounters()


def _exempt(scope: Scope) -> bool:
    return scope["path"] in EXEMPT


class CallerLimitMiddleware(ASGIMiddleware):
    """Who is calling, and how fast they may: the request's credential is read and verified here
    (:func:`~service.http.dependencies.credential_of`; a key in the URL, a bad key or a bad
    assertion is refused on every route), then the request is counted in its caller's bucket.

    - an app's key, and its players' credentials and assertions: the app's own bucket
      (``app:<app_id>``), ``requests_per_minute`` of the app;
    - anybody else (a seat token, a guest, nobody): ``YAMEN_RATE_LIMIT`` per credential, else per
      client address (:func:`caller_identity`); none when it is off.

    Why not Litestar's ``RateLimitMiddleware``: its limit is one number for the whole app (an app's
    is its own, read per request), it keeps every request's time in a JSON list it rewrites on each
    request (60,000 entries for an app's minute), and it counts under a per-process lock with a
    read then a write, so workers sharing Redis could both take the last request.  Here one atomic
    script counts in Redis, one round trip per request; the ``RateLimit-*`` headers, ``Retry-After``
    and the 429 are the same."""

    scopes = (ScopeType.HTTP,)
    should_bypass_for_scope = staticmethod(_exempt)

    def __init__(
        self, *, limit: tuple[DurationUnit, int] | None, counters: Counters, trusted: Proxies = ()
    ) -> None:
        self.limit = limit
        self.counters = counters
        self.trusted = trusted

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        request: Request[Any, Any, Any] = Request(scope)
        application = scope["litestar_app"].state.application
        if scope["path"].startswith(ADMIN):
            headers = await self._count(*self._by_address(request))
        else:
            try:
                credential = await credential_of(request, application)
            except ApplicationError:
                # A refused credential counts against its address, whatever it was: a caller trying
                # keys (each a read of Postgres) gets no fresh bucket with each one it makes up.
                await self._count(*self._by_address(request))
                raise
            headers = await self._count(*await self._bucket(request, application, credential))
        if headers is None:
            await next_app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                out = MutableScopeHeaders(message)
                for name, value in headers.items():
                    out[name] = value
            await send(message)

        await next_app(scope, receive, send_with_headers)

    async def _count(self, bucket: str, window: int, limit: int | None) -> dict[str, str] | None:
        """Count the request in *bucket*: the ``RateLimit-*`` headers of its answer, or a 429 when it
        is one too many; None when it is not counted (no limit, or no counters reachable)."""
        if limit is None:
            return None
        counted = await self.counters.count(bucket, window)
        if counted is None:
            return None
        n, resets_in = counted
        headers = {
            "RateLimit-Policy": f"{limit}; w={window}",
            "RateLimit-Limit": str(limit),
            "RateLimit-Remaining": str(max(0, limit - n)),
            "RateLimit-Reset": str(max(1, math.ceil(resets_in))),
        }
        if n > limit:
            raise TooManyRequestsException(headers=headers)
        return headers

    def _by_address(self, request: Request[Any, Any, Any]) -> tuple[str, int, int | None]:
        """The anonymous limit, counted per client address (the operator's API, refused credentials)."""
        if self.limit is None:
            return "", 0, None
        unit, count = self.limit
        return "address:" + client_address(request, self.trusted), WINDOWS[unit], count

    async def _bucket(
        self, request: Request[Any, Any, Any], application: Application, credential: Credential | None
    ) -> tuple[str, int, int | None]:
        """The caller's bucket, its window (seconds) and limit (None: not limited)."""
        app = None
        match credential:
            case AppCaller(app_id=app_id, key_id=key_id):
                app = application.apps.remembered_app(key_id) or await application.apps.app_limits(app_id)
            case PlayerCaller(app_id=str(app_id)):
                app = await application.apps.app_limits(app_id)
        if app is not None:
            return "app:" + app.app_id, APP_WINDOW_SECONDS, app.requests_per_minute
        if self.limit is None:
            return "", 0, None
        unit, count = self.limit
        return caller_identity(request, self.trusted), WINDOWS[unit], count


def app_meter(counters: Counters, application: Application) -> Callable[[str], Awaitable[None]]:
    """Counts one request of an app (a realtime message that does work) in the app's bucket, the
    one :class:`CallerLimitMiddleware` counts its HTTP requests in."""

    async def meter(app_id: str) -> None:
        limit = (await application.apps.app_limits(app_id)).requests_per_minute
        counted = await counters.count("app:" + app_id, APP_WINDOW_SECONDS)
        if counted is None:
            return  # no counters reachable: not counted, as over HTTP
        n, resets_in = counted
        if n > limit:
            raise AppRequestsReached(
                f"the app has sent its {limit} requests this minute",
                limit=limit,
                retry_after=max(1, math.ceil(resets_in)),
            )

    return meter


_last_failure_log = 0.0


def _log_failure(exc: Exception) -> None:
    global _last_failure_log
    if time.monotonic() - _last_failure_log > 5:  # once in a while, not once per request
        _last_failure_log = time.monotonic()
        log.warning("rate_limit_store_unavailable", error=type(exc).__name__)


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

    def __init__(self, app: ASGIApp, *, seconds: float = BODY_TIMEOUT_SECONDS) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send)
            return
        complete = False

        async def timed_receive() -> ReceiveMessage:
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


API_METHODS: tuple[Method, ...] = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
"""Every method the API answers (a seat handed to a bot is PUT, taken back with DELETE; an app is
changed with PATCH): a page on
another origin is preflighted for each (``tests/http/test_cors.py`` checks every operation)."""


def cors_config(origins: tuple[str, ...]) -> CORSConfig | None:
    """Cross-origin access for front ends served elsewhere; None when no origin is allowed."""
    if not origins:
        return None
    return CORSConfig(
        allow_origins=list(origins),
        allow_methods=[*API_METHODS],
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

"""``GET /v1/ws``: the realtime WebSocket, on Litestar's low-level ``websocket`` handler.

This module is the transport; the protocol (messages, subscriptions, moves) is
:mod:`service.application.realtime`'s.  Here:

- **Who may open it.** A browser's ``Origin`` must be one of ``YAMEN_CORS_ORIGINS`` (or the
  service's own); any other is refused before the upgrade (403).  Credentials never travel in the
  URL: ``Authorization: Bearer …`` on the upgrade request (clients that can send headers), the
  first message ``hello`` (browsers), or a stream ticket (``?ticket=``, short-lived, one game, one
  seat, read only).  ``?token=`` and the like are refused as on every route.
- **Flow control.** Every message to the client goes through one bounded queue, drained by one
  writer: a client that stops reading fills it and is closed with 4008, never allowed to grow the
  worker's memory.  The server pings every ``heartbeat_seconds`` and closes a client silent for
  twice as long (4009).  A message over ``max_message_bytes`` closes with 1009, a client over its
  rate of messages with 4029.
- **Shutdown.** SIGINT / SIGTERM close every socket with 1001 (``going away``), as live feeds end
  (:mod:`service.http.shutdown`): the client reconnects — to another server — and resumes with
  ``after``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any
from urllib.parse import urlsplit

import msgspec
import structlog
from litestar import Request, Response, WebSocket, get, websocket

from domain.kernel import RuleViolation

from ..application import Application
from ..application import errors as app
from ..application.realtime import Closing, Limits, Ping, Problem, Realtime, Session
from ..codec import json_encoder
from ..infra.store import StoreRefused, StoreUnavailable
from ..settings import Settings
from .controllers.responses import json_answer
from .dependencies import credential_of
from .limits import Counters, app_meter
from .problems import TITLES, TYPE_BASE, status_of

log = structlog.get_logger("yamen.realtime")

PATH = "/v1/ws"

CLOSE_CODES: dict[int, str] = {
    1000: "normal closure: the client closed, or the server answered its close",
    1001: "going away: the server is stopping (SIGINT, SIGTERM); reconnect and resume with `after`",
    1009: "message too big: a client message exceeded `max_message_bytes`",
    1011: "internal error: an unexpected failure; reconnect and resume",
    4001: "unauthenticated: the first message was not `hello`, its credential was refused, or the "
    "upgrade request's credential was (a `problem` message says which)",
    4008: "slow consumer: `send_queue` messages were waiting for the client; reconnect and resume",
    4009: "heartbeat timeout: nothing from the client for twice `heartbeat_seconds`",
    4029: "rate limit: the client sent more than `messages_per_second` (and its burst)",
}
"""Every code the server closes a socket with, and why (``docs/realtime.md``)."""


def limits_of(settings: Settings) -> Limits:
    rate = settings.ws_messages_per_second
    return Limits(
        heartbeat_seconds=settings.ws_heartbeat_seconds,
        max_message_bytes=settings.ws_max_message_bytes,
        messages_per_second=rate,
        burst=max(1, int(rate * 2)),
        send_queue=max(1, settings.ws_send_queue),
    )


def realtime_hub(application: Application, settings: Settings, counters: Counters | None = None) -> Realtime:
    """The worker's sockets and what they share (built by the app's lifespan); *counters*: where
    apps' requests are counted (their sockets' messages count there too)."""
    return Realtime(
        application.reads,
        application.moves,
        application.identity,
        application.seats,
        application.states,
        limits_of(settings),
        meter=app_meter(counters, application) if counters is not None else None,
    )


# --- refusals: the same problems as HTTP ------------------------------------------------------------
def refusal(exc: BaseException) -> Problem | None:
    """The problem+json HTTP answers for *exc* (status, code, detail and facts), as a message."""
    match exc:
        case app.ApplicationError():
            extra = {k: v for k, v in exc.extra.items() if k in ("current_version", "limit", "retry_after")}
            return _problem(status_of(type(exc)), exc.code, exc.detail, **extra)
        case RuleViolation():
            return _problem(status_of(type(exc)), exc.code, exc.message, rule=exc.rule)
        case msgspec.DecodeError():  # and ValidationError: a message or command of the wrong shape
            return _problem(400, "invalid_request", f"the message is malformed: {exc}")
        case StoreUnavailable():
            log.error("postgres_unavailable", error=str(exc))
            return _problem(503, "store_unavailable", "the event store is unavailable; retry later")
        case StoreRefused():
            return _problem(422, app.UnstorableValue.code, app.UnstorableValue.summary)
    return None


def _problem(status: int, code: str, detail: str | None, **extra: Any) -> Problem:
    title = TITLES.get(status, "Error")
    return Problem(type=TYPE_BASE + code, title=title, status=status, code=code, detail=detail, **extra)


# --- who may open it -------------------------------------------------------------------------------
def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A browser's page may open the socket when its origin is one of *allowed* (``*``: any), or
    is the service's own (*host*).  A client that sends no ``Origin`` is not a browser: allowed
    (what it may do is decided by its credentials, as over HTTP)."""
    if origin is None or "*" in allowed or origin in allowed:
        return True
    if host is None:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


# --- one connection --------------------------------------------------------------------------------
class Connection:
    """One socket: a reader (this task), one writer draining the bounded queue, one heartbeat."""

    def __init__(self, socket: WebSocket[Any, Any, Any], hub: Realtime) -> None:
        self.socket = socket
        self.hub = hub
        self.limits = hub.limits
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(self.limits.send_queue)
        self.closing: tuple[int, str] | None = None
        self.disconnected = False
        self.main = asyncio.current_task()
        self.opened = self.last_heard = time.monotonic()
        self.tokens = float(self.limits.burst)
        self.refilled = self.opened
        self.session: Session | None = None
        self.room = asyncio.Event()
        """Set by the writer each time it takes a message: the reader may go on."""
        self.waiting_for_room = False

    def send(self, data: bytes) -> None:
        """Queue *data* for the client; a full queue closes the connection (4008)."""
        if self.closing is not None:
            raise Closing(*self.closing)
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            reason = f"slow consumer: {self.limits.send_queue} messages were waiting"
            self.fail(4008, reason)
            raise Closing(4008, reason) from None

    def fail(self, code: int, reason: str) -> None:
        """Close the connection with *code* (from any task: the reader is interrupted)."""
        if self.closing is None:
            self.closing = (code, reason)
            if self.main is not None and self.main is not asyncio.current_task():
                self.main.cancel()

    def _count(self) -> None:
        """One client message against the rate: a token bucket of ``burst`` refilled at
        ``messages_per_second``."""
        now = time.monotonic()
        self.last_heard = now
        rate = self.limits.messages_per_second
        self.tokens = min(float(self.limits.burst), self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1:
            raise Closing(4029, f"rate limit: more than {rate:g} messages a second")
        self.tokens -= 1

    async def run(self, session: Session) -> None:
        self.session = session
        hub = self.hub
        stop = self._stopping
        hub.on_stop.append(stop)
        hub.sessions.add(session)
        if self.main is not None:
            hub.connections.add(self.main)
        writer = asyncio.get_running_loop().create_task(self._write())
        ticker = asyncio.get_running_loop().create_task(self._tick())
        try:
            if hub.stopping:
                raise Closing(1001, "server stopping")
            await self._read(session)
        except Closing as closing:
            self.fail(closing.code, closing.reason)
        except asyncio.CancelledError:
            if self.closing is None:
                raise  # the server cancelled the connection itself
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except Exception:
            log.exception("realtime_connection_failed")
            self.fail(1011, "internal error")
        finally:
            with contextlib.suppress(ValueError):
                hub.on_stop.remove(stop)
            hub.sessions.discard(session)
            session.close()
            ticker.cancel()
            try:
                await self._finish(writer)
            finally:
                if self.main is not None:
                    hub.connections.discard(self.main)

    def _stopping(self) -> None:
        self.fail(1001, "server stopping")

    async def _read(self, session: Session) -> None:
        receive = self.socket.receive
        limit = self.limits.max_message_bytes
        while True:
            message = await receive()
            kind = message["type"]
            if kind == "websocket.disconnect":
                self.disconnected = True
                return
            if kind != "websocket.receive":
                continue
            text = message.get("text")
            data: str | bytes = text if isinstance(text, str) else _bytes(message.get("bytes"))
            size = len(data) if isinstance(data, bytes) or data.isascii() else len(data.encode())
            if size > limit:
                raise Closing(1009, f"message too big: at most {limit} bytes")
            self._count()
            await session.receive(data)
            if self.queue.qsize() * 2 >= self.limits.send_queue:
                await self._room()

    async def _room(self) -> None:
        """Until the writer has sent half the queue: a client that sends faster than it reads the
        answers is not read meanwhile (its own TCP window holds it back); one that stops reading
        altogether is closed by the heartbeat (4008)."""
        self.waiting_for_room = True
        try:
            while self.queue.qsize() * 2 >= self.limits.send_queue:
                self.room.clear()
                await self.room.wait()
        finally:
            self.waiting_for_room = False

    async def _write(self) -> None:
        send = self.socket.send
        queue = self.queue
        try:
            while True:
                data = await queue.get()
                self.room.set()
                await send({"type": "websocket.send", "bytes": None, "text": data.decode()})
        except Exception:  # noqa: BLE001 - the client left (each server says it its own way)
            self.disconnected = True
            self.fail(1000, "disconnected")

    async def _tick(self) -> None:
        beat = self.limits.heartbeat_seconds
        unanswered: float | None = None
        """When the first ping the client has not answered (nor said anything since) went out."""
        while self.closing is None:
            await asyncio.sleep(beat)
            now = time.monotonic()
            session = self.session
            if session is not None and not session.greeted and now - self.opened >= beat:
                self.fail(4001, "no hello")
                return
            if unanswered is not None and unanswered < self.last_heard:
                unanswered = None  # the client spoke after that ping
            if unanswered is not None and now - unanswered >= beat and now - self.last_heard >= 2 * beat:
                # Silent for two heartbeats, one ping unanswered for a whole one (a late tick on a
                # busy worker never closes a client it has not pinged).
                if self.waiting_for_room:  # not silent: it does not read what it asked for
                    self.fail(4008, f"slow consumer: nothing read for {2 * beat:g} s")
                else:
                    self.fail(4009, f"heartbeat timeout: nothing from the client for {2 * beat:g} s")
                return
            try:
                self.send(json_encoder.encode(Ping(t=int(time.time() * 1000))))
            except Closing:
                return
            if unanswered is None:
                unanswered = now

    async def _finish(self, writer: asyncio.Task[None]) -> None:
        """Send what is queued (a refusal's problem, say) and the close frame — unless the client
        stopped reading (4008) or left, when neither could be sent."""
        code, reason = self.closing or (1000, "")
        # One line a connection, as the access log has one a request (an abnormal close says why).
        log.info(
            "realtime_closed",
            code=code,
            reason=reason or ("client closed" if self.disconnected else ""),
            seconds=round(time.monotonic() - self.opened, 3),
        )
        if code == 4008 or self.disconnected:
            writer.cancel()
        else:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._drained(), 1.0)
            writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        if self.disconnected:
            return
        with contextlib.suppress(Exception):
            # A client that stopped reading cannot take the close frame either: bounded, then the
            # handler returns and the server drops the connection.
            await asyncio.wait_for(self.socket.close(code=code, reason=reason[:120]), 1.0)

    async def _drained(self) -> None:
        while not self.queue.empty() and not self.disconnected:
            await asyncio.sleep(0.005)


def _bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else b""


@websocket(PATH, name="realtime")
async def realtime_socket(socket: WebSocket[Any, Any, Any]) -> None:
    """The realtime channel (``docs/realtime.md``; AsyncAPI document at ``/v1/asyncapi.json``)."""
    hub: Realtime = socket.app.state.realtime
    application: Application = socket.app.state.application
    origins: tuple[str, ...] = socket.app.state.realtime_origins
    if not origin_allowed(socket.headers.get("origin"), socket.headers.get("host"), origins):
        await socket.receive()  # websocket.connect, answered with a close: the upgrade is refused (403)
        await socket.close(code=1008, reason="origin not allowed")
        return
    await socket.accept()
    connection = Connection(socket, hub)
    ticket = socket.query_params.get("ticket")
    try:
        credential = await credential_of(socket, application)
    except Exception as exc:  # noqa: BLE001 - a refused credential: a problem, then 4001
        session = Session(hub, connection.send, refusal)
        with contextlib.suppress(Closing):
            session.refuse(exc, None, None)
        connection.closing = (4001, "the credential was refused")
        await connection._finish(asyncio.get_running_loop().create_task(connection._write()))
        return
    session = Session(hub, connection.send, refusal, credential=credential, ticket=ticket)
    await connection.run(session)


ASYNCAPI_PATH = "/v1/asyncapi.json"


@get(ASYNCAPI_PATH, include_in_schema=False, sync_to_thread=False)
def asyncapi_json(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The AsyncAPI 3 document of this channel (:mod:`service.http.asyncapi`)."""
    app = request.app
    body: bytes | None = getattr(app.state, "asyncapi_body", None)
    if body is None:
        from .app import API_VERSION
        from .asyncapi import document

        body = json_encoder.encode(document(app.state.openapi_document(app), API_VERSION))
        app.state.asyncapi_body = body
    return json_answer(body)

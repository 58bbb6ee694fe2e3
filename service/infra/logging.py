"""structlog set-up and the one-line-per-request access log.

JSON lines in production (rendered by msgspec), a console renderer on a tty.  Request id, game id
and seat are bound in contextvars for the request; the access line is written once, when the
response has gone, and off the request path: it joins a buffer that a thread of the process writes
out every :data:`ACCESS_FLUSH_SECONDS` (every other line is written at once).
Tokens and hidden information are never logged: the Authorization header is not read here, and
the service logs codes and ids, never payloads.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import random
import re
import sys
import threading
import time
from typing import Any

import msgspec
import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from . import metrics

_GAME_PATH = re.compile(r"^/v1/games/([^/]+)")


FOREIGN_LEVEL = logging.WARNING
"""The least a library's own log record (psycopg, the pool, procrastinate) must weigh to be written."""
REPEAT_SECONDS = 5.0
"""A library's record that repeats (the same message, its arguments aside) is written once in this
many seconds, with how many were held back."""


ACCESS_LOGGER = "yamen.access"
"""The access log's logger: its lines are buffered (:class:`BufferedLines`), every other is not."""
ACCESS_FLUSH_SECONDS = 0.05
"""How long an access line waits in its worker's buffer at most (a killed worker loses these)."""
PIPE_BUF = 4096
"""What one write to a pipe may carry without another process's write landing inside it (POSIX):
the workers share one stderr, so a batch is written in whole lines of at most this many bytes."""


_json_line = msgspec.json.Encoder(enc_hook=repr)  # an object msgspec does not know: its repr


def render_json(event_dict: dict[str, Any], **_: Any) -> str:
    """A record as one JSON object, by msgspec (about a ninth of ``json.dumps``'s time); what it
    cannot encode (a key that is no string, say) falls back to ``json.dumps``."""
    try:
        return _json_line.encode(event_dict).decode()
    except (TypeError, msgspec.EncodeError):
        return json.dumps(event_dict, default=repr)


def configure_logging(fmt: str = "auto", level: int = logging.INFO) -> None:
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer = structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer(render_json)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=line_logger,
        cache_logger_on_first_use=True,
    )
    _route_library_records(renderer)


def _route_library_records(renderer: structlog.typing.Processor) -> None:
    """Libraries log through the standard library, whose last-resort handler wrote them as bare
    text in the middle of the JSON lines, and psycopg's pool writes one for every failed connection
    attempt: while Postgres is down the store retries every 0.2 s (see :mod:`service.infra.datastore`),
    five lines a second per worker.  They now go out as our own lines, a repeat once in
    :data:`REPEAT_SECONDS`.  Idempotent: the app is created more than once in a process."""
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.stdlib.ExtraAdder(),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, LibraryHandler)]:
        root.removeHandler(handler)
    handler = LibraryHandler()
    handler.setLevel(FOREIGN_LEVEL)
    handler.setFormatter(formatter)
    handler.addFilter(RepeatFilter(REPEAT_SECONDS))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > FOREIGN_LEVEL:
        root.setLevel(FOREIGN_LEVEL)


class LibraryHandler(logging.Handler):
    """A library's record, rendered as one of our lines and written like them (:class:`LineLogger`)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            LineLogger().msg(self.format(record))
        except Exception:  # noqa: BLE001 - logging must never take a request down
            self.handleError(record)


class RepeatFilter(logging.Filter):
    """Lets a record through once per *seconds* for each logger and message template; the next one
    let through says how many were held back (``repeated``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self._last: dict[tuple[str, object], float] = {}
        self._held: dict[tuple[str, object], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.msg)
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.seconds:
            self._held[key] = self._held.get(key, 0) + 1
            return False
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            record.repeated = held
        return True


_write_lock = threading.Lock()
"""Held for every write to stderr, so the flushing thread's batches and other lines never mix."""


def _write(text: str) -> None:
    stream = sys.stderr  # looked up per write: tests (and daemons) replace it
    with _write_lock:
        stream.write(text)
        stream.flush()


class LineLogger:
    """Writes each record and its newline in one call, flushed at once: several worker processes
    share one stderr, and a record written in two pieces (as ``print`` does) can be split by
    another's (two records on a line, then a blank one)."""

    def __init__(self, *_args: object) -> None:
        pass

    def msg(self, message: str) -> None:
        ACCESS_LINES.flush()  # what the access log holds comes first, as it happened first
        _write(message + "\n")

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


class BufferedLines:
    """The access log's lines of one process, written out together by a thread of its own.

    Writing a line as it is logged cost a system call and a flush per request on the request path;
    here a request only appends its rendered line.  The thread writes what has gathered every
    :data:`ACCESS_FLUSH_SECONDS`, or sooner once :attr:`batch` lines wait, in writes of whole lines
    of at most :data:`PIPE_BUF` bytes.  It is started by the first line in each process (a forked
    worker has none of its parent's threads), and the buffer is written out when the application
    stops (``create_app``'s lifespan calls :meth:`flush`) and at exit; a killed process loses what
    it held, at most that many seconds of access lines."""

    batch = 512

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lines: list[str] = []
        self._swap = threading.Lock()
        """Held to add a line and to take the batch, so no line is taken twice or dropped."""
        self._flushing = threading.Lock()
        self._wake = threading.Event()
        self._running = False
        """Whether this process's thread has started (a forked child starts its own)."""

    def add(self, line: str) -> None:
        if self.seconds <= 0:
            _write(line + "\n")  # no buffer: written at once (the tests' setting)
            return
        if not self._running:
            self._start()
        with self._swap:
            lines = self._lines
            lines.append(line)
        if len(lines) >= self.batch:
            self._wake.set()

    def flush(self) -> None:
        if not self._lines:
            return
        with self._flushing:  # a flush at exit waits for the thread's, and then writes the rest
            self._flush()

    def _flush(self) -> None:
        with self._swap:
            lines, self._lines = self._lines, []
        chunk: list[str] = []
        size = 0
        for line in lines:
            n = (len(line) if line.isascii() else len(line.encode())) + 1
            if chunk and size + n > PIPE_BUF:
                _write("\n".join(chunk) + "\n")
                chunk, size = [], 0
            chunk.append(line)
            size += n
        if chunk:
            _write("\n".join(chunk) + "\n")

    def _start(self) -> None:
        self._running = True
        threading.Thread(target=self._run, name="access-log", daemon=True).start()

    def forked(self) -> None:
        """In a forked child: none of the parent's lines (it writes them), locks or threads."""
        global _write_lock
        _write_lock = threading.Lock()
        self._lines = []
        self._swap = threading.Lock()
        self._flushing = threading.Lock()
        self._wake = threading.Event()
        self._running = False

    def _run(self) -> None:
        while True:
            self._wake.wait(self.seconds)
            self._wake.clear()
            with contextlib.suppress(Exception):  # a log that cannot be written must not stop the thread
                self.flush()


ACCESS_LINES = BufferedLines(ACCESS_FLUSH_SECONDS)
atexit.register(ACCESS_LINES.flush)
os.register_at_fork(after_in_child=ACCESS_LINES.forked)


def write_access_lines_at_once() -> None:
    """No buffer for the access log in this process: each line is written as it is logged (the
    test suite's setting, so that a request's line lands in the output pytest captured for the test
    that made it)."""
    ACCESS_LINES.flush()
    ACCESS_LINES.seconds = 0


class AccessLineLogger(LineLogger):
    """The access log's logger: a line joins :data:`ACCESS_LINES` (a warning or worse, were the
    access log ever to write one, is written at once)."""

    def buffered(self, message: str) -> None:
        ACCESS_LINES.add(message)

    debug = info = buffered


def line_logger(*args: object) -> LineLogger:
    """structlog's logger factory: the access log's lines are buffered, every other is not."""
    return AccessLineLogger() if args and args[0] == ACCESS_LOGGER else LineLogger()


class AccessLogMiddleware:
    """Pure ASGI middleware: binds the request context, counts the request for ``/metrics`` and
    (unless turned off) writes one line per request.

    It wraps the whole application, outside Litestar's CORS handling and its app-level exception
    handler (``service.http.app``): what a middleware below raises (the rate limit's 429) is turned
    into its answer out there, as are unmatched routes (404, 405) and refused CORS preflights.  So
    the status recorded is the one in the ``http.response.start`` message that went to the server,
    never a guess from an exception.  An exception that escapes with no answer started is recorded
    as 500, because that is what the server sends then (granian and uvicorn alike); one that
    escapes after the answer started keeps the status the client already has.
    """

    def __init__(self, app: ASGIApp, *, write_lines: bool = True) -> None:
        self.app = app
        self.write_lines = write_lines
        self.log = structlog.get_logger(ACCESS_LOGGER)
        self._ids = random.Random()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        structlog.contextvars.clear_contextvars()
        request_id = None
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                request_id = value.decode("latin-1")[:64]
                break
        # A correlation id, not a secret: no system call for it (secrets would read the OS RNG).
        request_id = request_id or f"{self._ids.getrandbits(64):016x}"
        path = scope.get("path", "")
        context = {"request_id": request_id}
        match = _GAME_PATH.match(path)
        if match and match.group(1) not in ("import",):
            context["game_id"] = match.group(1)
        structlog.contextvars.bind_contextvars(**context)
        status: int | None = None
        started = time.perf_counter()

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            if status is None:
                status = 500  # what the server answers for an application that raised unanswered
            raise
        finally:
            elapsed = time.perf_counter() - started
            method = scope.get("method", "")
            # No status: cancelled before any answer (the server stopping), so nothing was sent.
            metrics.HTTP_REQUESTS.labels(method, str(status) if status is not None else "none").inc()
            # The route's template, never the raw path: one series per route, not per game.
            metrics.HTTP_SECONDS.labels(method, scope.get("path_template") or "unmatched").observe(elapsed)
            if self.write_lines:
                self.log.info(
                    "request",
                    method=scope.get("method"),
                    path=path,
                    status=status,
                    ms=round(elapsed * 1000, 2),
                )

"""structlog set-up and the one-line-per-request access log.

JSON lines in production, a console renderer on a tty.  Request id, game id and seat are bound
in contextvars for the request; the access line is written once, when the response has gone.
Tokens and hidden information are never logged: the Authorization header is not read here, and
the service logs codes and ids, never payloads.
"""

from __future__ import annotations

import logging
import random
import re
import sys
import time

import structlog

from . import metrics

_GAME_PATH = re.compile(r"^/v1/games/([^/]+)")


def configure_logging(fmt: str = "auto", level: int = logging.INFO) -> None:
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer = structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=LineLogger,
        cache_logger_on_first_use=True,
    )


class LineLogger:
    """Writes each record and its newline in one call, flushed at once: several worker processes
    share one stderr, and a record written in two pieces (as ``print`` does) can be split by
    another's (two records on a line, then a blank one)."""

    def __init__(self, *_args: object) -> None:
        pass

    def msg(self, message: str) -> None:
        stream = sys.stderr  # looked up per record: tests (and daemons) replace it
        stream.write(message + "\n")
        stream.flush()

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


class AccessLogMiddleware:
    """Pure ASGI middleware: binds the request context, counts the request for ``/metrics`` and
    (unless turned off) writes one line per request."""

    def __init__(self, app, *, write_lines: bool = True) -> None:
        self.app = app
        self.write_lines = write_lines
        self.log = structlog.get_logger("yamen.access")
        self._ids = random.Random()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
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
        status = 500
        started = time.perf_counter()

        async def send_wrapper(message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            method = scope.get("method", "")
            metrics.HTTP_REQUESTS.labels(method, str(status)).inc()
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

"""An in-process WebSocket client for the realtime tests: the real app, driven through ASGI on the
test's own event loop (its lifespan included), so a test can also play a client that stops reading
(a send the server makes never completes, as over a full TCP window)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx


class Closed(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"closed {code}: {reason}")
        self.code = code
        self.reason = reason


@asynccontextmanager
async def running(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """The app started (its lifespan: Postgres pool, notice board, sockets' hub) and an HTTP client
    on it; stopped afterwards."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send(message: dict[str, Any]) -> None:
        await outbox.put(message)

    task = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, send)
    )
    await inbox.put({"type": "lifespan.startup"})
    started = await asyncio.wait_for(outbox.get(), 30)
    assert started["type"] == "lifespan.startup.complete", started
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=30) as client:
            yield client
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(outbox.get(), 30)
        await asyncio.wait_for(task, 30)


class Socket:
    """One client connection to ``/v1/ws``."""

    def __init__(
        self, app: Any, *, query: str = "", headers: dict[str, str] | None = None, stalled: bool = False
    ) -> None:
        self.app = app
        self.query = query
        self.headers = {"host": "testserver", **(headers or {})}
        self.stalled = stalled
        """A client that never reads: every frame the server sends waits for ever."""
        self.attempted: list[dict[str, Any]] = []
        """Every message the server tried to send (received or not)."""
        self.to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.accepted = False

    async def open(self) -> Socket:
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "scheme": "ws",
            "path": "/v1/ws",
            "raw_path": b"/v1/ws",
            "query_string": self.query.encode(),
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in self.headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
            "subprotocols": [],
            "state": {},
        }
        await self.to_app.put({"type": "websocket.connect"})
        self.task = asyncio.create_task(self.app(scope, self.to_app.get, self._send))
        first = await asyncio.wait_for(self.from_app.get(), 10)
        if first["type"] == "websocket.close":
            raise Closed(first.get("code", 1000), first.get("reason") or "")
        assert first["type"] == "websocket.accept", first
        self.accepted = True
        return self

    async def _send(self, message: dict[str, Any]) -> None:
        self.attempted.append(message)
        if self.stalled and self.accepted and message["type"] in ("websocket.send", "websocket.close"):
            await asyncio.Event().wait()
        await self.from_app.put(message)

    def send(self, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.to_app.put_nowait({"type": "websocket.receive", "text": text})

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next message (pings are answered and skipped); :class:`Closed` when the server closed."""
        while True:
            message = await asyncio.wait_for(self.from_app.get(), timeout)
            if message["type"] == "websocket.close":
                raise Closed(message.get("code", 1000), message.get("reason") or "")
            data = json.loads(message["text"])
            if data["type"] == "ping":
                self.send({"type": "pong", "t": data.get("t")})
                continue
            return data

    async def recv_until(self, predicate: Any, timeout: float = 10) -> list[dict[str, Any]]:
        """Messages up to and including the first one *predicate* accepts."""
        seen = []
        while True:
            message = await self.recv(timeout)
            seen.append(message)
            if predicate(message):
                return seen

    async def hello(self, credential: str | None = None) -> dict[str, Any]:
        self.send({"type": "hello", **({"credential": credential} if credential else {})})
        welcome = await self.recv()
        assert welcome["type"] == "welcome", welcome
        return welcome

    async def closed(self, timeout: float = 10) -> Closed:
        """Wait for the server to close; the close it sent (or tried to send)."""
        while True:
            try:
                await self.recv(timeout)
            except Closed as closed:
                return closed

    async def close(self) -> None:
        if self.task is None:
            return
        await self.to_app.put({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, 10)

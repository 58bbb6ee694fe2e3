"""The notice board: every committed move is posted on a Redis channel, and every worker reads it.

After its append commits, the worker that judged a move posts ``"<game_id> <version>"`` on
``yamen:moves`` before it answers; every worker subscribes, and drains the subscription without
waiting right before it answers a read from memory (:meth:`NoticeBoard.drain`).  Any doubt — not
yet subscribed, a dropped connection (:attr:`~NoticeBoard.epoch` moves on), no Redis — makes
:attr:`~NoticeBoard.live` false and reads go to Redis and Postgres.  Why this keeps reads exactly
as current as Postgres on one host, and where it stops: ``docs/architecture.md``, "Reads: the
notice board".

On a Redis Cluster (``REDIS_CLUSTER_NODES``) the channel is a *sharded* channel: notices go out
with ``SPUBLISH`` and every board subscribes with ``SSUBSCRIBE`` on the master that owns the
channel's slot — the master every publisher's notice passes through, so the guarantee above holds
across replicas as it does across the workers of one host.  After a failover (the master's
connection drops, or Redis says ``sunsubscribe`` because the slot moved) the board locates the new
master and subscribes again; until then it is not live.  Either way, a ``PING`` every second
checks the subscription: a connection that stopped answering (a host gone without closing it)
is dropped after :data:`PONG_SECONDS`.

The subscription runs over a plain non-blocking socket because :meth:`drain` must be a
synchronous, non-waiting read of whatever has arrived (redis-py's PubSub only offers awaitable
reads); hiredis (redis-py's own C parser) encodes the commands and parses the replies.
Publishing goes through redis-py.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from urllib.parse import unquote, urlparse

import hiredis
import structlog

log = structlog.get_logger("yamen.notices")

CHANNEL = "yamen:moves"
ANNOUNCED_GAMES = 200_000
RECONNECT_SECONDS = 1.0
PING_SECONDS = 1.0
"""How often the subscription is checked with a PING."""
PONG_SECONDS = 2.0
"""A subscription whose PING is unanswered this long is dropped (reads go to Postgres)."""


def notice(game_id: str, version: int) -> bytes:
    return f"{game_id} {version}".encode()


TABLE = "seats"


def table_notice(game_id: str) -> bytes:
    """``<game> seats``: the game's seat table changed (no new version): workers forget it."""
    return f"{game_id} {TABLE}".encode()


class NoticeBoard:
    """One worker's subscription to the move notices (see the module docstring)."""

    def __init__(
        self,
        redis_url: str,
        *,
        on_notice: Callable[[str, int], None] | None = None,
        locate: Callable[[], Awaitable[tuple[str, int]]] | None = None,
        password: str | None = None,
    ) -> None:
        self.url = redis_url
        self.locate = locate
        """On a Redis Cluster: where the channel's master is now (the board subscribes there,
        with SSUBSCRIBE); None for one Redis at :attr:`url`."""
        self.password = password
        self.on_notice = on_notice
        self.on_table: Callable[[str], None] | None = None
        """Called with a game whose seat table changed (``<game> seats``)."""
        self.on_live: Callable[[], None] | None = None
        """Called each time the subscription is confirmed (again)."""
        self.live = False
        """True while the subscription is confirmed and unbroken: memory may answer reads."""
        self.epoch = 0
        """Moves on whenever notices may have been missed: a state remembered in another epoch is
        not trusted."""
        self.announced: OrderedDict[str, int] = OrderedDict()
        self._sock: socket.socket | None = None
        self._reader = hiredis.Reader()
        self._task: asyncio.Task | None = None
        self._closing = False
        self._waiters: dict[str, list[asyncio.Future]] = {}
        self._confirmed: asyncio.Future | None = None
        self._first: asyncio.Future | None = None
        self._ping_sent: float | None = None
        """When the unanswered PING went out (None: every PING answered)."""

    # --- lifecycle ----------------------------------------------------------------------------
    async def start(self, timeout: float = 2.0) -> None:
        """Subscribe (and keep subscribing after a drop); returns once live, once the first
        attempt has failed, or after *timeout* — reads do not wait for the board."""
        loop = asyncio.get_running_loop()
        if self.locate is None and urlparse(self.url).scheme not in ("redis", "unix"):
            # rediss:// (TLS) is not spoken by this subscriber: the board stays off, and every
            # read goes to Redis and Postgres as it would without a board.
            log.warning("notices_unsupported_scheme", scheme=urlparse(self.url).scheme)
            return
        self._first = loop.create_future()
        self._task = loop.create_task(self._keep_subscribed())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._first), timeout)

    def _settle_first(self) -> None:
        if self._first is not None and not self._first.done():
            self._first.set_result(None)

    async def close(self) -> None:
        self._closing = True
        self._drop("closing")
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _keep_subscribed(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closing:
            try:
                await self._subscribe(loop)
                await self._watch(loop)  # returns when the connection ends
            except (OSError, TimeoutError) as exc:
                log.warning("notices_unavailable", error=f"{type(exc).__name__}: {exc}")
            except Exception as exc:  # noqa: BLE001 - locating a cluster's master: anything the client raises
                log.warning("notices_unavailable", error=f"{type(exc).__name__}: {exc}")
            self._drop("reconnect")
            self._settle_first()
            if not self._closing:
                await asyncio.sleep(RECONNECT_SECONDS)

    async def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Until the connection ends: a PING every :data:`PING_SECONDS`, and the connection dropped
        when one goes unanswered for :data:`PONG_SECONDS`."""
        confirmed = self._confirmed
        assert confirmed is not None
        while not confirmed.done():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(confirmed), PING_SECONDS)
            if confirmed.done() or self._sock is None:
                return
            now = loop.time()
            if self._ping_sent is not None:
                if now - self._ping_sent >= PONG_SECONDS:
                    self._drop("no answer to ping")
                    return
                continue
            try:
                self._sock.send(hiredis.pack_command(("PING",)))
                self._ping_sent = now
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self._drop("socket error")
                return

    async def _subscribe(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.locate is not None:
            host, port = await asyncio.wait_for(self.locate(), 3.0)
            await self._connect(loop, host, port, None, self.password, ("SSUBSCRIBE", CHANNEL))
            return
        parts = urlparse(self.url)
        password = unquote(parts.password) if parts.password is not None else None
        user = unquote(parts.username) if parts.username else None
        if parts.scheme == "unix":
            await self._connect(loop, None, 0, parts.path, password, ("SUBSCRIBE", CHANNEL), user)
        else:
            await self._connect(
                loop,
                parts.hostname or "127.0.0.1",
                parts.port or 6379,
                None,
                password,
                ("SUBSCRIBE", CHANNEL),
                user,
            )

    async def _connect(
        self,
        loop: asyncio.AbstractEventLoop,
        host: str | None,
        port: int,
        path: str | None,
        password: str | None,
        subscribe: tuple[str, str],
        user: str | None = None,
    ) -> None:
        if path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address: object = path
        else:
            assert host is not None
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = (host, port)
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, address), 2.0)
            hello = b""
            if password is not None:
                hello += hiredis.pack_command(("AUTH", user or "default", password))
            hello += hiredis.pack_command(subscribe)
            await asyncio.wait_for(loop.sock_sendall(sock, hello), 2.0)
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._ping_sent = None
        self._reader = hiredis.Reader()
        self._confirmed = loop.create_future()
        loop.add_reader(sock.fileno(), self.drain)

    def _drop(self, why: str) -> None:
        """Stop trusting memory: notices may be missed from here on."""
        if self.live:
            log.info("notices_lost", reason=why)
        self.live = False
        self.epoch += 1
        self.announced.clear()
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(sock.fileno())
            sock.close()
        if self._confirmed is not None and not self._confirmed.done():
            self._confirmed.set_result(None)
        self._wake_all()

    # --- reading ------------------------------------------------------------------------------
    def drain(self) -> None:
        """Read every notice that has arrived, without waiting (called before memory answers)."""
        sock = self._sock
        if sock is None:
            return
        reader = self._reader
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    self._drop("closed by redis")
                    return
                reader.feed(chunk)
                if len(chunk) < 65536:
                    break
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop("socket error")
            return
        while True:
            try:
                value = reader.gets()
            except hiredis.ProtocolError as exc:
                log.warning("notices_protocol_error", error=str(exc))
                self._drop("protocol error")
                return
            if value is False:
                break  # the rest of a reply has not arrived yet
            if isinstance(value, hiredis.ReplyError):
                log.warning("notices_refused", error=str(value))
                self._drop("refused by redis")
                return
            self._handle(value)

    def _handle(self, value: object) -> None:
        if not isinstance(value, list):
            return  # "+OK" for AUTH
        if value and value[0] == b"pong":
            self._ping_sent = None
            return
        if len(value) >= 3 and value[0] in (b"message", b"smessage"):
            for line in value[2].decode().split("\n"):  # a batch of moves: one notice per line
                game_id, _, version = line.partition(" ")
                if version.isdigit():
                    self.post(game_id, int(version))
                elif version == TABLE and self.on_table is not None:
                    self.on_table(game_id)
        elif value[0] == b"sunsubscribe":
            # The channel's slot moved, or this master became a replica: find the new master.
            self._drop("channel moved")
        elif len(value) >= 3 and value[0] in (b"subscribe", b"ssubscribe"):
            # A new epoch starts now, not when the last one dropped: a state remembered while the
            # board was down was vouched for by Postgres, but notices about it may have been missed.
            self.epoch += 1
            self.live = True
            self._settle_first()
            if self.on_live is not None:
                self.on_live()
            log.info("notices_live", channel=CHANNEL, epoch=self.epoch)
        # "+OK" for AUTH and anything else a subscription may say are ignored.

    def post(self, game_id: str, version: int) -> None:
        """Record that *game_id* reached *version* (from a notice, or from this worker's own move)."""
        announced = self.announced
        if announced.get(game_id, -1) < version:
            announced[game_id] = version
            announced.move_to_end(game_id)
            if len(announced) > ANNOUNCED_GAMES:
                announced.popitem(last=False)
        if self.on_notice is not None:
            self.on_notice(game_id, version)
        waiters = self._waiters.pop(game_id, None)
        if waiters:
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    def superseded(self, game_id: str, version: int) -> bool:
        """A newer version of the game has been announced than *version*."""
        return self.announced.get(game_id, -1) > version

    # --- waiting (the event stream) -----------------------------------------------------------
    async def wait(self, game_id: str, timeout: float) -> None:
        """Until a notice for *game_id* arrives, the board drops, or *timeout* passes."""
        if not self.live:
            await asyncio.sleep(min(timeout, 0.25))
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(game_id, []).append(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            pass
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                with contextlib.suppress(ValueError):
                    waiters.remove(future)
                if not waiters:
                    self._waiters.pop(game_id, None)

    def _wake_all(self) -> None:
        waiters, self._waiters = self._waiters, {}
        for group in waiters.values():
            for w in group:
                if not w.done():
                    w.set_result(None)

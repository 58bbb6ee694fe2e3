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

Where it connects, with which user, password and TLS context, and its timeouts come from
:mod:`.redis_connections` (:func:`~.redis_connections.subscriber_endpoint`, or
:func:`~.redis_connections.node_endpoint` for a cluster's channel master), as the publisher's and
every other Redis client's settings do: the board trusts exactly the servers the cache's client
trusts.  Publishing goes through redis-py (:mod:`.cache`).

Why the subscriber is hand-written (a plain non-blocking socket; hiredis, redis-py's own C
parser, encodes the commands and parses the replies) rather than redis-py's ``PubSub``:
:meth:`drain` must be a synchronous read of whatever has reached the socket, made right before
memory answers a read (``States._trusted`` is synchronous).  ``PubSub``'s reads are coroutines,
and what they return was read off the socket by the event loop: a notice that arrived while the
loop was busy is not there until it turns.  Measured with a throwaway script (2026-12, this
project's 2-core machine, shared with other test runs; Redis 7.0 on loopback, redis-py 8.2 with
hiredis 3.5, uvloop; a separate publisher process; medians of 3 interleaved rounds):

- a notice acknowledged (PUBLISH, then PING, as :meth:`~.cache.RedisSnapshotCache._delivered`)
  while the reader's loop is busy, then read at once: :meth:`drain` saw 2000 of 2000;
  ``await PubSub.get_message(timeout=0)`` saw 0 of 2000 (each one a loop turn later);
- flooded (20,000 notices, 50 per round trip): this board 107k notices/s at 2.2 µs of CPU each;
  ``PubSub.listen()`` 56k/s at 7.1 µs; ``PubSub.get_message()`` 47k/s at 11.3 µs;
- paced at 1,000 notices/s (4,000): delivery latency p50/p99 166/1,612 µs here, 202/2,104 µs
  with ``listen()``, 202/3,218 µs with ``get_message()``; subscriber CPU per notice (idle wake-ups
  included) 39, 80 and 93 µs.

The PING every second and the drop after :data:`PONG_SECONDS` of silence would be hand-written on
``PubSub`` too (its health check sends a PING before a read; nothing drops a connection whose
PING goes unanswered).  With ``rediss://`` (or a cluster's ``REDIS_CLUSTER_TLS``) the socket
speaks TLS through the ``ssl`` module, non-blocking as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import hiredis
import structlog

from .redis_connections import LOCATE_SECONDS, Endpoint, node_endpoint, subscriber_endpoint

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


REVOKED = "revoked"


def revoked_notice(name: str) -> bytes:
    """``<name> revoked``: an app key, player credential, signing key or app (*name* is its id)
    was revoked, rotated or changed: workers forget what they remember of it."""
    return f"{name} {REVOKED}".encode()


class NoticeBoard:
    """One worker's subscription to the move notices (see the module docstring)."""

    def __init__(
        self,
        redis_url: str,
        *,
        locate: Callable[[], Awaitable[tuple[str, int]]] | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.url = redis_url
        self.locate = locate
        """On a Redis Cluster: where the channel's master is now (the board subscribes there,
        with SSUBSCRIBE); None for one Redis at :attr:`url`."""
        self.endpoint: Endpoint | None = subscriber_endpoint(redis_url) if locate is None else None
        """Where one Redis is (its URL's host or socket, user, password, TLS context); None on a
        cluster, whose channel master is located before each subscription."""
        self.tls = self.endpoint.tls if self.endpoint is not None else tls
        """The subscription's TLS context: a cluster's (*tls*), or a ``rediss://`` URL's; None for
        a plain connection."""
        self.password = password
        """A cluster's ``REDIS_PASSWORD`` (one Redis's is in its URL)."""
        self._noticed: list[Callable[[str, int], None]] = []
        self._tables: list[Callable[[str], None]] = []
        self._revoked: list[Callable[[str], None]] = []
        self._live: list[Callable[[], None]] = []
        self.live = False
        """True while the subscription is confirmed and unbroken: memory may answer reads."""
        self.epoch = 0
        """Moves on whenever notices may have been missed: a state remembered in another epoch is
        not trusted."""
        self.announced: OrderedDict[str, int] = OrderedDict()
        self._sock: socket.socket | None = None
        self._reader = hiredis.Reader()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._confirmed: asyncio.Future[None] | None = None
        self._first: asyncio.Future[None] | None = None
        self._ping_sent: float | None = None
        """When the unanswered PING went out (None: every PING answered)."""

    # --- listening (each listener subscribes itself when it is built) --------------------------
    def on_notice(self, listener: Callable[[str, int], None]) -> None:
        """Call *listener* with each game and the version it reached (a notice, or a move of this
        worker's own: :meth:`post`)."""
        self._noticed.append(listener)

    def on_table(self, listener: Callable[[str], None]) -> None:
        """Call *listener* with each game whose seat table changed (``<game> seats``)."""
        self._tables.append(listener)

    def on_revoked(self, listener: Callable[[str], None]) -> None:
        """Call *listener* with each key, credential or app that changed (``<name> revoked``)."""
        self._revoked.append(listener)

    def on_live(self, listener: Callable[[], None]) -> None:
        """Call *listener* each time the subscription is confirmed (again)."""
        self._live.append(listener)

    # --- lifecycle ----------------------------------------------------------------------------
    async def start(self, timeout: float = 2.0) -> None:
        """Subscribe (and keep subscribing after a drop); returns once live, once the first
        attempt has failed, or after *timeout* — reads do not wait for the board."""
        loop = asyncio.get_running_loop()
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
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                pass  # sent again, the very same bytes (as TLS requires), at the next tick
            except OSError:
                self._drop("socket error")
                return

    async def _subscribe(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.locate is not None:
            host, port = await asyncio.wait_for(self.locate(), LOCATE_SECONDS)
            await self._connect(loop, node_endpoint(host, port, self.password, self.tls), "SSUBSCRIBE")
        else:
            assert self.endpoint is not None
            await self._connect(loop, self.endpoint, "SUBSCRIBE")

    async def _connect(self, loop: asyncio.AbstractEventLoop, endpoint: Endpoint, subscribe: str) -> None:
        """Connect to *endpoint* (:mod:`.redis_connections` says where, with which credentials,
        TLS context and timeouts), then AUTH and *subscribe* to the channel in one write."""
        host, timeout = endpoint.host, endpoint.timeout
        if host is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address: str | tuple[str, int] = endpoint.path or ""
        else:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = (host, endpoint.port)
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, address), timeout)
            if endpoint.tls is not None:
                sock = endpoint.tls.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
                await asyncio.wait_for(_handshake(loop, sock), timeout)
            hello = b""
            auth = endpoint.auth()
            # hiredis 3.5's stub types the command as a one-element tuple, though any length
            # packs (redis/hiredis-py#195).
            if auth is not None:
                hello += hiredis.pack_command(auth)  # type: ignore[arg-type]
            hello += hiredis.pack_command((subscribe, CHANNEL))  # type: ignore[arg-type]
            await asyncio.wait_for(_send_all(loop, sock, hello), timeout)
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
        self.wake_all()

    # --- reading ------------------------------------------------------------------------------
    def drain(self) -> None:
        """Read every notice that has arrived, without waiting (called before memory answers)."""
        sock = self._sock
        if sock is None:
            return
        reader = self._reader
        tls = isinstance(sock, ssl.SSLSocket)
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    self._drop("closed by redis")
                    return
                reader.feed(chunk)
                # A short read has emptied a plain socket.  A TLS socket hands out one record
                # (16 KiB at most) a call, and what it has taken from the socket but not handed out
                # wakes no reader: it is read until it has nothing.
                if len(chunk) < 65536 and not tls:
                    break
        except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
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
                elif version == TABLE:
                    for table_listener in self._tables:
                        table_listener(game_id)
                elif version == REVOKED:
                    for revoked_listener in self._revoked:
                        revoked_listener(game_id)  # not a game: a key's, credential's or app's id
        elif value[0] == b"sunsubscribe":
            # The channel's slot moved, or this master became a replica: find the new master.
            self._drop("channel moved")
        elif len(value) >= 3 and value[0] in (b"subscribe", b"ssubscribe"):
            # A new epoch starts now, not when the last one dropped: a state remembered while the
            # board was down was vouched for by Postgres, but notices about it may have been missed.
            self.epoch += 1
            self.live = True
            self._settle_first()
            for live_listener in self._live:
                live_listener()
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
        for listener in self._noticed:
            listener(game_id, version)
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

    def wake_all(self) -> None:
        """Wake every :meth:`wait` now (the board dropped, or the server is stopping)."""
        waiters, self._waiters = self._waiters, {}
        for group in waiters.values():
            for w in group:
                if not w.done():
                    w.set_result(None)


async def _ready(loop: asyncio.AbstractEventLoop, sock: socket.socket, *, writing: bool) -> None:
    """Until *sock* can be written (or read) without blocking."""
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    fd = sock.fileno()
    if writing:
        loop.add_writer(fd, wake)
    else:
        loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        if writing:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)


async def _handshake(loop: asyncio.AbstractEventLoop, sock: ssl.SSLSocket) -> None:
    """The TLS handshake of a non-blocking socket."""
    while True:
        try:
            sock.do_handshake()
            return
        except ssl.SSLWantReadError:
            await _ready(loop, sock, writing=False)
        except ssl.SSLWantWriteError:
            await _ready(loop, sock, writing=True)


async def _send_all(loop: asyncio.AbstractEventLoop, sock: socket.socket, data: bytes) -> None:
    """All of *data* (``loop.sock_sendall`` refuses a TLS socket)."""
    if not isinstance(sock, ssl.SSLSocket):
        await loop.sock_sendall(sock, data)
        return
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view) :]
        except ssl.SSLWantReadError:
            await _ready(loop, sock, writing=False)
        except (BlockingIOError, ssl.SSLWantWriteError):
            await _ready(loop, sock, writing=True)

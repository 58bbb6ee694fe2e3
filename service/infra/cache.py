"""The snapshot cache: folded game states keyed by game, so reads fold only newer events.

It is only a cache.  A miss, a snapshot older than the stream, one written under another rules
version, bytes that no longer decode, or Redis being down all fall back to folding from
Postgres; callers never see the difference except in latency.  A Redis outage is remembered for a
few seconds so that requests do not each wait for a connection timeout.

Its client (timeouts, retries, TLS) and the cluster's discovery come from
:mod:`.redis_connections`, where every Redis connection of a worker is made.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import OrderedDict
from typing import Any, Protocol

import msgspec
import redis.asyncio as aioredis
import structlog
from redis.asyncio.cluster import RedisCluster

from . import metrics
from .notices import CHANNEL, notice, revoked_notice, table_notice
from .redis_connections import REDIS_ERRORS, redis_client, redis_cluster_client, tls_context

# Made in .redis_connections; still importable from here (service.http.app, the tests).
from .redis_connections import cluster_master_of as cluster_master_of
from .redis_connections import cluster_tls as cluster_tls

log = structlog.get_logger("yamen.cache")


class Snapshot(msgspec.Struct, array_like=True, frozen=True):
    version: int
    rules_version: str
    state: msgspec.Raw
    """The game's State, msgpack-encoded with the game's own state type."""


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Snapshot)


def encode_snapshot(version: int, rules_version: str, state: Any) -> bytes:
    return _encoder.encode(Snapshot(version, rules_version, msgspec.Raw(_encoder.encode(state))))


def peek_snapshot(blob: bytes | None) -> Snapshot | None:
    """The snapshot's envelope (its state still encoded), or None if absent or undecodable."""
    if blob is None:
        return None
    try:
        return _decoder.decode(blob)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def decode_state(snap: Snapshot, state_decoder: msgspec.msgpack.Decoder[Any]) -> Any | None:
    """The snapshot's state, or None when its bytes no longer fit the state type."""
    try:
        return state_decoder.decode(snap.state)
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None


class SnapshotCache(Protocol):
    name: str

    async def get(self, game_id: str) -> bytes | None: ...
    async def set(self, game_id: str, blob: bytes) -> None: ...
    async def set_and_announce(self, game_id: str, blob: bytes | None, version: int) -> None:
        """Write the snapshot (unless None) and post the move's notice (:mod:`service.infra.notices`),
        in one round trip."""

    async def announce(self, game_id: str, version: int) -> None:
        """Post the notice only."""

    async def announce_table(self, game_id: str) -> None:
        """Tell every worker the game's seat table changed (a seat handed to a bot or back)."""

    async def announce_revoked(self, name: str) -> None:
        """Tell every worker to forget the key, credential or app *name* (revoked or changed)."""

    async def delete(self, game_id: str) -> None: ...
    async def status(self) -> str: ...
    async def close(self) -> None: ...


class MemorySnapshotCache:
    """An in-process LRU, used when no REDIS_URL is configured (quick start, single process)."""

    name = "memory"

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, bytes] = OrderedDict()

    async def get(self, game_id: str) -> bytes | None:
        blob = self._items.get(game_id)
        if blob is not None:
            self._items.move_to_end(game_id)
        return blob

    async def set(self, game_id: str, blob: bytes) -> None:
        self._items[game_id] = blob
        self._items.move_to_end(game_id)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    async def set_and_announce(self, game_id: str, blob: bytes | None, version: int) -> None:
        if blob is not None:
            await self.set(game_id, blob)  # one process: nobody else to tell

    async def announce(self, game_id: str, version: int) -> None:
        pass

    async def announce_table(self, game_id: str) -> None:
        pass

    async def announce_revoked(self, name: str) -> None:
        pass

    async def delete(self, game_id: str) -> None:
        self._items.pop(game_id, None)

    async def status(self) -> str:
        return "memory"

    async def close(self) -> None:
        self._items.clear()


CLUSTER_SEEDS_URL = "redis-cluster://"
"""What :attr:`RedisSnapshotCache.url` says for a cluster (it has seed nodes, not one URL)."""


def _notices(batch: _Batch) -> bytes:
    return b"\n".join(notice(g, v) for g, (_, v) in batch.items.items())


class _Batch:
    __slots__ = ("items", "sent")

    def __init__(self, sent: asyncio.Future[None]) -> None:
        self.items: dict[str, tuple[bytes | None, int]] = {}
        self.sent = sent


class RedisSnapshotCache:
    """Snapshots in Redis under ``yamen:snapshot:{<game_id>}``, with a TTL so idle games age out.

    The game's id is the key's hash tag, so on a Redis Cluster every key of a game lives in one
    slot.  With *cluster_nodes* (seed ``(host, port)`` pairs) the cache talks to a Redis Cluster;
    notices then go out with ``SPUBLISH`` on the sharded channel, which only the master owning its
    slot (and its replicas) relay — the master every notice board subscribes to
    (:mod:`service.infra.notices`)."""

    name = "redis"

    def __init__(
        self,
        url: str | None = None,
        *,
        cluster_nodes: tuple[tuple[str, int], ...] = (),
        password: str | None = None,
        tls: dict[str, Any] | None = None,
        ttl_seconds: int = 7 * 24 * 3600,
        backoff_seconds: float = 1.0,
    ) -> None:
        if not url and not cluster_nodes:
            raise ValueError("a Redis URL or cluster seed nodes")
        self.cluster = bool(cluster_nodes)
        self.seeds = cluster_nodes
        self.password = password
        self.tls = tls
        """A cluster's TLS options (:func:`cluster_tls`); one Redis's are in its ``rediss://`` URL."""
        self.url = CLUSTER_SEEDS_URL if self.cluster else str(url)
        self.ttl = ttl_seconds
        self.backoff = backoff_seconds
        self._down_until = 0.0
        """Snapshot reads and writes are skipped until then (one failed: Redis may be away)."""
        self._notices_down_until = 0.0
        """Notices are skipped until then: only a failed notice sets it, never a slow snapshot
        read, because a notice not posted is what another replica could miss."""
        self._gathering: _Batch | None = None
        self._in_flight: asyncio.Future[None] | None = None
        self._client: aioredis.Redis | RedisCluster = (
            redis_cluster_client(cluster_nodes, password, tls) if self.cluster else redis_client(str(url))
        )

    @property
    def client(self) -> aioredis.Redis | RedisCluster:
        """The Redis client (retrying on dead connections), for other stores of this worker."""
        return self._client

    @staticmethod
    def key(game_id: str) -> str:
        return f"yamen:snapshot:{{{game_id}}}"

    async def notice_master(self) -> tuple[str, int]:
        """Where the notice channel lives now: the master owning its slot."""
        return await cluster_master_of(CHANNEL, self.seeds, self.password, self.tls)

    def notice_tls(self) -> ssl.SSLContext | None:
        """The TLS context of a cluster's nodes for the notice board's own socket (None: plain)."""
        return tls_context(self.tls, "REDIS_CLUSTER_TLS") if self.tls is not None else None

    def _available(self) -> bool:
        return time.monotonic() >= self._down_until

    def _notices_available(self) -> bool:
        return time.monotonic() >= self._notices_down_until

    def reachable(self) -> None:
        """Redis answered another client of this worker (the notice board resubscribed): stop
        backing off, so the next move's notice is posted, not skipped."""
        self._down_until = self._notices_down_until = 0.0

    def _failed(self, op: str, exc: BaseException, *, notices: bool = False) -> None:
        """*op* failed: skip snapshot reads and writes for the backoff, and notices too when it
        was a notice that failed."""
        until = time.monotonic() + self.backoff
        self._down_until = until
        if notices:
            self._notices_down_until = until
        log.warning("redis_unavailable", op=op, error=type(exc).__name__)

    async def get(self, game_id: str) -> bytes | None:
        if not self._available():
            return None
        try:
            blob = await self._client.get(self.key(game_id))
        except REDIS_ERRORS as exc:
            self._failed("get", exc)
            return None
        # redis-py types a reply as str too (a client made with decode_responses); ours never decodes.
        return blob if isinstance(blob, bytes) else None

    async def set(self, game_id: str, blob: bytes) -> None:
        if not self._available():
            return
        try:
            await self._client.set(self.key(game_id), blob, ex=self.ttl)
        except REDIS_ERRORS as exc:
            self._failed("set", exc)

    async def announce(self, game_id: str, version: int) -> None:
        """Post a notice that *game_id* is at *version* without writing a snapshot (a move answered
        from its stored idempotent answer: the worker that judged it may have died before
        posting)."""
        await self.set_and_announce(game_id, None, version)

    async def set_and_announce(self, game_id: str, blob: bytes | None, version: int) -> None:
        """Joins the batch being gathered; returns once Redis has acknowledged it.

        Moves finishing together share one pipeline (their snapshots, then one PUBLISH carrying
        every notice, one per line), and at most one batch is in flight: on these machines a
        round trip costs as much as a Postgres append, so a worker under load pays a few per
        second instead of one per move.  A batch gathers while the previous one is in flight,
        which costs a move at most one extra Redis round trip of latency.
        """
        if not self._notices_available():
            return
        batch = self._gathering
        if batch is None:
            batch = self._gathering = _Batch(asyncio.get_running_loop().create_future())
            if self._in_flight is None:
                self._in_flight = asyncio.ensure_future(self._send_batches())
        earlier = batch.items.get(game_id)
        # A later move of the same game supersedes an earlier one; a snapshot, a bare notice.
        if earlier is None or earlier[1] < version or (earlier[1] == version and earlier[0] is None):
            batch.items[game_id] = (blob, version)
        await asyncio.shield(batch.sent)

    async def _send_batches(self) -> None:
        try:
            while self._gathering is not None:
                await asyncio.sleep(0)  # let the moves finishing in this turn of the loop join
                batch, self._gathering = self._gathering, None
                try:
                    if self.cluster:
                        await self._send_to_cluster(batch)
                    else:
                        pipe = self._client.pipeline(transaction=False)
                        for game_id, (blob, _) in batch.items.items():
                            if blob is not None:
                                pipe.set(self.key(game_id), blob, ex=self.ttl)
                        pipe.publish(CHANNEL, _notices(batch))
                        await pipe.execute()
                    await self._delivered()
                    metrics.NOTICE_BATCHES.inc()
                    metrics.NOTICES.inc(len(batch.items))
                except Exception as exc:  # noqa: BLE001 - best effort: a cache failure never fails a move
                    # Anything escaping would end this sender with the next batch still waiting.
                    self._failed("set_and_announce", exc, notices=True)
                finally:
                    batch.sent.set_result(None)
        finally:
            self._in_flight = None

    async def _delivered(self) -> None:
        """One more round trip to the server that relayed the notices, once it has answered the
        publish: Redis answers the publisher and writes the notices to the subscribers in the same
        turn of its event loop, publisher first, so a reader asked right after the mover's answer
        could still find its subscription empty (measured: 3 % of reads at once, without load);
        the answer to a second command comes from a later turn, after every one of those writes.
        So once this returns, every board has the notices in its socket."""
        if self.cluster:
            assert isinstance(self._client, RedisCluster)
            await self._client.execute_command("PING", target_nodes=self._client.get_node_from_key(CHANNEL))
        else:
            await self._client.ping()

    async def _send_to_cluster(self, batch: _Batch) -> None:
        """The snapshots (to the masters of their games' slots) and the notices (to the channel's
        master) in parallel, one round trip.  A snapshot that fails costs a later read a fold;
        only a failed notice stops the cache for its backoff, because a notice that does not go
        out is what a reader on another replica could miss."""
        sets = self._client.pipeline(transaction=False)
        if self._available():
            for game_id, (blob, _) in batch.items.items():
                if blob is not None:
                    sets.set(self.key(game_id), blob, ex=self.ttl)
        outcomes: list[Any] = await asyncio.gather(
            sets.execute() if len(sets) else asyncio.sleep(0),
            self._spublish(_notices(batch)),
            return_exceptions=True,
        )
        stored, posted = outcomes
        if isinstance(stored, BaseException):
            self._failed("set", stored)
        if isinstance(posted, BaseException):
            raise posted

    async def _spublish(self, message: bytes) -> None:
        """``SPUBLISH`` on the channel's master, sent once more to the master the boards find (as
        :meth:`notice_master` asks the seeds afresh) when it fails.

        After a failover the client's own view of the slots can trail the boards': measured on a
        three-master cluster, both boards had subscribed on the promoted replica while the next
        publish still went to the dead master, and the cache then backed notices off for a second
        in which every move's notice was lost and the other replica's reads trailed by up to the
        trust window.  A notice that fails this second time is lost, and backs notices off."""
        assert isinstance(self._client, RedisCluster)
        try:
            await self._client.spublish(CHANNEL, message)
            return
        except REDIS_ERRORS:
            host, port = await self.notice_master()
        await self._client.nodes_manager.initialize()  # the client's next commands go there too
        node = self._client.get_node(host=host, port=port) or self._client.get_node_from_key(CHANNEL)
        await self._client.execute_command("SPUBLISH", CHANNEL, message, target_nodes=node)

    async def announce_table(self, game_id: str) -> None:
        if not self._notices_available():
            return
        try:
            if self.cluster:
                await self._spublish(table_notice(game_id))
            else:
                await self._client.publish(CHANNEL, table_notice(game_id))
            await self._delivered()
        except REDIS_ERRORS as exc:
            self._failed("announce_table", exc, notices=True)

    async def announce_revoked(self, name: str) -> None:
        # Unlike a move's notice, not skipped while notices are backing off: a revocation is rare,
        # and one that no worker hears lets a revoked key work on (for up to KEY_TRUST_SECONDS).
        try:
            if self.cluster:
                await self._spublish(revoked_notice(name))
            else:
                await self._client.publish(CHANNEL, revoked_notice(name))
            await self._delivered()
        except REDIS_ERRORS as exc:
            self._failed("announce_revoked", exc, notices=True)
            log.warning("revocation_notice_failed", name=name, error=type(exc).__name__)

    async def delete(self, game_id: str) -> None:
        try:
            await self._client.delete(self.key(game_id))
        except REDIS_ERRORS as exc:
            self._failed("delete", exc)

    async def status(self) -> str:
        try:
            await self._client.ping()
            self.reachable()
            return "ok"
        except REDIS_ERRORS:
            return "unavailable"

    async def close(self) -> None:
        await self._client.aclose()

"""The event store's datastore: the connection pool, its health, and the translation of errors.

Every query goes through :meth:`Datastore.connection`, which translates the driver's errors by the
PEP 249 hierarchy into the store's exceptions (:mod:`service.infra.store_types`), so nothing above
it imports psycopg: a lost or refused connection, a pool timeout or a closed pool is
:class:`StoreUnavailable`; a value Postgres cannot store is :class:`StoreRefused`; a unique
violation is each verb's own business.

An operation that lost its connection is tried again, or not, in one place: :func:`retried`.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import random
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Literal, TypeVar, cast, overload

import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from .store_types import StoreRefused, StoreUnavailable, _only

SUSPECT_SECONDS = 10.0
"""After a connection fails, how long connections are tried before they are handed out."""
RECONNECT_SECONDS = 0.2
"""How long the pool retries a failed connection attempt before giving it up (psycopg_pool's
``reconnect_timeout``), and how often :meth:`Datastore._keep_connecting` has it start another
while requests find no connection.  The pool's retries back off (1, 2, 4, 8 s…): with its default
of five minutes, a Postgres back after an outage waited for the next retry, and the first move
came seconds after Postgres accepted connections again (3.2 s after a 9 s outage in the fault
suite, 3.7 s in an operator's probe).  Now a returning Postgres is found within about this long;
while it is away, five refused attempts a second cost next to nothing."""
OPEN_SECONDS = 10.0
"""How long :meth:`Datastore.open` waits for Postgres (a service started before its database)."""


class Retry(enum.Enum):
    """A judge's verdict on an operation that lost its connection (see :func:`retried`)."""

    AGAIN = "again"
    """Send it again."""
    GIVE_UP = "give up"
    """The caller hears the loss (the :class:`StoreUnavailable`)."""


_Operation = TypeVar("_Operation", bound=Callable[..., Awaitable[Any]])


def retried(
    judge: Callable[..., Awaitable[object]], *, attempts: int | None = 2
) -> Callable[[_Operation], _Operation]:
    """The store's one retry policy, as a decorator of a method that sends an operation.

    When the operation raises :class:`StoreUnavailable`, ``judge(self, lost, *args, **kwargs)``
    (the method's own arguments) says what becomes of it: :attr:`Retry.AGAIN` sends it again,
    :attr:`Retry.GIVE_UP` re-raises the loss, and anything else is the answer instead (an append
    found committed after all).  After *attempts* tries (None: no limit) the loss is re-raised
    without asking.  Any other exception passes through.  The judge is consulted only after a
    loss; a try costs one coroutine more than an inline loop (about 0.2 µs), which is why the
    group commit's batches, the per-move path, are sent undecorated.
    """

    def decorate(send: _Operation) -> _Operation:
        @functools.wraps(send)
        async def attempt(self: Any, *args: Any, **kwargs: Any) -> Any:
            tried = 0
            while True:
                tried += 1
                try:
                    return await send(self, *args, **kwargs)
                except StoreUnavailable as lost:
                    if tried == attempts:
                        raise
                    verdict = await judge(self, lost, *args, **kwargs)
                    if verdict is Retry.GIVE_UP:
                        raise
                    if verdict is not Retry.AGAIN:
                        return verdict

        return cast(_Operation, attempt)

    return decorate


async def _if_lost_midway(_: Datastore, lost: StoreUnavailable, *args: Any, **kwargs: Any) -> Retry:
    """A read whose connection was lost (Postgres restarted under it) goes again, on another
    connection; one that had no connection at all does not (Postgres is away)."""
    return Retry.GIVE_UP if lost.lost_epoch is None else Retry.AGAIN


async def _until_deadline(_: Datastore, lost: StoreUnavailable, deadline: float) -> Retry:
    if time.monotonic() >= deadline:
        return Retry.GIVE_UP
    await asyncio.sleep(0.1)
    return Retry.AGAIN


class Datastore:
    """The pool of connections to Postgres, kept healthy through restarts and outages."""

    def __init__(self, url: str, *, min_size: int = 2, max_size: int = 16, timeout: float = 1.0) -> None:
        self.url = url
        self._epochs: weakref.WeakKeyDictionary[psycopg.AsyncConnection, str] = weakref.WeakKeyDictionary()
        self._suspect_until = 0.0
        self._checks: set[asyncio.Task[None]] = set()
        self._starved = False
        """A request found no connection in time, and none has been had since."""
        self._reviving: asyncio.Task[None] | None = None
        self.pool = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            kwargs={"autocommit": True},
            configure=self._configure,
            # Waiting longer than this for a pooled connection is "unavailable": a client hears
            # 503 within about a second of Postgres going away, not after a hang.
            timeout=timeout,
            reconnect_timeout=RECONNECT_SECONDS,
        )

    async def open(self, wait: float = OPEN_SECONDS) -> None:
        """Open the pool and wait (up to *wait* seconds) until Postgres answers.  Each try asks
        the pool for a connection, which starts a connection attempt: the pool's own attempts are
        given up after :data:`RECONNECT_SECONDS`, so waiting on them alone would give up too."""
        await self.pool.open(wait=False)
        await self._answering(time.monotonic() + wait)

    @retried(_until_deadline, attempts=None)
    async def _answering(self, deadline: float) -> None:
        await self.ping(timeout=min(2.0, max(0.1, deadline - time.monotonic())))

    @contextlib.asynccontextmanager
    async def connection(
        self, timeout: float | None = None, *, keep: tuple[type[Exception], ...] = ()
    ) -> AsyncIterator[psycopg.AsyncConnection]:
        """A pooled connection, with the driver's errors translated (see the module docstring).

        Errors of the types in *keep* pass through untranslated, for a caller that tells them
        apart (the batched append retries a serialization failure append by append).
        """
        conn = await self._checkout(timeout)
        try:
            yield conn
        except keep:
            raise
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            self._suspect()
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}", lost_epoch=self._epochs.get(conn)) from exc
        except psycopg.DataError as exc:
            raise StoreRefused(f"{type(exc).__name__}: {exc}") from exc
        finally:
            await self.pool.putconn(conn)  # a broken connection is discarded by the pool

    async def _configure(self, conn: psycopg.AsyncConnection) -> None:
        # Which Postgres this connection talks to: after a restart, its old connections are dead,
        # and whether an append sent on one committed can be looked up (see Recorder._recover).
        cur = await conn.execute("SELECT pg_postmaster_start_time()::text")
        self._epochs[conn] = _only(await cur.fetchone())[0]

    async def _checkout(self, timeout: float | None) -> psycopg.AsyncConnection:
        """A connection from the pool.  Right after a connection failed (Postgres restarted, or a
        network hiccup), each one is tried with ``SELECT 1`` before it is handed out, so the dead
        connections still idle in the pool cost no request an error."""
        wait = timeout if timeout is not None else self.pool.timeout
        if self._starved:
            # Postgres is away.  The requests waiting when it went all failed at that moment, so
            # their clients come back together, wait together, hear 503 together and sleep their
            # Retry-After together: a Postgres back while they all sleep waits for them.  Waits of
            # random length (half to all of the timeout) spread the clients apart, so one of them
            # is nearly always waiting when Postgres returns (and they do not return as one herd).
            wait *= random.uniform(0.5, 1.0)
        deadline = time.monotonic() + wait
        while True:
            try:
                conn = await self.pool.getconn(timeout=max(0.01, deadline - time.monotonic()))
            except PoolTimeout as exc:
                self._revive()
                raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
            except (PoolClosed, psycopg.OperationalError) as exc:
                raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
            self._starved = False
            if time.monotonic() >= self._suspect_until:
                return conn
            try:
                await conn.execute("SELECT 1")
                return conn
            except psycopg.Error:
                await self.pool.putconn(conn)

    def _suspect(self) -> None:
        """A connection failed: check connections before use for a while, and sweep the idle ones."""
        if time.monotonic() >= self._suspect_until and not self._checks:
            task = asyncio.get_running_loop().create_task(self._sweep())
            self._checks.add(task)
            task.add_done_callback(self._checks.discard)
        self._suspect_until = time.monotonic() + SUSPECT_SECONDS

    def _revive(self) -> None:
        """No connection could be had: keep a connection attempt under way until one can."""
        self._starved = True
        if self._reviving is None or self._reviving.done():
            self._reviving = asyncio.get_running_loop().create_task(self._keep_connecting())

    async def _keep_connecting(self) -> None:
        """Ask the pool to grow every :data:`RECONNECT_SECONDS` while requests find no connection.
        The pool starts an attempt only when a request arrives to find none (and gives it up after
        RECONNECT_SECONDS); the requests already waiting start none, and clients told to retry
        after a 503 come back together, so a Postgres back between two of their waves would wait
        for the next one (1.3 s after its return in the fault suite)."""
        while self._starved and not self.pool.closed and not self.pool.get_stats()["pool_available"]:
            with contextlib.suppress(Exception):
                await self.pool.check()  # starts a connection attempt unless one is under way
            await asyncio.sleep(RECONNECT_SECONDS)

    async def _sweep(self) -> None:
        with contextlib.suppress(Exception):
            await self.pool.check()  # tests every idle connection, drops the dead ones

    @overload
    async def read(
        self, sql: str, params: Sequence[Any], *, one: Literal[False] = False
    ) -> list[TupleRow]: ...
    @overload
    async def read(self, sql: str, params: Sequence[Any], *, one: Literal[True]) -> TupleRow | None: ...
    @retried(_if_lost_midway)
    async def read(
        self, sql: str, params: Sequence[Any], *, one: bool = False
    ) -> list[TupleRow] | TupleRow | None:
        """A query that changes nothing: sent again once on another connection if its
        connection was lost (Postgres restarted under it), so a returning Postgres fails no read."""
        async with self.connection() as conn:
            cur = await conn.execute(sql, params)
            return await (cur.fetchone() if one else cur.fetchall())

    async def restarted_since(self, epoch: str) -> bool:
        """Whether Postgres has restarted since a connection to it was opened (so every session of
        that connection is gone: whatever it did not commit, it never will)."""
        row = await self.read("SELECT pg_postmaster_start_time()::text", (), one=True)
        started: str = _only(row)[0]
        return started != epoch

    async def ping(self, timeout: float = 2.0) -> None:
        async with self.connection(timeout=timeout) as conn:
            await conn.execute("SELECT 1")

    async def replay_lag_ms(self) -> float | None:
        """On a standby, how far its replay trails what it has received (ms): 0 when it has
        replayed everything, else the age of the last replayed commit; None on a primary."""
        row = await self.read(
            "SELECT CASE WHEN NOT pg_is_in_recovery() THEN NULL"
            " WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0"
            " ELSE 1000 * EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END",
            (),
            one=True,
        )
        lag = _only(row)[0]
        return None if lag is None else float(lag)

    async def close(self) -> None:
        if self._reviving is not None:
            self._reviving.cancel()
        await self.pool.close()

"""The Postgres event store: one stream per game, appended with an expected version.

The recorder has few verbs — create, append, select events after/up to a seq — plus the seat
and idempotency lookups the HTTP contract needs.  The primary key ``(game_id, seq)`` decides
concurrent appends: a command's events are inserted first, so a writer that lost the race hits
the unique key and is told the version moved on.

Every query goes through :meth:`EventStore.connection`, which translates the driver's errors by
the PEP 249 hierarchy into this module's exceptions, so nothing above it imports psycopg: a lost
or refused connection, a pool timeout or a closed pool is :class:`StoreUnavailable`; a value
Postgres cannot store is :class:`StoreRefused`; a unique violation is each verb's own business.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
import random
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any, Literal, overload

import msgspec
import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from ..record.chain import StoredEvent
from . import metrics


class StoreError(Exception):
    """The event store could not do what was asked."""


class StoreUnavailable(StoreError):
    """Postgres cannot be reached, or lost the connection mid-request: retry later."""

    def __init__(self, message: str, *, lost_epoch: str | None = None) -> None:
        super().__init__(message)
        self.lost_epoch = lost_epoch
        """For a connection lost mid-request: the start time of the Postgres it was connected to
        (None when no connection could be had at all).  See :meth:`EventStore._restarted_since`."""


class StoreRefused(StoreError):
    """Postgres refused a value it cannot store (e.g. a NUL character in text)."""


class VersionConflict(StoreError):
    """Another command was appended first; the caller's expected version is stale."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"the game is at version {current_version}")
        self.current_version = current_version


class GameExists(StoreError):
    """A game with that id has already been recorded."""


class DuplicateIdempotencyKey(StoreError):
    """A concurrent request with the same Idempotency-Key was recorded first."""


class GameRow(msgspec.Struct):
    game_id: str
    kind: str
    rules_version: str
    options: bytes
    players: int
    seed: str
    seed_commitment: str
    status: str
    version: int
    last_hash: str
    imported: bool
    created_at: datetime
    updated_at: datetime
    app_id: str | None = None
    """The app whose key (or player) created the game; None for an anonymous game or an import."""
    visibility: str = "public"
    """Who may list and watch it: ``public``, ``app`` or ``private`` (service.application.identity)."""
    rated: bool = False
    """Asked to be rated (``games.rated``, service.application.ratings): written at create, not read
    back with the row (the ratings read it themselves)."""
    unrated_reason: str | None = None
    """Why a game asked to be rated is refused already at create (``creator_took_seats``)."""
    creator: str | None = None
    """Who created it (``games.creator``, migration 009): written at create, read by
    :meth:`EventStore.creator_of` alone (only the creator fills open seats with bots)."""


class IdempotentResponse(msgspec.Struct, frozen=True):
    seat: int
    request_hash: str
    status_code: int
    response: bytes


_GAME_COLUMNS = (
    "g.game_id, g.kind, g.rules_version, g.options::text, g.players, g.seed, g.seed_commitment, "
    "g.status, g.version, g.last_hash, g.imported, g.created_at, g.updated_at, g.app_id, g.visibility"
)
_EVENT_COLUMNS = (
    "e.game_id, e.seq, e.type, e.payload::text, e.visible_to, e.seat, e.command::text, "
    "e.idempotency_key, e.recorded_at, e.prev_hash, e.hash"
)
_N_GAME = 15


def _game(row: TupleRow) -> GameRow:
    return GameRow(
        row[0],
        row[1],
        row[2],
        row[3].encode(),
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        row[11],
        row[12],
        row[13],
        row[14],
    )


def _event(row: TupleRow, offset: int = 0) -> StoredEvent:
    r = row[offset:]
    return StoredEvent(
        game_id=r[0],
        seq=r[1],
        type=r[2],
        payload=r[3].encode(),
        visible_to=r[4],
        seat=r[5],
        command=r[6].encode() if r[6] is not None else None,
        idempotency_key=r[7],
        recorded_at=r[8],
        prev_hash=r[9],
        hash=r[10],
    )


def _event_params(e: StoredEvent) -> tuple[Any, ...]:
    return (
        e.game_id,
        e.seq,
        e.type,
        e.payload.decode(),
        e.visible_to,
        e.seat,
        e.command.decode() if e.command is not None else None,
        e.idempotency_key,
        e.recorded_at,
        e.prev_hash,
        e.hash,
    )


_INSERT_EVENT = (
    "INSERT INTO events (game_id, seq, type, payload, visible_to, seat, command, idempotency_key,"
    " recorded_at, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


_APPEND_ROW = (
    "(%s, %s::bigint, %s, %s::json, %s::integer[], %s::integer, %s::json, %s, %s::timestamptz, %s, %s)"
)
_append_statements: dict[tuple[int, bool], str] = {}


def append_statement(n_events: int, idempotency: bool) -> str:
    """The single statement that appends one command, in one round trip.

    The event rows go in first, if the game exists (a plain read: no foreign key, whose trigger
    locked the games row once per row), and the idempotency row with them: two writers at the same
    expected version insert the same ``(game_id, seq)``, the second waits on the first's index entry
    and then fails on the unique key, so the primary key decides the race. Only then is the games
    row moved on (its version check is the last line of defence, as seqs are dense), in place: no
    indexed column changes, ``finished_at`` only once (migration 010). Parameters: each event's 11
    columns, the game_id, then the idempotency row's 7 (if any), then version, last_hash, status,
    updated_at, to_act, status and updated_at again (``finished_at``), game_id and the expected
    version. (Why not lock the games row first: ``docs/performance.md``.)
    """
    key = (n_events, idempotency)
    sql = _append_statements.get(key)
    if sql is None:
        sql = (
            "WITH appended AS (INSERT INTO events (game_id, seq, type, payload, visible_to, seat, command,"
            " idempotency_key, recorded_at, prev_hash, hash) SELECT * FROM (VALUES "
            + ", ".join([_APPEND_ROW] * n_events)
            + ") AS v WHERE EXISTS (SELECT 1 FROM games WHERE game_id = %s) RETURNING seq)"
        )
        if idempotency:
            sql += (
                ", remembered AS (INSERT INTO idempotency (game_id, key, seat, request_hash, status_code,"
                " response, created_at) SELECT %s, %s, %s::integer, %s, %s::integer, %s::bytea, "
                "%s::timestamptz WHERE EXISTS (SELECT 1 FROM appended)"
                " RETURNING 1)"
            )
        sql += (
            ", moved AS (UPDATE games SET version = %s, last_hash = %s, status = %s, updated_at = %s,"
            " to_act = %s::integer[], finished_at = CASE WHEN %s::text = 'finished' THEN %s::timestamptz"
            " ELSE finished_at END"
            " WHERE game_id = %s AND version = %s AND EXISTS (SELECT 1 FROM appended)"
            " RETURNING version)"
            " SELECT (SELECT version FROM moved), (SELECT count(*) FROM appended)"
        )
        _append_statements[key] = sql
    return sql


BATCH_APPEND = (
    "WITH appended AS (INSERT INTO events (game_id, seq, type, payload, visible_to, seat, command,"
    " idempotency_key, recorded_at, prev_hash, hash)"
    " SELECT r.game_id, r.seq, r.type, r.payload::json, r.visible_to::integer[], r.seat, r.command::json,"
    " r.idempotency_key, r.recorded_at, r.prev_hash, r.hash"
    " FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[], %s::integer[], %s::text[],"
    " %s::text[], %s::timestamptz[], %s::text[], %s::text[])"
    " AS r(game_id, seq, type, payload, visible_to, seat, command, idempotency_key, recorded_at, "
    "prev_hash, hash)"
    " WHERE EXISTS (SELECT 1 FROM games e WHERE e.game_id = r.game_id)"
    " RETURNING game_id),"
    " moved AS (UPDATE games g SET version = m.version, last_hash = m.last_hash, status = m.status,"
    " updated_at = m.updated_at, to_act = m.to_act::integer[],"
    " finished_at = CASE WHEN m.status = 'finished' THEN m.updated_at ELSE g.finished_at END"
    " FROM unnest(%s::text[], %s::bigint[], %s::bigint[], %s::text[], %s::text[], %s::timestamptz[],"
    " %s::text[]) AS m(game_id, expected, version, last_hash, status, updated_at, to_act)"
    " WHERE g.game_id = m.game_id AND g.version = m.expected"
    " AND EXISTS (SELECT 1 FROM appended a WHERE a.game_id = m.game_id) RETURNING g.game_id, g.version)"
    " SELECT game_id, version FROM moved"
)
"""Several games' appends in one statement (see :meth:`EventStore.append`): the events of every
command (of a game that exists), then each game's row moved on from its expected version, in place
as in :func:`append_statement`; a lost race fails the statement on the ``(game_id, seq)`` key.
Answers each moved game's new version."""

BATCH_APPEND_KEYED = BATCH_APPEND.replace(
    " SELECT game_id, version FROM moved",
    ", remembered AS (INSERT INTO idempotency (game_id, key, seat, request_hash, status_code, response,"
    " created_at) SELECT k.game_id, k.key, k.seat, k.request_hash, k.status_code, k.response, k.created_at"
    " FROM unnest(%s::text[], %s::text[], %s::integer[], %s::text[], %s::integer[], %s::bytea[],"
    " %s::timestamptz[]) AS k(game_id, key, seat, request_hash, status_code, response, created_at)"
    " WHERE EXISTS (SELECT 1 FROM appended a WHERE a.game_id = k.game_id) RETURNING 1)"
    " SELECT game_id, version FROM moved",
)
""":data:`BATCH_APPEND` with the idempotent answers of the keyed commands among them, stored with
their events; a key used before fails the statement on the idempotency key (then each append of
the batch goes alone, and that one hears :class:`DuplicateIdempotencyKey`)."""


def _int_array(values: list[int] | None) -> str | None:
    return None if values is None else "{" + ",".join(map(str, values)) + "}"


def _array_literal(values: list[Any]) -> str:
    """A column of the batched append as one Postgres array literal (``{"a","b",NULL}``), which the
    statement casts to its array type.  Sent as one text parameter, it costs a seventh of what
    adapting a Python list element by element costs (measured: 4 vs 28 µs a row).  Every value is
    quoted, with backslashes and double quotes escaped, so no text can read as NULL or break out."""
    parts = []
    for value in values:
        if value is None:
            parts.append("NULL")
        else:
            text = value if isinstance(value, str) else str(value)
            parts.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "{" + ",".join(parts) + "}"


def append_params_of(
    game_id: str,
    expected_version: int,
    event_params: list[tuple[Any, ...]],
    last_hash: str,
    status: str,
    now: datetime,
    idempotency_params: tuple[Any, ...] | None = None,
    to_act: list[int] | None = None,
) -> list[Any]:
    """The parameters of :func:`append_statement`, in its order (event rows as :func:`_event_params`
    gives them)."""
    params: list[Any] = []
    for e in event_params:
        params.extend(e)
    params.append(game_id)
    if idempotency_params is not None:
        params.extend(idempotency_params)
    version = expected_version + len(event_params)
    params.extend((version, last_hash, status, now, to_act, status, now, game_id, expected_version))
    return params


SUSPECT_SECONDS = 10.0
"""After a connection fails, how long connections are tried before they are handed out."""
RECONNECT_SECONDS = 0.2
"""How long the pool retries a failed connection attempt before giving it up (psycopg_pool's
``reconnect_timeout``), and how often :meth:`EventStore._keep_connecting` has it start another
while requests find no connection.  The pool's retries back off (1, 2, 4, 8 s…): with its default
of five minutes, a Postgres back after an outage waited for the next retry, and the first move
came seconds after Postgres accepted connections again (3.2 s after a 9 s outage in the fault
suite, 3.7 s in an operator's probe).  Now a returning Postgres is found within about this long;
while it is away, five refused attempts a second cost next to nothing."""
OPEN_SECONDS = 10.0
"""How long :meth:`EventStore.open` waits for Postgres (a service started before its database)."""


def _only(row: TupleRow | None) -> TupleRow:
    """The row of a query that always returns one (a ``SELECT`` of functions, without ``FROM``)."""
    if row is None:
        raise StoreError("Postgres returned no row where it always returns one")
    return row


def _answer_of(outcome: str, last_seq: int) -> TupleRow | None:
    """What the append statement would have answered: the new version, or None for a lost race."""
    return (last_seq, None) if outcome == "committed" else None


MAX_BATCHES_IN_FLIGHT = 2
"""Batches of appends a worker has on the wire at once; the next gathers meanwhile."""


class _Pending:
    """One append waiting in a batch: its own statement (for a retry alone), its rows and its
    games-row update (for the batch statement), and the future its move awaits."""

    __slots__ = ("answer", "game_id", "idempotency", "params", "rows", "sql", "update")

    def __init__(
        self,
        game_id: str,
        sql: str,
        params: list[Any],
        rows: list[tuple[Any, ...]],
        update: tuple[Any, ...],
        idempotency: tuple[Any, ...] | None,
        answer: asyncio.Future[TupleRow | None],
    ) -> None:
        self.game_id, self.sql, self.params, self.rows, self.update = (game_id, sql, params, rows, update)
        self.idempotency, self.answer = idempotency, answer


class EventStore:
    """Postgres-backed store of games, seats, events and idempotent responses."""

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 2,
        max_size: int = 16,
        batch_appends: bool = True,
        timeout: float = 1.0,
    ) -> None:
        self.url = url
        self.batch_appends = batch_appends
        self._gathering: list[_Pending] | None = None
        self._batches_in_flight = 0
        self._senders: set[asyncio.Task[None]] = set()
        self.batches_sent = 0
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
        deadline = time.monotonic() + wait
        while True:
            try:
                await self.ping(timeout=min(2.0, max(0.1, deadline - time.monotonic())))
                return
            except StoreUnavailable:
                if time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(0.1)

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
        # and whether an append sent on one committed can be looked up (see _recover).
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
    async def _read(
        self, sql: str, params: Sequence[Any], *, one: Literal[False] = False
    ) -> list[TupleRow]: ...
    @overload
    async def _read(self, sql: str, params: Sequence[Any], *, one: Literal[True]) -> TupleRow | None: ...
    async def _read(
        self, sql: str, params: Sequence[Any], *, one: bool = False
    ) -> list[TupleRow] | TupleRow | None:
        """A query that changes nothing: sent again once on another connection if its
        connection was lost (Postgres restarted under it), so a returning Postgres fails no read."""
        for attempt in (1, 2):
            try:
                async with self.connection() as conn:
                    cur = await conn.execute(sql, params)
                    return await (cur.fetchone() if one else cur.fetchall())
            except StoreUnavailable as exc:
                if attempt == 2 or exc.lost_epoch is None:
                    raise
        raise AssertionError("unreachable")

    async def close(self) -> None:
        if self._reviving is not None:
            self._reviving.cancel()
        await self.pool.close()

    # --- schema -------------------------------------------------------------------------------
    @staticmethod
    def migration_versions() -> list[str]:
        """Every version :meth:`migrate` of this build records in ``schema_migrations``, in the order
        it applies them: one per ``service/migrations/*.sql`` file (the name without ``.sql``, by
        name), then the job queue's schema (``service.infra.jobs.SCHEMA_VERSION``)."""
        from .jobs import SCHEMA_VERSION

        files = importlib.resources.files("service.migrations").iterdir()
        names = sorted(f.name for f in files if f.name.endswith(".sql"))
        return [name.removesuffix(".sql") for name in names] + [SCHEMA_VERSION]

    async def migrate(self) -> list[str]:
        """Apply the plain-SQL migrations not yet applied; returns the versions applied now."""
        from .jobs import SCHEMA_VERSION, procrastinate_schema

        applied_now = []
        async with self.connection() as conn, conn.transaction():
            # One migrator at a time, even with several replicas starting together.
            await conn.execute("SELECT pg_advisory_xact_lock(727364)")
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            cur = await conn.execute("SELECT version FROM schema_migrations")
            done = {r[0] for r in await cur.fetchall()}
            for version in self.migration_versions():
                if version in done:
                    continue
                if version != SCHEMA_VERSION:
                    sql = importlib.resources.files("service.migrations") / f"{version}.sql"
                    await conn.execute(sql.read_text())
                else:
                    # The job queue's tables (service.infra.jobs), from the pinned Procrastinate's own file.
                    cur = await conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")
                    present = await cur.fetchone()
                    if not (present and present[0]):
                        await conn.execute(procrastinate_schema())
                await conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied_now.append(version)
        return applied_now

    async def pending_migrations(self) -> list[str]:
        """The versions of :meth:`migration_versions` not in ``schema_migrations`` yet, in the order
        :meth:`migrate` would apply them (all of them when it never ran); applies nothing.  A version
        recorded there that this build does not know (a newer release migrated) is no concern:
        migrations expand, then contract."""
        async with self.connection() as conn:
            cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
            present = await cur.fetchone()
            done: set[str] = set()
            if present and present[0]:
                cur = await conn.execute("SELECT version FROM schema_migrations")
                done = {r[0] for r in await cur.fetchall()}
        return [version for version in self.migration_versions() if version not in done]

    async def ping(self, timeout: float = 2.0) -> None:
        async with self.connection(timeout=timeout) as conn:
            await conn.execute("SELECT 1")

    async def replay_lag_ms(self) -> float | None:
        """On a standby, how far its replay trails what it has received (ms): 0 when it has
        replayed everything, else the age of the last replayed commit; None on a primary."""
        row = await self._read(
            "SELECT CASE WHEN NOT pg_is_in_recovery() THEN NULL"
            " WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0"
            " ELSE 1000 * EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END",
            (),
            one=True,
        )
        lag = _only(row)[0]
        return None if lag is None else float(lag)

    # --- games --------------------------------------------------------------------------------
    async def create_game(
        self,
        game: GameRow,
        token_hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str] | None = None,
        players: dict[int, str] | None = None,
        to_act: list[int] | None = None,
    ) -> None:
        """Record a new game, its seats (*bots*: the seats played by a bot, and its level; *players*:
        the seats bound to a player, and the player), who is *to_act* in its opening state, and its
        opening events in one transaction."""
        try:
            await self._create_game(game, token_hashes, events, bots or {}, players or {}, to_act)
        except psycopg.errors.UniqueViolation as exc:
            raise GameExists(game.game_id) from exc

    async def _create_game(
        self,
        game: GameRow,
        token_hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str],
        players: dict[int, str],
        to_act: list[int] | None,
    ) -> None:
        async with self.connection() as conn, conn.transaction():
            await self.insert_game(conn, game, token_hashes, events, bots, players, to_act)

    async def insert_game(
        self,
        conn: psycopg.AsyncConnection,
        game: GameRow,
        token_hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str],
        players: dict[int, str],
        to_act: list[int] | None,
    ) -> None:
        """:meth:`create_game`'s statements on *conn*, inside the caller's transaction (the matcher
        creates a game in the transaction that marks its seeks matched: ``seek_store``)."""
        await conn.execute(
            "INSERT INTO games (game_id, kind, rules_version, options, players, seed, seed_commitment,"
            " status, version, last_hash, imported, created_at, updated_at, app_id, visibility, to_act,"
            " rated, unrated_reason, creator, finished_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game.game_id,
                game.kind,
                game.rules_version,
                game.options.decode(),
                game.players,
                game.seed,
                game.seed_commitment,
                game.status,
                game.version,
                game.last_hash,
                game.imported,
                game.created_at,
                game.updated_at,
                game.app_id,
                game.visibility,
                to_act,
                game.rated,
                game.unrated_reason,
                game.creator,
                game.updated_at if game.status == "finished" else None,  # an imported record
            ),
        )
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO seats (game_id, seat, token_hash, claimed_at, bot, player_id)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (
                        game.game_id,
                        seat,
                        h,
                        game.created_at if h else None,
                        bots.get(seat),
                        players.get(seat),
                    )
                    for seat, h in enumerate(token_hashes)
                ],
            )
            if events:
                await cur.executemany(_INSERT_EVENT, [_event_params(e) for e in events])

    async def get_game(self, game_id: str) -> GameRow | None:
        row = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.game_id = %s", (game_id,), one=True
        )
        return _game(row) if row else None

    async def load(self, game_id: str, after: int) -> tuple[GameRow, list[StoredEvent]] | None:
        """The game's row and its events newer than *after*, in one round trip."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS}, {_EVENT_COLUMNS} FROM games g"
            " LEFT JOIN events e ON e.game_id = g.game_id AND e.seq > %s"
            " WHERE g.game_id = %s ORDER BY e.seq",
            (after, game_id),
        )
        if not rows:
            return None
        game = _game(rows[0])
        events = [_event(r, _N_GAME) for r in rows if r[_N_GAME] is not None]
        return game, events

    async def list_games(
        self,
        kind: str | None,
        status: str | None,
        before: tuple[datetime, str] | None,
        limit: int,
        *,
        app_id: str | None = None,
        whole_app: bool = False,
        player_id: str | None = None,
    ) -> list[GameRow]:
        """Games newest first: the public ones, and those *app_id*'s players may see (``app``; all of
        its games for the app itself, *whole_app*), and those where *player_id* holds a seat."""
        seen = ["g.visibility = 'public'"]
        params: list[Any] = []
        if app_id is not None:
            seen.append("g.app_id = %s" if whole_app else "(g.app_id = %s AND g.visibility = 'app')")
            params.append(app_id)
        if player_id is not None:
            seen.append("EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.player_id = %s)")
            params.append(player_id)
        where: list[str] = [seen[0] if len(seen) == 1 else "(" + " OR ".join(seen) + ")"]
        if kind is not None:
            where.append("g.kind = %s")
            params.append(kind)
        if status is not None:
            where.append("g.status = %s")
            params.append(status)
        if before is not None:
            where.append("(g.created_at, g.game_id) < (%s, %s)")
            params.extend(before)
        params.append(limit)
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE {' AND '.join(where)}"
            " ORDER BY g.created_at DESC, g.game_id DESC LIMIT %s",
            params,
        )
        return [_game(r) for r in rows]

    # --- seats --------------------------------------------------------------------------------
    async def seats(self, game_id: str) -> list[tuple[int, str | None, str | None]]:
        """``(seat, token hash or None while open, bot level or None for a person)`` per seat."""
        rows = await self._read(
            "SELECT seat, token_hash, bot FROM seats WHERE game_id = %s ORDER BY seat", (game_id,)
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def set_bot(self, game_id: str, seat: int, level: str | None) -> None:
        """Hand a claimed seat to a bot of *level* (``None``: back to its person)."""
        async with self.connection() as conn:
            await conn.execute(
                "UPDATE seats SET bot = %s WHERE game_id = %s AND seat = %s AND token_hash IS NOT NULL",
                (level, game_id, seat),
            )

    async def games_with_clocks(self, limit: int = 1000) -> list[str]:
        """Games under way whose options set a clock (for the sweep that re-schedules deadlines)."""
        rows = await self._read(
            "SELECT g.game_id FROM games g WHERE g.status = 'active'"
            " AND (g.options::jsonb -> 'table') ? 'clock' ORDER BY g.updated_at LIMIT %s",
            (limit,),
        )
        return [r[0] for r in rows]

    async def games_with_bots(self, limit: int = 1000) -> list[str]:
        """Games under way with at least one bot seat, least recently moved first (for the sweep
        that re-queues a bot turn whose job was lost)."""
        rows = await self._read(
            "SELECT g.game_id FROM games g WHERE g.status = 'active'"
            " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.bot IS NOT NULL)"
            " ORDER BY g.updated_at LIMIT %s",
            (limit,),
        )
        return [r[0] for r in rows]

    async def seat_token_hash(self, game_id: str, seat: int) -> tuple[str | None, bool]:
        """The seat's token hash (None while it is open, or if there is no such seat) and whether
        the seat is bound to a player (whose token may be re-issued: :meth:`reissue_token`)."""
        row = await self._read(
            "SELECT token_hash, player_id IS NOT NULL FROM seats WHERE game_id = %s AND seat = %s",
            (game_id, seat),
            one=True,
        )
        return (row[0], row[1]) if row else (None, False)

    async def bindings(self, game_id: str) -> list[tuple[int, str | None, bool]]:
        """``(seat, the player it is bound to or None, whether it is open)`` per seat of the game."""
        rows = await self._read(
            "SELECT seat, player_id, token_hash IS NULL FROM seats WHERE game_id = %s ORDER BY seat",
            (game_id,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def reissue_token(self, game_id: str, seat: int, player_id: str, token_hash: str) -> bool:
        """The seat's token is now the one hashed *token_hash*, and the old one stops working; False
        unless the seat is bound to *player_id*."""
        async with self.connection() as conn:
            cur = await conn.execute(
                "UPDATE seats SET token_hash = %s WHERE game_id = %s AND seat = %s AND player_id = %s",
                (token_hash, game_id, seat, player_id),
            )
            return cur.rowcount == 1

    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        now: datetime,
        bot: str | None = None,
        player_id: str | None = None,
    ) -> str | None:
        """Claim an open seat (for a bot of level *bot*, if given; bound to *player_id*, if given);
        returns the game's status afterwards, or None if the seat was taken.

        The last claim flips the game from ``open`` to ``active`` in the same transaction.
        """
        async with self.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE seats SET token_hash = %s, claimed_at = %s, bot = %s, player_id = %s"
                " WHERE game_id = %s AND seat = %s AND token_hash IS NULL",
                (token_hash, now, bot, player_id, game_id, seat),
            )
            if cur.rowcount != 1:
                return None
            cur = await conn.execute(
                "UPDATE games SET status = 'active', updated_at = %s WHERE game_id = %s AND status = 'open'"
                " AND NOT EXISTS (SELECT 1 FROM seats WHERE game_id = %s AND token_hash IS NULL)"
                " RETURNING status",
                (now, game_id, game_id),
            )
            flipped = await cur.fetchone()
            if flipped:
                return "active"
            cur = await conn.execute("SELECT status FROM games WHERE game_id = %s", (game_id,))
            row = await cur.fetchone()
            return row[0] if row else None

    # --- events -------------------------------------------------------------------------------
    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: list[StoredEvent],
        *,
        status: str,
        now: datetime,
        idempotency: tuple[str, IdempotentResponse] | None = None,
        to_act: list[int] | None = None,
    ) -> None:
        """Append one command's events atomically, if the stream is still at *expected_version*;
        the games row then says who is *to_act* (``GET /v1/me/games?to_act=true`` reads it).

        Appends join a batch: the commands that reach this point in the same turn of the event
        loop are sent together as one statement (:data:`BATCH_APPEND`, the same shape as
        :func:`append_statement` over arrays; :data:`BATCH_APPEND_KEYED` with the idempotent
        answers of keyed ones, which the web client's and the bots' moves all are), so one round
        trip, one transaction, one WAL flush (group commit; on these machines a send costs as much
        CPU as the statement).  A lost race fails the statement on the primary key, and the whole batch
        is then retried append by append, where each meets its own fate.  A lost connection
        answers "unavailable" to every append of the batch instead (its COMMIT may have happened).
        """
        if not events:
            return
        assert events[-1].seq == expected_version + len(events)
        rows = [_event_params(e) for e in events]
        idem = None
        if idempotency is not None:
            key, resp = idempotency
            idem = (game_id, key, resp.seat, resp.request_hash, resp.status_code, resp.response, now)
        sql = append_statement(len(events), idem is not None)
        params = append_params_of(game_id, expected_version, rows, events[-1].hash, status, now, idem, to_act)
        if self.batch_appends:
            acting = _int_array(to_act)
            update = (game_id, expected_version, events[-1].seq, events[-1].hash, status, now, acting)
            row = await self._in_batch(game_id, sql, params, rows, update, idem)
        else:
            row = await self._alone(sql, params, game_id, events[-1].seq, events[-1].hash)
        if row is None:
            raise VersionConflict(await self._version(game_id))
        if row[0] is None:
            # Unreachable: inserting seq expected+1 succeeded, so no committed event has it, and
            # every writer moves games.version with its events in one statement; or no event went
            # in, as there is no such game (games are never deleted).
            raise StoreError(f"game {game_id}: the version did not move ({row[1]} events appended)")

    async def _alone(
        self, sql: str, params: list[Any], game_id: str, last_seq: int, last_hash: str
    ) -> TupleRow | None:
        for attempt in (1, 2):
            try:
                async with self.connection() as conn:
                    cur = await conn.execute(sql, params)
                    return await cur.fetchone()
            except pg_errors.UniqueViolation as exc:
                if exc.diag.constraint_name == "idempotency_pkey":
                    raise DuplicateIdempotencyKey(str(exc)) from exc
                return None  # the primary key decided the race: another command was appended first
            except StoreUnavailable as exc:
                outcome = await self._recover(exc, game_id, last_seq, last_hash) if attempt == 1 else None
                if outcome is None:
                    raise
                if outcome != "absent":
                    return _answer_of(outcome, last_seq)
        raise AssertionError("unreachable")

    async def _restarted_since(self, epoch: str) -> bool:
        """Whether Postgres has restarted since a connection to it was opened (so every session of
        that connection is gone: whatever it did not commit, it never will)."""
        row = await self._read("SELECT pg_postmaster_start_time()::text", (), one=True)
        started: str = _only(row)[0]
        return started != epoch

    async def _recover(
        self, lost: StoreUnavailable, game_id: str, last_seq: int, last_hash: str
    ) -> str | None:
        """Whether an append whose connection was lost committed, when that can be known for sure:
        ``"committed"`` (its last event is there), ``"lost_race"`` (another command's is) or
        ``"absent"`` (nothing there: send it again).  Only after a Postgres restart is the answer
        certain — a live server may still be committing the lost session's transaction — so
        otherwise None: the caller hears "unavailable" (and retries with its Idempotency-Key)."""
        if lost.lost_epoch is None:
            return None
        try:
            if not await self._restarted_since(lost.lost_epoch):
                return None
            row = await self._read(
                "SELECT hash FROM events WHERE game_id = %s AND seq = %s", (game_id, last_seq), one=True
            )
        except StoreUnavailable:
            return None
        if row is None:
            return "absent"
        return "committed" if row[0] == last_hash else "lost_race"

    async def _in_batch(
        self,
        game_id: str,
        sql: str,
        params: list[Any],
        rows: list[tuple[Any, ...]],
        update: tuple[Any, ...],
        idempotency: tuple[Any, ...] | None,
    ) -> TupleRow | None:
        loop = asyncio.get_running_loop()
        batch = self._gathering
        if batch is None:
            batch = self._gathering = []
            if self._batches_in_flight < MAX_BATCHES_IN_FLIGHT:
                self._batches_in_flight += 1
                self._start_sender()
        pending = _Pending(game_id, sql, params, rows, update, idempotency, loop.create_future())
        batch.append(pending)
        return await pending.answer

    def _start_sender(self) -> None:
        # The loop keeps only a weak reference to a task: hold one until it is done.
        task = asyncio.get_running_loop().create_task(self._send_batches())
        self._senders.add(task)
        task.add_done_callback(self._senders.discard)

    async def _send_batches(self) -> None:
        try:
            while self._gathering:
                await asyncio.sleep(0)  # the appends reaching this point in the same turn join
                batch, self._gathering = self._gathering, None
                if not batch:
                    continue
                batch.sort(key=lambda p: p.game_id)  # keys taken in one order: batches never deadlock
                try:
                    rows = await self._send_batch(batch)
                except (pg_errors.IntegrityError, pg_errors.TransactionRollback, StoreRefused):
                    # Refused before COMMIT, so nothing of the batch was committed: each append goes
                    # alone and meets its own fate.
                    rows = None
                except Exception as exc:  # noqa: BLE001
                    # A lost connection may have lost the answer to a COMMIT that happened: each
                    # append is looked up (after a Postgres restart) or hears "unavailable".
                    await self._recover_batch(batch, exc)
                    continue
                if rows is not None:
                    for p, row in zip(batch, rows):
                        if not p.answer.done():
                            p.answer.set_result(row)
                    continue
                for p in batch:
                    if p.answer.done():
                        continue
                    try:
                        p.answer.set_result(
                            await self._alone(p.sql, p.params, p.game_id, p.update[2], p.update[3])
                        )
                    except Exception as exc:  # noqa: BLE001 - handed to the waiting move
                        p.answer.set_exception(exc)
        finally:
            self._batches_in_flight -= 1
            if self._gathering and self._batches_in_flight < MAX_BATCHES_IN_FLIGHT:
                self._batches_in_flight += 1
                self._start_sender()

    async def _recover_batch(self, batch: list[_Pending], exc: Exception) -> None:
        lost = exc if isinstance(exc, StoreUnavailable) else StoreUnavailable(f"{type(exc).__name__}: {exc}")
        for p in batch:
            if p.answer.done():
                continue
            seq, digest = p.update[2], p.update[3]
            try:
                outcome = await self._recover(lost, p.game_id, seq, digest)
                if outcome is None:
                    p.answer.set_exception(lost)
                elif outcome == "absent":
                    p.answer.set_result(await self._alone(p.sql, p.params, p.game_id, seq, digest))
                else:
                    p.answer.set_result(_answer_of(outcome, seq))
            except Exception as failure:  # noqa: BLE001 - handed to the waiting move
                if not p.answer.done():
                    p.answer.set_exception(failure)

    async def _send_batch(self, batch: list[_Pending]) -> list[TupleRow | None]:
        self.batches_sent += 1
        metrics.APPEND_BATCHES.inc()
        metrics.APPENDS_BATCHED.inc(len(batch))
        keep = (pg_errors.TransactionRollback,)  # refused before COMMIT: retried append by append
        if len(batch) == 1:
            async with self.connection(keep=keep) as conn:
                cur = await conn.execute(batch[0].sql, batch[0].params)
                return [await cur.fetchone()]
        # Columns, not rows: one fixed statement whatever the batch's size (prepared once).
        events = [list(col) for col in zip(*(r for p in batch for r in p.rows))]
        events[4] = [_int_array(v) for v in events[4]]  # visible_to: an array per row, as text
        updates = [list(col) for col in zip(*(p.update for p in batch))]
        columns = [_array_literal(column) for column in (*events, *updates)]
        sql = BATCH_APPEND
        keyed = [p.idempotency for p in batch if p.idempotency is not None]
        if keyed:
            answers = [list(col) for col in zip(*keyed)]
            answers[5] = ["\\x" + bytes(response).hex() for response in answers[5]]  # bytea, as hex
            columns += [_array_literal(column) for column in answers]
            sql = BATCH_APPEND_KEYED
        async with self.connection(keep=keep) as conn:
            cur = await conn.execute(sql, columns)
            moved = dict(await cur.fetchall())
        return [(moved.get(p.game_id), len(p.rows)) for p in batch]

    async def creator_of(self, game_id: str) -> str | None:
        """Who created the game (``games.creator``; None for a game from before it was kept)."""
        row = await self._read("SELECT creator FROM games WHERE game_id = %s", (game_id,), one=True)
        return row[0] if row else None

    async def version_of(self, game_id: str) -> int | None:
        """The game's current version (None if there is no such game)."""
        row = await self._read("SELECT version FROM games WHERE game_id = %s", (game_id,), one=True)
        return row[0] if row else None

    async def _version(self, game_id: str) -> int:
        return await self.version_of(game_id) or 0

    async def events(
        self, game_id: str, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        sql = f"SELECT {_EVENT_COLUMNS} FROM events e WHERE e.game_id = %s AND e.seq > %s"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND e.seq <= %s"
            params.append(upto)
        sql += " ORDER BY e.seq"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        return [_event(r) for r in await self._read(sql, params)]

    async def stream_events(
        self, game_id: str, after: int = 0, upto: int | None = None, batch: int = 500
    ) -> AsyncIterator[StoredEvent]:
        """Every event after *after*, fetched in batches so a long history never sits in memory."""
        while True:
            chunk = await self.events(game_id, after=after, upto=upto, limit=batch)
            for event in chunk:
                yield event
            if len(chunk) < batch:
                return
            after = chunk[-1].seq

    # --- idempotency --------------------------------------------------------------------------
    async def idempotent_response(self, game_id: str, key: str) -> IdempotentResponse | None:
        row = await self._read(
            "SELECT seat, request_hash, status_code, response FROM idempotency"
            " WHERE game_id = %s AND key = %s",
            (game_id, key),
            one=True,
        )
        return IdempotentResponse(row[0], row[1], row[2], bytes(row[3])) if row else None

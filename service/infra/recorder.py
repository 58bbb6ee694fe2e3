"""The event store's recorder: one stream per game, appended with an expected version.

The recorder has few verbs — append, select events after/up to a seq, load a game's row with its
newer events — plus the idempotency lookup the HTTP contract needs.  The primary key
``(game_id, seq)`` decides concurrent appends: a command's events are inserted first, so a writer
that lost the race hits the unique key and is told the version moved on.

Appends reaching it together share one statement and one commit (the group commit:
:meth:`Recorder.append`); an append whose connection was lost is looked up after a Postgres
restart (commit recovery: :meth:`Recorder._recover`).  Its queries go through the datastore
(:mod:`service.infra.datastore`), whose error translation applies.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from psycopg import errors as pg_errors
from psycopg.rows import TupleRow

from ..record.chain import StoredEvent
from . import metrics
from .datastore import Datastore, Retry, retried
from .store_types import (
    _EVENT_COLUMNS,
    _GAME_COLUMNS,
    _N_GAME,
    DuplicateIdempotencyKey,
    GameRow,
    IdempotentResponse,
    StoreError,
    StoreRefused,
    StoreUnavailable,
    VersionConflict,
    _event,
    _event_params,
    _game,
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
"""Several games' appends in one statement (see :meth:`Recorder.append`): the events of every
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


async def _committed_or_again(
    recorder: Recorder,
    lost: StoreUnavailable,
    sql: str,
    params: list[Any],
    game_id: str,
    last_seq: int,
    last_hash: str,
) -> TupleRow | Retry | None:
    """An append sent alone lost its connection: answered as the statement would have if it is
    known to have committed (or lost its race), sent again if it is known to be absent, else the
    caller hears the loss (see :meth:`Recorder._recover`)."""
    outcome = await recorder._recover(lost, game_id, last_seq, last_hash)
    if outcome is None:
        return Retry.GIVE_UP
    if outcome == "absent":
        return Retry.AGAIN
    return _answer_of(outcome, last_seq)


class Recorder:
    """Appends commands' events to their games' streams, and reads the streams back."""

    def __init__(self, datastore: Datastore, *, batch_appends: bool = True) -> None:
        self.datastore = datastore
        self._connection = datastore.connection
        self._read = datastore.read
        self.batch_appends = batch_appends
        self._gathering: list[_Pending] | None = None
        self._batches_in_flight = 0
        self._senders: set[asyncio.Task[None]] = set()
        self.batches_sent = 0

    # --- events -------------------------------------------------------------------------------
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
            future: asyncio.Future[TupleRow | None] = asyncio.get_running_loop().create_future()
            row = await self._in_batch(_Pending(game_id, sql, params, rows, update, idem, future))
        else:
            row = await self._alone(sql, params, game_id, events[-1].seq, events[-1].hash)
        if row is None:
            raise VersionConflict(await self._version(game_id))
        if row[0] is None:
            # Unreachable: inserting seq expected+1 succeeded, so no committed event has it, and
            # every writer moves games.version with its events in one statement; or no event went
            # in, as there is no such game (games are never deleted).
            raise StoreError(f"game {game_id}: the version did not move ({row[1]} events appended)")

    @retried(_committed_or_again)
    async def _alone(
        self, sql: str, params: list[Any], game_id: str, last_seq: int, last_hash: str
    ) -> TupleRow | None:
        try:
            async with self._connection() as conn:
                cur = await conn.execute(sql, params)
                return await cur.fetchone()
        except pg_errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "idempotency_pkey":
                raise DuplicateIdempotencyKey(str(exc)) from exc
            return None  # the primary key decided the race: another command was appended first

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
            if not await self.datastore.restarted_since(lost.lost_epoch):
                return None
            row = await self._read(
                "SELECT hash FROM events WHERE game_id = %s AND seq = %s", (game_id, last_seq), one=True
            )
        except StoreUnavailable:
            return None
        if row is None:
            return "absent"
        return "committed" if row[0] == last_hash else "lost_race"

    async def _in_batch(self, pending: _Pending) -> TupleRow | None:
        """*pending* joins the batch being gathered (a sender starts if none is in flight); its
        answer once the batch (or, after a failure, the append alone) is settled."""
        batch = self._gathering
        if batch is None:
            batch = self._gathering = []
            if self._batches_in_flight < MAX_BATCHES_IN_FLIGHT:
                self._batches_in_flight += 1
                self._start_sender()
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
            async with self._connection(keep=keep) as conn:
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
        async with self._connection(keep=keep) as conn:
            cur = await conn.execute(sql, columns)
            moved = dict(await cur.fetchall())
        return [(moved.get(p.game_id), len(p.rows)) for p in batch]

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

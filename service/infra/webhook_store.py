"""The webhooks recorder: an app's endpoints and secrets, the pump's cursor per game, deliveries
and their attempts (``service/migrations/004_webhooks.sql``).

Queries go through the event store's pool (:meth:`EventStore.connection`, whose error translation
applies), so nothing above this module imports psycopg.  Every statement about a delivery names its
game (the tables are distributed with the game), except the delivery log of an endpoint and the
sweep's look for work, which span games by design.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

import msgspec
import psycopg
from psycopg.rows import TupleRow

from .store import EventStore


class EndpointRow(msgspec.Struct, frozen=True, kw_only=True):
    endpoint_id: str
    app_id: str
    url: str
    event_types: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    disabled_at: datetime | None
    created_at: datetime
    updated_at: datetime


class SecretRow(msgspec.Struct, frozen=True, kw_only=True):
    generation: int
    secret: str
    created_at: datetime
    expires_at: datetime | None


class Progress(msgspec.Struct, kw_only=True):
    """How far a game's record has been turned into notifications (``webhook_progress``)."""

    seq: int = 0
    status_seen: str = "open"
    seats_seen: str = ""
    rematch_seen: bool = False
    notified: int = 0
    finished_at: datetime | None = None


class Notification(msgspec.Struct, frozen=True, kw_only=True):
    """One notification about a game, to go to every endpoint subscribed to its type."""

    position: int
    message_id: str
    event_type: str
    payload: str


class DeliveryRow(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    endpoint_id: str
    position: int
    message_id: str
    event_type: str
    payload: str
    status: str
    tries: int
    attempts: int
    next_attempt_at: datetime
    created_at: datetime
    finished_at: datetime | None


class AttemptRow(msgspec.Struct, frozen=True, kw_only=True):
    attempt: int
    attempted_at: datetime
    status_code: int | None
    error: str | None
    duration_ms: int
    response_excerpt: str


class Due(msgspec.Struct, frozen=True, kw_only=True):
    """The first pending delivery of one game to one endpoint, and where and how to send it."""

    url: str
    enabled: bool
    secrets: list[str]
    delivery: DeliveryRow


_ENDPOINT = (
    "e.endpoint_id, e.app_id, e.url, e.event_types, e.description, e.enabled, e.disabled_reason,"
    " e.disabled_at, e.created_at, e.updated_at"
)
_DELIVERY = (
    "d.game_id, d.endpoint_id, d.position, d.message_id, d.event_type, d.payload, d.status, d.tries,"
    " d.attempts, d.next_attempt_at, d.created_at, d.finished_at"
)
SEATS_SEEN = (
    "(SELECT coalesce(string_agg(CASE WHEN s.token_hash IS NULL THEN '' WHEN s.bot IS NULL THEN 'p'"
    " ELSE 'b' END, ',' ORDER BY s.seat), '') FROM seats s WHERE s.game_id = g.game_id)"
)
"""Who plays each seat of game ``g``, as ``webhook_progress.seats_seen`` records it."""
REMATCH_OF = "'g_' || left(encode(sha256(convert_to('rematch/' || p.game_id, 'UTF8')), 'hex'), 20)"
"""The id of the rematch of progress row ``p``'s game (:func:`service.application.seats.rematch_id`)."""


def _endpoint(row: TupleRow) -> EndpointRow:
    return EndpointRow(
        endpoint_id=row[0],
        app_id=row[1],
        url=row[2],
        event_types=list(row[3]),
        description=row[4],
        enabled=row[5],
        disabled_reason=row[6],
        disabled_at=row[7],
        created_at=row[8],
        updated_at=row[9],
    )


def _delivery(row: TupleRow) -> DeliveryRow:
    return DeliveryRow(
        game_id=row[0],
        endpoint_id=row[1],
        position=row[2],
        message_id=row[3],
        event_type=row[4],
        payload=row[5],
        status=row[6],
        tries=row[7],
        attempts=row[8],
        next_attempt_at=row[9],
        created_at=row[10],
        finished_at=row[11],
    )


class PumpStep:
    """One pump's transaction on one game: its cursor is locked until the step commits."""

    def __init__(self, conn: psycopg.AsyncConnection, game_id: str) -> None:
        self._conn = conn
        self.game_id = game_id

    async def progress(self) -> Progress | None:
        """The game's cursor, locked (None: the pump has never seen the game)."""
        cur = await self._conn.execute(
            "SELECT seq, status_seen, seats_seen, rematch_seen, notified, finished_at"
            " FROM webhook_progress WHERE game_id = %s FOR UPDATE",
            (self.game_id,),
        )
        row = await cur.fetchone()
        if row is None:
            return None
        return Progress(
            seq=row[0],
            status_seen=row[1],
            seats_seen=row[2],
            rematch_seen=row[3],
            notified=row[4],
            finished_at=row[5],
        )

    async def subscribers(self, app_id: str) -> list[tuple[str, list[str]]]:
        """Every endpoint of *app_id* and the event types it wants (a disabled one keeps its
        backlog: it is delivered when the endpoint is enabled again)."""
        cur = await self._conn.execute(
            "SELECT endpoint_id, event_types FROM webhook_endpoints WHERE app_id = %s", (app_id,)
        )
        return [(r[0], list(r[1])) for r in await cur.fetchall()]

    async def deliver(self, deliveries: list[tuple[str, Notification]], now: datetime) -> None:
        """Queue each ``(endpoint_id, notification)``, due now."""
        if not deliveries:
            return
        async with self._conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO webhook_deliveries (game_id, endpoint_id, position, message_id, event_type,"
                " payload, status, next_attempt_at, created_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, 'pending', %s, %s)",
                [
                    (self.game_id, endpoint_id, n.position, n.message_id, n.event_type, n.payload, now, now)
                    for endpoint_id, n in deliveries
                ],
            )

    async def save(self, progress: Progress, now: datetime) -> None:
        await self._conn.execute(
            "INSERT INTO webhook_progress (game_id, seq, status_seen, seats_seen, rematch_seen, notified,"
            " finished_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (game_id) DO UPDATE SET seq = EXCLUDED.seq, status_seen = EXCLUDED.status_seen,"
            " seats_seen = EXCLUDED.seats_seen, rematch_seen = EXCLUDED.rematch_seen,"
            " notified = EXCLUDED.notified, finished_at = EXCLUDED.finished_at,"
            " updated_at = EXCLUDED.updated_at",
            (
                self.game_id,
                progress.seq,
                progress.status_seen,
                progress.seats_seen,
                progress.rematch_seen,
                progress.notified,
                progress.finished_at,
                now,
            ),
        )


class WebhookStore:
    """The webhook tables, on the event store's pool."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    # --- endpoints ----------------------------------------------------------------------------
    async def create_endpoint(self, endpoint: EndpointRow, secret: str) -> None:
        """Record a new endpoint and its first secret in one transaction."""
        async with self.store.connection() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO webhook_endpoints (endpoint_id, app_id, url, event_types, description, enabled,"
                " disabled_reason, disabled_at, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    endpoint.endpoint_id,
                    endpoint.app_id,
                    endpoint.url,
                    endpoint.event_types,
                    endpoint.description,
                    endpoint.enabled,
                    endpoint.disabled_reason,
                    endpoint.disabled_at,
                    endpoint.created_at,
                    endpoint.updated_at,
                ),
            )
            await conn.execute(
                "INSERT INTO webhook_secrets (endpoint_id, generation, secret, created_at)"
                " VALUES (%s, 1, %s, %s)",
                (endpoint.endpoint_id, secret, endpoint.created_at),
            )

    async def count_endpoints(self, app_id: str) -> int:
        row = await self.store._read(
            "SELECT count(*) FROM webhook_endpoints WHERE app_id = %s", (app_id,), one=True
        )
        return int(row[0]) if row else 0

    async def endpoints(self, app_id: str) -> list[EndpointRow]:
        rows = await self.store._read(
            f"SELECT {_ENDPOINT} FROM webhook_endpoints e WHERE e.app_id = %s"
            " ORDER BY e.created_at, e.endpoint_id",
            (app_id,),
        )
        return [_endpoint(r) for r in rows]

    async def endpoint(self, app_id: str, endpoint_id: str) -> EndpointRow | None:
        """*app_id*'s endpoint *endpoint_id* (None also when it is another app's)."""
        row = await self.store._read(
            f"SELECT {_ENDPOINT} FROM webhook_endpoints e WHERE e.endpoint_id = %s AND e.app_id = %s",
            (endpoint_id, app_id),
            one=True,
        )
        return _endpoint(row) if row else None

    async def update_endpoint(
        self, app_id: str, endpoint_id: str, changes: dict[str, Any], now: datetime
    ) -> tuple[EndpointRow, bool] | None:
        """Apply *changes* (column -> value); enabling clears the service's reason and makes the
        pending backlog due now.  Returns the endpoint and whether it was enabled by this change."""
        async with self.store.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT enabled FROM webhook_endpoints WHERE endpoint_id = %s AND app_id = %s FOR UPDATE",
                (endpoint_id, app_id),
            )
            before = await cur.fetchone()
            if before is None:
                return None
            values = dict(changes)
            if values.get("enabled") is not None:
                values["disabled_reason"] = None
                values["disabled_at"] = None if values["enabled"] else now
            values["updated_at"] = now
            assignments = ", ".join(f"{column} = %s" for column in values)
            cur = await conn.execute(
                f"UPDATE webhook_endpoints e SET {assignments} WHERE e.endpoint_id = %s"
                f" RETURNING {_ENDPOINT}",
                (*values.values(), endpoint_id),
            )
            row = await cur.fetchone()
            assert row is not None  # locked above
            enabled_now = bool(values.get("enabled")) and not before[0]
            if enabled_now:
                # The backlog resumes at once, each delivery on a fresh schedule.
                await conn.execute(
                    "UPDATE webhook_deliveries SET next_attempt_at = %s, tries = 0"
                    " WHERE endpoint_id = %s AND status = 'pending'",
                    (now, endpoint_id),
                )
            return _endpoint(row), enabled_now

    async def delete_endpoint(self, app_id: str, endpoint_id: str) -> bool:
        """Forget the endpoint, its secrets, deliveries and attempts; False if there is none."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM webhook_endpoints WHERE endpoint_id = %s AND app_id = %s", (endpoint_id, app_id)
            )
            return cur.rowcount == 1

    async def disable(self, endpoint_id: str, reason: str, now: datetime) -> None:
        async with self.store.connection() as conn:
            await conn.execute(
                "UPDATE webhook_endpoints SET enabled = false, disabled_reason = %s, disabled_at = %s,"
                " updated_at = %s WHERE endpoint_id = %s AND enabled",
                (reason, now, now, endpoint_id),
            )

    # --- secrets ------------------------------------------------------------------------------
    async def rotate_secret(
        self, app_id: str, endpoint_id: str, secret: str, now: datetime, overlap_until: datetime
    ) -> list[SecretRow] | None:
        """Add *secret* as the endpoint's current one; the secrets live until now sign alongside
        it until *overlap_until* (no later than they would have anyway).  Secrets expired for good
        are dropped.  Returns the endpoint's secrets, newest first (None: no such endpoint)."""
        async with self.store.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT 1 FROM webhook_endpoints WHERE endpoint_id = %s AND app_id = %s FOR UPDATE",
                (endpoint_id, app_id),
            )
            if await cur.fetchone() is None:
                return None
            await conn.execute(
                "DELETE FROM webhook_secrets WHERE endpoint_id = %s AND expires_at <= %s", (endpoint_id, now)
            )
            await conn.execute(
                "UPDATE webhook_secrets SET expires_at = least(coalesce(expires_at, %s), %s)"
                " WHERE endpoint_id = %s",
                (overlap_until, overlap_until, endpoint_id),
            )
            await conn.execute(
                "INSERT INTO webhook_secrets (endpoint_id, generation, secret, created_at)"
                " SELECT %s, coalesce(max(generation), 0) + 1, %s, %s FROM webhook_secrets"
                " WHERE endpoint_id = %s",
                (endpoint_id, secret, now, endpoint_id),
            )
            cur = await conn.execute(
                "SELECT generation, secret, created_at, expires_at FROM webhook_secrets"
                " WHERE endpoint_id = %s ORDER BY generation DESC",
                (endpoint_id,),
            )
            return [
                SecretRow(generation=r[0], secret=r[1], created_at=r[2], expires_at=r[3])
                for r in await cur.fetchall()
            ]

    # --- the pump -----------------------------------------------------------------------------
    async def game_app(self, game_id: str) -> tuple[bool, str | None]:
        """Whether *game_id* exists, and the app that owns it (None: nobody's)."""
        row = await self.store._read("SELECT app_id FROM games WHERE game_id = %s", (game_id,), one=True)
        return (row is not None, row[0] if row else None)

    async def seats_seen(self, game_id: str) -> str:
        """Who plays each seat of *game_id* now (``webhook_progress.seats_seen``'s form)."""
        row = await self.store._read(
            f"SELECT {SEATS_SEEN} FROM games g WHERE g.game_id = %s", (game_id,), one=True
        )
        return row[0] if row and row[0] is not None else ""

    async def exists(self, game_id: str) -> bool:
        row = await self.store._read("SELECT 1 FROM games WHERE game_id = %s", (game_id,), one=True)
        return row is not None

    async def seat_events(
        self, game_id: str, after: int, upto: int
    ) -> list[tuple[str, int, datetime, bytes]]:
        """The game's public seat events after *after* up to *upto* — a seat timed out, a seat a bot
        plays on — as ``(type, seq, recorded_at, payload)``."""
        rows = await self.store._read(
            "SELECT e.type, e.seq, e.recorded_at, e.payload::text FROM events e"
            " WHERE e.game_id = %s AND e.seq > %s AND e.seq <= %s AND e.visible_to IS NULL"
            " AND e.type IN ('table.TimedOut', 'table.SeatReplaced') ORDER BY e.seq",
            (game_id, after, upto),
        )
        return [(r[0], r[1], r[2], r[3].encode()) for r in rows]

    @contextlib.asynccontextmanager
    async def pump_step(self, game_id: str) -> AsyncIterator[PumpStep]:
        """A transaction on *game_id*'s cursor (see :class:`PumpStep`)."""
        async with self.store.connection() as conn, conn.transaction():
            yield PumpStep(conn, game_id)

    # --- deliveries ---------------------------------------------------------------------------
    async def due(self, endpoint_id: str, game_id: str, now: datetime) -> Due | None:
        """The first pending delivery of *game_id* to *endpoint_id*, with the endpoint's URL and
        live secrets (None: nothing pending, or no such endpoint)."""
        rows = await self.store._read(
            f"SELECT e.url, e.enabled, {_DELIVERY} FROM webhook_endpoints e"
            " JOIN webhook_deliveries d ON d.endpoint_id = e.endpoint_id"
            " WHERE e.endpoint_id = %s AND d.game_id = %s AND d.status = 'pending'"
            " ORDER BY d.position LIMIT 1",
            (endpoint_id, game_id),
        )
        if not rows:
            return None
        secrets = await self.store._read(
            "SELECT secret FROM webhook_secrets WHERE endpoint_id = %s"
            " AND (expires_at IS NULL OR expires_at > %s) ORDER BY generation DESC",
            (endpoint_id, now),
        )
        row = rows[0]
        return Due(url=row[0], enabled=row[1], secrets=[s[0] for s in secrets], delivery=_delivery(row[2:]))

    async def record_attempt(
        self,
        delivery: DeliveryRow,
        at: datetime,
        *,
        status_code: int | None,
        error: str | None,
        duration_ms: int,
        excerpt: str,
        outcome: str,
        next_attempt_at: datetime,
    ) -> bool:
        """Record an attempt at *delivery* and its *outcome* (``succeeded``, ``failed``: given up,
        or ``pending``: to be tried again at *next_attempt_at*); False if the delivery was no longer
        pending (its endpoint deleted meanwhile)."""
        async with self.store.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE webhook_deliveries SET status = %s, tries = tries + 1, attempts = attempts + 1,"
                " next_attempt_at = %s, finished_at = %s"
                " WHERE game_id = %s AND endpoint_id = %s AND position = %s AND status = 'pending'"
                " RETURNING attempts",
                (
                    outcome,
                    next_attempt_at,
                    None if outcome == "pending" else at,
                    delivery.game_id,
                    delivery.endpoint_id,
                    delivery.position,
                ),
            )
            row = await cur.fetchone()
            if row is None:
                return False
            await conn.execute(
                "INSERT INTO webhook_attempts (game_id, endpoint_id, position, attempt, attempted_at,"
                " status_code, error, duration_ms, response_excerpt)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    delivery.game_id,
                    delivery.endpoint_id,
                    delivery.position,
                    row[0],
                    at,
                    status_code,
                    error,
                    duration_ms,
                    excerpt,
                ),
            )
            return True

    async def deliveries(
        self,
        endpoint_id: str,
        *,
        status: str | None,
        game_id: str | None,
        before: tuple[datetime, str, int] | None,
        limit: int,
    ) -> list[tuple[DeliveryRow, list[AttemptRow]]]:
        """The endpoint's deliveries, newest first, each with its attempts (oldest first)."""
        where = ["d.endpoint_id = %s"]
        params: list[Any] = [endpoint_id]
        if status is not None:
            where.append("d.status = %s")
            params.append(status)
        if game_id is not None:
            where.append("d.game_id = %s")
            params.append(game_id)
        if before is not None:
            where.append("(d.created_at, d.game_id, d.position) < (%s, %s, %s)")
            params.extend(before)
        params.append(limit)
        rows = await self.store._read(
            f"SELECT {_DELIVERY} FROM webhook_deliveries d WHERE {' AND '.join(where)}"
            " ORDER BY d.created_at DESC, d.game_id DESC, d.position DESC LIMIT %s",
            params,
        )
        found = [_delivery(r) for r in rows]
        attempts = await self._attempts(endpoint_id, [(d.game_id, d.position) for d in found])
        return [(d, attempts.get((d.game_id, d.position), [])) for d in found]

    async def delivery(
        self, endpoint_id: str, game_id: str, position: int
    ) -> tuple[DeliveryRow, list[AttemptRow]] | None:
        row = await self.store._read(
            f"SELECT {_DELIVERY} FROM webhook_deliveries d"
            " WHERE d.game_id = %s AND d.endpoint_id = %s AND d.position = %s",
            (game_id, endpoint_id, position),
            one=True,
        )
        if row is None:
            return None
        delivery = _delivery(row)
        attempts = await self._attempts(endpoint_id, [(game_id, position)])
        return delivery, attempts.get((game_id, position), [])

    async def _attempts(
        self, endpoint_id: str, keys: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], list[AttemptRow]]:
        if not keys:
            return {}
        rows = await self.store._read(
            "SELECT a.game_id, a.position, a.attempt, a.attempted_at, a.status_code, a.error, a.duration_ms,"
            " a.response_excerpt FROM webhook_attempts a"
            " JOIN unnest(%s::text[], %s::bigint[]) AS k(game_id, position)"
            " ON a.game_id = k.game_id AND a.position = k.position"
            " WHERE a.endpoint_id = %s ORDER BY a.game_id, a.position, a.attempt",
            ([k[0] for k in keys], [k[1] for k in keys], endpoint_id),
        )
        out: dict[tuple[str, int], list[AttemptRow]] = {}
        for r in rows:
            out.setdefault((r[0], r[1]), []).append(
                AttemptRow(
                    attempt=r[2],
                    attempted_at=r[3],
                    status_code=r[4],
                    error=r[5],
                    duration_ms=r[6],
                    response_excerpt=r[7],
                )
            )
        return out

    async def redeliver(self, endpoint_id: str, game_id: str, position: int, now: datetime) -> bool:
        """Send the delivery again, now, on a fresh schedule (whatever became of it)."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "UPDATE webhook_deliveries SET status = 'pending', tries = 0, next_attempt_at = %s,"
                " finished_at = NULL WHERE game_id = %s AND endpoint_id = %s AND position = %s",
                (now, game_id, endpoint_id, position),
            )
            return cur.rowcount == 1

    async def pending_games(self, endpoint_id: str, limit: int = 10_000) -> list[str]:
        """The games with a pending delivery to *endpoint_id* (an endpoint enabled again)."""
        rows = await self.store._read(
            "SELECT DISTINCT d.game_id FROM webhook_deliveries d"
            " WHERE d.endpoint_id = %s AND d.status = 'pending' LIMIT %s",
            (endpoint_id, limit),
        )
        return [r[0] for r in rows]

    # --- the sweep ----------------------------------------------------------------------------
    async def games_behind(self, finished_since: datetime, limit: int = 1000) -> list[str]:
        """Games of apps with endpoints whose record has moved past the pump's cursor — events,
        status or seats — the games finished since *finished_since* included, least recently
        changed first."""
        rows = await self.store._read(
            "SELECT g.game_id FROM games g LEFT JOIN webhook_progress p ON p.game_id = g.game_id"
            " WHERE g.app_id IS NOT NULL AND (g.status <> 'finished' OR g.finished_at > %s)"
            " AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.app_id = g.app_id)"
            " AND (p.game_id IS NULL OR p.seq < g.version OR p.status_seen <> g.status"
            f" OR (g.status = 'active' AND p.seats_seen <> {SEATS_SEEN}))"
            " ORDER BY g.updated_at LIMIT %s",
            (finished_since, limit),
        )
        return [r[0] for r in rows]

    async def rematches_unseen(self, finished_since: datetime, limit: int = 1000) -> list[str]:
        """App games finished since *finished_since* whose rematch exists but was not announced."""
        rows = await self.store._read(
            "SELECT p.game_id FROM webhook_progress p WHERE NOT p.rematch_seen AND p.finished_at > %s"
            f" AND EXISTS (SELECT 1 FROM games r WHERE r.game_id = {REMATCH_OF}) LIMIT %s",
            (finished_since, limit),
        )
        return [r[0] for r in rows]

    async def forget_finished(self, before: datetime, limit: int = 5000) -> int:
        """Delete up to *limit* deliveries (and their attempts) that succeeded or were given up
        before *before*: the delivery log's retention.  Pending ones are never forgotten."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM webhook_deliveries d USING ("
                " SELECT game_id, endpoint_id, position FROM webhook_deliveries"
                " WHERE status <> 'pending' AND finished_at < %s LIMIT %s) old"
                " WHERE d.game_id = old.game_id AND d.endpoint_id = old.endpoint_id"
                " AND d.position = old.position",
                (before, limit),
            )
            return cur.rowcount

    async def deliveries_due(self, before: datetime, limit: int = 1000) -> list[tuple[str, str]]:
        """``(endpoint_id, game_id)`` with a delivery due before *before* to an enabled endpoint."""
        rows = await self.store._read(
            "SELECT DISTINCT d.endpoint_id, d.game_id FROM webhook_deliveries d"
            " JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id"
            " WHERE d.status = 'pending' AND d.next_attempt_at < %s AND e.enabled LIMIT %s",
            (before, limit),
        )
        return [(r[0], r[1]) for r in rows]

"""The Web Push recorder: browsers' push subscriptions, the pump's cursor per game and the
notifications waiting to be sent (``service/migrations/008_push.sql``).

Queries go through the event store's pool (:meth:`EventStore.connection`, whose error translation
applies), so nothing above this module imports psycopg.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime

import msgspec
import psycopg

from .store import EventStore


class SubscriptionRow(msgspec.Struct, frozen=True, kw_only=True):
    subscription_id: str
    player_id: str | None
    game_id: str | None
    seat: int | None
    endpoint: str
    p256dh: str
    auth: str
    created_at: datetime
    last_success_at: datetime | None
    failures: int


class PushProgress(msgspec.Struct, kw_only=True):
    """How far a game's record has been turned into push notifications (``push_progress``)."""

    seq: int = 0
    status_seen: str = "open"
    to_act_seen: list[int] = []
    notified: int = 0


class GameNow(msgspec.Struct, frozen=True, kw_only=True):
    """What the pump reads of a game's row: all it needs (no state is folded)."""

    kind: str
    status: str
    version: int
    to_act: list[int]
    updated_at: datetime


class SeatHolder(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None
    bot: bool


class Outgoing(msgspec.Struct, frozen=True, kw_only=True):
    """One notification for one subscription, queued in the pump's transaction."""

    subscription_id: str
    position: int
    kind: str
    payload: str


class Due(msgspec.Struct, frozen=True, kw_only=True):
    """A queued notification and where to send it."""

    game_id: str
    subscription_id: str
    position: int
    kind: str
    payload: str
    tries: int
    endpoint: str
    p256dh: str
    auth: str


_SUBSCRIPTION = (
    "subscription_id, player_id, game_id, seat, endpoint, p256dh, auth, created_at, last_success_at, failures"
)


def _subscription(row: tuple[object, ...]) -> SubscriptionRow:
    return msgspec.convert(dict(zip(_SUBSCRIPTION.split(", "), row, strict=True)), SubscriptionRow)


class PushStep:
    """One pump's transaction on one game: its cursor is locked until the step commits."""

    def __init__(self, conn: psycopg.AsyncConnection, game_id: str) -> None:
        self._conn = conn
        self.game_id = game_id

    async def game(self) -> GameNow | None:
        cur = await self._conn.execute(
            "SELECT kind, status, version, coalesce(to_act, '{}'), updated_at FROM games WHERE game_id = %s",
            (self.game_id,),
        )
        row = await cur.fetchone()
        if row is None:
            return None
        return GameNow(kind=row[0], status=row[1], version=row[2], to_act=list(row[3]), updated_at=row[4])

    async def progress(self) -> PushProgress | None:
        """The game's cursor, locked (None: the pump has never seen the game)."""
        cur = await self._conn.execute(
            "SELECT seq, status_seen, to_act_seen, notified FROM push_progress WHERE game_id = %s FOR UPDATE",
            (self.game_id,),
        )
        row = await cur.fetchone()
        if row is None:
            return None
        return PushProgress(seq=row[0], status_seen=row[1], to_act_seen=list(row[2]), notified=row[3])

    async def acted(self, after: int, upto: int) -> set[int]:
        """The seats whose commands the record holds after *after* up to *upto*."""
        cur = await self._conn.execute(
            "SELECT DISTINCT seat FROM events"
            " WHERE game_id = %s AND seq > %s AND seq <= %s AND seat IS NOT NULL",
            (self.game_id, after, upto),
        )
        return {r[0] for r in await cur.fetchall()}

    async def seats(self) -> list[SeatHolder]:
        cur = await self._conn.execute(
            "SELECT seat, player_id, bot IS NOT NULL FROM seats WHERE game_id = %s ORDER BY seat",
            (self.game_id,),
        )
        return [SeatHolder(seat=r[0], player_id=r[1], bot=r[2]) for r in await cur.fetchall()]

    async def subscribers(
        self, seats: dict[int, str | None], created_before: datetime
    ) -> list[tuple[int, str]]:
        """``(seat, subscription_id)`` of every subscription of *seats* (seat -> its player, if
        any): the seat's own, and its player's — those made before *created_before* only."""
        if not seats:
            return []
        numbers = list(seats)
        players = [seats[s] for s in numbers]
        cur = await self._conn.execute(
            "SELECT k.seat, s.subscription_id FROM unnest(%s::integer[], %s::text[]) AS k(seat, player_id)"
            " JOIN push_subscriptions s ON (s.game_id = %s AND s.seat = k.seat)"
            " OR (k.player_id IS NOT NULL AND s.player_id = k.player_id)"
            " WHERE s.created_at <= %s ORDER BY k.seat, s.subscription_id",
            (numbers, players, self.game_id, created_before),
        )
        return [(r[0], r[1]) for r in await cur.fetchall()]

    async def queue(self, outgoing: list[Outgoing], now: datetime) -> None:
        if not outgoing:
            return
        async with self._conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO push_outbox (game_id, subscription_id, position, kind, payload, next_attempt_at,"
                " created_at) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    (self.game_id, o.subscription_id, o.position, o.kind, o.payload, now, now)
                    for o in outgoing
                ],
            )

    async def save(self, progress: PushProgress, now: datetime) -> None:
        await self._conn.execute(
            "INSERT INTO push_progress (game_id, seq, status_seen, to_act_seen, notified, updated_at)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (game_id) DO UPDATE SET seq = EXCLUDED.seq,"
            " status_seen = EXCLUDED.status_seen, to_act_seen = EXCLUDED.to_act_seen,"
            " notified = EXCLUDED.notified, updated_at = EXCLUDED.updated_at",
            (self.game_id, progress.seq, progress.status_seen, progress.to_act_seen, progress.notified, now),
        )


class PushStore:
    """The push tables, on the event store's pool."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    # --- subscriptions ------------------------------------------------------------------------
    async def subscribe(self, row: SubscriptionRow, keep: int) -> SubscriptionRow:
        """Record *row*, or renew the keys of the owner's subscription of the same endpoint (its id
        and age kept); the owner keeps its *keep* newest subscriptions."""
        if row.player_id is not None:
            owner, conflict = "player_id = %s", "(player_id, endpoint) WHERE player_id IS NOT NULL"
            owner_params: tuple[object, ...] = (row.player_id,)
        else:
            owner, conflict = (
                "game_id = %s AND seat = %s",
                "(game_id, seat, endpoint) WHERE game_id IS NOT NULL",
            )
            owner_params = (row.game_id, row.seat)
        async with self.store.connection() as conn, conn.transaction():
            cur = await conn.execute(
                f"INSERT INTO push_subscriptions ({_SUBSCRIPTION})"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                f" ON CONFLICT {conflict} DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,"
                f" failures = 0 RETURNING {_SUBSCRIPTION}",
                (
                    row.subscription_id,
                    row.player_id,
                    row.game_id,
                    row.seat,
                    row.endpoint,
                    row.p256dh,
                    row.auth,
                    row.created_at,
                    row.last_success_at,
                    row.failures,
                ),
            )
            found = await cur.fetchone()
            assert found is not None
            await conn.execute(
                f"DELETE FROM push_subscriptions WHERE subscription_id IN (SELECT subscription_id FROM"
                f" push_subscriptions WHERE {owner}"
                " ORDER BY created_at DESC, subscription_id DESC OFFSET %s)",
                (*owner_params, keep),
            )
            return _subscription(found)

    async def subscription(self, subscription_id: str) -> SubscriptionRow | None:
        row = await self.store._read(
            f"SELECT {_SUBSCRIPTION} FROM push_subscriptions WHERE subscription_id = %s",
            (subscription_id,),
            one=True,
        )
        return None if row is None else _subscription(row)

    async def remove(self, subscription_id: str) -> bool:
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM push_subscriptions WHERE subscription_id = %s", (subscription_id,)
            )
            return cur.rowcount == 1

    async def followed(self, game_id: str) -> bool:
        """Whether any subscription may hear of *game_id* (one of its seats', or its players')."""
        row = await self.store._read(
            "SELECT EXISTS (SELECT 1 FROM push_subscriptions WHERE game_id = %s)"
            " OR EXISTS (SELECT 1 FROM seats t JOIN push_subscriptions s ON s.player_id = t.player_id"
            " WHERE t.game_id = %s AND t.player_id IS NOT NULL)",
            (game_id, game_id),
            one=True,
        )
        return bool(row and row[0])

    # --- the pump -----------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def step(self, game_id: str) -> AsyncIterator[PushStep]:
        async with self.store.connection() as conn, conn.transaction():
            yield PushStep(conn, game_id)

    # --- sending ------------------------------------------------------------------------------
    async def due(self, game_id: str, now: datetime, limit: int) -> list[Due]:
        rows = await self.store._read(
            "SELECT o.game_id, o.subscription_id, o.position, o.kind, o.payload, o.tries, s.endpoint,"
            " s.p256dh, s.auth FROM push_outbox o"
            " JOIN push_subscriptions s ON s.subscription_id = o.subscription_id"
            " WHERE o.game_id = %s AND o.next_attempt_at <= %s"
            " ORDER BY o.position, o.subscription_id LIMIT %s",
            (game_id, now, limit),
        )
        return [
            Due(
                game_id=r[0],
                subscription_id=r[1],
                position=r[2],
                kind=r[3],
                payload=r[4],
                tries=r[5],
                endpoint=r[6],
                p256dh=r[7],
                auth=r[8],
            )
            for r in rows
        ]

    async def next_due(self, game_id: str) -> datetime | None:
        row = await self.store._read(
            "SELECT min(next_attempt_at) FROM push_outbox WHERE game_id = %s", (game_id,), one=True
        )
        return None if row is None else row[0]

    async def sent(self, due: Due, now: datetime) -> None:
        async with self.store.connection() as conn, conn.transaction():
            await conn.execute(
                "DELETE FROM push_outbox WHERE game_id = %s AND subscription_id = %s AND position = %s",
                (due.game_id, due.subscription_id, due.position),
            )
            await conn.execute(
                "UPDATE push_subscriptions SET last_success_at = %s, failures = 0 WHERE subscription_id = %s",
                (now, due.subscription_id),
            )

    async def failed(self, due: Due, retry_at: datetime | None) -> None:
        """A failed send: tried again at *retry_at*, or dropped (None); the subscription's failures
        are counted either way."""
        async with self.store.connection() as conn, conn.transaction():
            if retry_at is None:
                await conn.execute(
                    "DELETE FROM push_outbox WHERE game_id = %s AND subscription_id = %s AND position = %s",
                    (due.game_id, due.subscription_id, due.position),
                )
            else:
                await conn.execute(
                    "UPDATE push_outbox SET tries = tries + 1, next_attempt_at = %s"
                    " WHERE game_id = %s AND subscription_id = %s AND position = %s",
                    (retry_at, due.game_id, due.subscription_id, due.position),
                )
            await conn.execute(
                "UPDATE push_subscriptions SET failures = failures + 1 WHERE subscription_id = %s",
                (due.subscription_id,),
            )

    # --- the sweep ----------------------------------------------------------------------------
    async def games_behind(self, finished_since: datetime, limit: int = 1000) -> list[str]:
        """Games some subscription may hear of whose record moved past the pump's cursor (finished
        ones changed since *finished_since* only), least recently changed first."""
        rows = await self.store._read(
            "WITH followed AS (SELECT game_id FROM push_subscriptions WHERE game_id IS NOT NULL"
            " UNION SELECT t.game_id FROM push_subscriptions s JOIN seats t ON t.player_id = s.player_id"
            " WHERE s.player_id IS NOT NULL)"
            " SELECT g.game_id FROM followed f JOIN games g ON g.game_id = f.game_id"
            " LEFT JOIN push_progress p ON p.game_id = g.game_id"
            " WHERE (g.status <> 'finished' OR g.updated_at > %s)"
            " AND (p.game_id IS NULL OR p.seq < g.version OR p.status_seen <> g.status)"
            " ORDER BY g.updated_at LIMIT %s",
            (finished_since, limit),
        )
        return [r[0] for r in rows]

    async def games_due(self, before: datetime, limit: int = 1000) -> list[str]:
        rows = await self.store._read(
            "SELECT DISTINCT game_id FROM push_outbox WHERE next_attempt_at < %s LIMIT %s", (before, limit)
        )
        return [r[0] for r in rows]

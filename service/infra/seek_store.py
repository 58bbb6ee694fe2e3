"""The seeks recorder: seeks are rows (``service/migrations/006_seeks.sql``), and the matcher's step
runs in one transaction that locks them, creates the games and marks the seeks matched.

Locks, in the one order every writer takes them (so no two of them wait on each other in a cycle):

1. the seekers' ``players`` rows, ``FOR NO KEY UPDATE`` — ``SKIP LOCKED`` in the matcher: a player
   another matcher holds is left for that one (or the next run), never waited for; a new seek takes
   its player's row (waiting), so it is ordered before or after a match of that player, never beside;
2. the open seeks of the players held, ``FOR UPDATE`` (only a cancellation, one row at a time, or the
   expiry, which skips locked rows, can hold one).

A player held by a matcher cannot be matched by another one, in any title, until it commits: one
seek never makes two games, and a player whose seek is matched has its other open seeks withdrawn in
the same transaction.  Queries go through the event store's pool (its error translation applies),
so nothing above this module imports psycopg.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import msgspec
import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb

from ..record.chain import StoredEvent
from .store import EventStore, GameRow


class SeekRow(msgspec.Struct, frozen=True, kw_only=True):
    seek_id: str
    player_id: str
    app_id: str | None
    pool: str
    kind: str
    counts: list[int]
    constraints: dict[str, list[Any]]
    rated: bool
    rating: float
    bots_after: int | None
    bot_level: str | None
    created_at: datetime
    expires_at: datetime
    status: str
    closed_at: datetime | None = None
    closed_reason: str | None = None
    game_id: str | None = None
    seat: int | None = None


class SeekTaken(Exception):
    """The player has an open seek of the title already (its id in ``args[0]``, if still open)."""


_COLUMNS = (
    "s.seek_id, s.player_id, s.app_id, s.pool, s.kind, s.counts, s.constraints, s.rated, s.rating,"
    " s.bots_after, s.bot_level, s.created_at, s.expires_at, s.status, s.closed_at, s.closed_reason,"
    " s.game_id, s.seat"
)


def _seek(r: TupleRow) -> SeekRow:
    return SeekRow(
        seek_id=r[0],
        player_id=r[1],
        app_id=r[2],
        pool=r[3],
        kind=r[4],
        counts=list(r[5]),
        constraints=r[6],
        rated=r[7],
        rating=r[8],
        bots_after=r[9],
        bot_level=r[10],
        created_at=r[11],
        expires_at=r[12],
        status=r[13],
        closed_at=r[14],
        closed_reason=r[15],
        game_id=r[16],
        seat=r[17],
    )


class MatchStep:
    """One matcher transaction on one pool and title (:meth:`SeekStore.matching`)."""

    def __init__(self, store: EventStore, conn: psycopg.AsyncConnection, pool: str, kind: str) -> None:
        self.store = store
        self.conn = conn
        self.pool = pool
        self.kind = kind

    async def open_seeks(self, limit: int) -> list[SeekRow]:
        """The pool's open seeks of the title, oldest first — of the players this step could lock
        (the oldest *limit* seeks' players; those another matcher holds are skipped)."""
        cur = await self.conn.execute(
            "SELECT p.player_id FROM players p WHERE p.player_id IN ("
            " SELECT s.player_id FROM seeks s WHERE s.pool = %s AND s.kind = %s AND s.status = 'open'"
            " ORDER BY s.created_at, s.seek_id LIMIT %s)"
            " ORDER BY p.player_id FOR NO KEY UPDATE SKIP LOCKED",
            (self.pool, self.kind, limit),
        )
        held = [r[0] for r in await cur.fetchall()]
        if not held:
            return []
        cur = await self.conn.execute(
            f"SELECT {_COLUMNS} FROM seeks s WHERE s.player_id = ANY(%s) AND s.status = 'open'"
            " ORDER BY s.seek_id FOR UPDATE",
            (held,),
        )
        rows = [_seek(r) for r in await cur.fetchall()]
        mine = [r for r in rows if r.pool == self.pool and r.kind == self.kind]
        return sorted(mine, key=lambda r: (r.created_at, r.seek_id))

    async def create_game(
        self,
        game: GameRow,
        hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str],
        players: dict[int, str],
        to_act: list[int] | None,
    ) -> None:
        """The game, in this transaction (``EventStore.insert_game``)."""
        await self.store.insert_game(self.conn, game, hashes, events, bots, players, to_act)

    async def matched(self, game_id: str, seats: dict[str, int], at: datetime) -> None:
        """Mark the seeks (seek id -> seat) matched into *game_id* (sent with the game's inserts, in
        the pipeline: no round trip of its own)."""
        async with self.conn.cursor() as cur:
            await cur.executemany(
                "UPDATE seeks SET status = 'matched', closed_at = %s, game_id = %s, seat = %s"
                " WHERE seek_id = %s AND status = 'open'",
                [(at, game_id, seat, seek_id) for seek_id, seat in seats.items()],
            )

    async def withdraw_others(self, seek_ids: list[str], at: datetime) -> list[str]:
        """Withdraw every other open seek of the players of *seek_ids*, just matched
        (``matched_elsewhere``); the ids of those withdrawn."""
        if not seek_ids:
            return []
        cur = await self.conn.execute(
            "UPDATE seeks SET status = 'cancelled', closed_at = %s, closed_reason = 'matched_elsewhere'"
            " WHERE status = 'open' AND player_id IN (SELECT player_id FROM seeks WHERE seek_id = ANY(%s))"
            " RETURNING seek_id",
            (at, seek_ids),
        )
        return [r[0] for r in await cur.fetchall()]


class SeekStore:
    """Seeks on the event store's pool."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def create(self, seek: SeekRow) -> None:
        """Record *seek* (after taking its player's row: see the module docstring); :class:`SeekTaken`
        when the player has an open seek of the title already."""
        async with self.store.connection() as conn, conn.transaction():
            await conn.execute(
                "SELECT 1 FROM players WHERE player_id = %s FOR NO KEY UPDATE", (seek.player_id,)
            )
            try:
                await conn.execute(
                    "INSERT INTO seeks (seek_id, player_id, app_id, pool, kind, counts, constraints, rated,"
                    " rating, bots_after, bot_level, created_at, expires_at, status)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 'open')",
                    (
                        seek.seek_id,
                        seek.player_id,
                        seek.app_id,
                        seek.pool,
                        seek.kind,
                        seek.counts,
                        Jsonb(seek.constraints),
                        seek.rated,
                        seek.rating,
                        seek.bots_after,
                        seek.bot_level,
                        seek.created_at,
                        seek.expires_at,
                    ),
                )
            except pg_errors.UniqueViolation as exc:
                raise SeekTaken(seek.kind) from exc

    async def open_seek_of(self, player_id: str, kind: str) -> str | None:
        row = await self.store._read(
            "SELECT seek_id FROM seeks WHERE player_id = %s AND kind = %s AND status = 'open'",
            (player_id, kind),
            one=True,
        )
        return row[0] if row else None

    async def rating(self, player_id: str, kind: str) -> float | None:
        """The player's displayed rating in *kind* (``player_ratings``), None before its first rated
        game there."""
        row = await self.store._read(
            "SELECT rating FROM player_ratings WHERE player_id = %s AND kind = %s",
            (player_id, kind),
            one=True,
        )
        return float(row[0]) if row else None

    async def get(self, seek_id: str) -> SeekRow | None:
        row = await self.store._read(
            f"SELECT {_COLUMNS} FROM seeks s WHERE s.seek_id = %s", (seek_id,), one=True
        )
        return _seek(row) if row else None

    async def of_player(
        self, player_id: str, *, status: str | None, before: tuple[datetime, str] | None, limit: int
    ) -> list[SeekRow]:
        """The player's seeks, newest first, after the keyset *before*."""
        where = ["s.player_id = %s"]
        params: list[Any] = [player_id]
        if status is not None:
            where.append("s.status = %s")
            params.append(status)
        if before is not None:
            where.append("(s.created_at, s.seek_id) < (%s, %s)")
            params.extend(before)
        params.append(limit)
        rows = await self.store._read(
            f"SELECT {_COLUMNS} FROM seeks s WHERE {' AND '.join(where)}"
            " ORDER BY s.created_at DESC, s.seek_id DESC LIMIT %s",
            params,
        )
        return [_seek(r) for r in rows]

    async def cancel(self, seek_id: str, player_id: str, at: datetime) -> SeekRow | None:
        """Cancel the player's open seek; the row as it is then (None: the player has no such seek)."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "UPDATE seeks s SET status = 'cancelled', closed_at = %s, closed_reason = 'by_player'"
                f" WHERE s.seek_id = %s AND s.player_id = %s AND s.status = 'open' RETURNING {_COLUMNS}",
                (at, seek_id, player_id),
            )
            row = await cur.fetchone()
        if row is not None:
            return _seek(row)
        found = await self.get(seek_id)
        return found if found is not None and found.player_id == player_id else None

    async def expire(self, now: datetime, limit: int = 1000) -> list[str]:
        """Close the open seeks past their time (skipping those a matcher holds); their ids."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "UPDATE seeks SET status = 'expired', closed_at = %s WHERE seek_id IN ("
                " SELECT seek_id FROM seeks WHERE status = 'open' AND expires_at <= %s"
                " ORDER BY expires_at LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING seek_id",
                (now, now, limit),
            )
            return [r[0] for r in await cur.fetchall()]

    async def open_pools(self) -> list[tuple[str, str]]:
        """Every (pool, title) with an open seek (the sweep runs their matchers)."""
        rows = await self.store._read(
            "SELECT DISTINCT pool, kind FROM seeks WHERE status = 'open' ORDER BY pool, kind", ()
        )
        return [(r[0], r[1]) for r in rows]

    async def of_game(self, game_id: str) -> list[SeekRow]:
        """The seeks *game_id* was formed from, by seat."""
        rows = await self.store._read(
            f"SELECT {_COLUMNS} FROM seeks s WHERE s.game_id = %s ORDER BY s.seat", (game_id,)
        )
        return [_seek(r) for r in rows]

    @contextlib.asynccontextmanager
    async def matching(self, pool: str, kind: str) -> AsyncIterator[MatchStep]:
        """One matcher step: a transaction (committed when the block ends without an exception), in
        pipeline mode: a game's inserts and its seeks' updates go out together, in one round trip."""
        async with self.store.connection() as conn, conn.transaction(), conn.pipeline():
            yield MatchStep(self.store, conn, pool, kind)

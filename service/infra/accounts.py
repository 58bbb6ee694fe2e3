"""The accounts recorder: apps, their API keys and signing keys, and what the identity layer reads
of games (who owns one; the seats a player holds are the seats' business).

The account tables are small reference tables (``service/migrations/003_apps_players.sql``), read
by key; queries go through the event store's pool (:meth:`EventStore.connection`, whose error
translation applies), so nothing above this module imports psycopg.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import msgspec
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow

from .store import EventStore


class AppRow(msgspec.Struct, frozen=True, kw_only=True):
    app_id: str
    name: str
    created_at: datetime
    requests_per_minute: int
    games_per_day: int
    concurrent_games: int
    default_visibility: str
    disabled_at: datetime | None = None


class KeyRow(msgspec.Struct, frozen=True, kw_only=True):
    key_id: str
    app_id: str
    secret_hash: str
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class SigningKeyRow(msgspec.Struct, frozen=True, kw_only=True):
    app_id: str
    kid: str
    alg: str
    key: str
    """HS256: the shared secret; EdDSA: the app's public key (PEM)."""
    created_at: datetime
    revoked_at: datetime | None = None


class DuplicateName(Exception):
    """A row with that key exists already (a generated id collided: draw another)."""


_APP = (
    "a.app_id, a.name, a.created_at, a.requests_per_minute, a.games_per_day, a.concurrent_games,"
    " a.default_visibility, a.disabled_at"
)
_KEY = "k.key_id, k.app_id, k.secret_hash, k.created_at, k.expires_at, k.revoked_at"
_SIGNING = "s.app_id, s.kid, s.alg, s.key, s.created_at, s.revoked_at"


def _app(row: TupleRow, at: int = 0) -> AppRow:
    r = row[at:]
    return AppRow(
        app_id=r[0],
        name=r[1],
        created_at=r[2],
        requests_per_minute=r[3],
        games_per_day=r[4],
        concurrent_games=r[5],
        default_visibility=r[6],
        disabled_at=r[7],
    )


def _key(row: TupleRow) -> KeyRow:
    return KeyRow(
        key_id=row[0],
        app_id=row[1],
        secret_hash=row[2],
        created_at=row[3],
        expires_at=row[4],
        revoked_at=row[5],
    )


def _signing(row: TupleRow) -> SigningKeyRow:
    return SigningKeyRow(
        app_id=row[0], kid=row[1], alg=row[2], key=row[3], created_at=row[4], revoked_at=row[5]
    )


class Accounts:
    """Apps, keys and signing keys in Postgres."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def _write(self, sql: str, params: tuple[Any, ...]) -> TupleRow | None:
        """One statement that changes rows; the row it returns, if any."""
        async with self.store.connection() as conn:
            try:
                cur = await conn.execute(sql, params)
            except pg_errors.UniqueViolation as exc:
                raise DuplicateName(str(exc)) from exc
            return await cur.fetchone() if cur.description else None

    # --- apps --------------------------------------------------------------------------------
    async def create_app(self, app: AppRow, key: KeyRow) -> None:
        """Record a new app and its first key in one transaction."""
        async with self.store.connection() as conn, conn.transaction():
            try:
                await conn.execute(
                    "INSERT INTO apps (app_id, name, created_at, requests_per_minute, games_per_day,"
                    " concurrent_games, default_visibility) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (
                        app.app_id,
                        app.name,
                        app.created_at,
                        app.requests_per_minute,
                        app.games_per_day,
                        app.concurrent_games,
                        app.default_visibility,
                    ),
                )
                await conn.execute(_INSERT_KEY, _key_params(key))
            except pg_errors.UniqueViolation as exc:
                raise DuplicateName(str(exc)) from exc

    async def apps(self) -> list[AppRow]:
        rows = await self.store._read(f"SELECT {_APP} FROM apps a ORDER BY a.created_at, a.app_id", ())
        return [_app(r) for r in rows]

    async def app(self, app_id: str) -> AppRow | None:
        row = await self.store._read(f"SELECT {_APP} FROM apps a WHERE a.app_id = %s", (app_id,), one=True)
        return _app(row) if row else None

    async def update_app(self, app_id: str, changes: dict[str, Any]) -> AppRow | None:
        """Set the given columns (limits, default visibility, ``disabled_at``) of the app."""
        allowed = {
            "name",
            "requests_per_minute",
            "games_per_day",
            "concurrent_games",
            "default_visibility",
            "disabled_at",
        }
        assert set(changes) <= allowed, f"not an app's column: {set(changes) - allowed}"
        if not changes:
            return await self.app(app_id)
        assignments = ", ".join(f"{column} = %s" for column in changes)
        row = await self._write(
            f"UPDATE apps a SET {assignments} WHERE a.app_id = %s RETURNING {_APP}",
            (*changes.values(), app_id),
        )
        return _app(row) if row else None

    # --- API keys ------------------------------------------------------------------------------
    async def add_key(self, key: KeyRow) -> None:
        await self._write(_INSERT_KEY, _key_params(key))

    async def key(self, key_id: str) -> tuple[KeyRow, AppRow] | None:
        """The key named *key_id* and its app, in one indexed read."""
        row = await self.store._read(
            f"SELECT {_KEY}, {_APP} FROM app_keys k JOIN apps a ON a.app_id = k.app_id WHERE k.key_id = %s",
            (key_id,),
            one=True,
        )
        return (_key(row), _app(row, 6)) if row else None

    async def keys(self, app_id: str) -> list[KeyRow]:
        rows = await self.store._read(
            f"SELECT {_KEY} FROM app_keys k WHERE k.app_id = %s ORDER BY k.created_at, k.key_id", (app_id,)
        )
        return [_key(r) for r in rows]

    async def expire_key(self, app_id: str, key_id: str, at: datetime) -> KeyRow | None:
        """The key stops working at *at* (or earlier, if it was to expire sooner); None when the app
        has no such key or it is revoked already."""
        row = await self._write(
            f"UPDATE app_keys k SET expires_at = LEAST(COALESCE(k.expires_at, %s), %s)"
            f" WHERE k.app_id = %s AND k.key_id = %s AND k.revoked_at IS NULL RETURNING {_KEY}",
            (at, at, app_id, key_id),
        )
        return _key(row) if row else None

    async def revoke_key(self, app_id: str, key_id: str, at: datetime) -> KeyRow | None:
        """The key stops working now; None when the app has no such key.  Revoking twice keeps the
        first time."""
        row = await self._write(
            f"UPDATE app_keys k SET revoked_at = COALESCE(k.revoked_at, %s)"
            f" WHERE k.app_id = %s AND k.key_id = %s RETURNING {_KEY}",
            (at, app_id, key_id),
        )
        return _key(row) if row else None

    # --- signing keys (player assertions) -----------------------------------------------------
    async def add_signing_key(self, key: SigningKeyRow) -> None:
        await self._write(
            "INSERT INTO app_signing_keys (app_id, kid, alg, key, created_at) VALUES (%s, %s, %s, %s, %s)",
            (key.app_id, key.kid, key.alg, key.key, key.created_at),
        )

    async def signing_key(self, app_id: str, kid: str) -> SigningKeyRow | None:
        row = await self.store._read(
            f"SELECT {_SIGNING} FROM app_signing_keys s WHERE s.app_id = %s AND s.kid = %s",
            (app_id, kid),
            one=True,
        )
        return _signing(row) if row else None

    async def signing_keys(self, app_id: str) -> list[SigningKeyRow]:
        rows = await self.store._read(
            f"SELECT {_SIGNING} FROM app_signing_keys s WHERE s.app_id = %s ORDER BY s.created_at, s.kid",
            (app_id,),
        )
        return [_signing(r) for r in rows]

    async def revoke_signing_key(self, app_id: str, kid: str, at: datetime) -> SigningKeyRow | None:
        row = await self._write(
            f"UPDATE app_signing_keys s SET revoked_at = COALESCE(s.revoked_at, %s)"
            f" WHERE s.app_id = %s AND s.kid = %s RETURNING {_SIGNING}",
            (at, app_id, kid),
        )
        return _signing(row) if row else None

    # --- an app's limits ------------------------------------------------------------------------
    async def count_game(self, app_id: str, day: date, limit: int) -> bool:
        """Count one more game created by the app on *day*, unless it has created *limit* already
        (False).  One statement: concurrent creates cannot both take the last one."""
        row = await self._write(
            "INSERT INTO app_days AS d (app_id, day, games) SELECT %s, %s, 1 WHERE %s > 0"
            " ON CONFLICT (app_id, day) DO UPDATE SET games = d.games + 1 WHERE d.games < %s"
            " RETURNING d.games",
            (app_id, day, limit, limit),
        )
        return row is not None

    async def uncount_game(self, app_id: str, day: date) -> None:
        """A game counted by :meth:`count_game` was not created after all."""
        await self._write(
            "UPDATE app_days SET games = games - 1 WHERE app_id = %s AND day = %s AND games > 0",
            (app_id, day),
        )

    async def unfinished_games(self, app_id: str, up_to: int) -> int:
        """How many of the app's games are open or active, counted up to *up_to*."""
        row = await self.store._read(
            "SELECT count(*) FROM (SELECT 1 FROM games g WHERE g.app_id = %s AND g.status <> 'finished'"
            " LIMIT %s) AS unfinished",
            (app_id, up_to),
            one=True,
        )
        return int(row[0]) if row else 0

    # --- what identity reads of games ----------------------------------------------------------
    async def game_owner(self, game_id: str) -> tuple[str | None, str] | None:
        """``(app_id, visibility)`` of the game; None when there is no such game."""
        row = await self.store._read(
            "SELECT g.app_id, g.visibility FROM games g WHERE g.game_id = %s", (game_id,), one=True
        )
        return (row[0], row[1]) if row else None


_INSERT_KEY = (
    "INSERT INTO app_keys (key_id, app_id, secret_hash, created_at, expires_at) VALUES (%s, %s, %s, %s, %s)"
)


def _key_params(key: KeyRow) -> tuple[Any, ...]:
    return (key.key_id, key.app_id, key.secret_hash, key.created_at, key.expires_at)

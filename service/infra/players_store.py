"""The players recorder: players vouched for by an app (or guests), their credentials, and the list
of a player's games (the seats bound to a player are the event store's: ``seats.player_id``).

``players`` and ``player_credentials`` are small reference tables (``service/migrations/
003_apps_players.sql``), read by key.  A seat's binding is its ``seats.player_id``; a player's games
are found through the ``seats_of_player`` index.  Queries go through the event store's pool
(:meth:`EventStore.connection`, whose error translation applies), so nothing above this module
imports psycopg.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow

from .store import EventStore


class PlayerRow(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    app_id: str | None
    """The app that vouches for the player; None for a guest of the reference client."""
    external_id: str | None
    """The app's own id for its user (None for a guest)."""
    display_name: str | None
    created_at: datetime


class CredentialRow(msgspec.Struct, frozen=True, kw_only=True):
    credential_id: str
    player_id: str
    secret_hash: str
    """SHA-256 of the whole ``ymp_<credential_id>.<secret>``."""
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class MyGameRow(msgspec.Struct, frozen=True, kw_only=True):
    """One game of a player's, with the seats it holds there."""

    game_id: str
    kind: str
    status: str
    version: int
    players: int
    to_act: list[int]
    seats: list[int]
    created_at: datetime
    updated_at: datetime


class DuplicatePlayerId(Exception):
    """A drawn player or credential id exists already: draw another."""


_PLAYER = "p.player_id, p.app_id, p.external_id, p.display_name, p.created_at"
_CREDENTIAL = "c.credential_id, c.player_id, c.secret_hash, c.created_at, c.expires_at, c.revoked_at"


def _player(row: TupleRow, at: int = 0) -> PlayerRow:
    r = row[at:]
    return PlayerRow(player_id=r[0], app_id=r[1], external_id=r[2], display_name=r[3], created_at=r[4])


def _credential(row: TupleRow, at: int = 0) -> CredentialRow:
    r = row[at:]
    return CredentialRow(
        credential_id=r[0],
        player_id=r[1],
        secret_hash=r[2],
        created_at=r[3],
        expires_at=r[4],
        revoked_at=r[5],
    )


_INSERT_CREDENTIAL = (
    "INSERT INTO player_credentials (credential_id, player_id, secret_hash, created_at, expires_at)"
    " VALUES (%s, %s, %s, %s, %s)"
)


def _credential_params(row: CredentialRow) -> tuple[object, ...]:
    return (row.credential_id, row.player_id, row.secret_hash, row.created_at, row.expires_at)


class PlayerStore:
    """Players, credentials and seat bindings on the event store's pool."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    # --- players ------------------------------------------------------------------------------
    async def register(self, player: PlayerRow) -> tuple[PlayerRow, bool]:
        """The app's player with *player*'s external id — made now from *player* if the app has none
        yet (True), else the one it has (False), renamed when *player* names it.  One statement, so
        two registrations at once find the same player."""
        try:
            row = await self._write(
                "INSERT INTO players AS p (player_id, app_id, external_id, display_name, created_at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (app_id, external_id) DO UPDATE"
                " SET display_name = COALESCE(EXCLUDED.display_name, p.display_name)"
                f" RETURNING {_PLAYER}, (p.xmax = 0)",
                (player.player_id, player.app_id, player.external_id, player.display_name, player.created_at),
            )
        except pg_errors.UniqueViolation as exc:  # the drawn player id, not the external id
            raise DuplicatePlayerId(str(exc)) from exc
        assert row is not None, "an upsert returns its row"
        return _player(row), bool(row[5])

    async def add_guest(self, player: PlayerRow, credential: CredentialRow) -> None:
        """A guest and its first credential, in one transaction."""
        async with self.store.connection() as conn, conn.transaction():
            try:
                await conn.execute(
                    "INSERT INTO players (player_id, app_id, external_id, display_name, created_at)"
                    " VALUES (%s, NULL, NULL, %s, %s)",
                    (player.player_id, player.display_name, player.created_at),
                )
                await conn.execute(_INSERT_CREDENTIAL, _credential_params(credential))
            except pg_errors.UniqueViolation as exc:
                raise DuplicatePlayerId(str(exc)) from exc

    async def player(self, player_id: str) -> PlayerRow | None:
        row = await self.store._read(
            f"SELECT {_PLAYER} FROM players p WHERE p.player_id = %s", (player_id,), one=True
        )
        return _player(row) if row else None

    async def player_of(self, app_id: str, external_id: str) -> str | None:
        """The id of the app's player *external_id*, if the app has registered it."""
        row = await self.store._read(
            "SELECT p.player_id FROM players p WHERE p.app_id = %s AND p.external_id = %s",
            (app_id, external_id),
            one=True,
        )
        return row[0] if row else None

    # --- credentials --------------------------------------------------------------------------
    async def add_credential(self, credential: CredentialRow) -> None:
        try:
            await self._write(_INSERT_CREDENTIAL, _credential_params(credential))
        except pg_errors.UniqueViolation as exc:
            raise DuplicatePlayerId(str(exc)) from exc

    async def credential(self, credential_id: str) -> tuple[CredentialRow, PlayerRow] | None:
        """The credential named *credential_id* and its player, in one read by key."""
        row = await self.store._read(
            f"SELECT {_CREDENTIAL}, {_PLAYER} FROM player_credentials c"
            " JOIN players p ON p.player_id = c.player_id WHERE c.credential_id = %s",
            (credential_id,),
            one=True,
        )
        return (_credential(row), _player(row, 6)) if row else None

    async def credentials(self, player_id: str) -> list[CredentialRow]:
        rows = await self.store._read(
            f"SELECT {_CREDENTIAL} FROM player_credentials c WHERE c.player_id = %s"
            " ORDER BY c.created_at, c.credential_id",
            (player_id,),
        )
        return [_credential(r) for r in rows]

    async def revoke_credential(
        self, player_id: str, credential_id: str, at: datetime
    ) -> CredentialRow | None:
        """The credential stops working; None when the player has no such credential.  Revoking
        twice keeps the first time."""
        row = await self._write(
            "UPDATE player_credentials c SET revoked_at = COALESCE(c.revoked_at, %s)"
            f" WHERE c.player_id = %s AND c.credential_id = %s RETURNING {_CREDENTIAL}",
            (at, player_id, credential_id),
        )
        return _credential(row) if row else None

    # --- a player's games ---------------------------------------------------------------------
    async def games_of(
        self,
        player_id: str,
        *,
        status: str | None,
        to_act: bool,
        before: tuple[datetime, str] | None,
        limit: int,
    ) -> list[MyGameRow]:
        """The games where *player_id* holds a seat, most recently changed first: of *status*,
        only those where one of its seats is to act (*to_act*), after the keyset *before*."""
        where = ["s.player_id = %s"]
        params: list[object] = [player_id]
        if status is not None:
            where.append("g.status = %s")
            params.append(status)
        if to_act:
            where.append("g.status = 'active'")
        if before is not None:
            where.append("(g.updated_at, g.game_id) < (%s, %s)")
            params.extend(before)
        having = " HAVING bool_or(s.seat = ANY(g.to_act))" if to_act else ""
        params.append(limit)
        rows = await self.store._read(
            "SELECT g.game_id, g.kind, g.status, g.version, g.players, g.to_act, g.created_at, g.updated_at,"
            " array_agg(s.seat ORDER BY s.seat) FROM seats s JOIN games g ON g.game_id = s.game_id"
            f" WHERE {' AND '.join(where)} GROUP BY g.game_id{having}"
            " ORDER BY g.updated_at DESC, g.game_id DESC LIMIT %s",
            params,
        )
        return [
            MyGameRow(
                game_id=r[0],
                kind=r[1],
                status=r[2],
                version=r[3],
                players=r[4],
                to_act=list(r[5] or []),
                created_at=r[6],
                updated_at=r[7],
                seats=list(r[8]),
            )
            for r in rows
        ]

    async def _write(self, sql: str, params: tuple[object, ...]) -> TupleRow | None:
        async with self.store.connection() as conn:
            cur = await conn.execute(sql, params)
            return await cur.fetchone() if cur.description else None

"""The event store's vocabulary, shared by its parts: its exceptions, the rows it hands out, and
the columns and conversions of those rows.

Nothing here talks to Postgres; :mod:`service.infra.store` re-exports the exceptions and rows, so
callers import them from there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from psycopg.rows import TupleRow

from ..record.chain import StoredEvent


class StoreError(Exception):
    """The event store could not do what was asked."""


class StoreUnavailable(StoreError):
    """Postgres cannot be reached, or lost the connection mid-request: retry later."""

    def __init__(self, message: str, *, lost_epoch: str | None = None) -> None:
        super().__init__(message)
        self.lost_epoch = lost_epoch
        """For a connection lost mid-request: the start time of the Postgres it was connected to
        (None when no connection could be had at all).  See :meth:`Datastore.restarted_since`."""


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
    :meth:`LobbyStore.creator_of` alone (only the creator fills open seats with bots)."""


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


def _only(row: TupleRow | None) -> TupleRow:
    """The row of a query that always returns one (a ``SELECT`` of functions, without ``FROM``)."""
    if row is None:
        raise StoreError("Postgres returned no row where it always returns one")
    return row

"""The Postgres event store: one stream per game, appended with an expected version.

:class:`EventStore` makes the store's parts on one datastore and offers their verbs; each part
does one job, in its own module:

* :mod:`service.infra.datastore` — the connection pool, its health through restarts and outages,
  the translation of driver errors, and the one retry policy (:func:`~.datastore.retried`);
* :mod:`service.infra.recorder` — the recorder: appends (the group commit, and commit recovery
  when a connection is lost), the streams read back, the idempotent responses;
* :mod:`service.infra.lobby_store` — games created, found and listed, and their seats;
* :mod:`service.infra.migrations` — the schema;
* :mod:`service.infra.store_types` — the exceptions and rows they share, re-exported here.

Every query goes through :meth:`EventStore.connection` (the datastore's), which translates the
driver's errors by the PEP 249 hierarchy into these exceptions, so nothing above it imports
psycopg: a lost or refused connection, a pool timeout or a closed pool is
:class:`StoreUnavailable`; a value Postgres cannot store is :class:`StoreRefused`; a unique
violation is each verb's own business.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from psycopg.rows import TupleRow

from .datastore import OPEN_SECONDS, RECONNECT_SECONDS, SUSPECT_SECONDS, Datastore
from .lobby_store import LobbyStore
from .migrations import Migrations
from .migrations import migration_versions as _migration_versions
from .recorder import (
    BATCH_APPEND,
    BATCH_APPEND_KEYED,
    MAX_BATCHES_IN_FLIGHT,
    Recorder,
    _array_literal,
    append_params_of,
    append_statement,
)
from .store_types import (
    _INSERT_EVENT,
    DuplicateIdempotencyKey,
    GameExists,
    GameRow,
    IdempotentResponse,
    StoreError,
    StoreRefused,
    StoreUnavailable,
    VersionConflict,
)

__all__ = [
    "BATCH_APPEND",
    "BATCH_APPEND_KEYED",
    "MAX_BATCHES_IN_FLIGHT",
    "OPEN_SECONDS",
    "RECONNECT_SECONDS",
    "SUSPECT_SECONDS",
    "_INSERT_EVENT",  # bench/dbceiling.py
    "DuplicateIdempotencyKey",
    "EventStore",
    "GameExists",
    "GameRow",
    "IdempotentResponse",
    "StoreError",
    "StoreRefused",
    "StoreUnavailable",
    "VersionConflict",
    "_array_literal",  # bench/params.py
    "append_params_of",
    "append_statement",
]


class EventStore:
    """Postgres-backed store of games, seats, events and idempotent responses.

    The factory of the store's parts (the datastore, the recorder, the lobby, the migrations),
    all on one pool.  Each verb below is its part's bound method, looked up once here: a call,
    an append on the per-move path included, costs what it did when one class did every job.
    """

    migration_versions = staticmethod(_migration_versions)

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
        self.datastore = datastore = Datastore(url, min_size=min_size, max_size=max_size, timeout=timeout)
        self.recorder = recorder = Recorder(datastore, batch_appends=batch_appends)
        self.lobby = lobby = LobbyStore(datastore)
        self.migrations = migrations = Migrations(datastore)
        self.pool = datastore.pool

        # --- the datastore: the pool and its health ---------------------------------------------
        self.open = datastore.open
        self.close = datastore.close
        self.connection = datastore.connection
        self._read = datastore.read
        """A query that changes nothing, sent again once if its connection was lost (the other
        stores' reads go through it: accounts, players, push, ratings, seeks, webhooks)."""
        self.ping = datastore.ping
        self.replay_lag_ms = datastore.replay_lag_ms

        # --- the schema -------------------------------------------------------------------------
        self.migrate = migrations.migrate
        self.pending_migrations = migrations.pending_migrations

        # --- games and seats --------------------------------------------------------------------
        self.create_game = lobby.create_game
        self.insert_game = lobby.insert_game
        self.get_game = lobby.get_game
        self.list_games = lobby.list_games
        self.creator_of = lobby.creator_of
        self.seats = lobby.seats
        self.set_bot = lobby.set_bot
        self.games_with_clocks = lobby.games_with_clocks
        self.games_with_bots = lobby.games_with_bots
        self.seat_token_hash = lobby.seat_token_hash
        self.bindings = lobby.bindings
        self.reissue_token = lobby.reissue_token
        self.claim_seat = lobby.claim_seat

        # --- events and idempotency -------------------------------------------------------------
        self.append = recorder.append
        self.load = recorder.load
        self.events = recorder.events
        self.stream_events = recorder.stream_events
        self.version_of = recorder.version_of
        self.idempotent_response = recorder.idempotent_response

    @property
    def batch_appends(self) -> bool:
        """Whether appends join a batch (the group commit), or each is its own statement."""
        return self.recorder.batch_appends

    @batch_appends.setter
    def batch_appends(self, on: bool) -> None:
        self.recorder.batch_appends = on

    @property
    def batches_sent(self) -> int:
        """Batches of appends sent so far (a batch of one included)."""
        return self.recorder.batches_sent

    @property
    def _alone(self) -> Callable[..., Coroutine[Any, Any, TupleRow | None]]:
        """The recorder's append sent alone, replaceable here (a test makes sure no append of a
        batch goes alone)."""
        return self.recorder._alone

    @_alone.setter
    def _alone(self, send: Callable[..., Coroutine[Any, Any, TupleRow | None]]) -> None:
        self.recorder._alone = send  # type: ignore[method-assign]  # replaced on this recorder only

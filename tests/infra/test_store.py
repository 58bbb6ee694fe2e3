"""The Postgres event store against a real server: appends, races, the hash chain, idempotency."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import UTC, datetime

import msgspec
import pytest

from service.infra.store import (
    DuplicateIdempotencyKey,
    GameRow,
    IdempotentResponse,
    StoreError,
    VersionConflict,
)
from service.record.chain import NewEvent, first_broken_link, seal


def _row(game_id: str, version: int, last_hash: str, status: str = "active") -> GameRow:
    now = datetime.now(UTC)
    return GameRow(
        game_id=game_id,
        kind="bluff",
        rules_version="bluff-1",
        options=b'{"players":2}',
        players=2,
        seed="s",
        seed_commitment="c0",
        status=status,
        version=version,
        last_hash=last_hash,
        imported=False,
        created_at=now,
        updated_at=now,
    )


def _events(n: int, seat: int | None = 0) -> list[NewEvent]:
    return [
        NewEvent(
            type="t", payload=b'{"n":%d}' % i, visible_to=None, seat=seat, command=b"{}", idempotency_key=None
        )
        for i in range(n)
    ]


async def _new_game(store, n: int = 2) -> tuple[str, list]:
    game_id = "t_" + secrets.token_hex(6)
    sealed = seal(game_id, 1, "c0", _events(n, None), datetime.now(UTC), "s")
    await store.create_game(_row(game_id, n, sealed[-1].hash), ["h0", "h1"], sealed)
    return game_id, sealed


async def test_append_and_read_back_with_an_intact_chain(store):
    game_id, opening = await _new_game(store)
    more = seal(game_id, 3, opening[-1].hash, _events(3), datetime.now(UTC), "s")
    await store.append(game_id, 2, more, status="active", now=datetime.now(UTC))
    events = await store.events(game_id)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert events == opening + more
    assert first_broken_link("c0", events, "s") is None
    assert (await store.get_game(game_id)).version == 5
    row, newer = await store.load(game_id, 3)
    assert row.version == 5 and [e.seq for e in newer] == [4, 5]


async def test_stale_expected_version_is_a_conflict_and_writes_nothing(store):
    game_id, opening = await _new_game(store)
    first = seal(game_id, 3, opening[-1].hash, _events(1), datetime.now(UTC), "s")
    await store.append(game_id, 2, first, status="active", now=datetime.now(UTC))
    stale = seal(game_id, 3, opening[-1].hash, _events(2), datetime.now(UTC), "s")
    with pytest.raises(VersionConflict) as conflict:
        await store.append(game_id, 2, stale, status="active", now=datetime.now(UTC))
    assert conflict.value.current_version == 3
    assert [e.seq for e in await store.events(game_id)] == [1, 2, 3]


async def test_concurrent_appends_at_one_version_exactly_one_wins(store):
    game_id, opening = await _new_game(store)

    async def attempt(i: int) -> bool:
        batch = seal(game_id, 3, opening[-1].hash, _events(2, seat=i % 2), datetime.now(UTC), "s")
        try:
            await store.append(game_id, 2, batch, status="active", now=datetime.now(UTC))
            return True
        except VersionConflict:
            return False

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert results.count(True) == 1
    events = await store.events(game_id)
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert first_broken_link("c0", events, "s") is None


async def test_appends_of_many_games_at_once_share_a_commit_and_keep_their_own_fates(store):
    """Appends that arrive together go in one batch: each game's race is its own."""
    games = [await _new_game(store) for _ in range(12)]
    stale_id, stale_opening = games[0]
    await store.append(
        stale_id,
        2,
        seal(stale_id, 3, stale_opening[-1].hash, _events(1), datetime.now(UTC), "s"),
        status="active",
        now=datetime.now(UTC),
    )

    async def attempt(game_id: str, opening: list) -> bool:
        batch = seal(game_id, 3, opening[-1].hash, _events(2), datetime.now(UTC), "s")
        try:
            await store.append(game_id, 2, batch, status="active", now=datetime.now(UTC))
            return True
        except VersionConflict as conflict:
            assert conflict.current_version == 3
            return False

    sent = store.batches_sent
    results = await asyncio.gather(*(attempt(g, o) for g, o in games))
    assert results == [False] + [True] * 11
    assert store.batches_sent - sent < 4  # they went together
    for game_id, _ in games[1:]:
        events = await store.events(game_id)
        assert [e.seq for e in events] == [1, 2, 3, 4]
        assert first_broken_link("c0", events, "s") is None
        assert (await store.get_game(game_id)).version == 4


async def test_an_append_postgres_refuses_does_not_take_its_batch_down(store):
    games = [await _new_game(store) for _ in range(4)]

    async def attempt(k: int, game_id: str, opening: list) -> str:
        batch = seal(game_id, 3, opening[-1].hash, _events(1), datetime.now(UTC), "s")
        if k == 1:  # not JSON: Postgres refuses the cast, aborting the shared transaction
            batch[0] = msgspec.structs.replace(batch[0], payload=b"{not json")
        try:
            await store.append(game_id, 2, batch, status="active", now=datetime.now(UTC))
            return "ok"
        except Exception as exc:  # noqa: BLE001
            return type(exc).__name__

    results = await asyncio.gather(*(attempt(k, g, o) for k, (g, o) in enumerate(games)))
    assert results[0] == results[2] == results[3] == "ok"
    assert results[1] != "ok"
    assert (await store.get_game(games[1][0])).version == 2
    assert [(await store.get_game(g)).version for g, _ in games] == [3, 2, 3, 3]


async def test_a_batch_whose_connection_dies_answers_unavailable_and_writes_nothing(store, database_url):
    """A lost connection may have lost the answer to a COMMIT: every move of the batch hears
    "unavailable" (none is retried, none hangs), and the store carries on afterwards."""
    import psycopg

    from service.infra.store import EventStore, StoreUnavailable

    games = [await _new_game(store) for _ in range(3)]
    lonely = EventStore(database_url, min_size=1, max_size=1)
    await lonely.open()
    try:
        async with lonely.pool.connection() as conn:
            pid = conn.info.backend_pid
        with psycopg.connect(database_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

        async def attempt(game_id: str, opening: list) -> str:
            batch = seal(game_id, 3, opening[-1].hash, _events(1), datetime.now(UTC), "s")
            try:
                await lonely.append(game_id, 2, batch, status="active", now=datetime.now(UTC))
                return "ok"
            except StoreUnavailable:
                return "unavailable"

        results = await asyncio.wait_for(asyncio.gather(*(attempt(g, o) for g, o in games)), 10)
        assert results == ["unavailable"] * 3
        assert [(await store.get_game(g)).version for g, _ in games] == [2, 2, 2]
        assert await attempt(*games[0]) == "ok"
    finally:
        await lonely.close()


async def test_idempotency_key_is_recorded_once(store):
    game_id, opening = await _new_game(store)
    resp = IdempotentResponse(seat=0, request_hash="r", status_code=200, response=b"{}")
    batch = seal(game_id, 3, opening[-1].hash, _events(1), datetime.now(UTC), "s")
    await store.append(game_id, 2, batch, status="active", now=datetime.now(UTC), idempotency=("k1", resp))
    assert await store.idempotent_response(game_id, "k1") == resp
    again = seal(game_id, 4, batch[-1].hash, _events(1), datetime.now(UTC), "s")
    with pytest.raises(DuplicateIdempotencyKey):
        await store.append(
            game_id, 3, again, status="active", now=datetime.now(UTC), idempotency=("k1", resp)
        )
    assert (await store.get_game(game_id)).version == 3


async def test_tampering_is_found_at_the_first_broken_seq(store):
    game_id, _opening = await _new_game(store, 4)
    events = await store.events(game_id)
    import msgspec

    edited = list(events)
    edited[2] = msgspec.structs.replace(edited[2], payload=b'{"n":99}')
    assert first_broken_link("c0", edited, "s") == 3
    assert first_broken_link("c0", events[:1] + events[2:], "s") == 2
    assert first_broken_link("other", events, "s") == 1


async def test_seat_claims_flip_the_game_to_active_once_all_are_taken(store):
    game_id = "t_" + secrets.token_hex(6)
    sealed = seal(game_id, 1, "c0", _events(1, None), datetime.now(UTC), "s")
    await store.create_game(_row(game_id, 1, sealed[-1].hash, status="open"), [None, None], sealed)
    now = datetime.now(UTC)
    assert await store.claim_seat(game_id, 0, "a", now) == "open"
    assert await store.claim_seat(game_id, 0, "b", now) is None
    assert await store.claim_seat(game_id, 1, "b", now) == "active"


async def test_every_table_key_starts_with_game_id(store):
    async with store.pool.connection() as conn:
        cur = await conn.execute(
            """
            SELECT c.relname, a.attname
            FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
            WHERE i.indisprimary
            """
        )
        firsts = dict(await cur.fetchall())
    # schema_migrations is the migrator's own bookkeeping, not game data: in a distributed
    # (Citus) deployment it is a reference table on every node, so it needs no game_id.
    firsts.pop("schema_migrations")
    # The job queue's tables (Procrastinate: bot turns) are work in flight, not game data: they stay
    # local to the coordinator in a distributed deployment, beside its LISTEN/NOTIFY.
    queue = {name for name in firsts if name.startswith("procrastinate_")}
    assert "procrastinate_jobs" in queue
    for name in queue:
        firsts.pop(name)
    # The accounts (migration 003) are small reference tables (on every node), read by their own
    # key: apps, their keys, signing keys and daily counts, players and their credentials.
    for name, key in (
        ("apps", "app_id"),
        ("app_keys", "key_id"),
        ("app_signing_keys", "app_id"),
        ("app_days", "app_id"),
        ("players", "player_id"),
        ("player_credentials", "credential_id"),
    ):
        assert firsts.pop(name) == key
    # An app's webhook endpoints and their secrets are small reference tables (on every node), read
    # by endpoint; what webhooks keep per game is keyed by the game (deploy/README.md, Citus).
    for name in ("webhook_endpoints", "webhook_secrets"):
        assert firsts.pop(name) == "endpoint_id"
    # Ratings (migration 005): a player's rating per title is keyed by the player (a reference table,
    # or distributed by player); what a rated game changed is keyed by the game.
    assert firsts.pop("player_ratings") == "player_id"
    assert firsts.pop("rated_games") == "game_id"
    assert firsts.pop("rating_changes") == "game_id"
    # Seeks (migration 006) are a player's, keyed by the seek: work in flight for the matcher, local
    # to the coordinator beside the job queue (the game a seek formed is keyed by its game_id).
    assert firsts.pop("seeks") == "seek_id"
    # Web Push subscriptions (migration 008) are a player's or a seat's, keyed by the subscription (a
    # reference table); the push cursor and outbox are keyed by the game.
    assert firsts.pop("push_subscriptions") == "subscription_id"
    assert firsts == {
        "games": "game_id",
        "seats": "game_id",
        "events": "game_id",
        "idempotency": "game_id",
        "webhook_progress": "game_id",
        "webhook_deliveries": "game_id",
        "webhook_attempts": "game_id",
        "push_progress": "game_id",
        "push_outbox": "game_id",
    }


async def test_listing_is_keyset_paginated(store):
    ids = [(await _new_game(store))[0] for _ in range(5)]
    seen = []
    before = None
    while True:
        page = await store.list_games("bluff", None, before, 2)
        if not page:
            break
        seen.extend(r.game_id for r in page)
        before = (page[-1].created_at, page[-1].game_id)
    assert set(ids) <= set(seen)
    assert len(seen) == len(set(seen))


def test_yamen_migrate_applies_each_migration_once(monkeypatch, capsys):
    import psycopg

    from service import cli
    from tests.servers import PG_ADMIN, url_for

    name = f"yamen_migrate_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        monkeypatch.setenv("DATABASE_URL", url_for(name))
        assert cli.main(["migrate"]) == 0
        assert "applied: 001_init" in capsys.readouterr().out
        assert cli.main(["migrate"]) == 0
        assert "nothing (up to date)" in capsys.readouterr().out
        with psycopg.connect(url_for(name)) as conn:
            tables = {
                r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            }
        assert {"games", "seats", "events", "idempotency", "schema_migrations"} <= tables
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_READS = {
    "get_game": lambda s, g: s.get_game(g),
    "load": lambda s, g: s.load(g, 0),
    "events": lambda s, g: s.events(g),
    "seats": lambda s, g: s.seats(g),
    "seat_token_hash": lambda s, g: s.seat_token_hash(g, 0),
    "version_of": lambda s, g: s.version_of(g),
    "idempotent_response": lambda s, g: s.idempotent_response(g, "k"),
    "list_games": lambda s, g: s.list_games(None, None, None, 5),
}
_WRITES = {
    "claim_seat": lambda s, g: s.claim_seat(g, 0, "x" * 64, datetime.now(UTC)),
    "ping": lambda s, g: s.ping(),
}


async def _lonely_store_with_a_dead_connection(database_url):
    import psycopg

    from service.infra.store import EventStore

    lonely = EventStore(database_url, min_size=1, max_size=1)
    await lonely.open()
    async with lonely.pool.connection() as conn:
        pid = conn.info.backend_pid
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    return lonely


@pytest.mark.parametrize("verb", sorted(_READS))
async def test_a_read_on_a_dropped_connection_is_sent_again_on_a_live_one(store, database_url, verb):
    """A query that changes nothing is retried once on another connection: a connection
    Postgres dropped (a restart, an idle timeout) costs the caller nothing."""
    game_id, _ = await _new_game(store)
    lonely = await _lonely_store_with_a_dead_connection(database_url)
    try:
        assert await _READS[verb](lonely, game_id) == await _READS[verb](store, game_id)
    finally:
        await lonely.close()


@pytest.mark.parametrize("verb", sorted(_WRITES))
async def test_a_write_on_a_dropped_connection_is_unavailable_not_a_driver_error(store, database_url, verb):
    """Nothing above the store sees a driver error: a write whose connection was dropped is
    StoreUnavailable (503 at the edge; it may have been applied), and the next call recovers."""
    from service.infra.store import StoreUnavailable

    game_id, _ = await _new_game(store)
    lonely = await _lonely_store_with_a_dead_connection(database_url)
    try:
        with pytest.raises(StoreUnavailable):
            await _WRITES[verb](lonely, game_id)
        await _WRITES[verb](lonely, game_id)  # the connection was replaced
    finally:
        await lonely.close()


async def test_a_pool_with_no_free_connection_is_unavailable_not_a_hang(database_url):
    from service.infra.store import EventStore, StoreUnavailable

    lonely = EventStore(database_url, min_size=1, max_size=1, timeout=0.2)
    await lonely.open()
    try:
        async with lonely.pool.connection():
            with pytest.raises(StoreUnavailable):
                await lonely.get_game("g_nobody")
    finally:
        await lonely.close()


async def test_a_value_postgres_cannot_store_is_refused_not_a_crash(store):
    """Postgres refuses NUL in text: StoreRefused (422 at the edge), and nothing is written."""
    from service.infra.store import StoreRefused

    row = GameRow(
        game_id="g_nul", kind="bluff", rules_version="bluff-1", options=b"{}", players=2, seed="a\x00b",
        seed_commitment="c", status="active", version=0, last_hash="c", imported=False,
        created_at=datetime.now(UTC), updated_at=datetime.now(UTC),
    )  # fmt: skip
    with pytest.raises(StoreRefused):
        await store.create_game(row, [None, None], [])
    assert await store.get_game("g_nul") is None


async def test_a_batch_keeps_every_character_of_its_events(store):
    """The batched append sends each column as one array literal: quotes, backslashes, braces,
    commas, "NULL", empty and non-ASCII text come back exactly."""
    tricky = ['{"s":"a\\\\\\"b"}', '{"s":"NULL"}', '{"s":""}', '{"s":"{,}"}', '{"s":"Jīngdézhèn \\u00e9"}']
    games = [await _new_game(store) for _ in range(len(tricky))]

    async def append(game_id: str, opening: list, payload: str) -> list:
        new = [
            NewEvent(
                type='t"\\,{}',
                payload=payload.encode(),
                visible_to=[0, 1],
                seat=1,
                command=payload.encode(),
                idempotency_key=None,
            )
        ]
        sealed = seal(game_id, 3, opening[-1].hash, new, datetime.now(UTC), "s")
        await store.append(game_id, 2, sealed, status="active", now=datetime.now(UTC))
        return sealed

    sent = store.batches_sent
    written = await asyncio.gather(*(append(g, o, t) for (g, o), t in zip(games, tricky)))
    assert store.batches_sent - sent < len(tricky)  # at least two went together
    for (game_id, opening), sealed in zip(games, written):
        events = await store.events(game_id)
        assert events == opening + sealed
        assert first_broken_link("c0", events, "s") is None


class _Outage:
    """A TCP proxy in front of the test Postgres that plays an outage, as a stopped Postgres looks
    to a client: while down, its port refuses connections and every connection through it is cut.
    (The machine's Postgres is never stopped.)"""

    def __init__(self, database_url: str) -> None:
        from urllib.parse import urlsplit

        from tests.servers import free_port

        parts = urlsplit(database_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self.port = free_port()
        self.url = parts._replace(netloc=f"{parts.username}@127.0.0.1:{self.port}").geturl()
        self.server: asyncio.Server | None = None
        self.cut: list[asyncio.StreamWriter] = []

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port, reuse_address=True)

    async def down(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in self.cut:
            writer.transport.abort()
        self.cut.clear()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        self.cut += [writer, up_writer]

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while chunk := await source.read(65536):
                    sink.write(chunk)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))


async def test_a_returning_postgres_is_used_within_a_second(database_url):
    """A request is waiting when Postgres accepts connections again: it is answered at once, not at
    the pool's next backed-off retry.  (The pool's own retries back off — 1, 2, 4 s… — and it
    starts a new attempt only when a request arrives; clients told to retry after a 503 arrive
    together, so a Postgres back between two of their waves stayed unused until the next wave, or
    the next backed-off retry.)"""
    from service.infra.store import EventStore, StoreUnavailable

    outage = _Outage(database_url)
    await outage.up()
    lonely = EventStore(outage.url, min_size=2, max_size=4, timeout=1.0)
    await lonely.open()
    sent: list[float] = []
    answered: list[float] = []
    done = False

    async def client() -> None:
        """One request at a time; after a 503, the second its Retry-After says."""
        while not done:
            sent.append(time.monotonic())
            try:
                await lonely.ping(timeout=1.0)
                answered.append(time.monotonic())
                await asyncio.sleep(0.05)
            except StoreUnavailable:
                await asyncio.sleep(1.0)

    calls = asyncio.create_task(client())
    try:
        await asyncio.sleep(0.3)
        assert answered
        await outage.down()
        await asyncio.sleep(4.5)  # past the backoff's retries at about 1 and 3 s, before the one at 7
        # Back while a request waits, after the attempt it started has been given up.
        waves = len(sent)
        while len(sent) == waves:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)
        answered.clear()
        await outage.up()
        back = time.monotonic()
        while not answered and time.monotonic() - back < 10:
            await asyncio.sleep(0.01)
        assert answered, "no answer within 10 s of Postgres' return"
        # Measured 0.05-0.16 s; the bound only tells it from waiting for the backoff's next retry (at
        # about 7 s), with room for a loaded machine.
        assert answered[0] - back < 2.5, f"first answer {answered[0] - back:.2f} s after Postgres was back"
    finally:
        done = True
        await calls
        await lonely.close()
        await outage.down()


async def test_requests_failed_together_by_an_outage_are_answered_apart(database_url):
    """Requests waiting while Postgres is away are answered 503 at spread-out times: their clients
    (which an outage puts in step) then retry at different moments, and one of them is waiting
    when Postgres returns."""
    from service.infra.store import EventStore, StoreUnavailable

    outage = _Outage(database_url)
    await outage.up()
    lonely = EventStore(outage.url, min_size=1, max_size=2, timeout=1.0)
    await lonely.open()
    await outage.down()
    try:
        for _ in range(2):  # the idle connection is found dead, then none can be had: Postgres is away
            with pytest.raises(StoreUnavailable):
                await lonely.ping(timeout=1.0)

        async def refused_after() -> float:
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                await lonely.ping(timeout=1.0)
            return time.monotonic() - started

        waits = await asyncio.gather(*(refused_after() for _ in range(8)))
        assert max(waits) <= 1.1
        assert max(waits) - min(waits) > 0.15, f"answered together: {sorted(waits)}"
    finally:
        await lonely.close()


# --- appends in place (migration 010) -------------------------------------------------------------
MOVE_CHANGES = {"version", "last_hash", "updated_at", "to_act"}
"""The games row's columns every append changes (status and finished_at change once, at the end)."""


async def test_no_index_of_games_covers_a_column_every_move_changes(store):
    """Postgres rewrites a row in place (HOT: no new index entries) only when no indexed column
    changes, in an index's keys or in its predicate; a move's update must qualify."""
    async with store.connection() as conn:
        cur = await conn.execute(
            "SELECT i.indexrelid::regclass::text, a.attname FROM pg_index i"
            " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
            " WHERE i.indrelid = 'games'::regclass"
            " UNION ALL SELECT i.indexrelid::regclass::text, pg_get_expr(i.indpred, i.indrelid)"
            " FROM pg_index i WHERE i.indrelid = 'games'::regclass AND i.indpred IS NOT NULL"
        )
        covered = await cur.fetchall()
    assert covered, "the games table has indexes"
    found = [(index, text) for index, text in covered for column in MOVE_CHANGES if column in text]
    assert not found


@pytest.mark.parametrize("keyed", [False, True], ids=["group-commit", "alone"])
async def test_an_append_to_no_game_writes_nothing(store, keyed):
    """No foreign key checks an event's game any more: the append statements do, and write nothing."""
    game_id = "t_" + secrets.token_hex(6)
    orphan = seal(game_id, 3, "h", _events(1), datetime.now(UTC), "s")
    resp = IdempotentResponse(seat=0, request_hash="r", status_code=200, response=b"{}")
    with pytest.raises(StoreError):
        await store.append(
            game_id,
            2,
            orphan,
            status="active",
            now=datetime.now(UTC),
            idempotency=("k", resp) if keyed else None,
        )
    assert await store.events(game_id) == []


@pytest.mark.parametrize("keyed", [False, True], ids=["group-commit", "alone"])
async def test_the_append_that_finishes_a_game_sets_finished_at_once(store, keyed):
    game_id, opening = await _new_game(store)

    async def finished_at():
        async with store.connection() as conn:
            cur = await conn.execute("SELECT finished_at FROM games WHERE game_id = %s", (game_id,))
            return (await cur.fetchone())[0]

    resp = IdempotentResponse(seat=0, request_hash="r", status_code=200, response=b"{}")
    move = seal(game_id, 3, opening[-1].hash, _events(1), datetime.now(UTC), "s")
    await store.append(game_id, 2, move, status="active", now=datetime.now(UTC))
    assert await finished_at() is None
    end = datetime.now(UTC)
    last = seal(game_id, 4, move[-1].hash, _events(1), end, "s")
    await store.append(
        game_id, 3, last, status="finished", now=end, idempotency=("k", resp) if keyed else None
    )
    assert await finished_at() == end


async def test_keyed_appends_share_a_commit_and_a_used_key_is_refused_alone(store):
    """Appends with an Idempotency-Key (the web client's and the bots' moves) go in the batch too,
    their answers stored with their events; a key used before fails only its own append."""
    games = [await _new_game(store) for _ in range(8)]
    used_id, used_opening = games[0]
    answer = IdempotentResponse(seat=0, request_hash="r", status_code=200, response=b'{"v":"\\\\ \x00 \xff"}')
    await store.append(
        used_id,
        2,
        seal(used_id, 3, used_opening[-1].hash, _events(1), datetime.now(UTC), "s"),
        status="active",
        now=datetime.now(UTC),
        idempotency=("k", answer),
    )

    async def attempt(k: int, game_id: str, opening: list) -> str:
        start = 4 if k == 0 else 3
        previous = (await store.events(game_id))[-1].hash
        batch = seal(game_id, start, previous, _events(1), datetime.now(UTC), "s")
        mine = IdempotentResponse(seat=0, request_hash=f"r{k}", status_code=200, response=b'{"k":%d}' % k)
        try:
            await store.append(
                game_id, start - 1, batch, status="active", now=datetime.now(UTC), idempotency=("k", mine)
            )
            return "ok"
        except DuplicateIdempotencyKey:
            return "used"

    sent = store.batches_sent
    results = await asyncio.gather(*(attempt(k, g, o) for k, (g, o) in enumerate(games)))
    assert results == ["used"] + ["ok"] * 7
    assert store.batches_sent - sent < 4  # they went together
    assert await store.idempotent_response(used_id, "k") == answer  # every byte kept
    assert (await store.get_game(used_id)).version == 3
    for k, (game_id, _) in enumerate(games[1:], start=1):
        stored = await store.idempotent_response(game_id, "k")
        assert stored == IdempotentResponse(
            seat=0, request_hash=f"r{k}", status_code=200, response=b'{"k":%d}' % k
        )
        assert (await store.get_game(game_id)).version == 3


async def test_keyed_appends_go_in_one_statement(store, monkeypatch):
    """The batch's own statement stores the answers (no append of the batch is sent alone)."""
    games = [await _new_game(store) for _ in range(6)]

    async def alone(*args, **kwargs):
        raise AssertionError("an append of the batch was sent alone")

    monkeypatch.setattr(store, "_alone", alone)

    async def attempt(k: int, game_id: str, opening: list) -> None:
        batch = seal(game_id, 3, opening[-1].hash, _events(2), datetime.now(UTC), "s")
        mine = IdempotentResponse(seat=1, request_hash=f"r{k}", status_code=200, response=b"\x00\\%d" % k)
        await store.append(
            game_id, 2, batch, status="active", now=datetime.now(UTC), idempotency=(f"k{k}", mine)
        )

    sent = store.batches_sent
    await asyncio.gather(*(attempt(k, g, o) for k, (g, o) in enumerate(games)))
    assert store.batches_sent - sent < 4
    for k, (game_id, _) in enumerate(games):
        assert await store.idempotent_response(game_id, f"k{k}") == IdempotentResponse(
            seat=1, request_hash=f"r{k}", status_code=200, response=b"\x00\\%d" % k
        )
        assert [e.seq for e in await store.events(game_id)] == [1, 2, 3, 4]

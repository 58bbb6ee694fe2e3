"""The database ceiling: raw psycopg appends with the SQL shape of ``EventStore.append``.

The rows are real: event rows the move benchmark stored, grouped back into the commands that
produced them.  Each append is one transaction that inserts the command's event rows and moves the
games row on with an expected-version check, using the very statement ``EventStore.append`` sends
(``service.infra.store.append_statement``) — exactly what the service does per move, minus everything
else the service does (HTTP, auth, load, decide, fold, hash, cache).
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from service.infra import store as _store

from .measure import Window, run_loop

_UPDATE = (
    "UPDATE games SET version = %s, last_hash = %s, status = %s, updated_at = %s"
    " WHERE game_id = %s AND version = %s RETURNING version"
)


async def _templates(pool: AsyncConnectionPool, limit: int = 6000) -> list[list[tuple]]:
    """Real commands' event rows: (type, payload, visible_to, seat, command, key, prev_hash, hash)."""
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT game_id, recorded_at, type, payload::text, visible_to, seat, command::text, "
            "idempotency_key,"
            " prev_hash, hash FROM events WHERE seat IS NOT NULL AND game_id NOT LIKE 'ceil_%%'"
            " ORDER BY game_id, seq LIMIT %s",
            (limit,),
        )
        rows = await cur.fetchall()
    commands: list[list[tuple]] = []
    last = None
    for r in rows:
        key = (r[0], r[1], r[5])
        if key != last:
            commands.append([])
            last = key
        commands[-1].append(r[2:])
    if not commands:
        raise RuntimeError("no stored moves to copy: run the move benchmark first")
    return commands


async def run(
    database_url: str, connections: int, pool_size: int, games: int, warmup: float, duration: float
) -> dict[str, Any]:
    pool = AsyncConnectionPool(
        database_url, min_size=pool_size, max_size=pool_size, open=False, kwargs={"autocommit": True}
    )
    await pool.open(wait=True)
    try:
        commands = await _templates(pool)
        tag = f"ceil_{time.time_ns():x}_"
        ids = [f"{tag}{i}" for i in range(games)]
        async with pool.connection() as conn:
            await conn.execute(
                "INSERT INTO games (game_id, kind, rules_version, options, players, seed, seed_commitment, "
                "status,"
                " version, last_hash, imported, created_at, updated_at)"
                " SELECT x, kind, rules_version, options, players, seed, seed_commitment, 'active', 0, "
                "last_hash,"
                " false, now(), now() FROM unnest(%s::text[]) AS x,"
                " (SELECT * FROM games WHERE game_id NOT LIKE 'ceil_%%' LIMIT 1) AS g",
                (ids,),
            )
        versions = dict.fromkeys(ids, 0)
        single = getattr(_store, "append_statement", None)
        w = Window(warmup, duration)
        events = 0

        async def append(game_id: str, rows: list[tuple]) -> None:
            nonlocal events
            now = datetime.now(UTC)
            v = versions[game_id]
            params = [
                (game_id, v + k + 1, r[0], r[1], r[2], r[3], r[4], r[5], now, r[6], r[7])
                for k, r in enumerate(rows)
            ]
            update = (v + len(rows), rows[-1][7], "active", now, game_id, v)
            t0 = time.perf_counter()
            async with pool.connection() as conn:
                if single is not None:
                    # The service's own append statement, one command per transaction.
                    of = getattr(_store, "append_params_of", None)
                    if of is not None:
                        flat = of(game_id, v, params, rows[-1][7], "active", now)
                    else:  # an older store: events first, then the update's parameters
                        flat = [x for p in params for x in p] + list(update)
                    cur = await conn.execute(single(len(rows), False), flat)
                    if (await cur.fetchone())[0] is None:
                        raise RuntimeError("stale version in the ceiling benchmark")
                else:  # an older store: insert then update in one pipelined transaction
                    async with conn.pipeline(), conn.transaction(), conn.cursor() as cur:
                        await cur.executemany(_store._INSERT_EVENT, params)
                        await cur.execute(_UPDATE, update)
                        if await cur.fetchone() is None:
                            raise RuntimeError("stale version in the ceiling benchmark")
            w.record("append", t0, time.perf_counter())
            versions[game_id] = v + len(rows)
            if t0 >= w.start:
                events += len(rows)

        async def worker(i: int) -> None:
            mine = ids[i::connections]
            k = i
            while w.running():
                for g in mine:
                    if not w.running():
                        break
                    await append(g, commands[k % len(commands)])
                    k += 1

        w.arm()
        await asyncio.gather(*(worker(i) for i in range(connections)))
        rows_per_command = sum(len(c) for c in commands) / len(commands)
        return {
            **w.result("append"),
            "events_per_command": rows_per_command,
            "pool_size": pool_size,
            "statement": "single" if single is not None else "pipeline",
        }
    finally:
        await pool.close()


# --- the entry point (runs in the load generator's process, see bench.runner) --------------------
def insert_ceiling(
    database_url: str, connections: int, pool_size: int, games: int, warmup: float, duration: float
) -> dict[str, Any]:
    """Raw psycopg appends of real event rows, one transaction per command, with the SQL shape of
    ``EventStore.append`` (pipeline: insert the command's event rows, update the games row with an
    expected version), at the same concurrency as the move benchmark."""
    return run_loop(run(database_url, connections, pool_size, games, warmup, duration))

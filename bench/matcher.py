"""The matcher under 10,000 concurrent seekers across all titles.

Everything runs against a scratch database (created here and dropped afterwards, never the shared
default one): ``python -m bench.matcher [--seekers 10000] [--apps 4] [--concurrency 64]``.

The service's own parts do the work: each seek is made by :meth:`Seeks.create` (the player's row
locked, the seek inserted, the pool's matcher job deferred) and the games are formed by the
``yamen.match`` jobs, taken by a Procrastinate worker in this process (four at a time, one per pool
and title) — the path a seek takes in production, without HTTP.  The seekers are players of
``--apps`` apps (a pool each), spread over the three titles, each accepting a random set of player
counts and, for Pingyao and Jiangnan, an option constraint (crowdfunding, chapter); all are new
players (one rating), so a group is compatible the moment its last seek is made.

Printed: the seeks made per second; for every game formed, the time from its last seek's creation
to the game's creation in the matcher's transaction (p50 / p99 / max, ms); and games formed per
second from the first seek to the last game.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from datetime import UTC, datetime

from domain.registry import production_games
from service.application import Application
from service.application.identity import PlayerCaller
from service.application.seeks import SeekRequest
from service.infra.cache import MemorySnapshotCache
from service.infra.jobs import JobQueue
from service.infra.store import EventStore
from tests.servers import fresh_database

from .stats import percentile

COUNTS = {"yangtze": [2, 3, 4], "pingyao": [2, 3, 4], "jiangnan": [2, 3, 4]}


def _request(rng: random.Random, kind: str) -> SeekRequest:
    counts = sorted(rng.sample(COUNTS[kind], rng.choice([1, 2, 3])))
    options: dict[str, list[object]] = {}
    if kind == "pingyao" and rng.random() < 0.5:
        options["crowdfunding"] = rng.choice([[True], [False], [True, False]])
    if kind == "jiangnan" and rng.random() < 0.5:
        options["chapter"] = rng.sample([1, 2, 3], rng.choice([1, 2]))
    return SeekRequest(kind=kind, players=counts, options=options)


async def _players(store: EventStore, apps: int, seekers: int) -> list[PlayerCaller]:
    now = datetime.now(UTC)
    async with store.connection() as conn:
        for a in range(apps):
            await conn.execute(
                "INSERT INTO apps (app_id, name, created_at, requests_per_minute, games_per_day,"
                " concurrent_games, default_visibility)"
                " VALUES (%s, %s, %s, 1000000, 10000000, 10000000, 'public')",
                (f"app_{a:016x}", f"bench {a}", now),
            )
        await conn.execute(
            "INSERT INTO players (player_id, app_id, external_id, display_name, created_at)"
            " SELECT 'p_' || lpad(to_hex(i), 8, '0'), 'app_' || lpad(to_hex(i %% %s), 16, '0'),"
            " i::text, NULL, %s"
            " FROM generate_series(1, %s) AS i",
            (apps, now, seekers),
        )
    return [
        PlayerCaller(player_id=f"p_{i:08x}", app_id=f"app_{i % apps:016x}") for i in range(1, seekers + 1)
    ]


async def run(seekers: int, apps: int, concurrency: int, settle: float) -> None:
    with fresh_database("yamen_bench_matcher_") as url:
        store = EventStore(url, max_size=concurrency + 8)
        await store.open()
        await store.migrate()
        queue = JobQueue(url)
        await queue.open()
        application = Application(production_games(), store, MemorySnapshotCache(), queue=queue)
        queue.start_worker(application.job_handlers())
        try:
            callers = await _players(store, apps, seekers)
            rng = random.Random(30)
            kinds = list(COUNTS)
            requests = [(caller, _request(rng, kinds[i % len(kinds)])) for i, caller in enumerate(callers)]
            gate = asyncio.Semaphore(concurrency)

            async def seek(caller: PlayerCaller, request: SeekRequest) -> None:
                async with gate:
                    await application.seeks.create(caller, request)

            started = time.perf_counter()
            await asyncio.gather(*(seek(c, r) for c, r in requests))
            made = time.perf_counter() - started
            print(f"seeks: {seekers} made in {made:.1f} s ({seekers / made:.0f}/s, {concurrency} at a time)")
            # Until the matchers have formed everything they can: no new game for `settle` seconds.
            last, quiet = -1, time.perf_counter()
            while time.perf_counter() - quiet < settle:
                await asyncio.sleep(0.5)
                async with store.connection() as conn:
                    cur = await conn.execute("SELECT count(*) FROM games")
                    row = await cur.fetchone()
                games = row[0] if row else 0
                if games != last:
                    last, quiet = games, time.perf_counter()
            async with store.connection() as conn:
                cur = await conn.execute(
                    "SELECT g.game_id, g.created_at, max(s.created_at), min(s.created_at), count(*)"
                    " FROM games g JOIN seeks s ON s.game_id = g.game_id GROUP BY g.game_id, g.created_at"
                )
                rows = await cur.fetchall()
                cur = await conn.execute("SELECT status, count(*) FROM seeks GROUP BY status ORDER BY status")
                statuses = dict(await cur.fetchall())
            latencies = sorted(
                (created - last_seek).total_seconds() * 1000 for _, created, last_seek, _, _ in rows
            )
            first = min(r[3] for r in rows)
            end = max(r[1] for r in rows)
            span = (end - first).total_seconds()
            seated = sum(r[4] for r in rows)
            print(f"seeks by status: {statuses}")
            print(f"games formed: {len(rows)} seating {seated} seekers")
            print(
                "last compatible seek -> game created: "
                f"p50 {percentile(latencies, 0.5):.0f} ms, p99 {percentile(latencies, 0.99):.0f} ms, "
                f"max {latencies[-1]:.0f} ms"
            )
            rate = len(rows) / span
            print(f"games formed per second: {rate:.0f} ({span:.1f} s from the first seek to the last game)")
        finally:
            await queue.close()
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seekers", type=int, default=10_000)
    parser.add_argument("--apps", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds without a new game that end the run"
    )
    args = parser.parse_args()
    asyncio.run(run(args.seekers, args.apps, args.concurrency, args.settle))


if __name__ == "__main__":
    main()

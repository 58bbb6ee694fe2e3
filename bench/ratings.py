"""Ratings: the CPU of one rating update, one applied game with its write, and the leaderboard reads
at 100,000 rated players.

Everything runs against a scratch database (created here and dropped afterwards, never the shared
default one): ``python -m bench.ratings [--players 100000] [--reads 1000] [--games 2000]``.

- *update*: :func:`service.application.rating_model.update` alone (openskill's Plackett-Luce), per
  game of 2, 3 and 4 seats: process CPU time per call.
- *apply*: :meth:`RatingsStore.settle` — the one transaction that locks the players' rows, takes
  the game's position, writes the new ratings and the history — for generated 4-seat games among
  the generated players: wall time per game (p50/p99) and this process's CPU per game.
- *top-100* and *around-me*: :meth:`Ratings.board` and :meth:`Ratings.around` (5 neighbours) on the
  board of 100,000 established players, for random players: p50/p99 wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from domain.registry import production_games
from service.application.rating_model import NEW_PLAYER, Belief, SeatStanding, update
from service.application.ratings import Ratings, changes_for
from service.application.states import States
from service.application.titles import Titles
from service.infra.cache import MemorySnapshotCache
from service.infra.players_store import PlayerStore
from service.infra.ratings_store import RatingsStore
from service.infra.store import EventStore
from tests.servers import fresh_database

KIND = "yangtze"


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def bench_update(calls: int = 20_000) -> dict[int, float]:
    """CPU µs per update, by seats."""
    out = {}
    rng = random.Random(1)
    for seats in (2, 3, 4):
        games = [
            [
                SeatStanding(s, rng.randint(1, seats), Belief(rng.uniform(15, 35), rng.uniform(1, 8)))
                for s in range(seats)
            ]
            for _ in range(200)
        ]
        start = time.process_time()
        for i in range(calls):
            update(games[i % len(games)])
        out[seats] = (time.process_time() - start) / calls * 1e6
    return out


async def _generate(store: EventStore, players: int) -> list[str]:
    """*players* players, each with an established rating in KIND (one statement each table)."""
    now = datetime.now(UTC)
    async with store.connection() as conn:
        await conn.execute(
            "INSERT INTO players (player_id, app_id, external_id, display_name, created_at)"
            " SELECT 'p_' || lpad(to_hex(i), 8, '0'), NULL, NULL, 'player ' || i, %s"
            " FROM generate_series(1, %s) AS i",
            (now, players),
        )
        await conn.execute(
            "INSERT INTO player_ratings (player_id, kind, mu, sigma, games, updated_at, rating)"
            " SELECT 'p_' || lpad(to_hex(i), 8, '0'), %s, m, s, 10 + (i %% 90), %s, 1000 + 40 * (m - 3 * s)"
            " FROM (SELECT i, 25 + 8 * sin(i) AS m, 1 + 3 * abs(cos(i * 7)) AS s"
            " FROM generate_series(1, %s) AS i) AS g",
            (KIND, now, players),
        )
        # What autovacuum does soon after a load: statistics, and the visibility map an index-only
        # scan (the rank's count) needs.
        await conn.execute("VACUUM ANALYZE player_ratings")
        await conn.execute("VACUUM ANALYZE players")
    return [f"p_{i:08x}" for i in range(1, players + 1)]


async def _games_for_apply(store: EventStore, n: int) -> list[str]:
    """*n* finished game rows to mark (the marker references games)."""
    now = datetime.now(UTC)
    async with store.connection() as conn:
        await conn.execute(
            "INSERT INTO games (game_id, kind, rules_version, options, players, seed, seed_commitment,"
            " status, version, last_hash, created_at, updated_at, rated)"
            " SELECT 'gb_' || i, %s, 'x', '{}', 4, 's', 'c', 'finished', 1, 'h', %s, %s, true"
            " FROM generate_series(1, %s) AS i",
            (KIND, now, now, n),
        )
    return [f"gb_{i}" for i in range(1, n + 1)]


async def bench_apply(store: EventStore, ids: list[str], games: int) -> dict[str, float]:
    ratings = RatingsStore(store)
    rng = random.Random(2)
    game_ids = await _games_for_apply(store, games)
    walls, cpus = [], []
    for game_id in game_ids:
        seats = [(s, p, None) for s, p in enumerate(rng.sample(ids, 4))]
        ranks = {s: rng.randint(1, 4) for s in range(4)}
        now = datetime.now(UTC)
        start, cpu = time.perf_counter(), time.process_time()
        await ratings.settle(
            game_id,
            KIND,
            [p for _, p, _ in seats],
            lambda before, position, g=game_id, st=seats, r=ranks, t=now: changes_for(
                g, KIND, st, r, before, position, t
            ),
            now,
        )
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    p50, p99 = _quantiles(walls)
    return {"wall_p50_ms": p50 * 1e3, "wall_p99_ms": p99 * 1e3, "cpu_us": statistics.mean(cpus) * 1e6}


async def bench_reads(store: EventStore, ids: list[str], reads: int) -> dict[str, Any]:
    titles = Titles(production_games())
    ratings = Ratings(
        titles, States(titles, store, MemorySnapshotCache()), RatingsStore(store), PlayerStore(store)
    )
    rng = random.Random(3)
    for _ in range(20):  # warm the pool and the plans
        await ratings.board(KIND, None, 100)
        await ratings.around(KIND, rng.choice(ids))
    top, around = [], []
    for _ in range(reads):
        start = time.perf_counter()
        board = await ratings.board(KIND, None, 100)
        top.append(time.perf_counter() - start)
        assert len(board.entries) == 100
        player = rng.choice(ids)
        start = time.perf_counter()
        await ratings.around(KIND, player)
        around.append(time.perf_counter() - start)
    t50, t99 = _quantiles(top)
    a50, a99 = _quantiles(around)
    return {
        "top100_p50_ms": t50 * 1e3,
        "top100_p99_ms": t99 * 1e3,
        "around_p50_ms": a50 * 1e3,
        "around_p99_ms": a99 * 1e3,
    }


async def run(players: int, reads: int, games: int) -> dict[str, Any]:
    with fresh_database("yamen_bench_ratings_") as url:
        store = EventStore(url, min_size=1, max_size=4)
        await store.open()
        try:
            await store.migrate()
            ids = await _generate(store, players)
            apply = await bench_apply(store, ids, games)
            read = await bench_reads(store, ids, reads)
        finally:
            await store.close()
    return {"apply": apply, "reads": read}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ratings", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args(argv)
    math = bench_update()
    print("rating update (openskill Plackett-Luce, pure math), CPU µs per game:")
    for seats, micros in math.items():
        print(f"  {seats} seats: {micros:.1f} µs")
    assert update([SeatStanding(0, 1, NEW_PLAYER), SeatStanding(1, 2, NEW_PLAYER)])
    found = asyncio.run(run(args.players, args.reads, args.games))
    apply = found["apply"]
    print(f"applied game (4 seats, one transaction, {args.games} games among {args.players:,} players):")
    print(
        f"  wall p50 {apply['wall_p50_ms']:.2f} ms, p99 {apply['wall_p99_ms']:.2f} ms;"
        f" CPU in this process {apply['cpu_us']:.0f} µs per game"
    )
    read = found["reads"]
    print(f"leaderboard reads at {args.players:,} established players ({args.reads} each):")
    print(f"  top-100:   p50 {read['top100_p50_ms']:.2f} ms, p99 {read['top100_p99_ms']:.2f} ms")
    around = f"p50 {read['around_p50_ms']:.2f} ms, p99 {read['around_p99_ms']:.2f} ms"
    print(f"  around-me: {around} (rank + 5 each side)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

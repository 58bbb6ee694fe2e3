"""The snapshot cache: the same contract for Redis and the in-process cache, and the fallbacks.

A miss, a stale or undecodable snapshot, or Redis being down must still answer correctly from
Postgres — checked through the real app against real Redis and a port nothing listens on.
"""

from __future__ import annotations

import time

import pytest
from litestar.testing import AsyncTestClient

from service.infra.cache import MemorySnapshotCache, RedisSnapshotCache, encode_snapshot, peek_snapshot
from tests.conftest import make_app
from tests.http.helpers import bearer, create

DEAD_REDIS = "redis://127.0.0.1:1/0"


@pytest.fixture(params=["memory", "redis"])
async def cache(request, redis_url):
    c = MemorySnapshotCache() if request.param == "memory" else RedisSnapshotCache(redis_url)
    yield c
    await c.close()


async def test_cache_contract(cache):
    assert await cache.get("g_missing") is None
    blob = encode_snapshot(3, "r-1", {"a": 1})
    await cache.set("g_contract", blob)
    assert await cache.get("g_contract") == blob
    assert peek_snapshot(blob).version == 3
    await cache.delete("g_contract")
    assert await cache.get("g_contract") is None


async def test_redis_outage_is_a_miss_and_backs_off_quickly():
    cache = RedisSnapshotCache(DEAD_REDIS)
    started = time.perf_counter()
    assert await cache.get("g") is None
    await cache.set("g", b"x")
    assert await cache.get("g") is None
    assert time.perf_counter() - started < 2.0
    assert await cache.status() == "unavailable"
    await cache.close()


async def _play_some(client, game_id, tokens, n=3):
    for _ in range(n):
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        if not doc["to_act"]:
            return
        seat = doc["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        r = await client.post(
            f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[seat])
        )
        assert r.status_code == 200, r.text


async def test_service_answers_correctly_with_redis_down(database_url):
    async with AsyncTestClient(app=make_app(database_url, DEAD_REDIS)) as client:
        created = await create(client, "bluff", {"players": 3})
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        await _play_some(client, created["game_id"], tokens)
        doc = (await client.get(f"/v1/games/{created['game_id']}")).json()
        assert doc["version"] == created["version"] + 3
        ready = (await client.get("/readyz")).json()
        assert ready == {"status": "ok", "postgres": "ok", "redis": "unavailable"}


@pytest.mark.parametrize("damage", ["missing", "stale", "garbage", "other_rules", "ahead"])
async def test_damaged_snapshots_fall_back_to_postgres(database_url, redis_url, damage):
    # The app runs on its own event loop; the test reaches Redis through a client of its own.
    # Without the notice board every read consults the snapshot (with it, tests/service/test_notices.py).
    cache = RedisSnapshotCache(redis_url)
    async with AsyncTestClient(app=make_app(database_url, redis_url, notices=False)) as client:
        created = await create(client, "bluff", {"players": 3})
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        opening_snapshot = await cache.get(game_id)
        assert peek_snapshot(opening_snapshot).version == created["version"]
        await _play_some(client, game_id, tokens, 2)
        truth = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
        current = peek_snapshot(await cache.get(game_id))
        assert current.version == truth["version"]
        if damage == "missing":
            await cache.delete(game_id)
        elif damage == "stale":
            # The snapshot from before the last two moves: only the newer events get folded.
            await cache.set(game_id, opening_snapshot)
        elif damage == "garbage":
            await cache.set(game_id, b"\x00not msgpack at all")
        elif damage == "other_rules":
            await cache.set(game_id, encode_snapshot(current.version, "bluff-0", {"nonsense": True}))
        elif damage == "ahead":
            await cache.set(game_id, encode_snapshot(current.version + 5, "bluff-1", {"nonsense": True}))
        again = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
        assert again == truth
        # The read repaired the cache, and play goes on.
        assert peek_snapshot(await cache.get(game_id)).version == truth["version"]
        await _play_some(client, game_id, tokens, 1)
    await cache.close()

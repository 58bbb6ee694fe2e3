"""The rate limit's counters on the real Redis: requests counted together share one round trip,
and each still gets its own count, as if it had been counted alone."""

from __future__ import annotations

import asyncio
import secrets

from service.http.limits import RATE_PREFIX, RedisCounters
from service.infra.redis_connections import redis_client
from tests.processes import free_port
from tests.servers import REDIS_URL


class CountingClient:
    """The real client, counting the pipelines it sends."""

    def __init__(self, client) -> None:
        self.client = client
        self.pipelines = 0

    def pipeline(self, **kwargs):
        self.pipelines += 1
        return self.client.pipeline(**kwargs)


async def test_requests_counted_together_each_get_their_own_count_in_one_round_trip() -> None:
    client = CountingClient(redis_client(REDIS_URL))
    counters = RedisCounters(client)
    key, other = f"test:{secrets.token_hex(6)}", f"test:{secrets.token_hex(6)}"
    try:
        first = await counters.count(key, 60)
        assert first is not None and first[0] == 1 and 59 < first[1] <= 60
        counted = await asyncio.gather(
            *(counters.count(key, 60) for _ in range(50)), *(counters.count(other, 1) for _ in range(5))
        )
        assert all(c is not None for c in counted)
        assert sorted(c[0] for c in counted[:50]) == list(range(2, 52))  # each count once, none lost
        assert [c[0] for c in counted[:50]] == list(range(2, 52))  # in the order they arrived
        assert [c[0] for c in counted[50:]] == [1, 2, 3, 4, 5] and all(0 < c[1] <= 1 for c in counted[50:])
        assert client.pipelines == 2  # the first request's, then all 55 together
        assert int(await client.client.get(RATE_PREFIX + key)) == 51
        assert 0 < await client.client.pttl(RATE_PREFIX + other) <= 1000  # the window's expiry is set
    finally:
        await client.client.delete(RATE_PREFIX + key, RATE_PREFIX + other)
        await client.client.aclose()


async def test_requests_arriving_while_a_count_is_in_flight_go_in_the_next_round_trip() -> None:
    client = CountingClient(redis_client(REDIS_URL))
    counters = RedisCounters(client)
    key = f"test:{secrets.token_hex(6)}"
    try:
        first = asyncio.ensure_future(counters.count(key, 60))
        await asyncio.sleep(0)  # the first batch is on its way
        await asyncio.sleep(0)
        later = [asyncio.ensure_future(counters.count(key, 60)) for _ in range(10)]
        results = [await first, *[await f for f in later]]
        assert [r[0] for r in results if r is not None] == list(range(1, 12))
        assert client.pipelines == 2
    finally:
        await client.client.delete(RATE_PREFIX + key)
        await client.client.aclose()


async def test_an_unreachable_redis_lets_requests_through_and_is_left_alone_for_a_while() -> None:
    client = CountingClient(redis_client(f"redis://127.0.0.1:{free_port()}/0"))
    counters = RedisCounters(client, backoff_seconds=30)
    try:
        assert await asyncio.gather(*(counters.count("anybody", 60) for _ in range(3))) == [None] * 3
        assert client.pipelines == 1
        assert await counters.count("anybody", 60) is None
        assert client.pipelines == 1  # backing off: Redis was not asked again
    finally:
        await client.client.aclose()

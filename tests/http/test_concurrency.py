"""Fifty simultaneous moves at one game version: one wins, the rest are refused or retried."""

from __future__ import annotations

import asyncio

import pytest
from litestar.testing import AsyncTestClient

from service.record.chain import StoredEvent, first_broken_link
from tests.conftest import make_app
from tests.http.helpers import bearer, create


async def _events(store, game_id):
    return await store.events(game_id)


@pytest.mark.parametrize("with_if_match", [True, False])
async def test_fifty_simultaneous_moves(database_url, redis_url, store, with_if_match):
    async with AsyncTestClient(app=make_app(database_url, redis_url)) as client:
        created = await create(client, "bluff", {"players": 3})
        game_id, v = created["game_id"], created["version"]
        token = created["tokens"][0]["token"]
        headers = bearer(token) | ({"If-Match": f'"{v}"'} if with_if_match else {})

        async def claim(i: int):
            return await client.post(
                f"/v1/games/{game_id}/moves",
                json={"type": "bluff.Claim", "claim": "high" if i % 2 else "low"},
                headers=headers,
            )

        responses = await asyncio.gather(*(claim(i) for i in range(50)))
        statuses = sorted(r.status_code for r in responses)
        assert statuses.count(200) == 1
        losers = [r for r in responses if r.status_code != 200]
        if with_if_match:
            assert {r.status_code for r in losers} == {412}
            assert {r.json()["current_version"] for r in losers} == {v + 1}
        else:
            # Retried on the fresh state, where the claim has already been made.
            assert {r.json()["code"] for r in losers} == {"claim_already_made"}

    events: list[StoredEvent] = await store.events(game_id)
    assert [e.seq for e in events] == list(range(1, v + 2))
    row = await store.get_game(game_id)
    assert row.version == v + 1 and row.last_hash == events[-1].hash
    assert first_broken_link(row.seed_commitment, events, row.seed) is None

"""The live event stream (server-sent events), redacted for the caller."""

from __future__ import annotations

import asyncio
import json
import time

import httpx

from tests.http.helpers import bearer, create, play_to_end


async def _read_events(client, url, headers=None, *, until_seq=None, timeout=10.0):
    received = []
    async with client.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = None

        async def consume():
            nonlocal kind
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    kind = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    if kind == "end":
                        return
                    received.append(json.loads(line.split(":", 1)[1]))
                    if until_seq is not None and received[-1]["seq"] >= until_seq:
                        return

        await asyncio.wait_for(consume(), timeout)
    return received


async def test_stream_of_a_finished_game_replays_everything_then_ends(client):
    created = await create(client, "bluff", {"players": 2})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    final = await play_to_end(client, created["game_id"], tokens)
    events = await _read_events(client, f"/v1/games/{created['game_id']}/events/stream")
    assert [e["seq"] for e in events] == list(range(1, final["version"] + 1))


async def test_a_spectator_watches_redacted_events_arrive(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id, v = created["game_id"], created["version"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        watcher = asyncio.create_task(
            _read_events(client, f"/v1/games/{game_id}/events/stream", until_seq=v + 2)
        )
        await asyncio.sleep(0.3)
        await client.post(
            f"/v1/games/{game_id}/moves",
            json={"type": "bluff.Claim", "claim": "low"},
            headers=bearer(tokens[0]),
        )
        await client.post(
            f"/v1/games/{game_id}/moves", json={"type": "bluff.Stake", "amount": 1}, headers=bearer(tokens[0])
        )
        events = await asyncio.wait_for(watcher, 10)
    assert [e["seq"] for e in events] == list(range(1, v + 3))
    drawn = [e["event"] for e in events if e["event"]["type"] == "bluff.CardDrawn"]
    assert drawn and all(d["card"] is None for d in drawn)


async def test_a_watched_game_that_ends_closes_its_stream_at_once(live_server):
    """Notices wake the stream (no polling), and the last events of a finished game end it."""
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        watcher = asyncio.create_task(_read_events(client, f"/v1/games/{game_id}/events/stream", timeout=60))
        await asyncio.sleep(0.3)
        final = await play_to_end(client, game_id, tokens)
        ended_at = time.monotonic()
        events = await asyncio.wait_for(watcher, 10)
        # The stream's own safety poll is 15 s: ending sooner means the notice (or the last
        # batch) closed it, not a poll.
        assert time.monotonic() - ended_at < 3.0
    assert [e["seq"] for e in events] == list(range(1, final["version"] + 1))

"""Slow lane: games of bots only, every title and player count (and each title's modes), played
to the end by the job queue over the real move path, then verified."""

from __future__ import annotations

import pytest

from .test_bots import wait_for

pytestmark = pytest.mark.slow

CONFIGURATIONS = [
    ("yangtze", {"players": 2}),
    ("yangtze", {"players": 3}),
    ("yangtze", {"players": 4}),
    ("pingyao", {"players": 1}),
    ("pingyao", {"players": 2}),
    ("pingyao", {"players": 3}),
    ("pingyao", {"players": 4}),
    ("jiangnan", {"players": 1}),
    ("jiangnan", {"players": 2}),
    ("jiangnan", {"players": 2, "variant": True}),
    ("jiangnan", {"players": 3, "chapter": 4}),
    ("jiangnan", {"players": 4}),
]


@pytest.mark.parametrize(("kind", "options"), CONFIGURATIONS, ids=lambda v: str(v))
async def test_bots_alone_play_a_game_to_its_verified_end(client, kind, options):
    players = options["players"]
    bots = {str(seat): ("heuristic" if seat % 2 == 0 else "random") for seat in range(players)}
    response = await client.post(
        "/v1/games",
        json={
            "kind": kind,
            "options": options,
            "seed": f"bot-games-{kind}-{options}",
            "take_seats": "none",
            "bots": bots,
        },
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["status"] == "active" and created["tokens"] == []
    done = await wait_for(client, created["game_id"], lambda d: d["status"] == "finished", timeout=300)
    assert done["outcome"]["scores"]
    verification = (await client.get(f"/v1/games/{created['game_id']}/verification")).json()
    assert verification["ok"] is True, verification
    # Every move was made by a bot seat, each at most once per version (If-Match + its key).
    events = (await client.get(f"/v1/games/{created['game_id']}/events?limit=1000")).json()["events"]
    assert {e["seat"] for e in events if e["seat"] is not None} <= set(range(players))

"""An app's limits replace its address's: its traffic (its key, its players) counts in its own
bucket at its own requests a minute, and its games against its games a day and games at once;
each breach is a 429 naming the limit.  Anonymous callers keep ``YAMEN_RATE_LIMIT``."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.test_apps import OPERATOR, new_app
from tests.http.test_games_api import assert_problem

ANONYMOUS = 10
"""Requests a minute an anonymous caller (an address, a seat token) may send in these tests."""


@pytest.fixture
async def client(database_url: str, redis_url: str):
    cleaner = redis.Redis.from_url(redis_url)  # the counts of an earlier run, still in their minute
    cleaner.delete(*(cleaner.keys("yamen:rate:*") or ["-"]))
    cleaner.close()
    app = make_app(database_url, redis_url, admin_token=OPERATOR, rate_limit=f"{ANONYMOUS}/minute")
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


async def _create(client: Any, key: str, **body: Any) -> Any:
    return await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}, **body}, headers=bearer(key)
    )


async def _play(client: Any, key: str, game_id: str, tokens: dict[int, str]) -> int:
    """Play the game to its end: the app's key reads it, each seat's token moves.  Returns how many
    requests each seat's token sent, at most."""
    rng = random.Random(game_id)
    sent = dict.fromkeys(tokens, 0)
    while True:
        doc = await client.get(f"/v1/games/{game_id}", headers=bearer(key))
        assert doc.status_code == 200, doc.text
        if doc.json()["status"] == "finished":
            return max(sent.values())
        seat = doc.json()["to_act"][0]
        legal = await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))
        assert legal.status_code == 200, legal.text
        moved = await client.post(
            f"/v1/games/{game_id}/moves", json=rng.choice(legal.json()["moves"]), headers=bearer(tokens[seat])
        )
        assert moved.status_code == 200, moved.text
        sent[seat] += 2


async def test_an_app_plays_many_games_fast_while_anonymous_callers_are_limited(client):
    _, key = await new_app(client)
    for _ in range(12):
        created = await _create(client, key, take_seats="all")
        assert created.status_code == 201, created.text
        game = created.json()
        tokens = {t["seat"]: t["token"] for t in game["tokens"]}
        per_token = await _play(client, key, game["game_id"], tokens)
        assert per_token < ANONYMOUS  # each seat's token stays in its own (anonymous) bucket
    listed = await client.get("/v1/games?limit=100", headers=bearer(key))
    assert listed.status_code == 200 and int(listed.headers["ratelimit-limit"]) == 60_000
    assert int(listed.headers["ratelimit-remaining"]) < 60_000 - 12 * 3  # creates and reads all counted
    # Meanwhile an anonymous caller is held to its limit (the operator's request that made the app
    # came from this address too: it counted).
    answers = [(await client.get("/v1/catalogue")).status_code for _ in range(ANONYMOUS - 1)]
    assert answers == [200] * (ANONYMOUS - 1)
    refused = assert_problem(await client.get("/v1/catalogue"), 429, "too_many_requests")
    assert refused["limit"] == ANONYMOUS
    # ...and the app is not.
    assert (await client.get("/v1/catalogue", headers=bearer(key))).status_code == 200


async def test_an_apps_requests_per_minute(client):
    app_id, key = await new_app(client, requests_per_minute=5)
    other = (
        await client.post(f"/v1/admin/apps/{app_id}/keys", headers={"Authorization": f"Bearer {OPERATOR}"})
    ).json()
    # The app's keys share the app's bucket.
    for n in range(5):
        answer = await client.get("/v1/catalogue", headers=bearer(key if n % 2 else other["key"]))
        assert answer.status_code == 200
        assert answer.headers["ratelimit-policy"] == "5; w=60"
        assert answer.headers["ratelimit-remaining"] == str(4 - n)
    refused = await client.get("/v1/games", headers=bearer(key))
    body = assert_problem(refused, 429, "too_many_requests")
    assert body["limit"] == 5 and 0 < int(refused.headers["retry-after"]) <= 60
    assert refused.headers["ratelimit-remaining"] == "0"
    # Another app, and anonymous callers, have their own buckets.
    _, elsewhere = await new_app(client)
    assert (await client.get("/v1/games", headers=bearer(elsewhere))).status_code == 200
    assert (await client.get("/v1/games")).status_code == 200


async def test_an_apps_players_count_in_the_apps_bucket(client):
    _, key = await new_app(client, requests_per_minute=4)
    made = await client.post(
        "/v1/players", json={"external_id": "wang", "credential": True}, headers=bearer(key)
    )
    assert made.status_code in (200, 201), made.text
    credential = made.json()["credential"]["credential"]
    for _ in range(3):
        assert (await client.get("/v1/catalogue", headers=bearer(credential))).status_code == 200
    body = assert_problem(
        await client.get("/v1/catalogue", headers=bearer(credential)), 429, "too_many_requests"
    )
    assert body["limit"] == 4


async def test_an_apps_games_per_day(client):
    _, key = await new_app(client, games_per_day=3)
    for n in range(3):
        assert (await _create(client, key, take_seats="none")).status_code == 201
        if n == 1:  # refused creates are not counted
            assert_problem(await _create(client, key, options={"players": 9}), 422, "invalid_options")
            assert_problem(
                await client.post("/v1/games", json={"kind": "nope"}, headers=bearer(key)),
                404,
                "unknown_kind",
            )
    refused = await _create(client, key)
    body = assert_problem(refused, 429, "games_per_day_reached")
    assert body["limit"] == 3 and 0 < int(refused.headers["retry-after"]) <= 86_400
    # Anonymous games are nobody's: not counted.
    assert (
        await client.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}})
    ).status_code == 201


async def test_an_apps_concurrent_games_and_its_rematches(client):
    app_id, key = await new_app(client, concurrent_games=2, games_per_day=4)
    first = (await _create(client, key, take_seats="all")).json()
    assert (await _create(client, key, take_seats="none")).status_code == 201
    refused = await _create(client, key)
    body = assert_problem(refused, 429, "concurrent_games_reached")
    assert body["limit"] == 2 and refused.headers["retry-after"]
    # A finished game is no longer counted.
    await _play(client, key, first["game_id"], {t["seat"]: t["token"] for t in first["tokens"]})
    assert (await _create(client, key, take_seats="none")).status_code == 201  # the day's third
    # A rematch is one of the app's games too: over the limit at once...
    token = first["tokens"][0]["token"]
    assert_problem(
        await client.post(f"/v1/games/{first['game_id']}/rematch", headers=bearer(token)),
        429,
        "concurrent_games_reached",
    )
    # ...and once there is room, it counts (the day's fourth), then the day is full.
    await client.patch(
        f"/v1/admin/apps/{app_id}",
        json={"concurrent_games": 10},
        headers={"Authorization": f"Bearer {OPERATOR}"},
    )
    rematch = await client.post(f"/v1/games/{first['game_id']}/rematch", headers=bearer(token))
    assert rematch.status_code == 201, rematch.text
    again = await client.post(
        f"/v1/games/{first['game_id']}/rematch", headers=bearer(first["tokens"][1]["token"])
    )
    assert again.status_code == 201 and again.json()["game_id"] == rematch.json()["game_id"]  # the same game
    assert_problem(await _create(client, key), 429, "games_per_day_reached")


async def test_made_up_keys_count_against_their_address(client):
    """Each refused credential is a read of Postgres: a caller trying keys is held to the anonymous
    limit of its address, whatever keys it makes up."""
    for n in range(ANONYMOUS):
        made_up = f"ymk_{n:012x}." + "A" * 43
        assert_problem(await client.get("/v1/games", headers=bearer(made_up)), 401, "invalid_app_key")
    assert_problem(
        await client.get("/v1/games", headers=bearer("ymk_ffffffffffff." + "B" * 43)),
        429,
        "too_many_requests",
    )
    assert_problem(await client.get("/v1/catalogue"), 429, "too_many_requests")  # the same address
    # The operator's API counts per address too.
    assert_problem(await client.get("/v1/admin/apps", headers=bearer(OPERATOR)), 429, "too_many_requests")

"""Who may see a game: an app's private game does not exist for anybody else — every operation of
the OpenAPI document with a ``{game_id}`` answers 404 ``game_not_found`` to another app's key, to an
anonymous caller and to another game's seat token, and none does to the owning app's key or the
game's own seats; ``GET /v1/games`` lists only what the caller may see."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.test_apps import OPERATOR, new_app
from tests.http.test_games_api import assert_problem

BODIES: dict[str, Any] = {
    "application/json": {},
    "application/x-ndjson": b"",
}
"""What each game operation is sent as its body: something, not something valid (the check comes
before the body is read)."""


@pytest.fixture(scope="module")
async def client(database_url: str, redis_url: str):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=OPERATOR)) as test_client:
        yield test_client


async def _finished(client: Any, key: str | None, **body: Any) -> tuple[str, dict[int, str], int]:
    """A game created by *key* (None: anonymously), played to its end by its seats: its id, its
    seats' tokens and its last version."""
    headers = bearer(key) if key else {}
    created = await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}, **body}, headers=headers
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in created.json()["tokens"]}
    rng = random.Random(game_id)
    while True:
        doc = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
        if doc["status"] == "finished":
            return game_id, tokens, doc["version"]
        seat = doc["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        moved = await client.post(
            f"/v1/games/{game_id}/moves", json=rng.choice(legal["moves"]), headers=bearer(tokens[seat])
        )
        assert moved.status_code == 200, moved.text


def _game_operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    operations = [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        if "{game_id}" in path
        for method, operation in item.items()
    ]
    assert len(operations) >= 13  # every game route there is today, and whatever comes next
    return operations


async def _call(
    client: Any,
    method: str,
    path: str,
    operation: dict[str, Any],
    game_id: str,
    version: int,
    headers: dict[str, str],
) -> Any:
    values = {"game_id": game_id, "seat": "0", "version": "1"}
    url = path
    for name in (p["name"] for p in operation.get("parameters", []) if p["in"] == "path"):
        assert name in values, f"{method} {path}: a path parameter this test does not know: {name}"
        url = url.replace("{" + name + "}", values[name])
    if path.endswith("/events/stream"):
        url += f"?after={version}"  # a finished game's stream ends after its last event
    kwargs: dict[str, Any] = {"headers": headers}
    content = operation.get("requestBody", {}).get("content", {})
    if content:
        media = next(iter(content))
        body = BODIES[media]
        kwargs["headers"] = {**headers, "content-type": media}
        kwargs["content" if isinstance(body, bytes) else "json"] = body
    return await asyncio.wait_for(client.request(method, url, **kwargs), 20)


async def test_every_game_operation_hides_a_private_game_from_whoever_may_not_see_it(client):
    _, owner = await new_app(client, "owner")
    _, other = await new_app(client, "other")
    game_id, tokens, version = await _finished(client, owner, visibility="private")
    _, public_tokens, _ = await _finished(client, None)
    document = (await client.get("/schema/openapi.json")).json()
    outsiders = {
        "another app's key": bearer(other),
        "an anonymous caller": {},
        "another game's seat": bearer(public_tokens[0]),
    }
    insiders = {"the owning app's key": bearer(owner), "the game's seat": bearer(tokens[1])}
    for method, path, operation in _game_operations(document):
        for who, headers in outsiders.items():
            answer = await _call(client, method, path, operation, game_id, version, headers)
            assert answer.status_code == 404, f"{method} {path} as {who}: {answer.status_code} {answer.text}"
            assert answer.json()["code"] == "game_not_found", f"{method} {path} as {who}: {answer.text}"
        for who, headers in insiders.items():
            answer = await _call(client, method, path, operation, game_id, version, headers)
            assert answer.status_code != 404, f"{method} {path} as {who}: {answer.text}"
        # Exactly what a game that does not exist answers.
        missing = await _call(client, method, path, operation, "g_0000000000000000000f", 1, bearer(other))
        assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


async def test_the_lobby_lists_what_the_caller_may_see(client):
    _, owner = await new_app(client, "lister")
    _, other = await new_app(client, "other lister")
    made: dict[str, str] = {}
    for visibility in ("public", "app", "private"):
        created = await client.post(
            "/v1/games",
            json={"kind": "bluff", "options": {"players": 2}, "take_seats": "none", "visibility": visibility},
            headers=bearer(owner),
        )
        assert created.status_code == 201, created.text
        made[visibility] = created.json()["game_id"]

    async def listed(headers: dict[str, str]) -> dict[str, str]:
        games = (await client.get("/v1/games?limit=100&kind=bluff&status=open", headers=headers)).json()[
            "games"
        ]
        return {g["game_id"]: g["visibility"] for g in games if g["game_id"] in made.values()}

    assert await listed(bearer(owner)) == {made[v]: v for v in made}
    assert await listed(bearer(other)) == {made["public"]: "public"}
    assert await listed({}) == {made["public"]: "public"}
    # The owning app's key may claim a seat of its private game for a player it serves; nobody else may.
    assert_problem(await client.post(f"/v1/games/{made['private']}/seats/0"), 404, "game_not_found")
    joined = await client.post(f"/v1/games/{made['private']}/seats/0", headers=bearer(owner))
    assert joined.status_code == 201, joined.text
    seat_token = joined.json()["token"]
    assert (await client.get(f"/v1/games/{made['private']}", headers=bearer(seat_token))).status_code == 200


async def test_visibility_defaults_and_games_without_an_app(client):
    _, key = await new_app(client, "private by default", default_visibility="private")
    created = await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}}, headers=bearer(key)
    )
    game_id = created.json()["game_id"]
    assert_problem(await client.get(f"/v1/games/{game_id}"), 404, "game_not_found")
    assert (await client.get(f"/v1/games/{game_id}", headers=bearer(key))).status_code == 200
    # Anybody's game is public unless asked private: then only its own seats see it.
    mine = await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}, "visibility": "private"}
    )
    private_id, token = mine.json()["game_id"], mine.json()["tokens"][0]["token"]
    assert (await client.get(f"/v1/games/{private_id}", headers=bearer(token))).status_code == 200
    assert_problem(await client.get(f"/v1/games/{private_id}"), 404, "game_not_found")
    assert_problem(await client.get(f"/v1/games/{private_id}", headers=bearer(key)), 404, "game_not_found")
    # "app" needs an app.
    assert_problem(
        await client.post(
            "/v1/games", json={"kind": "bluff", "options": {"players": 2}, "visibility": "app"}
        ),
        422,
        "invalid_visibility",
    )
    assert_problem(
        await client.post("/v1/games", json={"kind": "bluff", "visibility": "secret"}, headers=bearer(key)),
        400,
        "invalid_request",
    )

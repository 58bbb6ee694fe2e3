"""Every 201 says where what it created is: ``Location``, the absolute path of the new game (a
created, joined, rematched or imported game) or of the stream a ticket opens."""

from __future__ import annotations

import json
import pathlib

from tests.http.helpers import bearer, create, play_to_end

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


def test_every_created_answer_declares_its_location():
    created = {
        operation["operationId"]: operation["responses"]["201"]
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
        if "201" in operation["responses"]
    }
    assert {"createGame", "joinSeat", "rematch", "createStreamTicket", "importRecord"} <= set(created)
    assert {"adminCreateApp", "adminCreateKey", "adminRotateKey", "adminAddSigningKey"} <= set(created)
    for operation_id, response in created.items():
        location = response.get("headers", {}).get("Location")
        assert location is not None and location["required"] is True, operation_id


async def _located(client, response) -> str:
    assert response.status_code == 201, response.text
    location = response.headers["location"]
    assert location.startswith("/v1/games/"), location
    return location


async def test_a_created_game_is_at_its_location(client):
    response = await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}, "seed": "loc"}
    )
    location = await _located(client, response)
    game_id = response.json()["game_id"]
    assert location == f"/v1/games/{game_id}"
    assert (await client.get(location)).json()["game_id"] == game_id


async def test_a_joined_seat_points_at_its_game(client):
    created = await create(client, "bluff", {"players": 2}, take="none")
    joined = await client.post(f"/v1/games/{created['game_id']}/seats/1")
    location = await _located(client, joined)
    read = await client.get(location, headers=bearer(joined.json()["token"]))
    assert read.json()["viewer"] == 1


async def test_a_ticket_points_at_the_stream_it_opens(client):
    created = await create(client, "bluff", {"players": 2})
    issued = await client.post(
        f"/v1/games/{created['game_id']}/events/tickets", headers=bearer(created["tokens"][0]["token"])
    )
    assert await _located(client, issued) == issued.json()["stream"]


async def test_a_rematch_and_an_import_are_at_their_locations(client):
    created = await create(client, "bluff", {"players": 2})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    await play_to_end(client, created["game_id"], tokens)
    rematch = await client.post(f"/v1/games/{created['game_id']}/rematch", headers=bearer(tokens[0]))
    location = await _located(client, rematch)
    assert location == f"/v1/games/{rematch.json()['game_id']}" != f"/v1/games/{created['game_id']}"
    assert (await client.get(location, headers=bearer(tokens[0]))).json()["viewer"] == 0

    record = (await client.get(f"/v1/games/{created['game_id']}/record")).content
    imported = await client.post(
        "/v1/games/import", content=record, headers={"content-type": "application/x-ndjson"}
    )
    location = await _located(client, imported)
    assert location == f"/v1/games/{imported.json()['game_id']}"
    assert (await client.get(location)).json()["status"] == "finished"

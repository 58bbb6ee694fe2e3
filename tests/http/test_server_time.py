"""``Server-Time-Ms`` is on every answer, as ``docs/table.md`` promises: documents, events, tickets,
the catalogue, refusals and preflights alike, and the OpenAPI document declares it on each."""

from __future__ import annotations

import json
import pathlib
import re
import time

import pytest

from tests.http.helpers import bearer, create, play_to_end

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
OPERATIONS = [
    (method.upper(), path, "requestBody" in operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
]


def test_every_response_of_every_operation_declares_it():
    header = DOCUMENT["components"]["headers"]["ServerTimeMs"]
    assert header["required"] is True
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                declared = response.get("headers", {}).get("Server-Time-Ms")
                assert declared == {"$ref": "#/components/headers/ServerTimeMs"}, (method, path, status)


@pytest.fixture(scope="module")
async def finished(client):
    created = await create(client, "bluff", {"players": 2})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    await play_to_end(client, created["game_id"], tokens)
    return created["game_id"], tokens[0]


def _stamped(response) -> None:
    stamp = response.headers.get("server-time-ms")
    assert stamp is not None and stamp.isdecimal(), (response.status_code, dict(response.headers))
    assert abs(int(stamp) - time.time() * 1000) < 60_000


@pytest.mark.parametrize(
    ("method", "path", "has_body"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
async def test_every_operation_answers_with_the_servers_time(client, finished, method, path, has_body):
    game_id, token = finished
    values = {"game_id": game_id, "seat": "0", "version": "1", "kind": "bluff"}
    # The integrator routes' ids: unknown ones, so their answers are refusals, which are stamped too.
    values |= {"app_id": "app_nope", "key_id": "key_nope", "kid": "kid_nope"}
    values |= {"endpoint_id": "whe_nope", "delivery_id": "whd_nope"}
    values |= {"player_id": "p_nope", "credential_id": "cred_nope"}
    values |= {"seek_id": "s_0000"}
    values |= {"subscription_id": "psub_" + "0" * 24}
    url = re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], path)
    body = {"json": {}} if has_body else {}
    as_seat = await client.request(method, url, headers=bearer(token), **body)
    _stamped(as_seat)
    # And when it is refused: an unknown game (or a malformed body) is a problem+json answer.
    refused = await client.request(
        method, url.replace(game_id, "g_nope"), headers={"Authorization": "x"}, **body
    )
    _stamped(refused)


async def test_refusals_outside_any_operation_carry_it_too(client):
    missing = await client.get("/v1/no-such-thing")
    assert missing.status_code == 404
    _stamped(missing)
    preflight = await client.options(
        "/v1/games", headers={"Origin": "https://play.example", "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 204
    _stamped(preflight)

"""A page on another origin may call every operation of the API: the preflight of each path and
method the OpenAPI document lists, with the request headers that operation takes, is allowed."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from tests.http.helpers import bearer, create

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
ORIGIN = "https://play.example"


def _operations() -> list[tuple[str, str, list[str]]]:
    """(method, path, request headers) of every operation in the committed document."""
    out = []
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
            if "requestBody" in operation:
                headers.append("Content-Type")
            out.append((method.upper(), path, headers))
    return out


OPERATIONS = _operations()


def test_the_document_has_writes_of_every_method():
    """The table below covers what the issue found refused: PUT and DELETE on a seat's bot."""
    methods = {method for method, _, _ in OPERATIONS}
    assert {"GET", "POST", "PUT", "DELETE"} <= methods


@pytest.mark.parametrize(
    ("method", "path", "headers"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
async def test_every_operation_may_be_preflighted(client, method, path, headers):
    concrete = re.sub(r"\{[^}]+\}", "1", path)
    response = await client.options(
        concrete,
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": ", ".join(headers),
        },
    )
    assert response.status_code == 204, (method, path, headers, response.text)
    assert method in {m.strip() for m in response.headers["access-control-allow-methods"].split(",")}
    allowed = {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}
    assert {h.lower() for h in headers} <= allowed


async def test_a_page_on_another_origin_hands_a_seat_to_a_bot_and_takes_it_back(client):
    created = await create(client, "bluff", {"players": 2})
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    cross = {**bearer(token), "Origin": ORIGIN}
    handed = await client.put(f"/v1/games/{game_id}/seats/0/bot", json={"level": "random"}, headers=cross)
    assert handed.status_code == 200, handed.text
    assert handed.headers["access-control-allow-origin"] == "*"
    back = await client.delete(f"/v1/games/{game_id}/seats/0/bot", headers=cross)
    assert back.status_code == 200, back.text
    assert back.headers["access-control-allow-origin"] == "*"

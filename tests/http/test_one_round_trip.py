"""One round trip per move: ``include=legal_moves`` (and ``document``) on a move answers what the
next GETs would, so a client plays with one request per move."""

from __future__ import annotations

import json
import pathlib
import re

from tests.http.helpers import bearer, create


async def _seat_zero_to_move(client) -> tuple[str, str, dict]:
    """A new game of the fixture game: its id, seat 0's token and seat 0's legal moves."""
    created = await create(client, "bluff", {"players": 2})
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
    return game_id, token, legal


async def test_a_move_can_answer_the_movers_next_legal_moves_and_document(client):
    game_id, token, legal = await _seat_zero_to_move(client)
    moved = await client.post(
        f"/v1/games/{game_id}/moves",
        params=[("include", "legal_moves"), ("include", "document")],
        json=legal["moves"][0],
        headers=bearer(token),
    )
    assert moved.status_code == 200, moved.text
    answer = moved.json()
    after = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
    assert answer["legal_moves"] == after
    assert answer["legal_moves"]["version"] == answer["version"]
    shown = (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
    assert answer["document"] == shown
    assert moved.headers["etag"] == f'"{answer["version"]}"'


async def test_without_include_the_answer_is_unchanged_and_a_keyed_retry_gets_fresh_reads(client):
    game_id, token, legal = await _seat_zero_to_move(client)
    headers = {**bearer(token), "Idempotency-Key": "one-trip"}
    plain = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=headers)
    assert set(plain.json()) == {"version", "status", "events", "to_act"}
    retried = await client.post(
        f"/v1/games/{game_id}/moves",
        params={"include": "legal_moves"},
        json=legal["moves"][0],
        headers=headers,
    )
    assert retried.status_code == 200
    body = retried.json()
    assert {k: body[k] for k in ("version", "status", "events", "to_act")} == plain.json()
    assert (
        body["legal_moves"]
        == (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
    )


async def test_an_unknown_include_is_refused_before_the_move(client):
    game_id, token, legal = await _seat_zero_to_move(client)
    refused = await client.post(
        f"/v1/games/{game_id}/moves",
        params={"include": "secrets"},
        json=legal["moves"][0],
        headers=bearer(token),
    )
    assert refused.status_code == 400
    assert refused.headers["content-type"].startswith("application/problem+json")
    game = (await client.get(f"/v1/games/{game_id}")).json()
    assert game["version"] == legal["version"]


async def test_include_may_be_comma_separated_as_well_as_repeated(client):
    game_id, token, legal = await _seat_zero_to_move(client)
    moved = await client.post(
        f"/v1/games/{game_id}/moves?include=legal_moves,document",
        json=legal["moves"][0],
        headers=bearer(token),
    )
    assert moved.status_code == 200, moved.text
    answer = moved.json()
    assert (
        answer["legal_moves"]
        == (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
    )
    assert answer["document"]["version"] == answer["version"]
    for malformed in ("legal_moves,", ",document", "legal_moves,secrets", ""):
        refused = await client.post(
            f"/v1/games/{game_id}/moves", params={"include": malformed}, json={}, headers=bearer(token)
        )
        assert refused.status_code == 400, (malformed, refused.text)


def test_the_document_describes_both_forms_of_include():
    document = json.loads(
        (pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text()
    )
    (include,) = [
        p
        for p in document["paths"]["/v1/games/{game_id}/moves"]["post"]["parameters"]
        if p["name"] == "include"
    ]
    assert (include["style"], include["explode"]) == ("form", True)  # repeated: include=a&include=b
    item = re.compile(include["schema"]["items"]["pattern"])
    assert item.match("legal_moves,document") and item.match("document") and not item.match("document,")

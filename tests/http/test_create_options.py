"""The create-game request in the OpenAPI document says exactly which options each title takes:
``CreateGame`` is discriminated by ``kind``, each title's ``options`` closed and typed, built from
the same options type as the catalogue's ``options_schema`` and the service's own check."""

from __future__ import annotations

import json
import pathlib

import pytest
from jsonschema import Draft202012Validator

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
SCHEMAS = DOCUMENT["components"]["schemas"]
CREATE = Draft202012Validator(
    {"$ref": "#/components/schemas/CreateGame", "components": DOCUMENT["components"]}
)


def _admits(body: dict) -> bool:
    return CREATE.is_valid(body)


def test_create_game_is_a_union_by_kind():
    union = SCHEMAS["CreateGame"]
    assert union["discriminator"]["propertyName"] == "kind"
    assert set(union["discriminator"]["mapping"]) == {"yangtze", "pingyao", "jiangnan"}
    for kind, ref in union["discriminator"]["mapping"].items():
        member = SCHEMAS[ref.rsplit("/", 1)[1]]
        assert member["additionalProperties"] is False
        assert member["properties"]["kind"]["const"] == kind
        options = SCHEMAS[member["properties"]["options"]["$ref"].rsplit("/", 1)[1]]
        assert options["additionalProperties"] is False and "players" in options["properties"]


async def test_each_titles_options_are_the_catalogues(client):
    """The document's options of each title are its catalogue entry's ``options_schema``, part for
    part (the catalogue's ``$defs`` are the document's components)."""
    catalogue = (await client.get("/v1/catalogue")).json()
    for entry in catalogue["games"]:
        if entry["kind"] not in SCHEMAS["CreateGame"]["discriminator"]["mapping"]:
            continue  # the test app's fixture game is not in the committed document
        served = json.loads(json.dumps(entry["options_schema"]).replace("#/$defs/", "#/components/schemas/"))
        root = served["$ref"].rsplit("/", 1)[1]
        for name, schema in served["$defs"].items():
            documented = SCHEMAS[name] if name != root else SCHEMAS[f"{entry['kind'].capitalize()}Options"]
            assert {k: v for k, v in documented.items() if k != "title"} == {
                k: v for k, v in schema.items() if k != "title"
            }, (entry["kind"], name)


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "yangtze", "options": {"players": 2, "crowdfunding": True}},  # Pingyao's option
        {"kind": "yangtze", "options": {"players": 5}},
        {"kind": "pingyao", "options": {"storyline": 6}},
        {"kind": "jiangnan", "options": {"difficulty": "impossible"}},
        {"kind": "jiangnan", "options": {"map": "A1-A2"}},
        {"kind": "jiangnan", "options": {"table": {"takebacks": "sometimes"}}},
        {"kind": "yangtze", "options": {}, "bots": {"1": "grandmaster"}},
    ],
)
async def test_what_the_document_refuses_the_service_refuses(client, body):
    assert not _admits(body)
    refused = await client.post("/v1/games", json=body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] in ("invalid_options", "unknown_bot_level")


@pytest.mark.parametrize(
    "body",
    [
        {
            "kind": "yangtze",
            "options": {"players": 3, "table": {"clock": {"mode": "decision", "seconds": 30}}},
        },
        {"kind": "pingyao", "options": {"players": 1, "storyline": 5}},
        {"kind": "jiangnan", "options": {"players": 2, "chapter": 4, "variant": True}},
        {"kind": "jiangnan", "options": {"players": 1, "difficulty": "inferno"}, "bots": {}},
    ],
)
async def test_what_the_document_admits_the_service_sets_up(client, body):
    assert _admits(body)
    created = await client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text


async def test_a_combination_json_schema_cannot_express_is_refused_with_its_reason(client):
    """Each option is valid alone; together they are not a game the title sets up."""
    body = {"kind": "jiangnan", "options": {"players": 3, "variant": True}}
    assert _admits(body)
    refused = await client.post("/v1/games", json=body)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_options"
    assert "2-player" in refused.json()["detail"]

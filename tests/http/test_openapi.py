"""The committed OpenAPI document is the served one, valid, and usable by code generators."""

from __future__ import annotations

import json
import pathlib

from openapi_spec_validator import validate

from service.cli import render_openapi

COMMITTED = pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_document_matches_the_app():
    assert COMMITTED.exists(), "run `yamen openapi` to write openapi/openapi.json"
    assert COMMITTED.read_bytes() == render_openapi(), (
        "the API changed: run `yamen openapi` and commit the result"
    )


def test_document_is_valid_openapi():
    validate(json.loads(COMMITTED.read_text()))


async def test_served_document_is_the_committed_one(database_url, redis_url):
    from litestar.testing import AsyncTestClient

    from domain.registry import production_games
    from tests.conftest import make_app

    async with AsyncTestClient(app=make_app(database_url, redis_url, production_games())) as client:
        served = (await client.get("/v1/openapi.json")).json()
    assert served == json.loads(COMMITTED.read_text())


def _unions(node, found):
    if isinstance(node, dict):
        options = node.get("oneOf")
        if isinstance(options, list) and options and all("$ref" in o for o in options):
            found.append(node)
        for value in node.values():
            _unions(value, found)
    elif isinstance(node, list):
        for value in node:
            _unions(value, found)
    return found


def test_every_tagged_union_has_a_discriminator():
    # Checked on the test app too, whose games include the fixture's commands and events.
    from service.http.app import create_app
    from service.settings import Settings
    from tests.conftest import test_games

    app = create_app(test_games(), settings=Settings(None, None, "json", False, 1))
    document = app.state.openapi_document(app)
    validate(document)
    unions = _unions(document, [])
    assert unions, "commands, events and views must be unions of $refs"
    for union in unions:
        assert union.get("discriminator", {}).get("propertyName") in ("type", "kind"), union
        assert set(union["discriminator"]["mapping"].values()) == {o["$ref"] for o in union["oneOf"]}
    body = document["paths"]["/v1/games/{game_id}/moves"]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]
    assert body == {"$ref": "#/components/schemas/Command"}
    assert "bluff.Claim" in document["components"]["schemas"]["Command"]["discriminator"]["mapping"]
    assert "bluff.CardDrawn" in document["components"]["schemas"]["Event"]["discriminator"]["mapping"]
    assert document["components"]["schemas"]["View"]["discriminator"]["propertyName"] == "kind"


def test_every_operation_documents_its_problem_codes():
    """Each status a handler declares lists its codes, so a client can switch on `code`."""
    doc = json.loads(COMMITTED.read_text())
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")) and "application/problem+json" in response.get(
                    "content", {}
                ):
                    assert "`" in response["description"], (method, path, status, response["description"])
    moves = doc["paths"]["/v1/games/{game_id}/moves"]["post"]["responses"]
    assert "`version_mismatch`" in moves["412"]["description"]
    assert "`not_your_turn`" in moves["403"]["description"]
    assert "`store_unavailable`" in moves["503"]["description"]


OPERATIONS = {
    ("get", "/healthz"): "healthz",
    ("get", "/readyz"): "readyz",
    ("get", "/v1/catalogue"): "getCatalogue",
    ("get", "/v1/catalogue/{kind}/components"): "getComponents",
    ("get", "/v1/games"): "listGames",
    ("post", "/v1/games"): "createGame",
    ("get", "/v1/games/{game_id}"): "getGame",
    ("post", "/v1/games/{game_id}/seats/{seat}"): "joinSeat",
    ("put", "/v1/games/{game_id}/seats/{seat}/bot"): "handSeatToBot",
    ("delete", "/v1/games/{game_id}/seats/{seat}/bot"): "takeSeatBack",
    ("post", "/v1/games/{game_id}/rematch"): "rematch",
    ("get", "/v1/games/{game_id}/legal-moves"): "getLegalMoves",
    ("post", "/v1/games/{game_id}/moves"): "submitMove",
    ("get", "/v1/games/{game_id}/events"): "listEvents",
    ("get", "/v1/games/{game_id}/events/stream"): "streamEvents",
    ("post", "/v1/games/{game_id}/events/tickets"): "createStreamTicket",
    ("get", "/v1/games/{game_id}/states/{version}"): "getStateAt",
    ("get", "/v1/games/{game_id}/record"): "getRecord",
    ("get", "/v1/games/{game_id}/verification"): "getVerification",
    ("post", "/v1/games/import"): "importRecord",
    # The operator's admin API (service/http/controllers/admin.py).
    ("post", "/v1/admin/apps"): "adminCreateApp",
    ("get", "/v1/admin/apps"): "adminListApps",
    ("get", "/v1/admin/apps/{app_id}"): "adminGetApp",
    ("patch", "/v1/admin/apps/{app_id}"): "adminUpdateApp",
    ("post", "/v1/admin/apps/{app_id}/keys"): "adminCreateKey",
    ("post", "/v1/admin/apps/{app_id}/keys/{key_id}/rotate"): "adminRotateKey",
    ("delete", "/v1/admin/apps/{app_id}/keys/{key_id}"): "adminRevokeKey",
    ("post", "/v1/admin/apps/{app_id}/signing-keys"): "adminAddSigningKey",
    ("delete", "/v1/admin/apps/{app_id}/signing-keys/{kid}"): "adminRevokeSigningKey",
    # An app's webhooks (service/http/controllers/webhooks.py).
    ("post", "/v1/webhooks"): "subscribeWebhook",
    ("get", "/v1/webhooks"): "listWebhooks",
    ("get", "/v1/webhooks/{endpoint_id}"): "getWebhook",
    ("patch", "/v1/webhooks/{endpoint_id}"): "changeWebhook",
    ("delete", "/v1/webhooks/{endpoint_id}"): "deleteWebhook",
    ("post", "/v1/webhooks/{endpoint_id}/secrets"): "rotateWebhookSecret",
    ("get", "/v1/webhooks/{endpoint_id}/deliveries"): "listWebhookDeliveries",
    ("post", "/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver"): "redeliverWebhook",
    # Players (service/http/controllers/players.py).
    ("post", "/v1/players"): "registerPlayer",
    ("get", "/v1/players/{player_id}"): "getPlayer",
    ("delete", "/v1/players/{player_id}/credentials/{credential_id}"): "revokePlayerCredential",
    ("delete", "/v1/me/credentials/{credential_id}"): "revokeMyCredential",
    ("get", "/v1/me"): "getMe",
    ("get", "/v1/me/games"): "listMyGames",
    ("post", "/v1/guests"): "createGuest",
    ("post", "/v1/games/{game_id}/seats/{seat}/token"): "reissueSeatToken",
    # Ratings and leaderboards (service/http/controllers/ratings.py).
    ("get", "/v1/players/{player_id}/ratings"): "getPlayerRatings",
    ("get", "/v1/me/ratings"): "getMyRatings",
    ("get", "/v1/leaderboards/{kind}"): "getLeaderboard",
    ("get", "/v1/leaderboards/{kind}/around/{player_id}"): "getLeaderboardAround",
    # Seeks (service/http/controllers/seeks.py).
    ("post", "/v1/seeks"): "createSeek",
    ("get", "/v1/seeks/{seek_id}"): "getSeek",
    ("delete", "/v1/seeks/{seek_id}"): "cancelSeek",
    ("get", "/v1/me/seeks"): "listMySeeks",
    # Web Push (service/http/controllers/push.py).
    ("get", "/v1/push/key"): "getPushKey",
    ("post", "/v1/push/subscriptions"): "subscribePush",
    ("get", "/v1/push/subscriptions/{subscription_id}"): "getPushSubscription",
    ("delete", "/v1/push/subscriptions/{subscription_id}"): "deletePushSubscription",
}


def test_every_operation_has_its_short_operation_id():
    doc = json.loads(COMMITTED.read_text())
    found = {
        (method, path): op["operationId"]
        for path, item in doc["paths"].items()
        for method, op in item.items()
    }
    assert found == OPERATIONS


def test_game_types_are_namespaced_by_their_game():
    """Each game's commands, events, views and their parts are ``<Kind><Name>``, titled so: two
    games' same-named types (``Pass``, ``GameSetUp``, ``Frame``) never collide in a generator."""
    from domain.registry import production_games
    from service.http.openapi import game_schema_name, game_types

    schemas = json.loads(COMMITTED.read_text())["components"]["schemas"]
    expected = {
        game_schema_name(kind, t): kind
        for kind, game in production_games().items()
        for t in game_types(game)
        if not t.__module__.startswith("domain.kernel")  # the table's types: below
    }
    expected.update({f"{kind.capitalize()}Options": kind for kind in production_games()})  # createGame's
    # The table around every game: one type per table command and event, TableResign in every app.
    from domain.kernel import table

    for t in (*table.PUBLIC_COMMANDS, *table.TABLE_EVENTS):
        assert f"Table{t.__name__}" in schemas, t
    assert {"YangtzeGameSetUp", "PingyaoGameSetUp", "YangtzePass", "JiangnanPass", "JiangnanFrame"} <= set(
        expected
    )
    assert {"PingyaoPlaceTeller", "YangtzeView", "PingyaoView", "JiangnanView"} <= set(expected)
    for name, kind in expected.items():
        assert name in schemas and name.startswith(kind.capitalize()), name
    for name, schema in schemas.items():
        assert "_" not in name and "." not in name, name
        assert schema.get("title", name) == name, (name, schema.get("title"))
        if name not in expected:  # the rest are the application's own documents and the three unions
            assert not name.startswith(("Yangtze", "Pingyao", "Jiangnan")), name


def test_records_are_documented_as_bytes_too():
    """NDJSON is the record's type; generators read it (and send an import) as bytes."""
    doc = json.loads(COMMITTED.read_text())
    record = doc["paths"]["/v1/games/{game_id}/record"]["get"]["responses"]["200"]["content"]
    assert list(record) == ["application/x-ndjson", "application/octet-stream"]
    upload = doc["paths"]["/v1/games/import"]["post"]["requestBody"]["content"]
    assert upload == {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}

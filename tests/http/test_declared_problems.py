"""Every operation declares the problem codes it can answer (schemathesis' ``declared_code`` check
holds every fuzzed answer to that); here the refusals that come from who is calling, whichever
operation it is, and the ones found answered undeclared."""

from __future__ import annotations

import inspect
import json
import pathlib

from service.http.app import create_app
from service.settings import Settings
from tests.conftest import test_games
from tests.http.helpers import bearer, create, play_to_end

DOCUMENT = json.loads((pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
BY_ID = {op["operationId"]: op for item in DOCUMENT["paths"].values() for op in item.values()}


def _declares(operation_id: str, status: int, code: str) -> bool:
    response = BY_ID[operation_id]["responses"].get(str(status))
    return response is not None and f"`{code}`" in response["description"]


def test_who_is_calling_is_declared_wherever_a_handler_asks():
    """A handler given the ``caller`` may refuse a bad token (401 ``invalid_token``); one given the
    ``player`` also refuses a spectator (401 ``token_required``)."""
    app = create_app(test_games(), settings=Settings(None, None, "json", False, 1))
    checked = set()
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if handler.operation_id not in BY_ID:
                continue
            parameters = inspect.signature(handler.fn).parameters
            if "caller" in parameters or "player" in parameters:
                assert _declares(handler.operation_id, 401, "invalid_token"), handler.operation_id
                checked.add(handler.operation_id)
            if "player" in parameters:
                assert _declares(handler.operation_id, 401, "token_required"), handler.operation_id
    assert {"rematch", "takeSeatBack", "submitMove", "createStreamTicket", "getGame"} <= checked


async def test_a_spectators_rematch_and_take_back_are_declared_refusals(client):
    created = await create(client, "bluff", {"players": 2})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    game_id = created["game_id"]
    await play_to_end(client, game_id, tokens)
    rematch = await client.post(f"/v1/games/{game_id}/rematch")
    assert rematch.status_code == 401 and rematch.json()["code"] == "token_required"
    assert _declares("rematch", 401, "token_required")
    back = await client.delete(f"/v1/games/{game_id}/seats/0/bot")
    assert back.status_code == 401 and back.json()["code"] == "token_required"
    assert _declares("takeSeatBack", 401, "token_required")


async def test_a_replaced_seats_move_is_a_declared_refusal(client):
    created = await create(client, "yangtze", {"players": 3})
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    left = await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "table.Leave"}, headers=bearer(token)
    )
    assert left.status_code == 200, left.text
    again = await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "table.Resign"}, headers=bearer(token)
    )
    assert again.status_code == 409 and again.json()["code"] == "seat_replaced"
    assert _declares("submitMove", 409, "seat_replaced")


def test_a_wrongly_typed_path_parameter_is_a_declared_not_found():
    for path, item in DOCUMENT["paths"].items():
        for operation in item.values():
            if "{" in path:
                assert "`not_found`" in operation["responses"]["404"]["description"], path

"""One OpenAPI document: wherever it is served (``/schema/openapi.json``, ``.yaml``, the browsing
pages, ``/v1/openapi.json``) it is the finished one ``yamen openapi`` writes, never Litestar's raw
document; and the web client finds what each move does in the catalogue, not in that document."""

from __future__ import annotations

import json
import pathlib
import re

import yaml
from litestar.testing import AsyncTestClient

from domain.registry import production_games
from tests.conftest import make_app
from tests.http.helpers import bearer, create

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMITTED = json.loads((ROOT / "openapi" / "openapi.json").read_text())


async def test_every_served_document_is_the_finished_one(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, production_games())) as client:
        for path in ("/schema/openapi.json", "/v1/openapi.json"):
            served = await client.get(path)
            assert served.status_code == 200, path
            assert served.json() == COMMITTED, path
        for path in ("/schema/openapi.yaml", "/schema/openapi.yml"):
            assert yaml.safe_load((await client.get(path)).text) == COMMITTED, path
        for page in ("/schema", "/schema/redoc"):  # Redoc's page embeds the document it shows
            html = (await client.get(page)).text
            assert "CreateYangtzeGame" in html and "typing.Union" not in html, page
    assert max(len(name) for name in COMMITTED["components"]["schemas"]) < 40


async def test_the_catalogue_says_what_every_legal_move_does(client):
    entries = {entry["kind"]: entry for entry in (await client.get("/v1/catalogue")).json()["games"]}
    for kind in ("yangtze", "pingyao", "jiangnan"):
        created = await create(client, kind, {"players": 2})
        game_id = created["game_id"]
        seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
        token = {t["seat"]: t["token"] for t in created["tokens"]}[seat]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
        moves = entries[kind]["moves"]
        assert legal["moves"] and all(moves.get(move["type"]) for move in legal["moves"]), kind
        assert moves["table.Resign"].startswith("Concede")


def test_the_web_client_never_downloads_the_openapi_document():
    for script in (ROOT / "service" / "web").rglob("*.js"):
        text = script.read_text()
        assert "openapi" not in text.lower() and not re.search(r"/schema\b", text), script

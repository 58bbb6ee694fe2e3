"""The reference web client at /play: its files are served with their content types, it stays out
of the OpenAPI document, every module it imports is there, and every production title has its
board module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain.registry import production_games

WEB = Path(__file__).resolve().parents[2] / "service" / "web"
IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}/[^"']+)["']""")
DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["'](\.{1,2}/[^"']+)["']\s*\)""")
"""A module loaded when its page is shown (``import("./game.js")``)."""


async def test_play_serves_the_page_and_its_assets(client):
    page = await client.get("/play/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="assets/app.js">' in page.text
    assert 'href="assets/app.css"' in page.text
    script = await client.get("/play/assets/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
    style = await client.get("/play/assets/app.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    assert (await client.get("/play/assets/no-such-file.js")).status_code == 404


async def test_root_and_play_without_its_slash_lead_to_the_page(client):
    for path in ("/", "/play"):
        answer = await client.get(path, follow_redirects=False)
        assert answer.status_code in (301, 302, 307, 308), path
        assert answer.headers["location"].endswith("/play/"), path


@pytest.mark.parametrize("path", ["/schema/openapi.json", "/v1/openapi.json"])
async def test_the_client_is_not_in_the_openapi_document(client, path):
    paths = (await client.get(path)).json()["paths"]
    assert paths and not [p for p in paths if p == "/" or p.startswith("/play")]


async def test_every_module_the_client_imports_is_served(client):
    pending, seen = ["assets/app.js"], set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        answer = await client.get(f"/play/{module}")
        assert answer.status_code == 200, module
        folder = module.rsplit("/", 1)[0]
        for target in [*IMPORT.findall(answer.text), *DYNAMIC_IMPORT.findall(answer.text)]:
            parts = [*folder.split("/"), *target.split("/")]
            resolved: list[str] = []
            for part in parts:
                if part == "..":
                    resolved.pop()
                elif part != ".":
                    resolved.append(part)
            pending.append("/".join(resolved))
    assert {"assets/app.js", "assets/api.js", "assets/game.js", "assets/lobby.js"} <= seen


@pytest.mark.parametrize("kind", sorted(production_games()))
async def test_each_production_title_has_its_board_module(client, kind):
    source = WEB / "assets" / "boards" / f"{kind}.js"
    assert source.is_file(), f"service/web/assets/boards/{kind}.js is missing"
    text = source.read_text()
    for name in ("renderBoard", "renderHoldings"):
        declared = rf"export\s+(?:(?:async\s+)?function\s*|const\s+|let\s+){name}\b"
        exported = rf"{declared}|export\s*\{{[^}}]*\b{name}\b"
        assert re.search(exported, text), f"boards/{kind}.js does not export {name}"
    served = await client.get(f"/play/assets/boards/{kind}.js")
    assert served.status_code == 200 and served.text == text

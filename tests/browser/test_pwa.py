"""The reference client as an installable app: Chromium finds nothing missing for installing it
(``Page.getInstallabilityErrors``), its service worker controls /play, and a finished game opened
once opens again with the network gone (the app shell and the game's reads from the cache)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from .conftest import CHROMIUM
from .pages import settled, state, wait_for

pytestmark = pytest.mark.slow


def _post(api: str, path: str, body: dict, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{api}{path}", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _finished_game(api: str) -> str:
    made = _post(api, "/v1/games", {"kind": "yangtze", "options": {"players": 2}, "seed": "pwa"})
    token = made["tokens"][0]["token"]
    _post(api, f"/v1/games/{made['game_id']}/moves", {"type": "table.Resign"}, token)
    return str(made["game_id"])


def test_installable_controlled_by_its_worker_and_a_finished_game_opens_offline(browser, api, tmp_path: Path):
    game_id = _finished_game(api)
    # A persistent profile: Chromium never offers to install from an incognito one (a plain
    # Playwright context is one).
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        headless=True,
        viewport={"width": 390, "height": 844},
    )
    errors: list[str] = []
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{api}/play/")
        wait_for(page, "navigator.serviceWorker.ready.then(r => Boolean(r.active))")
        wait_for(page, "Boolean(navigator.serviceWorker.controller)")
        assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{api}/play/sw.js"

        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == f"{api}/play/manifest.webmanifest"
        assert not manifest.get("errors"), manifest["errors"]
        installability = cdp.send("Page.getInstallabilityErrors")
        assert installability["installabilityErrors"] == [], installability

        # The finished game, online: its reads pass through the worker, which keeps them.
        page.goto(f"{api}/play/#/game/{game_id}")
        settled(page)
        assert state(page)[1] == "finished"
        page.reload()  # every read now after the worker knew the game finished
        settled(page)
        online = page.locator("#game").inner_text()

        context.set_offline(True)
        page.reload()
        settled(page)
        version, status, _ = state(page)
        assert status == "finished" and version > 0
        assert page.locator("#game").inner_text() == online, "the same page as online"
        # Really offline, the worker's own fetches included: a read of the game it never kept (the
        # worker answers for the game's reads) is not there.
        never_read = (
            "id => fetch(`/v1/games/${id}/events?after=0&limit=7`).then(r => r.status, () => 'unreachable')"
        )
        assert page.evaluate(never_read, game_id) == "unreachable"
        # The lobby's shell opens offline too.
        page.goto(f"{api}/play/")
        wait_for(page, "Boolean(document.querySelector('header.top'))")
    finally:
        context.close()
    assert not errors, errors

"""The reference web client in a real browser against a real server: a game created in the lobby
from another origin, joined seat by seat and followed live by a spectator; a complete game of
each title clicked through to its outcome, verification and replay; a screenshot of each board."""

from __future__ import annotations

import json
import os
import random
import tempfile
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page

from domain.registry import production_games

from .pages import LIVE_OVER_SOCKET, SocketMoves, click_a_legal_move, play_moves, settled, state, wait_for

pytestmark = pytest.mark.slow

SCREENSHOTS = Path(os.environ.get("YAMEN_SCREENSHOTS") or Path(tempfile.gettempdir()) / "yamen-screenshots")
"""Where each board's screenshot goes: a scratch directory, so a test run leaves the checkout as it
found it; ``YAMEN_SCREENSHOTS=docs/screenshots`` refreshes the README's pictures."""
HELD_TOKENS = "Object.keys(localStorage).filter((key) => key.startsWith('yamen.token')).length"
REPLAY_AT = """v => {
    const replay = document.querySelector('#replay');
    return replay && replay.dataset.busy === '0' && replay.dataset.version === String(v);
}"""


def _watch_errors(page: Page, errors: list[str]) -> None:
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))


def test_lobby_from_another_origin_joined_seats_and_a_live_spectator(new_page, api, other_origin):
    lobby_url = f"{other_origin}/index.html?api={api}#/"
    errors: list[str] = []

    creator = new_page()
    _watch_errors(creator, errors)
    creator.goto(lobby_url)
    form = creator.locator('form.create-form[data-kind="yangtze"]')
    form.locator('select[name="opt.players"]').select_option(label="2")
    form.locator('input[name="take"][value="none"]').check()
    form.locator('button[type="submit"]').click()
    created = creator.locator("#created")
    created.locator(".spectator-link").wait_for()
    game_id = created.get_attribute("data-game-id")
    assert game_id and created.locator("button.join").count() == 2  # no seat taken: both open
    spectator_url = created.locator(".spectator-link").get_attribute("href")
    assert spectator_url.startswith(other_origin) and f"api={api}" in spectator_url

    spectator = new_page()
    _watch_errors(spectator, errors)
    spectator.goto(spectator_url)
    assert settled(spectator) >= 0 and state(spectator)[1] == "open"
    spectator.evaluate("window.__notReloaded = true")

    seats: dict[int, Page] = {}
    sockets: dict[int, SocketMoves] = {}
    for seat in (0, 1):  # each player in a browser of their own, joining from the open-games list
        page = new_page()
        _watch_errors(page, errors)
        sockets[seat] = SocketMoves(page)
        page.goto(lobby_url)
        join = page.locator(f'#open-games button.join[data-game="{game_id}"][data-seat="{seat}"]')
        join.click()
        page.wait_for_url(f"**#/game/{game_id}/seat/{seat}")
        seats[seat] = page
    for page in seats.values():
        wait_for(page, "document.querySelector('#game')?.dataset.status === 'active'", timeout=10_000)
    # The seats' tokens stayed in their own browsers: the creator holds none.
    assert creator.evaluate(HELD_TOKENS) == 0
    assert seats[0].evaluate(HELD_TOKENS) == 1

    # A stale version (as if another tab had moved first) is refused; the page shows the problem.
    acting = state(seats[0])[2][0]
    actor = seats[acting]
    settled(actor)
    wait_for(actor, LIVE_OVER_SOCKET)  # the one-trip move goes over the socket
    sockets[acting].change_next_move(lambda move: {**move, "expected_version": 1})
    before = state(actor)[0]
    click_a_legal_move(actor, random.Random(0))
    problem = actor.locator("#move-error .problem")
    problem.wait_for()
    assert "version_mismatch" in problem.locator(".problem-code").inner_text()
    actor.locator("#move-error").evaluate("box => box.replaceChildren()")
    assert settled(actor) == before

    followed: list[int] = []

    def spectator_follows(_number: int, version: int) -> None:
        settled(spectator, at=version, timeout=10_000)
        followed.append(version)

    version, _ = play_moves(seats, random.Random(1), limit=8, on_move=spectator_follows)
    assert len(followed) == 8 and followed[-1] == version
    assert spectator.evaluate("window.__notReloaded === true")
    assert spectator.locator("#moves button.move").count() == 0  # spectators see no moves
    assert spectator.locator("#log li").count() >= 8
    assert "live" in spectator.locator("#live").inner_text()
    assert not errors, errors


# Two players each (the brief's "short" games); seeds fixed so a run is reproducible.
TITLES = [("yangtze", {"players": "2"}), ("pingyao", {"players": "2"}), ("jiangnan", {"players": "2"})]


@pytest.mark.parametrize(("kind", "options"), TITLES, ids=[kind for kind, _ in TITLES])
def test_a_complete_game_of_each_title_by_clicking(new_page, api, kind, options):
    assert kind in production_games()
    errors: list[str] = []
    lobby = new_page()
    _watch_errors(lobby, errors)
    lobby.goto(f"{api}/play")
    form = lobby.locator(f'form.create-form[data-kind="{kind}"]')
    for name, label in options.items():
        form.locator(f'select[name="opt.{name}"]').select_option(label=label)
    form.locator('input[name="seed"]').fill(f"browser-{kind}")
    form.locator('button[type="submit"]').click()  # hot seat: this browser takes every seat
    links = lobby.locator("#created a.seat-link")
    links.first.wait_for()
    assert links.count() == 2
    seats: dict[int, Page] = {}
    for seat in (0, 1):
        page = new_page(beside=lobby)
        _watch_errors(page, errors)
        page.goto(links.nth(seat).get_attribute("href"))
        seats[seat] = page
    lobby.close()

    shot: dict[str, int] = {}

    def screenshot_midgame(number: int, version: int) -> None:
        if number == 24:  # from the page of the seat to act: its moves are on screen
            settled(seats[0], at=version)
            to_act = state(seats[0])[2]
            page = seats[to_act[0]] if to_act else seats[0]
            page.bring_to_front()
            settled(page, at=version)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{kind}.png"), full_page=True)
            shot["version"] = version

    version, status = play_moves(seats, random.Random(kind), limit=1500, on_move=screenshot_midgame)
    assert status == "finished", f"{kind} did not finish within the move limit"
    assert shot, "the game ended before the mid-game screenshot"
    page = seats[0]

    # The outcome, the revealed seed against its commitment, and the server's verification.
    outcome = page.locator("#outcome")
    outcome.wait_for()
    assert page.locator("#outcome .scores tbody tr").count() == 2
    assert page.locator("#outcome .winners").inner_text().startswith("Seat")
    wait_for(page, "document.querySelector('#seed-check')?.classList.contains('ok')")
    verification = page.locator("#verification")
    wait_for(page, "document.querySelector('#verification')?.dataset.result !== undefined")
    assert verification.get_attribute("data-result") == "passed", verification.inner_text()
    assert page.locator("#verification .check").count() >= 3
    assert page.locator("#verification .check-failed").count() == 0

    # The replay: the last version, then an early one; the board differs.
    replay = page.locator("#replay")
    wait_for(page, REPLAY_AT, arg=version)
    last_board = page.locator("#replay-board").inner_html()
    early = 2
    page.locator("#replay-slider").fill(str(early))
    wait_for(page, REPLAY_AT, arg=early)
    assert page.locator("#replay-board").inner_html() != last_board
    assert page.locator("#replay-event .replay-type").inner_text().startswith(f"{kind}.")
    assert replay.locator("#replay-version").inner_text() == str(early)
    assert not errors, errors


def _create_hot_seat(api: str, kind: str) -> str:
    body = json.dumps({"kind": kind, "options": {"players": 2}, "seed": "browser-fallback"}).encode()
    request = urllib.request.Request(
        f"{api}/v1/games", data=body, headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())["game_id"]


@pytest.mark.parametrize(
    ("module", "note"),
    [
        (None, "boards/yangtze.js could not be loaded"),
        ("export function renderBoard() { throw new Error('boom'); }\n", "renderBoard failed: boom"),
    ],
    ids=["missing", "throws"],
)
def test_a_missing_or_failing_board_module_falls_back_to_the_generic_board(new_page, api, module, note):
    game_id = _create_hot_seat(api, "yangtze")
    # The page's service worker would fetch the module itself, past Playwright's routes.
    page = new_page(service_workers="block")
    if module is None:
        page.route("**/assets/boards/yangtze.js", lambda route: route.fulfill(status=404, body="not here"))
    else:
        page.route(
            "**/assets/boards/yangtze.js",
            lambda route: route.fulfill(status=200, content_type="text/javascript", body=module),
        )
    page.goto(f"{api}/play/#/game/{game_id}")
    settled(page)
    assert page.locator("#board svg.generic-board").count() == 1
    assert page.locator("#board .view-json").count() == 1  # the view, as JSON
    assert note in page.locator("#notes").inner_text()
    assert page.locator("#holdings").inner_text().strip()

"""Driving the reference client's pages: wait on the state the game page publishes on its root
element (data-version, data-status, data-to-act, data-busy) instead of sleeping."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, WebSocketRoute

SETTLE_MS = 20_000
LIVE_OVER_SOCKET = "document.querySelector('#live')?.dataset.mode === 'socket'"
"""The game page follows the game, and sends its moves, over the realtime socket."""
POLL_SECONDS = 0.05


def wait_for(page: Page, predicate: str, arg: Any = None, *, timeout: int = SETTLE_MS) -> Any:
    """Polls *predicate* (a JavaScript expression or function, given *arg*) until it is truthy;
    answers its value.  Not ``page.wait_for_function``: Playwright evaluates that predicate with
    ``eval`` inside the page, which the page's Content-Security-Policy (scripts from its own files
    only, no ``unsafe-eval``) refuses; ``page.evaluate`` runs through the DevTools protocol, outside
    the page's policy, so the tests drive /play exactly as it is served."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} ms: {' '.join(predicate.split())[:200]}")
        time.sleep(POLL_SECONDS)


def settled(
    page: Page, *, newer_than: int | None = None, at: int | None = None, timeout: int = SETTLE_MS
) -> int:
    """Waits until the game page shows a version (newer than / equal to the one given) and has
    finished loading; answers that version.  A move the page reports refused fails at once."""
    wait_for(
        page,
        """([newer, at]) => {
            const root = document.querySelector('#game');
            if (!root || root.dataset.busy !== '0' || !root.dataset.version) return false;
            if (document.querySelector('#move-error .problem')) return true;
            const version = Number(root.dataset.version);
            return (newer === null || version > newer) && (at === null || version === at);
        }""",
        [newer_than, at],
        timeout=timeout,
    )
    refused = page.locator("#move-error .problem")
    if refused.count():
        raise AssertionError(f"the page reports a refused move: {refused.inner_text()}")
    return int(page.locator("#game").get_attribute("data-version"))


def state(page: Page) -> tuple[int, str, list[int]]:
    root = page.locator("#game")
    to_act = root.get_attribute("data-to-act") or ""
    return (
        int(root.get_attribute("data-version")),
        root.get_attribute("data-status"),
        [int(seat) for seat in to_act.split(",") if seat],
    )


def click_a_legal_move(page: Page, rng: random.Random) -> str:
    """Clicks one of the seat's legal-move buttons (chosen by *rng*); answers its label."""
    buttons = page.locator("#moves button.move")
    count = buttons.count()
    assert count, "the seat to act is offered no legal move"
    button = buttons.nth(rng.randrange(count))
    label = button.locator(".label").inner_text()
    button.click()
    return label


def play_moves(seats: dict[int, Page], rng: random.Random, *, limit: int, on_move=None) -> tuple[int, str]:
    """Plays up to *limit* moves (or to the end) by clicking in the page of the seat to act; answers
    the last version and status.  *on_move(number, version)* runs after each settled move."""
    any_page = next(iter(seats.values()))
    version = settled(any_page)
    _, status, to_act = state(any_page)
    for number in range(1, limit + 1):
        if status == "finished":
            break
        assert status == "active" and to_act, (status, to_act)
        page = seats[to_act[0]]
        page.bring_to_front()  # a hidden page's timers and animation frames are throttled
        settled(page, at=version)
        click_a_legal_move(page, rng)
        version = settled(page, newer_than=version)
        _, status, to_act = state(page)
        if on_move is not None:
            on_move(number, version)
    return version, status


class SocketMoves:
    """The page's realtime socket (/v1/ws) routed through the test, as ``page.route`` routes an HTTP
    request: every message passes unchanged, but the next ``move`` may be changed on its way (a stale
    ``expected_version``, another command), and the moves sent are counted.  Set up before the page
    opens its socket (Playwright routes only sockets opened afterwards)."""

    def __init__(self, page: Page) -> None:
        self.moves = 0
        self.connections = 0
        self._change: Callable[[dict], dict] | None = None
        self._routes: list[WebSocketRoute] = []
        page.route_web_socket("**/v1/ws", self._route)

    def change_next_move(self, change: Callable[[dict], dict]) -> None:
        """The next ``move`` message the page sends goes to the server as *change(message)*."""
        self._change = change

    def close_all(self, code: int) -> None:
        """Closes the page's sockets as the server would (1001: the server is stopping)."""
        for route in self._routes:
            route.close(code=code, reason="closed by the test")
        self._routes.clear()

    def _route(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.connections += 1
        self._routes.append(route)

        def to_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "move":
                self.moves += 1
                if self._change is not None:
                    data, self._change = self._change(data), None
                    message = json.dumps(data)
            server.send(message)

        route.on_message(to_server)

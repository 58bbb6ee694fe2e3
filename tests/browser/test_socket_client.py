"""The game page over the realtime socket (/v1/ws): a hot-seat game played by clicking, every move
sent over the socket (no POST …/moves), a spectator following over its own socket, the server's
"going away" (1001) survived by resuming with ``after``; and a page whose socket is refused, which
plays on over the event stream and POST."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest
from playwright.sync_api import Page

from .pages import SocketMoves, click_a_legal_move, play_moves, settled, state, wait_for
from .test_play_client import _watch_errors

pytestmark = pytest.mark.slow

LIVE_MODE = "mode => document.querySelector('#live')?.dataset.mode === mode"
LOG_SEQS = """() => Array.from(
    document.querySelectorAll('#log li[data-seq]:not(.burst)'), (li) => Number(li.dataset.seq))"""


def _create(api: str, kind: str, seed: str) -> dict:
    body = {"kind": kind, "options": {"players": 2}, "take_seats": "all", "seed": seed}
    headers = {"content-type": "application/json"}
    data = json.dumps(body).encode()
    request = urllib.request.Request(f"{api}/v1/games", data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _seat_pages(new_page, api: str, created: dict, errors: list[str], *, routed=None) -> dict[int, Page]:
    """A page per seat in one browser context holding both seats' tokens (as the lobby keeps them)."""
    game_id = created["game_id"]
    first = new_page(service_workers="block")
    tokens = {f"yamen.token||{game_id}|{held['seat']}": held["token"] for held in created["tokens"]}
    keep = (
        f"for (const [key, token] of Object.entries({json.dumps(tokens)})) localStorage.setItem(key, token);"
    )
    first.context.add_init_script(keep)
    pages = {0: first, 1: new_page(beside=first)}
    for seat, page in pages.items():
        _watch_errors(page, errors)
        if routed is not None:
            routed(page)
        page.goto(f"{api}/play/#/game/{game_id}/seat/{seat}")
    return pages


def _count_posted_moves(page: Page, posted: list[str]) -> None:
    page.on(
        "request",
        lambda request: (
            posted.append(request.url) if request.method == "POST" and "/moves" in request.url else None
        ),
    )


def test_moves_go_over_the_socket_and_a_server_stopping_is_resumed(new_page, api):
    created = _create(api, "yangtze", "socket-client")
    errors: list[str] = []
    posted: list[str] = []
    sockets: dict[int, SocketMoves] = {}

    def routed(page: Page) -> None:
        sockets[len(sockets)] = SocketMoves(page)
        _count_posted_moves(page, posted)

    seats = _seat_pages(new_page, api, created, errors, routed=routed)
    spectator = new_page()
    _watch_errors(spectator, errors)
    spectator.goto(f"{api}/play/#/game/{created['game_id']}")
    for page in (*seats.values(), spectator):
        wait_for(page, LIVE_MODE, "socket", timeout=10_000)
        assert "socket" in page.locator("#live").inner_text()

    def spectator_follows(_number: int, version: int) -> None:
        settled(spectator, at=version, timeout=10_000)

    rng = random.Random("socket")
    version, status = play_moves(seats, rng, limit=6, on_move=spectator_follows)
    assert status == "active", "the game ended too soon for this test"
    assert sum(s.moves for s in sockets.values()) >= 6
    assert posted == [], f"moves were POSTed: {posted}"

    # The server stops (1001 "going away"): the page goes on by the event stream, then the socket is
    # back and resumes after the last event it has: no event twice, none missing.
    for routes in sockets.values():
        routes.close_all(1001)
    for seat, page in seats.items():
        for _ in range(150):  # the first retry comes after a second or so
            if sockets[seat].connections == 2:
                break
            page.wait_for_timeout(100)
        assert sockets[seat].connections == 2, "the page did not open its socket again"
        wait_for(page, LIVE_MODE, "socket", timeout=15_000)
    before = sum(s.moves for s in sockets.values())
    version, _ = play_moves(seats, rng, limit=6, on_move=spectator_follows)
    assert sum(s.moves for s in sockets.values()) >= before + 1
    assert posted == [], f"moves were POSTed: {posted}"
    for page in (*seats.values(), spectator):
        seqs = page.evaluate(LOG_SEQS)
        assert len(seqs) == len(set(seqs)), seqs
        assert max(seqs) == version
    # The events came over the socket bare; their lines were read afterwards, in the game's words.
    wait_for(spectator, "() => document.querySelectorAll('#log .narration').length >= 6")
    assert not errors, errors


def test_a_refused_move_over_the_socket_reads_as_over_http(new_page, api):
    created = _create(api, "yangtze", "socket-refused")
    errors: list[str] = []
    sockets: dict[int, SocketMoves] = {}

    def routed(page: Page) -> None:
        sockets[len(sockets)] = SocketMoves(page)

    seats = _seat_pages(new_page, api, created, errors, routed=routed)
    settled(seats[0])
    seat = state(seats[0])[2][0]
    page = seats[seat]
    page.bring_to_front()
    version = settled(page)
    wait_for(page, LIVE_MODE, "socket", timeout=10_000)

    sockets[seat].change_next_move(lambda move: {**move, "expected_version": 1})
    click_a_legal_move(page, random.Random(0))
    page.locator("#move-error .problem").wait_for()
    assert "The game moved on" in page.locator("#move-error .problem-title").inner_text()
    assert page.locator("#move-error .problem-code").inner_text() == "version_mismatch"
    page.locator("#move-error").evaluate("box => box.replaceChildren()")
    assert settled(page) == version
    assert not errors, errors


def test_without_the_socket_the_page_plays_over_the_stream_and_post(new_page, api):
    created = _create(api, "yangtze", "socket-refused-fallback")
    errors: list[str] = []
    posted: list[str] = []
    refused: list[str] = []

    def no_socket(page: Page) -> None:
        # Every socket the page opens is closed at once, as by a proxy that lets none through.
        page.route_web_socket("**/v1/ws", lambda ws: (refused.append(ws.url), ws.close(code=1011)))
        _count_posted_moves(page, posted)

    seats = _seat_pages(new_page, api, created, errors, routed=no_socket)
    for page in seats.values():
        wait_for(page, LIVE_MODE, "stream", timeout=10_000)
        assert page.locator("#live").inner_text() == "(live)"
    version, status = play_moves(seats, random.Random("fallback"), limit=6)
    assert status == "active"
    assert len(posted) >= 6, posted
    assert refused, "the page never tried the socket"
    for page in seats.values():
        settled(page, at=version)
        seqs = page.evaluate(LOG_SEQS)
        assert len(seqs) == len(set(seqs)) and max(seqs) == version

    # A refusal by POST reads as one over the socket.
    page = seats[state(seats[0])[2][0]]
    page.bring_to_front()
    page.route(
        "**/moves*",
        lambda route: route.continue_(headers={**route.request.headers, "if-match": '"1"'}),
        times=1,
    )
    click_a_legal_move(page, random.Random(0))
    page.locator("#move-error .problem").wait_for()
    assert page.locator("#move-error .problem-code").inner_text() == "version_mismatch"
    page.locator("#move-error").evaluate("box => box.replaceChildren()")
    assert settled(page) == version
    assert not errors, errors

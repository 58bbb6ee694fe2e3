"""The reference client on a phone (390×844, touch) and at desktop size, tapped as a player would:
no sideways scroll, the board and a legal move on screen together, a refused move's reason where
the player looks (in the game's words, with the rule's name), amounts chosen with a stepper, an
unknown game id answered with a clear page, and a seat link that lets a friend take the seat.
Phone screenshots of each title go to YAMEN_SCREENSHOTS (<kind>-phone.png)."""

from __future__ import annotations

import json
import random
import urllib.request

import pytest
from playwright.sync_api import Page

from domain.registry import production_games

from .pages import LIVE_OVER_SOCKET, SocketMoves, settled, state, wait_for
from .test_play_client import SCREENSHOTS, _watch_errors

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}, "has_touch": True}
SIZES = {"phone": PHONE, "desktop": DESKTOP}

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"

MOVE_WITH_BOARD = """() => {
    // A legal move on screen (not covered: it is what a tap there reaches) while the board shows.
    const inView = (r, min) =>
        r.bottom > min && r.top < innerHeight - min && r.right > 0 && r.left < innerWidth;
    const board = document.querySelector('#board').getBoundingClientRect();
    const buttons = [...document.querySelectorAll('#moves button.move')];
    if (!buttons.length) return 'no move button';
    const reachable = buttons.some((button) => {
        const r = button.getBoundingClientRect();
        const x = r.left + Math.min(r.width / 2, 40), y = r.top + Math.min(r.height / 2, 12);
        const hit = document.elementFromPoint(x, y);
        return r.top >= 0 && r.top + 12 < innerHeight && hit && button.contains(hit);
    });
    if (!reachable) return 'move not reachable';
    if (!inView(board, 80)) return 'board not in view';
    return 'ok';
}"""

VISIBLE = """selector => {
    const element = document.querySelector(selector);
    if (!element) return false;
    const r = element.getBoundingClientRect();
    const x = r.left + Math.min(r.width / 2, 20), y = r.top + Math.min(r.height / 2, 8);
    const hit = document.elementFromPoint(x, y);
    return r.height > 0 && r.top >= -2 && r.top + 16 <= innerHeight && !!hit && element.contains(hit);
}"""


def _post(url: str, body: dict | None = None) -> dict:
    headers = {"content-type": "application/json"}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _hot_seat(new_page, api: str, kind: str, size: str, seed: str) -> tuple[dict[int, Page], list[str]]:
    """A two-player game created in the lobby at *size*, every seat taken by this browser; a page per seat."""
    errors: list[str] = []
    lobby = new_page(**SIZES[size])
    _watch_errors(lobby, errors)
    lobby.goto(f"{api}/play")
    form = lobby.locator(f'form.create-form[data-kind="{kind}"]')
    form.locator('select[name="opt.players"]').select_option(label="2")
    form.locator('input[name="seed"]').fill(seed)
    form.locator('button[type="submit"]').tap()
    links = lobby.locator("#created a.seat-link")
    links.first.wait_for()
    # The feedback shows where the player is: the created panel is on screen.
    wait_for(lobby, VISIBLE, "#created")
    seats: dict[int, Page] = {}
    for seat in (0, 1):
        page = new_page(beside=lobby)
        _watch_errors(page, errors)
        page.goto(links.nth(seat).get_attribute("href"))
        seats[seat] = page
    lobby.close()
    return seats, errors


def _tap_a_legal_move(page: Page, rng: random.Random) -> None:
    """Taps a legal move: a button, or an amount set with its stepper first."""
    choices = page.locator("#moves .move-list > li")
    count = choices.count()
    assert count, "the seat to act is offered no legal move"
    choice = choices.nth(rng.randrange(count))
    if choice.get_attribute("class") == "amount":
        for _ in range(rng.randrange(3)):
            choice.locator('button.step[data-step="1"]').tap()
    choice.locator("button.move").tap()


TITLES = sorted(production_games())


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("kind", TITLES)
def test_a_complete_game_by_tapping(new_page, api, kind, size):
    seats, errors = _hot_seat(new_page, api, kind, size, f"phone-{kind}")
    rng = random.Random(f"{kind}-{size}")
    version = settled(seats[0])
    _, status, to_act = state(seats[0])
    shot = False
    for number in range(1, 1500):
        if status == "finished":
            break
        page = seats[to_act[0]]
        page.bring_to_front()
        settled(page, at=version)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), f"sideways scroll at move {number}"
        if number <= 3 or number % 25 == 0:
            assert page.evaluate(MOVE_WITH_BOARD) == "ok", f"move {number}"
        if size == "phone" and number == 24:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{kind}-phone.png"))
            shot = True
        _tap_a_legal_move(page, rng)
        version = settled(page, newer_than=version)
        _, status, to_act = state(page)
    assert status == "finished", f"{kind} did not finish"
    assert size != "phone" or shot
    page = seats[0]
    page.locator("#outcome").wait_for()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert not errors, errors


def test_a_refused_move_reads_in_the_games_words_where_the_player_looks(new_page, api):
    seats, errors = _hot_seat(new_page, api, "yangtze", "phone", "phone-refused")
    settled(seats[0])
    page = seats[state(seats[0])[2][0]]
    page.bring_to_front()
    socket = SocketMoves(page)  # the moves go over the socket: routed through the test from now on
    page.reload()
    version = settled(page)
    wait_for(page, LIVE_OVER_SOCKET)

    # A move the rules forbid now (a bid with no auction running): the rule's name, in words.
    socket.change_next_move(lambda move: {**move, "command": {"type": "yangtze.Bid", "amount": 5}})
    page.locator("#moves button.move").first.tap()
    page.locator("#move-error .problem").wait_for()
    assert wait_for(page, VISIBLE, "#move-error .problem")
    text = page.locator("#move-error .problem").inner_text()
    assert "Not allowed" in text and "Rule: Yangtze:" in text, text
    assert page.locator("#move-error .problem-rule").inner_text().startswith("Yangtze: ")
    page.locator("#move-error").evaluate("box => box.replaceChildren()")
    assert settled(page) == version

    # A stale move (another tab moved first): the game moved on, and the page shows the new state.
    socket.change_next_move(lambda move: {**move, "expected_version": 1})
    page.locator("#moves button.move").first.tap()
    page.locator("#move-error .problem").wait_for()
    assert wait_for(page, VISIBLE, "#move-error .problem")
    assert "The game moved on" in page.locator("#move-error .problem-title").inner_text()
    assert page.locator("#move-error .problem-code").inner_text() == "version_mismatch"
    page.locator("#move-error").evaluate("box => box.replaceChildren()")
    assert settled(page) == version
    assert not errors, errors


def test_an_unknown_game_id_gets_a_clear_page(new_page, api):
    errors: list[str] = []
    page = new_page(**PHONE)
    _watch_errors(page, errors)
    page.goto(f"{api}/play/#/game/g_nosuchgame000000000")
    page.locator("#not-found").wait_for()
    assert "No game" in page.locator("#not-found h1").inner_text()
    assert page.locator('#not-found a[href="#/"]').count() == 1
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert not errors, errors


def test_a_seat_link_lets_a_friend_take_the_open_seat(new_page, api):
    created = _post(f"{api}/v1/games", {"kind": "pingyao", "options": {"players": 2}, "take_seats": "none"})
    game_id = created["game_id"]
    _post(f"{api}/v1/games/{game_id}/seats/0")
    errors: list[str] = []
    friend = new_page(**PHONE)
    _watch_errors(friend, errors)
    friend.goto(f"{api}/play/#/game/{game_id}/seat/1")
    take = friend.locator("#take-open-seat")
    take.tap()
    wait_for(friend, "document.querySelector('#game')?.dataset.seat === '1'")
    wait_for(friend, "document.querySelector('#game')?.dataset.status === 'active'")
    assert friend.locator("#seat-offer").count() == 0
    assert not errors, errors


def test_an_amount_is_chosen_with_a_stepper(new_page, api):
    """Yangtze's bids come as one stepper, not a button per amount (found by playing to an auction)."""
    seats, errors = _hot_seat(new_page, api, "yangtze", "phone", "phone-stepper")
    rng = random.Random(7)
    version = settled(seats[0])
    for _ in range(300):
        _, status, to_act = state(seats[0])
        assert status == "active"
        page = seats[to_act[0]]
        page.bring_to_front()
        settled(page, at=version)
        if page.locator("#moves li.amount").count():
            break
        _tap_a_legal_move(page, rng)
        version = settled(page, newer_than=version)
    else:
        pytest.fail("no amount to choose in 300 moves")
    amount = page.locator("#moves li.amount").first
    before = amount.locator("button.move .label").inner_text()
    amount.locator('button.step[data-step="1"]').tap()
    after = amount.locator("button.move .label").inner_text()
    assert before != after
    labels = page.locator("#moves button.move .label").all_inner_texts()
    assert len(labels) == len(set(labels)), labels  # same-looking moves are told apart
    amount.locator("button.move").tap()
    settled(page, newer_than=version)
    assert not errors, errors

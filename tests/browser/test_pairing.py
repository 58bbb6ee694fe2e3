"""Quick pairing and the leaderboard in the reference client, on a phone (390×844): two guests (two
browser contexts) quick-pair the same title and land in the same game as seats 0 and 1, each with
its seat's token; a guest who accepts bots at once gets a game against bots; a seek can be
cancelled; the leaderboard page of a title answers."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from .pages import settled, state, wait_for
from .test_play_client import _watch_errors

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SEAT_ROUTE = re.compile(r"#/game/([^/]+)/seat/(\d+)$")
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def _quick_pair(page: Page, kind: str, *, players: str, bots: str, rated: bool = True) -> None:
    form = page.locator(f'form.quick-pair[data-kind="{kind}"]')
    form.wait_for()
    form.locator('select[name="players"]').select_option(players)
    form.locator('select[name="bots_after"]').select_option(bots)
    if not rated:
        form.locator('input[name="rated"]').uncheck()
    form.locator('button[type="submit"]').tap()


def _landed(page: Page) -> tuple[str, int]:
    """Waits until the page shows the matched game as its seat; answers (game id, seat)."""
    url = wait_for(page, "() => /#\\/game\\/[^/]+\\/seat\\/\\d+$/.test(location.hash) && location.href")
    found = SEAT_ROUTE.search(url)
    assert found, url
    game_id, seat = found.group(1), int(found.group(2))
    settled(page)
    # The seat's token was re-issued for the guest (POST …/seats/{n}/token) and kept here.
    token = page.evaluate(
        "([game, seat]) => localStorage.getItem(`yamen.token||${game}|${seat}`)", [game_id, seat]
    )
    assert token and token.startswith("ymn."), token
    return game_id, seat


def test_two_guests_quick_pair_into_one_game(new_page, api):
    errors: list[str] = []
    pages = []
    for _ in range(2):
        page = new_page(**PHONE)
        _watch_errors(page, errors)
        page.goto(f"{api}/play")
        page.locator("form.quick-pair").first.wait_for()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        pages.append(page)
    first, second = pages
    _quick_pair(first, "pingyao", players="2", bots="")  # people only
    # The waiting state, with its Cancel, while nobody else seeks.
    first.locator("#pairing .seeking .cancel-seek").wait_for()
    assert "Looking for players" in first.locator("#pairing").inner_text()
    _quick_pair(second, "pingyao", players="2", bots="")
    game_a, seat_a = _landed(first)
    game_b, seat_b = _landed(second)
    assert game_a == game_b
    assert {seat_a, seat_b} == {0, 1}
    _, status, to_act = state(first)
    assert status == "active" and len(to_act) >= 1
    # The seat to act is offered its moves in its own page.
    acting = first if to_act[0] == seat_a else second
    acting.locator("#moves button.move").first.wait_for()
    assert not errors, errors


def test_bots_fill_a_seek_at_once(new_page, api):
    errors: list[str] = []
    page = new_page(**PHONE)
    _watch_errors(page, errors)
    page.goto(f"{api}/play")
    _quick_pair(page, "yangtze", players="2", bots="0", rated=False)  # bots now
    game_id, seat = _landed(page)
    document = page.evaluate(
        "async (id) => (await fetch(`/v1/games/${id}`, {cache: 'no-store'})).json()", game_id
    )
    others = [info for info in document["seats"] if info["seat"] != seat]
    assert others and all(info.get("bot") for info in others), document["seats"]
    assert not errors, errors


def test_a_seek_is_cancelled(new_page, api):
    page = new_page(**PHONE)
    page.goto(f"{api}/play")
    _quick_pair(page, "jiangnan", players="2", bots="")
    page.locator("#pairing .cancel-seek").tap()
    wait_for(page, "() => document.querySelector('#pairing').innerText.includes('Seek cancelled')")
    # The forms are usable again.
    assert page.locator('form.quick-pair[data-kind="jiangnan"] button[type="submit"]').is_enabled()


LOADED = (
    "(id) => { const it = document.querySelector(id); return !!it && !it.innerText.includes('Loading'); }"
)
"""A part of the leaderboard page is drawn (it may not exist yet) and no longer says Loading."""


def test_the_leaderboard_page(new_page, api):
    page = new_page(**PHONE)
    page.goto(f"{api}/play")
    page.locator('form.quick-pair[data-kind="pingyao"] a.small-link').tap()
    wait_for(page, "() => location.hash === '#/leaderboard/pingyao'")
    wait_for(page, LOADED, "#lb-top")
    wait_for(page, LOADED, "#lb-me")
    assert "Leaderboard" in page.locator("#leaderboard h1").inner_text()
    assert not page.locator("#leaderboard .problem").count(), page.locator("#leaderboard").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)


def test_the_lobby_names_options_and_lists_your_games(new_page, api):
    page = new_page(**PHONE)
    page.goto(f"{api}/play")
    _quick_pair(page, "pingyao", players="2", bots="0", rated=False)  # a game against bots
    game_id, _ = _landed(page)
    page.goto(f"{api}/play#/")
    # Option labels and descriptions from the catalogue, never a raw key.
    form = page.locator('form.create-form[data-kind="pingyao"]')
    form.wait_for()
    labels = form.locator("fieldset.options .field > label").all_inner_texts()
    assert "Crowdfunding promo" in labels, labels
    assert not any("_" in label for label in labels), labels
    # "Your games": the title, its status, and whether this player is to act.
    mine = page.locator(f'#your-games .your-game[data-game="{game_id}"]')
    mine.wait_for()
    assert mine.locator(".your-title").inner_text() == "Pingyao: First Chinese Banks"
    assert mine.locator(".badge").first.inner_text() == "in play"
    turn = mine.locator(".your-turn-state").inner_text()
    expected = "your turn" if mine.get_attribute("data-to-act") == "1" else "others to act"
    assert turn == expected
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

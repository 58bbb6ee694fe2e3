"""The reference client as a guest player: the lobby makes a guest on the first visit, creates
and joins games as it, lists "your games" from /v1/me/games, and another device given the guest's
player code lists the same games and plays a seat there (its token re-issued: the first device's
copy stops working)."""

from __future__ import annotations

import random
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import Page

from .pages import click_a_legal_move, settled, state

pytestmark = pytest.mark.slow

GUEST_CODE = "Object.entries(localStorage).find(([key]) => key.startsWith('yamen.guest|'))?.[1] || null"


def _watch(page: Page, errors: list[str]) -> None:
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))


def _status(api: str, path: str, token: str) -> int:
    request = urllib.request.Request(f"{api}{path}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_a_guest_plays_its_games_on_a_second_device_with_its_player_code(new_page, api):
    errors: list[str] = []
    phone = new_page()
    _watch(phone, errors)
    phone.goto(f"{api}/play")
    phone.locator("#your-games").get_by_text("None yet").wait_for()
    code = phone.evaluate(GUEST_CODE)
    assert code and code.startswith("ymp_")
    phone.locator("#player-code summary").click()  # shown on asking, to copy elsewhere
    assert phone.locator("#player-code code").inner_text() == code

    # A hot-seat game created in the lobby is the guest's: both seats listed as its own.
    form = phone.locator('form.create-form[data-kind="yangtze"]')
    form.locator('select[name="opt.players"]').select_option(label="2")
    form.locator('button[type="submit"]').click()
    phone.locator("#created .seat-link").first.wait_for()
    game_id = phone.locator("#created").get_attribute("data-game-id")
    listed = phone.locator(f'#your-games .your-game[data-game="{game_id}"]')
    listed.wait_for()
    assert listed.locator("a.your-seat").count() == 2
    assert listed.get_attribute("data-to-act") == "1"  # one of its seats is to act
    phone_token = phone.evaluate(
        f"localStorage.getItem(Object.keys(localStorage).find(k => k.endsWith('|{game_id}|0')))"
    )
    assert _status(api, f"/v1/games/{game_id}", phone_token) == 200

    # Another device: the code pasted in, the same games listed, a seat opened and played there.
    laptop = new_page()
    _watch(laptop, errors)
    laptop.goto(f"{api}/play")
    laptop.locator("#your-games").get_by_text("None yet").wait_for()  # a guest of its own, first
    laptop.locator('#player-code input[name="code"]').fill(code)
    laptop.locator("#player-code button[type=submit]").click()
    laptop.locator("#player-code .code-result .ok").wait_for()
    assert laptop.evaluate(GUEST_CODE) == code
    seat_link = laptop.locator(f'#your-games .your-game[data-game="{game_id}"] a.your-seat[data-seat="0"]')
    seat_link.click()
    laptop.wait_for_url(f"**#/game/{game_id}/seat/0")
    settled(laptop)
    root = laptop.locator("#game")
    assert root.get_attribute("data-seat") == "0"
    assert laptop.locator("#token-note .error").count() == 0
    _, status, to_act = state(laptop)
    assert status == "active"
    if to_act == [0]:
        version = settled(laptop)
        click_a_legal_move(laptop, random.Random(0))
        settled(laptop, newer_than=version)
    # The seat's token was re-issued for the laptop: the phone's copy no longer holds the seat.
    assert _status(api, f"/v1/games/{game_id}", phone_token) == 401

    # A bad code is refused with the service's problem, and the kept code is not replaced.
    laptop.goto(f"{api}/play")
    laptop.locator('#player-code input[name="code"]').fill("ymp_0123456789ab.not-a-real-credential-at-all")
    laptop.locator("#player-code button[type=submit]").click()
    problem = laptop.locator("#player-code .code-result .error")
    problem.wait_for()
    assert "invalid_player_credential" in problem.inner_text()
    assert laptop.evaluate(GUEST_CODE) == code
    assert not errors, errors

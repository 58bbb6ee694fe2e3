"""Driving the reference client's pages: wait on the state the game page publishes on its root
element (data-version, data-status, data-to-act, data-busy) instead of sleeping."""

from __future__ import annotations

import random

from playwright.sync_api import Page

SETTLE_MS = 20_000


def settled(
    page: Page, *, newer_than: int | None = None, at: int | None = None, timeout: int = SETTLE_MS
) -> int:
    """Waits until the game page shows a version (newer than / equal to the one given) and has
    finished loading; answers that version.  A move the page reports refused fails at once."""
    page.wait_for_function(
        """([newer, at]) => {
            const root = document.querySelector('#game');
            if (!root || root.dataset.busy !== '0' || !root.dataset.version) return false;
            if (document.querySelector('#move-error .problem')) return true;
            const version = Number(root.dataset.version);
            return (newer === null || version > newer) && (at === null || version === at);
        }""",
        arg=[newer_than, at],
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

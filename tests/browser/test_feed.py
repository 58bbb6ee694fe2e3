"""The narrated feed on a phone (390×844): the event list shows the service's lines in the game's
words (not ``yangtze.DieDispatched``), the moves since this seat's last one are highlighted, and a
bot's burst of moves is told in one line ("Bot (Seat 1) made 5 moves: …") that opens to the list."""

from __future__ import annotations

import random

import pytest

from .pages import settled, state, wait_for
from .test_play_client import _watch_errors

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize("kind", ["pingyao", "yangtze"])
def test_the_feed_after_a_bot_burst(new_page, api, kind):
    errors: list[str] = []
    page = new_page(**PHONE)
    _watch_errors(page, errors)
    page.goto(f"{api}/play")
    form = page.locator(f'form.create-form[data-kind="{kind}"]')
    form.locator('select[name="opt.players"]').select_option(label="2")
    form.locator('input[name="seed"]').fill(f"feed-{kind}")
    form.locator('select[name="seat.1"]').select_option(index=2)  # the first bot level
    form.locator('button[type="submit"]').tap()
    link = page.locator('#created li[data-seat="0"] a.seat-link')
    link.wait_for()
    page.goto(link.get_attribute("href"))
    rng = random.Random(kind)
    version = settled(page)
    for _ in range(40):
        if page.locator("#log li.burst").count():
            break
        _, status, to_act = state(page)
        if status != "active":
            break
        if 0 not in to_act:
            version = settled(page, newer_than=version)
            continue
        choices = page.locator("#moves .move-list > li")
        choices.nth(rng.randrange(choices.count())).locator("button.move").tap()
        version = settled(page, newer_than=version)
    burst = page.locator("#log li.burst").first
    burst.wait_for()
    summary = burst.locator("summary").inner_text()
    assert summary.startswith("Bot (Seat 1) made "), summary
    burst.locator("summary").tap()
    assert burst.locator(".burst-moves li").count() >= 3
    # Lines in words: the narrated entries carry no raw event type.
    lines = page.locator("#log .narration")
    assert lines.count() >= 3
    texts = lines.all_inner_texts()
    assert not any(f"{kind}." in text for text in texts), texts
    wait_for(page, "() => document.querySelectorAll('#log li.recent').length > 0")
    assert not errors, errors

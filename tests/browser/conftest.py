"""The browser lane: a real ``yamen serve`` on a fresh database, the client's files on a second
origin, and Debian's chromium driven by Playwright (no browser download)."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import free_port, fresh_database, yamen_serve

WEB = Path(__file__).resolve().parents[2] / "service" / "web"
CHROMIUM = os.environ.get("YAMEN_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="package")
def api() -> Iterator[str]:
    """The base URL of ``yamen serve`` on its own database (rate limit off: several pages play fast)."""
    with fresh_database("yamen_web_") as url, yamen_serve(url) as base:
        yield base


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="package")
def other_origin() -> Iterator[str]:
    """service/web served by a plain static server on another port: another origin than the API's."""
    handler = functools.partial(_QuietHandler, directory=str(WEB))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="package")
def browser() -> Iterator:
    """Chromium for this package's tests.  Package-scoped: Playwright's sync API keeps an event
    loop running in the main thread while it is open, which later tests' asyncio.run would meet."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_page(browser) -> Iterator:
    """Opens a page in a browser context of its own (its own localStorage: another player), or in
    the context of *beside*; every context is closed after the test (their streams with them)."""
    contexts = []
    refused: list[str] = []

    def watch(message) -> None:
        # What the page's Content-Security-Policy stopped (an inline style or script, an eval):
        # the page would silently look or work differently from what it was built to.
        if "Content Security Policy" in message.text:
            refused.append(message.text)

    def open_page(beside=None, viewport: dict | None = None, **options):
        """*options* go to the new context (e.g. ``has_touch=True, is_mobile=True`` for a phone)."""
        if beside is not None:
            return beside.context.new_page()
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900}, **options)
        context.on("console", watch)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()
    assert not refused, f"the page's Content-Security-Policy refused: {refused}"

"""The browser lane: a real ``yamen serve`` on a fresh database, the client's files on a second
origin, and Debian's chromium driven by Playwright (no browser download)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import PG_ADMIN, REDIS_URL, _url_for

WEB = Path(__file__).resolve().parents[2] / "service" / "web"
CHROMIUM = os.environ.get("YAMEN_CHROMIUM", "/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="package")
def web_database() -> Iterator[str]:
    name = f"yamen_web_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _url_for(name)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="package")
def api(web_database: str) -> Iterator[str]:
    """The base URL of ``yamen serve`` on its own database (rate limit off: the pages poll)."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": web_database,
        "REDIS_URL": REDIS_URL,
        "YAMEN_RATE_LIMIT": "off",
        "YAMEN_ACCESS_LOG": "0",
        "YAMEN_LOG_FORMAT": "json",
    }
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    output = tempfile.TemporaryFile()  # noqa: SIM115 - not a pipe: a full one would stall the server
    process = subprocess.Popen(
        [yamen, "serve", "--port", str(port)],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        ready = False
        for _ in range(300):
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=2):
                    ready = True
                    break
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(0.1)
        if not ready:
            output.seek(0)
            raise AssertionError("yamen serve did not become ready:\n" + output.read().decode())
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        output.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="package")
def other_origin() -> Iterator[str]:
    """service/web served by a plain static server on another port: another origin than the API's."""
    handler = functools.partial(_QuietHandler, directory=str(WEB))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", _free_port()), handler)
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

    def open_page(beside=None, viewport: dict | None = None):
        if beside is not None:
            return beside.context.new_page()
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()

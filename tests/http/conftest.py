"""Fixtures for the HTTP tests that need a real server (streams: the test client buffers them)."""

from __future__ import annotations

import time

import pytest


@pytest.fixture(scope="module")
def live_server(database_url, redis_url):
    """The app under a real ASGI server on a free loopback port (the test client buffers streams)."""
    import socket
    import threading

    import uvicorn

    from tests.conftest import make_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            make_app(database_url, redis_url), host="127.0.0.1", port=port, log_config=None, access_log=False
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(5)

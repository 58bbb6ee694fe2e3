"""A real ``yamen serve`` for the generated clients: its own database on the test Postgres, the test
Redis, no rate limit; started once for the clients' tests and stopped by its process group."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator

import psycopg
import pytest

from tests.conftest import PG_ADMIN, REDIS_URL, _url_for


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture(scope="session")
def live_url() -> Iterator[str]:
    """The base URL of a ``yamen serve`` subprocess on a free port."""
    name = f"yamen_clients_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        with tempfile.TemporaryFile() as log:  # not a pipe: a full pipe would stall the server
            yield from _serve(_url_for(name), log)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _serve(database_url: str, log) -> Iterator[str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": REDIS_URL,
        "YAMEN_RATE_LIMIT": "off",
        "YAMEN_LOG_FORMAT": "json",
        "YAMEN_ACCESS_LOG": "0",
    }
    port = _free_port()
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    process = subprocess.Popen(
        [yamen, "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def output() -> str:
        log.seek(0)
        return log.read().decode(errors="replace")[-20000:]

    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            if process.poll() is not None:
                raise AssertionError("yamen serve exited:\n" + output())
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=5) as answer:
                    assert json.loads(answer.read())["postgres"] == "ok"
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError("yamen serve did not become ready:\n" + output())
        yield base
    finally:
        if process.poll() is None:
            _stop(process)


@pytest.fixture(scope="session")
def served_document(live_url: str) -> bytes:
    """The OpenAPI document the running service serves."""
    with urllib.request.urlopen(live_url + "/v1/openapi.json", timeout=10) as answer:
        return answer.read()


def operation_ids(document: dict) -> list[str]:
    return [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]

"""Real servers for the tests that need one: a fresh database on the test Postgres, and ``yamen
serve`` in its own process group on a free port, stopped by its PID (never the machine's servers)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.processes import free_port

PG_ADMIN = os.environ.get("YAMEN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _worker_database(url: str) -> str:
    """*url* with its Redis database moved on by the pytest-xdist worker's number (gw0: the URL's
    own, gw1: the next), so that two workers never share a key: the rate-limit tests empty the
    buckets and count one address's requests exactly.  (Pub/sub spans databases; its channels
    carry game ids, which no two workers share.)"""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not (worker.startswith("gw") and worker[2:].isdecimal()):
        return url
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + int(worker[2:])
    return urlunsplit(parts._replace(path=f"/{database}"))


REDIS_URL = _worker_database(os.environ.get("YAMEN_TEST_REDIS", "redis://127.0.0.1:6379/0"))


def url_for(dbname: str) -> str:
    """The URL of database *dbname* on the test Postgres."""
    base, _, _ = PG_ADMIN.rpartition("/")
    return f"{base}/{dbname}"


@contextlib.contextmanager
def fresh_database(prefix: str) -> Iterator[str]:
    """A new database named *prefix* + random hex, dropped afterwards; yields its URL."""
    name = f"{prefix}{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url_for(name)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def yamen_serve(
    database_url: str,
    *,
    redis_url: str | None = REDIS_URL,
    rate_limit: str | None = "off",
    env: dict[str, str] | None = None,
    started: list[subprocess.Popen] | None = None,
) -> Iterator[str]:
    """``yamen serve`` on *database_url*, ready (Postgres reachable); yields its base URL.

    *redis_url* None serves with the in-process cache; *rate_limit* None keeps the service's
    default limit (what a reader of the README gets).  The access log is off; the server's output
    goes to a file (a full pipe would stall it) and is shown if it does not come up.  *env* adds
    settings; the process is appended to *started* (to kill it in a test)."""
    extra = env or {}
    env = {**os.environ, "DATABASE_URL": database_url, "YAMEN_LOG_FORMAT": "json", "YAMEN_ACCESS_LOG": "0"}
    env.pop("REDIS_URL", None)
    env.pop("YAMEN_RATE_LIMIT", None)
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    if rate_limit is not None:
        env["YAMEN_RATE_LIMIT"] = rate_limit
    env.update(extra)
    port = free_port()
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [yamen, "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if started is not None:
            started.append(process)

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")[-20000:]

        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                if process.poll() is not None:
                    raise AssertionError("yamen serve exited:\n" + output())
                try:
                    with urllib.request.urlopen(base + "/readyz", timeout=5) as answer:
                        assert json.loads(answer.read())["postgres"] == "ok"
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise AssertionError("yamen serve did not become ready:\n" + output())
            yield base
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """Stop a server started in its own session: SIGINT to its group, SIGKILL after 20 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

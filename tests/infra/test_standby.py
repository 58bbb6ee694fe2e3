"""Spectators' reads from a Postgres standby (``YAMEN_STANDBY_URL``), with a bounded, reported lag.

The module starts its own primary and a synchronous streaming standby (initdb, pg_basebackup) on
free ports, as the ``postgres`` account when run as root, and stops them with ``pg_ctl``.  The app
runs without a notice board, so no read is answered from memory: each one shows where it went.
Replay on the standby is paused (``pg_wal_replay_pause()``) to make it trail the primary on
purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.faults.processes import pg_bin_dir
from tests.http.helpers import bearer, create
from tests.servers import free_port

MAX_LAG_MS = 300


class Pair:
    """A primary and its synchronous standby."""

    def __init__(self, root: Path) -> None:
        self.bin = pg_bin_dir()
        self.root = root
        self.primary_port = free_port()
        self.standby_port = free_port()
        self.user = pwd.getpwnam("postgres") if os.geteuid() == 0 else None

    def run(self, *args: str) -> None:
        kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid} if self.user else {}
        done = subprocess.run(
            args, capture_output=True, text=True, timeout=60, check=False, cwd="/tmp", **kwargs
        )
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"

    def url(self, port: int, db: str = "yamen", attrs: str | None = None) -> str:
        tail = f"?target_session_attrs={attrs}" if attrs else ""
        return f"postgresql://postgres@127.0.0.1:{port}/{db}{tail}"

    def start(self) -> None:
        if self.user:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        primary, standby = self.root / "primary", self.root / "standby"
        self.run(str(self.bin / "initdb"), "-D", str(primary), "-U", "postgres", "--auth=trust", "--no-sync")
        with (primary / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        self.start_node("primary", "-c synchronous_standby_names=standby")
        source = ["-h", "127.0.0.1", "-p", str(self.primary_port), "-U", "postgres"]
        conninfo = f"application_name=standby port={self.primary_port}"
        self.run(str(self.bin / "pg_basebackup"), *source, "-D", str(standby), "-R", "-d", conninfo)
        self.start_node("standby")
        with psycopg.connect(self.url(self.primary_port, "postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE yamen")
            deadline = time.monotonic() + 20
            while conn.execute("SELECT sync_state FROM pg_stat_replication").fetchone() != ("sync",):
                assert time.monotonic() < deadline, "the standby never became synchronous"
                time.sleep(0.1)

    def start_node(self, which: str, options: str = "") -> None:
        """``pg_ctl start`` the primary or the standby on its port."""
        port = self.primary_port if which == "primary" else self.standby_port
        options = f"-p {port} -k {self.root} -c fsync=off {options}"
        log = str(self.root / f"{which}.log")
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.root / which), "-o", options, "-l", log, "start")

    def standby(self) -> psycopg.Connection:
        return psycopg.connect(self.url(self.standby_port), autocommit=True)

    def stop(self, which: str) -> None:
        with contextlib.suppress(AssertionError):
            self.run(str(self.bin / "pg_ctl"), "-D", str(self.root / which), "-m", "immediate", "stop")


@contextlib.contextmanager
def running_pair(prefix: str) -> Iterator[Pair]:
    """A started primary and standby in a new directory, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    the = Pair(root)
    try:
        the.start()
        yield the
    finally:
        the.stop("standby")
        the.stop("primary")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    with running_pair("yamen-standby-") as the:
        yield the


def _app(pair: Pair):
    return make_app(
        pair.url(pair.primary_port),
        None,
        notices=False,
        standby_url=f"postgresql://postgres@127.0.0.1:{pair.primary_port},127.0.0.1:{pair.standby_port}/yamen"
        "?target_session_attrs=standby",
        standby_max_lag_ms=MAX_LAG_MS,
    )


async def _readable(client, timeout: float = 10.0) -> None:
    standby = client.app.state.application.reads.standby
    deadline = time.monotonic() + timeout
    while standby.lag() is None:
        assert time.monotonic() < deadline, "the standby never became readable"
        await asyncio.sleep(0.05)


async def _move(client, game_id, tokens) -> int:
    doc = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
    seat = doc["to_act"][0]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
    r = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[seat]))
    assert r.status_code == 200, r.text
    return r.json()["version"]


SPECTATOR_READS = ("", "/events", "/states/2", "/record")


async def test_spectators_read_the_standby_and_seats_read_the_primary(pair):
    async with AsyncTestClient(app=_app(pair)) as client:
        await _readable(client)
        created = await create(client, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        for _ in range(4):
            version = await _move(client, game_id, tokens)
        for path in SPECTATOR_READS:
            answer = await client.get(f"/v1/games/{game_id}{path}")
            assert answer.status_code == 200, (path, answer.text)
            assert 0 <= int(answer.headers["standby-lag-ms"]) <= MAX_LAG_MS, path
            # A synchronous standby that keeps up answers exactly what the primary would.
            seat_answer = await client.get(f"/v1/games/{game_id}{path}", headers=bearer(tokens[0]))
            assert "standby-lag-ms" not in seat_answer.headers, path
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        assert doc["version"] == version
        events = (await client.get(f"/v1/games/{game_id}/events")).json()
        assert events["version"] == version and events["events"][-1]["seq"] == version
        # The long poll and the live stream stay on the primary.
        polled = await client.get(f"/v1/games/{game_id}/events", params={"after": version, "wait": 0.2})
        assert "standby-lag-ms" not in polled.headers


async def test_a_trailing_standby_is_read_only_within_its_bound_and_never_below_min_version(pair):
    async with AsyncTestClient(app=_app(pair)) as client:
        await _readable(client)
        created = await create(client, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        before = await _move(client, game_id, tokens)
        with pair.standby() as standby:
            standby.execute("SELECT pg_wal_replay_pause()")
            try:
                after = await _move(client, game_id, tokens)  # committed: the standby received it
                assert after > before
                # A spectator who asks for no version may get the standby's, with its lag reported...
                behind = await client.get(f"/v1/games/{game_id}")
                if "standby-lag-ms" in behind.headers:
                    assert behind.json()["version"] == before
                    assert int(behind.headers["standby-lag-ms"]) <= MAX_LAG_MS
                # ...but one who has seen the new version never reads an older one.
                current = await client.get(f"/v1/games/{game_id}", params={"min_version": after})
                assert current.json()["version"] == after
                assert "standby-lag-ms" not in current.headers
                # A version the standby has not replayed is read on the primary.
                at = await client.get(f"/v1/games/{game_id}/states/{after}")
                assert at.status_code == 200 and "standby-lag-ms" not in at.headers
                # Once the lag passes the bound, nothing is read from the standby.
                deadline = time.monotonic() + 5
                while client.app.state.application.reads.standby.lag() is not None:
                    assert time.monotonic() < deadline, "a standby past its bound was still readable"
                    await asyncio.sleep(0.05)
                for path in SPECTATOR_READS:
                    answer = await client.get(f"/v1/games/{game_id}{path}")
                    assert answer.status_code == 200 and "standby-lag-ms" not in answer.headers, path
                assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == after
            finally:
                standby.execute("SELECT pg_wal_replay_resume()")
        await _readable(client)
        assert (await client.get(f"/v1/games/{game_id}")).headers.get("standby-lag-ms") is not None


async def test_a_standby_gone_costs_no_read(pair):
    async with AsyncTestClient(app=_app(pair)) as client:
        await _readable(client)
        created = await create(client, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        version = await _move(client, game_id, tokens)
        pair.stop("standby")
        try:
            for _ in range(3):
                for path in SPECTATOR_READS:
                    answer = await client.get(f"/v1/games/{game_id}{path}")
                    assert answer.status_code == 200, (path, answer.status_code, answer.text)
                    assert "standby-lag-ms" not in answer.headers
                await asyncio.sleep(0.2)
            assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == version
        finally:
            pair.start_node("standby")

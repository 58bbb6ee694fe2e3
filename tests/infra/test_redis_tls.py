"""Redis over TLS: ``rediss://`` (and ``REDIS_CLUSTER_TLS``) for every Redis connection.

The module starts its own Redis with TLS only (``--port 0 --tls-port``) on a free port, with a
throwaway CA and server certificate made by trustme, and stops it by PID; a Redis Cluster of three
TLS-only masters likewise.  Through the real app: a move posts a notice that the other worker's
board receives over TLS (so reads there are served from memory), the snapshot cache stores the
game, the rate limit counts in Redis.  A TLS setting that cannot work stops the start-up with a
one-line reason: before, ``rediss://`` quietly turned the notice board off.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import trustme
from litestar.testing import AsyncTestClient

from service.infra.cache import RedisSnapshotCache, peek_snapshot
from service.infra.notices import CHANNEL, NoticeBoard, notice
from tests.conftest import make_app
from tests.http.helpers import bearer, create
from tests.infra.test_redis_cluster import _wait
from tests.processes import free_port

HOST = "127.0.0.1"


@dataclass
class TLSFiles:
    ca: Path
    cert: Path
    key: Path


@pytest.fixture(scope="module")
def tls_files() -> Iterator[TLSFiles]:
    root = Path(tempfile.mkdtemp(prefix="yamen-redis-tls-"))
    ca = trustme.CA()
    server = ca.issue_cert(HOST, "localhost")
    files = TLSFiles(root / "ca.pem", root / "server.pem", root / "server.key")
    ca.cert_pem.write_to_path(str(files.ca))
    server.cert_chain_pems[0].write_to_path(str(files.cert))
    server.private_key_pem.write_to_path(str(files.key))
    try:
        yield files
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _tls_redis_args(files: TLSFiles, port: int, node: Path) -> list[str]:
    """A redis-server that speaks TLS only, on *port*."""
    return [
        shutil.which("redis-server") or "redis-server",
        "--port", "0", "--tls-port", str(port), "--bind", HOST,
        "--tls-cert-file", str(files.cert), "--tls-key-file", str(files.key),
        "--tls-ca-cert-file", str(files.ca), "--tls-auth-clients", "no",
        "--dir", str(node), "--save", "", "--appendonly", "no",
    ]  # fmt: skip


def _stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGKILL)
    proc.wait(10)


def _admin(files: TLSFiles, port: int) -> redis.Redis:
    return redis.Redis(host=HOST, port=port, ssl=True, ssl_ca_certs=str(files.ca), socket_timeout=2)


@pytest.fixture(scope="module")
def tls_redis(tls_files: TLSFiles) -> Iterator[int]:
    """A TLS-only Redis on a free port (its port)."""
    port = free_port()
    node = Path(tempfile.mkdtemp(prefix="yamen-redis-tls-node-"))
    proc = subprocess.Popen(
        _tls_redis_args(tls_files, port, node),
        stdout=(node / "log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait(lambda: _admin(tls_files, port).ping(), 10, f"redis with TLS on {port}")
        yield port
    finally:
        _stop(proc)
        shutil.rmtree(node, ignore_errors=True)


def _url(tls_files: TLSFiles, port: int) -> str:
    return f"rediss://{HOST}:{port}/0?ssl_ca_certs={tls_files.ca}"


def _board(client) -> NoticeBoard:
    board = client.app.state.application.states.board
    assert board is not None
    return board


async def _move(client, game_id, tokens, seat) -> int:
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
    r = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[seat]))
    assert r.status_code == 200, r.text
    return r.json()["version"]


async def test_a_move_over_tls_is_announced_cached_and_counted(database_url, tls_files, tls_redis):
    url = _url(tls_files, tls_redis)
    admin = _admin(tls_files, tls_redis)
    admin.delete(*(admin.keys("yamen:rate:*") or ["-"]))
    async with (
        AsyncTestClient(app=make_app(database_url, url, rate_limit="1200/minute")) as a,
        AsyncTestClient(app=make_app(database_url, url, rate_limit="1200/minute")) as b,
    ):
        for client in (a, b):
            assert _board(client).live and isinstance(_board(client)._sock, ssl.SSLSocket)
        assert admin.execute_command("PUBSUB", "NUMSUB", CHANNEL)[1] == 2
        created = await create(a, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        served_from_memory = 0
        for turn in range(8):
            mover, reader = (a, b) if turn % 2 == 0 else (b, a)
            doc = (await reader.get(f"/v1/games/{game_id}")).json()
            if not doc["to_act"]:
                break
            version = await _move(mover, game_id, tokens, doc["to_act"][0])
            # The notice came over the reader's TLS subscription: its board knows the version...
            assert (await reader.get(f"/v1/games/{game_id}")).json()["version"] == version
            assert _board(reader).announced[game_id] == version
            # ...and the reader answers from memory (the documents rendered from it are kept).
            remembered = reader.app.state.application.states._recent.get(game_id)
            served_from_memory += remembered is not None and remembered.row.version == version
        assert served_from_memory >= 4
        # The subscription's PINGs are answered over TLS: the board is still live after its
        # PONG deadline has passed several times.
        await asyncio.sleep(2.5)
        assert _board(a).live and _board(b).live
        # The snapshot cache wrote the game to the TLS Redis...
        snapshot = peek_snapshot(admin.get(RedisSnapshotCache.key(game_id)))
        assert snapshot is not None and snapshot.version >= 1
        # ...and the rate limit counts there.
        assert admin.keys("yamen:rate:*")
        assert (await a.get("/readyz")).json()["redis"] == "ok"
    admin.close()


async def test_a_dropped_tls_subscription_is_taken_again(database_url, tls_files, tls_redis):
    admin = _admin(tls_files, tls_redis)
    async with AsyncTestClient(app=make_app(database_url, _url(tls_files, tls_redis))) as client:
        board = _board(client)
        epoch = board.epoch
        assert admin.client_kill_filter(_type="pubsub") == 1
        deadline = time.monotonic() + 5
        while not (board.live and board.epoch > epoch) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert board.live and board.epoch > epoch
    admin.close()


async def test_a_drain_reads_every_tls_record_that_has_arrived(tls_files, tls_redis):
    """A notice batch longer than one TLS record (16 KiB): one drain, with the event loop not
    reading meanwhile, reads all of it — what has arrived is read before memory answers."""
    board = NoticeBoard(_url(tls_files, tls_redis))
    await board.start()
    try:
        assert board.live and board._sock is not None
        loop = asyncio.get_running_loop()
        loop.remove_reader(board._sock.fileno())  # only drain() reads from here on
        games = [f"g_{i:05d}" for i in range(3000)]
        admin = _admin(tls_files, tls_redis)
        admin.publish(CHANNEL, b"\n".join(notice(g, 7) for g in games))  # about 36 KiB
        admin.close()
        await asyncio.sleep(0.3)
        board.drain()
        assert len(board.announced) == len(games)
    finally:
        await board.close()


def test_tls_settings_that_cannot_work_stop_the_start_up(database_url, tls_files, tls_redis):
    """One line naming the setting and the reason, before anything is served."""
    missing = tls_files.ca.with_name("nowhere.pem")
    refusals = {
        f"rediss://{HOST}:{tls_redis}/0?ssl_ca_certs={missing}": "REDIS_URL: TLS refused",
        f"rediss://{HOST}:{tls_redis}/0?ssl_cert_reqs=sometimes": "REDIS_URL: Invalid SSL",
        f"rediss://{HOST}:{tls_redis}/0?ssl_no_such_option=1": "REDIS_URL: ",
    }
    for url, reason in refusals.items():
        with pytest.raises(ValueError, match=reason) as refused:
            make_app(database_url, url)
        assert "\n" not in str(refused.value)
    wrong = {"cacert=x": "cacert is not a TLS parameter", "ssl_ca_cert=x": "ssl_ca_cert"}
    for setting, reason in wrong.items():
        with pytest.raises(ValueError, match=f"REDIS_CLUSTER_TLS: .*{reason}"):
            make_app(database_url, None, redis_cluster_nodes=((HOST, tls_redis),), redis_cluster_tls=setting)


@pytest.fixture(scope="module")
def tls_cluster(tls_files: TLSFiles) -> Iterator[list[int]]:
    """Three TLS-only masters (cluster bus over TLS too), their ports."""
    root = Path(tempfile.mkdtemp(prefix="yamen-rcluster-tls-"))
    procs: list[subprocess.Popen] = []
    ports: list[int] = []
    try:
        for _ in range(3):
            port = free_port(HOST, bus=True)
            node = root / str(port)
            node.mkdir()
            args = _tls_redis_args(tls_files, port, node)
            args += ["--tls-cluster", "yes", "--cluster-enabled", "yes"]
            args += ["--cluster-config-file", str(node / "nodes.conf"), "--cluster-node-timeout", "1000"]
            procs.append(
                subprocess.Popen(
                    args, stdout=(node / "log").open("wb"), stderr=subprocess.STDOUT, start_new_session=True
                )
            )
            ports.append(port)
        for port in ports:
            _wait(lambda p=port: _admin(tls_files, p).ping(), 10, f"redis with TLS on {port}")
        created = subprocess.run(
            ["redis-cli", "--tls", "--cacert", str(tls_files.ca), "--cluster", "create"]
            + [f"{HOST}:{p}" for p in ports]
            + ["--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert created.returncode == 0, created.stdout + created.stderr
        _wait(
            lambda: all(_admin(tls_files, p).cluster("info")["cluster_state"] == "ok" for p in ports),
            30,
            "the TLS cluster",
        )
        yield ports
    finally:
        for proc in procs:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


async def test_a_tls_cluster_announces_caches_and_counts(database_url, tls_files, tls_cluster):
    seeds = tuple((HOST, p) for p in tls_cluster)

    def app():
        return make_app(
            database_url,
            None,
            redis_cluster_nodes=seeds,
            redis_cluster_tls=f"ssl_ca_certs={tls_files.ca}",
            rate_limit="1200/minute",
        )

    async with AsyncTestClient(app=app()) as a, AsyncTestClient(app=app()) as b:
        for client in (a, b):
            assert _board(client).live and isinstance(_board(client)._sock, ssl.SSLSocket)
        created = await create(a, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        for turn in range(6):
            mover, reader = (a, b) if turn % 2 == 0 else (b, a)
            doc = (await reader.get(f"/v1/games/{game_id}")).json()
            if not doc["to_act"]:
                break
            version = await _move(mover, game_id, tokens, doc["to_act"][0])
            assert (await reader.get(f"/v1/games/{game_id}")).json()["version"] == version
            assert _board(reader).announced[game_id] == version
        cluster = redis.RedisCluster(host=HOST, port=tls_cluster[0], ssl=True, ssl_ca_certs=str(tls_files.ca))
        try:
            assert cluster.exists(RedisSnapshotCache.key(game_id)) == 1
            assert any(_admin(tls_files, p).keys("yamen:rate:*") for p in tls_cluster)
        finally:
            cluster.close()


async def test_yamen_serve_with_a_rediss_url(database_url, tls_files, tls_redis):
    """What an operator runs: ``yamen serve`` with ``REDIS_URL=rediss://…``.  Its worker subscribes
    to the notice board over TLS, and a move is cached and counted in the TLS Redis."""
    import httpx

    from tests.servers import yamen_serve

    admin = _admin(tls_files, tls_redis)
    subscribed = admin.execute_command("PUBSUB", "NUMSUB", CHANNEL)[1]
    admin.delete(*(admin.keys("yamen:rate:*") or ["-"]))
    with yamen_serve(
        database_url,
        redis_url=_url(tls_files, tls_redis),
        rate_limit="1200/minute",
        env={"YAMEN_SNAPSHOT_EVERY": "1"},  # the move writes its snapshot
    ) as base:
        assert admin.execute_command("PUBSUB", "NUMSUB", CHANNEL)[1] == subscribed + 1
        async with httpx.AsyncClient(base_url=base) as client:
            created = await create(client, "yangtze", {"players": 2})
            game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
            seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
            version = await _move(client, game_id, tokens, seat)
            assert (await client.get("/readyz")).json()["redis"] == "ok"
        assert peek_snapshot(admin.get(RedisSnapshotCache.key(game_id))).version == version
        assert admin.keys("yamen:rate:*")
    admin.close()

"""The README's serve command on a machine with neither DATABASE_URL nor REDIS_URL: it starts an
embedded Postgres and an in-process cache, and serves a playable game."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_yamen_serve_without_database_or_redis_urls():
    # Not pytest's tmp_path: as root the embedded server runs as its own account, which cannot
    # enter pytest's 0700 /tmp/pytest-of-root.
    data_dir = tempfile.mkdtemp(prefix="yamen-serve-test-")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["YAMEN_LOG_FORMAT"] = "json"
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    process = subprocess.Popen(
        [yamen, "serve", "--port", str(port), "--data-dir", data_dir],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(150):
            try:
                ready = _get(base + "/readyz")
                break
            except OSError:
                time.sleep(0.2)
        else:
            os.killpg(process.pid, signal.SIGINT)
            raise AssertionError(
                "yamen serve did not become ready:\n" + process.communicate(timeout=20)[0].decode()
            )
        assert ready == {"status": "ok", "postgres": "ok", "redis": "memory"}
        created = _get(base + "/v1/games", {"kind": "yangtze", "options": {"players": 2}})
        token = created["tokens"][0]["token"]
        request = urllib.request.Request(
            f"{base}/v1/games/{created['game_id']}/legal-moves", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["moves"]
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    output = process.stdout.read().decode()
    shutil.rmtree(data_dir, ignore_errors=True)
    assert "using embedded Postgres" in output and "in-process snapshot cache" in output

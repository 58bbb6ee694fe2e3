"""The README's serve command on a machine with neither DATABASE_URL nor REDIS_URL: it starts an
embedded Postgres and an in-process cache, and serves a playable game."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from tests.servers import free_port, stop


def _get(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_yamen_serve_without_database_or_redis_urls():
    # Not pytest's tmp_path: as root the embedded server runs as its own account, which cannot
    # enter pytest's 0700 /tmp/pytest-of-root.
    data_dir = tempfile.mkdtemp(prefix="yamen-serve-test-")
    port = free_port()
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
    assert f"listening on http://127.0.0.1:{port}" in output and f"http://127.0.0.1:{port}/play" in output


def _serve(port: int, database_url: str, *extra: str, access_log: bool = True) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url, "YAMEN_LOG_FORMAT": "json"}
    env.pop("REDIS_URL", None)
    env["YAMEN_ACCESS_LOG"] = "1" if access_log else "0"
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    output = tempfile.TemporaryFile()  # noqa: SIM115 - not a pipe: a full one would stall the server
    process = subprocess.Popen(
        [yamen, "serve", "--port", str(port), *extra],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    process.output = output  # type: ignore[attr-defined]
    return process


def _output(process: subprocess.Popen) -> str:
    process.output.seek(0)  # type: ignore[attr-defined]
    return process.output.read().decode()  # type: ignore[attr-defined]


def _wait_ready(base: str, process: subprocess.Popen) -> None:
    for _ in range(150):
        try:
            _get(base + "/healthz")
            return
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    raise AssertionError("yamen serve did not start:\n" + _stop(process))


def _stop(process: subprocess.Popen) -> str:
    stop(process)
    return _output(process)


def test_a_second_serve_on_a_busy_port_refuses_to_start(database_url):
    """Granian binds with SO_REUSEPORT, so a second server on the same port used to start and
    take half the requests; now it exits at once saying why."""
    port = free_port()
    first = _serve(port, database_url)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", first)
        second = _serve(port, database_url)
        assert second.wait(timeout=20) == 2
        output = _output(second)
        assert f"127.0.0.1:{port}" in output and "in use" in output
        # A port held by some other program is refused too.
        with socket.socket() as other:
            other.bind(("127.0.0.1", 0))
            other.listen()
            third = _serve(other.getsockname()[1], database_url)
            assert third.wait(timeout=20) == 2
        assert _get(f"http://127.0.0.1:{port}/healthz") == {
            "status": "ok",
            "postgres": "unknown",
            "redis": "unknown",
        }
    finally:
        _stop(first)


def test_two_workers_write_one_json_object_per_line(database_url):
    """The workers share one stderr: every line of it is one whole JSON record."""
    port = free_port()
    process = _serve(port, database_url, "--workers", "2")
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_ready(base, process)

        def hammer() -> None:
            for _ in range(150):
                with contextlib.suppress(OSError):
                    _get(base + "/v1/catalogue")

        threads = [threading.Thread(target=hammer) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        output = _stop(process)
    lines = [line for line in output.splitlines() if not line.startswith("yamen:")]
    records = [json.loads(line) for line in lines]  # a blank or doubled line fails here
    assert sum(1 for r in records if r.get("event") == "request") >= 1000


def _post(url: str, body: dict, headers: dict[str, str]) -> tuple[int, bytes, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read(), dict(refused.headers)


def test_concurrent_copies_of_a_keyed_move_are_answered_once_by_two_workers(database_url):
    """Copies of one request with one Idempotency-Key, sent at once to `yamen serve --workers 2`:
    the move is applied once and every copy gets the stored answer, never a new judgement (which
    said 412, not_your_turn or good_not_held)."""
    port = free_port()
    process = _serve(port, database_url, "--workers", "2", access_log=False)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_ready(base, process)
        for round_ in range(6):
            created = _get(base + "/v1/games", {"kind": "yangtze", "options": {"players": 3}})
            game_id, version = created["game_id"], created["version"]
            doc = _get(f"{base}/v1/games/{game_id}")
            seat = doc["to_act"][0]
            token = created["tokens"][seat]["token"]
            request = urllib.request.Request(
                f"{base}/v1/games/{game_id}/legal-moves", headers={"Authorization": f"Bearer {token}"}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                move = json.loads(response.read())["moves"][0]
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"k{round_}"}
            if round_ % 2:
                headers["If-Match"] = f'"{version}"'
            start = threading.Barrier(20)
            answers: list[tuple[int, bytes, dict]] = []

            def send(headers=headers, move=move, game_id=game_id, start=start, answers=answers) -> None:
                start.wait()
                answers.append(_post(f"{base}/v1/games/{game_id}/moves", move, headers))

            threads = [threading.Thread(target=send) for _ in range(20)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            refused = [(status, body[:200]) for status, body, _ in answers if status != 200]
            assert refused == [], f"round {round_}"
            assert len({body for _, body, _ in answers}) == 1
            history = _get(f"{base}/v1/games/{game_id}/events?after={version}")
            commands = {e["seq"] for e in history["events"]}
            assert history["version"] == json.loads(answers[0][1])["version"] and commands
    finally:
        _stop(process)

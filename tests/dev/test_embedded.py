"""The embedded PostgreSQL really starts, answers ``select 1`` over psycopg, and stops.

Runs as whoever runs pytest. As root (CI and the dev machines here) it also checks
that the server runs as the unprivileged ``yamen-postgres`` account (created on
first use), that nothing outside the data dir is chmod-ed, and, in a forked child
that drops to ``nobody``, the normal-user path (with a data dir path too long for
a Unix socket), and that binaries the account cannot reach (a virtualenv under
/root) run from a copy in the data dir. Whole module: about ten seconds (four
fresh clusters, initdb being most of it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from service.dev import embedded
from service.dev.embedded import EmbeddedPostgresError, start_embedded_postgres

REPO = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

try:
    embedded._locate_binaries(None)
except EmbeddedPostgresError as exc:  # pragma: no cover - the project's [embedded] extra is missing
    pytest.skip(str(exc), allow_module_level=True)


def _select_one(url: str) -> int:
    with psycopg.connect(url, connect_timeout=5) as conn:
        return conn.execute("select 1").fetchone()[0]


def _postmaster_pid(pgdata: Path) -> int | None:
    lines = embedded._read_postmaster_pid(pgdata)
    return int(lines[0]) if lines else None


def _alive(pid: int) -> bool:
    return embedded._process_identity(pid) is not None


def _pgdata(data_dir: Path) -> Path:
    found = [p for p in data_dir.iterdir() if p.is_dir() and re.fullmatch(r"pg\d+", p.name)]
    assert len(found) == 1, found
    return found[0]


def _python(code: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _url_from(output: str) -> str:
    """The child prints ``URL <url>``; structlog may print its own lines on stdout too."""
    return next((line.split(" ", 1)[1] for line in output.splitlines() if line.startswith("URL ")), "")


@pytest.fixture(scope="module")
def data_dir() -> Iterator[Path]:
    # Not pytest's tmp_path: /tmp/pytest-of-root is 0700, which the server account may not cross.
    root = Path(tempfile.mkdtemp(prefix="yamen-embedded-"))
    root.chmod(0o755)  # mkdtemp makes it 0700
    try:
        yield root / "data"
    finally:
        for pgdata in (root / "data").glob("pg*"):
            for pid in embedded._stray_postmasters(pgdata):
                embedded._shut_down(pid)
        shutil.rmtree(root, ignore_errors=True)


def test_start_select_one_stop(data_dir: Path) -> None:
    started = time.perf_counter()
    url, stop = start_embedded_postgres(data_dir, durable=False)  # initdb --no-sync: fast on a busy disk
    elapsed = time.perf_counter() - started
    try:
        assert _select_one(url) == 1
        with psycopg.connect(url) as conn:
            assert conn.execute("select current_database(), current_user").fetchone() == ("yamen", "postgres")
            assert conn.execute("show listen_addresses").fetchone()[0] == ""  # Unix socket only, no TCP
            assert conn.execute("show fsync").fetchone()[0] == "off"
        pgdata = _pgdata(data_dir)
        pid = _postmaster_pid(pgdata)
        assert pid is not None and _alive(pid)
        if IS_ROOT:
            import pwd

            import psutil

            account = pwd.getpwnam(embedded.SERVICE_USER)
            assert psutil.Process(pid).uids().effective == account.pw_uid != 0
            assert pgdata.stat().st_uid == account.pw_uid
            assert stat.S_IMODE(pgdata.stat().st_mode) == 0o700
            assert all(p.stat().st_uid == account.pw_uid for p in pgdata.rglob("*"))
            assert data_dir.stat().st_uid == 0  # only the cluster dir is handed over
    finally:
        stop()
    assert not _alive(pid)
    with pytest.raises(psycopg.OperationalError):
        _select_one(url)
    stop()  # idempotent
    print(f"\nembedded postgres first start (initdb included): {elapsed:.2f}s")
    assert elapsed < 15


def test_second_start_reuses_the_cluster(data_dir: Path) -> None:
    url, stop = start_embedded_postgres(data_dir, durable=False)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create table kept (x int)")
            conn.execute("insert into kept values (42)")
    finally:
        stop()
    started = time.perf_counter()
    url, stop = start_embedded_postgres(data_dir)  # the default, durable configuration
    elapsed = time.perf_counter() - started
    try:
        with psycopg.connect(url) as conn:
            assert conn.execute("select x from kept").fetchone() == (42,)
            assert conn.execute("show fsync").fetchone()[0] == "on"
    finally:
        stop()
    print(f"\nembedded postgres restart: {elapsed:.2f}s")
    assert elapsed < 10


@pytest.mark.parametrize("pid_kind", ["live_unrelated_process", "dead_process"])
def test_stale_postmaster_pid_is_cleared(data_dir: Path, pid_kind: str) -> None:
    url, stop = start_embedded_postgres(data_dir, durable=False)
    stop()
    pgdata = _pgdata(data_dir)
    if pid_kind == "live_unrelated_process":
        pid = os.getpid()  # alive, not postgres: what a container restart produces
    else:
        proc = subprocess.Popen(["true"])
        proc.wait()
        pid = proc.pid
    (pgdata / "postmaster.pid").write_text(
        f"{pid}\n{pgdata}\n{int(time.time())}\n5432\n{pgdata}\n\n  5432001   0\nready   \n"
    )
    url, stop = start_embedded_postgres(data_dir, durable=False)
    try:
        assert _select_one(url) == 1
        assert _postmaster_pid(pgdata) != pid
    finally:
        stop()


def test_server_of_a_killed_owner_is_adopted(data_dir: Path) -> None:
    owner = _python(
        f"""
        import os, signal
        from pathlib import Path
        from service.dev.embedded import start_embedded_postgres
        url, stop = start_embedded_postgres(Path({str(data_dir)!r}), durable=False)
        print("URL", url, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # no atexit, no stop(): the server is orphaned
        """
    )
    out, err = owner.communicate(timeout=30)
    assert owner.returncode == -signal.SIGKILL, err
    orphan_url = _url_from(out)
    assert _select_one(orphan_url) == 1  # the orphan still runs
    pid = _postmaster_pid(_pgdata(data_dir))

    url, stop = start_embedded_postgres(data_dir, durable=False)
    assert url == orphan_url
    assert _postmaster_pid(_pgdata(data_dir)) == pid  # reused, not restarted
    stop()
    assert not _alive(pid)


def test_an_owner_file_naming_no_process_is_no_owner(data_dir: Path) -> None:
    """A hand-edited owner file whose owner is not a ``pid:start`` string: the orphaned server is
    adopted (it used to end in an AttributeError on ``int.split``)."""
    owner = _python(
        f"""
        import os, signal
        from pathlib import Path
        from service.dev.embedded import start_embedded_postgres
        url, stop = start_embedded_postgres(Path({str(data_dir)!r}), durable=False)
        print("URL", url, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    out, err = owner.communicate(timeout=30)
    assert owner.returncode == -signal.SIGKILL, err
    pgdata = _pgdata(data_dir)
    pid = _postmaster_pid(pgdata)
    (data_dir / f"{pgdata.name}.owner").write_text('{"owner": 4242}')

    url, stop = start_embedded_postgres(data_dir, durable=False)
    assert url == _url_from(out)
    assert _postmaster_pid(pgdata) == pid  # adopted, not restarted
    stop()
    assert not _alive(pid)


def test_server_of_a_live_owner_is_shared(data_dir: Path) -> None:
    owner = _python(
        f"""
        import sys
        from pathlib import Path
        from service.dev.embedded import start_embedded_postgres
        url, stop = start_embedded_postgres(Path({str(data_dir)!r}), durable=False)
        print("URL", url, flush=True)
        sys.stdin.readline()
        stop()
        print("stopped", flush=True)
        """
    )
    try:
        url = ""
        for line in owner.stdout:
            if url := _url_from(line):
                break
        assert url, owner.stderr.read() if owner.poll() is not None else "no url"
        shared_url, stop = start_embedded_postgres(data_dir, durable=False)
        assert shared_url == url
        stop()  # not ours: does nothing
        assert _select_one(url) == 1
        pid = _postmaster_pid(_pgdata(data_dir))
        out, err = owner.communicate("\n", timeout=30)
        assert "stopped" in out, err
        assert not _alive(pid)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()


@pytest.mark.skipif(not IS_ROOT, reason="root-only behaviour")
def test_root_never_opens_up_directories_outside_the_data_dir() -> None:
    closed = Path(tempfile.mkdtemp(prefix="yamen-embedded-closed-"))  # mode 0700, like /root
    try:
        with pytest.raises(EmbeddedPostgresError, match="cannot reach the data dir"):
            start_embedded_postgres(closed / "data")
        assert stat.S_IMODE(closed.stat().st_mode) == 0o700
    finally:
        shutil.rmtree(closed, ignore_errors=True)


@pytest.mark.skipif(not IS_ROOT, reason="needs root to switch to another user")
def test_normal_user_with_a_long_data_dir_path(data_dir: Path) -> None:
    """Fork, drop to ``nobody`` in the child (the interpreter is already loaded, so
    nobody need not reach it), and start a cluster there as a normal user. The data
    dir path is too long for a Unix socket, so the socket goes to the temp dir."""
    import json
    import pwd

    nobody = pwd.getpwnam("nobody")
    mine = Path(tempfile.mkdtemp(prefix="yamen-embedded-nobody-"))
    os.chown(mine, nobody.pw_uid, nobody.pw_gid)
    long_data_dir = mine / ("d" * 100) / "data"
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        report: dict = {}
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            try:
                start_embedded_postgres(data_dir, durable=False)  # root's cluster: refused, not half-used
            except EmbeddedPostgresError as exc:
                report["refused"] = str(exc)
            url, stop = start_embedded_postgres(long_data_dir, durable=False)
            report["select"] = _select_one(url)
            with psycopg.connect(url) as conn:
                report["fsync"] = conn.execute("show fsync").fetchone()[0]
            pgdata = _pgdata(long_data_dir)
            report["server_uid"] = __import__("psutil").Process(_postmaster_pid(pgdata)).uids().effective
            report["owner"] = pgdata.stat().st_uid
            socket_dir = Path(url.split("host=", 1)[1])
            report["socket_dir"] = str(socket_dir)
            report["socket_dir_mode"] = stat.S_IMODE(socket_dir.stat().st_mode)
            report["socket_dir_owner"] = socket_dir.stat().st_uid
            stop()
            report["socket_dir_left"] = socket_dir.exists()
        except BaseException as exc:  # noqa: BLE001 - the child reports anything to the parent
            report["error"] = repr(exc)
        os.write(write_end, json.dumps(report).encode())
        os._exit(0)
    os.close(write_end)
    try:
        deadline = time.monotonic() + 60
        while os.waitpid(child, os.WNOHANG) == (0, 0):  # never hang the suite on a stuck child
            if time.monotonic() > deadline:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
                pytest.fail("the child running as nobody did not finish in 60 s")
            time.sleep(0.05)
        with os.fdopen(read_end, "rb") as pipe:
            report = json.loads(pipe.read() or b"{}")
        assert "error" not in report, report["error"]
        assert "refused" in report
        assert report["select"] == 1
        assert report["fsync"] == "off"  # durable=False
        assert report["server_uid"] == report["owner"] == nobody.pw_uid
        assert Path(report["socket_dir"]).parent == Path(tempfile.gettempdir())
        assert report["socket_dir_mode"] == 0o700 and report["socket_dir_owner"] == nobody.pw_uid
        assert report["socket_dir_left"] is False  # stop() tidies the temp socket dir away
    finally:
        for pgdata in long_data_dir.glob("pg*"):
            for pid in embedded._stray_postmasters(pgdata):
                embedded._shut_down(pid)
        shutil.rmtree(mine, ignore_errors=True)


def test_the_default_data_dir_is_the_same_from_any_directory(tmp_path: Path, monkeypatch) -> None:
    """It was ./.yamen-data: started again from another directory, the earlier games were gone."""
    import platformdirs

    monkeypatch.chdir(tmp_path)
    here = embedded.default_data_dir()
    monkeypatch.chdir("/")
    assert embedded.default_data_dir() == here and here.is_absolute()
    if IS_ROOT:
        # root's own data dir (/root/.local/share) is closed to the server account; /var/lib is not
        assert here == Path(platformdirs.site_state_dir("yamen")) == Path("/var/lib/yamen")
        account = embedded._service_account(embedded.SERVICE_USER)
        assert embedded._closed_ancestor(here, account) is None
    else:
        assert here == Path(platformdirs.user_data_dir("yamen"))


def test_a_data_dir_that_cannot_be_made_is_refused_in_one_line(tmp_path: Path) -> None:
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    with pytest.raises(EmbeddedPostgresError, match="cannot create the data dir") as refused:
        start_embedded_postgres(in_the_way / "data", durable=False)
    assert "\n" not in str(refused.value) and "--data-dir" in str(refused.value)


@pytest.mark.skipif(not IS_ROOT, reason="root-only behaviour")
def test_root_runs_binaries_it_cannot_reach_from_a_copy_in_the_data_dir() -> None:
    """The quick start run as root in a checkout under /root: the virtualenv, and the package's
    PostgreSQL in it, lie under a directory the server account cannot enter.  The server's files are
    copied into the data dir once and run from there; the closed directory stays closed."""
    import psutil

    backend, bin_dir = embedded._locate_binaries(None)
    package = bin_dir.parents[1]
    closed = Path(tempfile.mkdtemp(prefix="yamen-embedded-venv-"))  # mode 0700, like /root
    closed_data = Path(tempfile.mkdtemp(prefix="yamen-embedded-copy-"))
    closed_data.chmod(0o755)
    try:
        site = closed / "site-packages"
        shutil.copytree(package, site / package.name, symlinks=True)
        bundled = package.with_name(f"{package.name}.libs")
        if bundled.is_dir():
            shutil.copytree(bundled, site / bundled.name, symlinks=True)
        owner = subprocess.Popen(
            [
                sys.executable,
                "-c",
                textwrap.dedent(
                    f"""
                    import sys
                    from pathlib import Path
                    from service.dev.embedded import _locate_binaries, start_embedded_postgres
                    print("FROM", _locate_binaries(None)[1], flush=True)
                    url, stop = start_embedded_postgres(Path({str(closed_data / "data")!r}), durable=False)
                    print("URL", url, flush=True)
                    sys.stdin.readline()
                    stop()
                    """
                ),
            ],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": f"{site}:{REPO}"},  # the closed copy is the one found
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            lines = []
            for line in owner.stdout:
                lines.append(line)
                if line.startswith("URL "):
                    break
            assert any(line.startswith(f"FROM {site}") for line in lines), lines
            url = _url_from("".join(lines))
            assert url, owner.stderr.read() if owner.poll() is not None else lines
            assert _select_one(url) == 1
            pgdata = _pgdata(closed_data / "data")
            server = psutil.Process(_postmaster_pid(pgdata))
            copy = closed_data / "data" / "binaries" / f"{backend}-{embedded._server_version(bin_dir)}"
            assert Path(server.exe()).is_relative_to(copy)
            assert stat.S_IMODE(closed.stat().st_mode) == 0o700  # never opened up
            owner.communicate("\n", timeout=30)
            assert owner.returncode == 0
        finally:
            if owner.poll() is None:
                owner.kill()
                owner.wait()
    finally:
        for pgdata in (closed_data / "data").glob("pg*"):
            for pid in embedded._stray_postmasters(pgdata):
                embedded._shut_down(pid)
        shutil.rmtree(closed, ignore_errors=True)
        shutil.rmtree(closed_data, ignore_errors=True)


def test_stop_still_stops_the_server_when_the_data_dir_was_deleted(data_dir: Path) -> None:
    """Last in the module: it deletes the module's data dir (saves one initdb)."""
    _url, stop = start_embedded_postgres(data_dir, durable=False)
    pid = _postmaster_pid(_pgdata(data_dir))
    shutil.rmtree(data_dir)
    stop()
    assert not _alive(pid)

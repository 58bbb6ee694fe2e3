"""Disposable Postgres, Redis and ``yamen serve`` processes for the fault suite.

Everything here starts its own process on a free port, in its own session (process group), and
stops it by the PID it started: the machine's own Postgres (5432) and Redis (6379) are never
touched.  Postgres refuses to run as root, so when the suite runs as root the Postgres binaries
run as the ``postgres`` account (override with ``YAMEN_FAULTS_PG_USER``); the data directory is the
only thing handed to that account.  A missing binary or account fails the suite (never a skip).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import platform
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

REPO = pathlib.Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0


class HarnessError(RuntimeError):
    """The harness could not set up or tear down what a fault test needs."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port_free(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.05)


def pg_bin_dir() -> pathlib.Path:
    """Debian's Postgres binaries (``YAMEN_FAULTS_PG_BIN`` overrides): the newest major installed."""
    override = os.environ.get("YAMEN_FAULTS_PG_BIN")
    if override:
        found = pathlib.Path(override)
    else:
        majors = sorted(
            pathlib.Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name or 0)
        )
        found = majors[-1] if majors else pathlib.Path("/usr/lib/postgresql/15/bin")
    for name in ("initdb", "postgres", "pg_ctl"):
        if not (found / name).is_file():
            raise HarnessError(f"Postgres binary {found / name} is missing (set YAMEN_FAULTS_PG_BIN)")
    return found


def redis_server_binary() -> str:
    found = os.environ.get("YAMEN_FAULTS_REDIS_SERVER") or shutil.which("redis-server")
    if not found or not os.access(found, os.X_OK):
        raise HarnessError("redis-server is missing (install it, or set YAMEN_FAULTS_REDIS_SERVER)")
    return found


def yamen_binary() -> pathlib.Path:
    found = pathlib.Path(sys.executable).parent / "yamen"
    if not found.is_file():
        raise HarnessError(f"{found} is missing: install the project into this venv (pip install -e .)")
    return found


def children(pid: int) -> list[int]:
    """The direct children of *pid* (from /proc)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        with contextlib.suppress(OSError):
            out.extend(int(c) for c in pathlib.Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
    return out


def cmdline(pid: int) -> str:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is *pgid* (leftovers of a session we started)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = pathlib.Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _kill_group_leftovers(pgid: int) -> None:
    """SIGKILL, by PID, every process still in a process group this harness created."""
    for pid in group_members(pgid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _tcp_inode(local_port: int, remote_port: int) -> str | None:
    """The inode of the established IPv4 socket local_port -> remote_port on 127.0.0.1."""
    want_local, want_remote = f":{local_port:04X}", f":{remote_port:04X}"
    try:
        lines = pathlib.Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        f = line.split()
        if f[1].endswith(want_local) and f[2].endswith(want_remote) and f[3] == "01":
            return f[9]
    return None


def connection_owner(service_port: int, client_port: int, pids: list[int]) -> int | None:
    """Which of *pids* (the service's workers) holds the server side of the client connection
    whose local port is *client_port* (from /proc; None if it cannot be told)."""
    inode = _tcp_inode(service_port, client_port)
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
    return None


def machine() -> dict[str, object]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        mem = int(pathlib.Path("/proc/meminfo").read_text().split()[1]) // 1024
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_mib": mem,
        "python": platform.python_version(),
        "os": platform.platform(),
    }


# --------------------------------------------------------------------------- the run's directory


@dataclass
class RunDir:
    """``/tmp/yamen-faults-*``: the logs (kept after the run) and the data dirs (removed)."""

    root: pathlib.Path = field(
        default_factory=lambda: pathlib.Path(tempfile.mkdtemp(prefix="yamen-faults-", dir="/tmp"))
    )

    def __post_init__(self) -> None:
        self.root.chmod(0o711)  # the Postgres account passes through to its data dir, nothing more
        self.logs = self.root / "logs"
        self.logs.mkdir()

    def log(self, name: str) -> pathlib.Path:
        return self.logs / name


# --------------------------------------------------------------------------- Postgres


class Postgres:
    """A disposable cluster: initdb in the run dir, ``postgres`` on a free TCP port (no Unix socket),
    run as a non-root account, fsync on."""

    def __init__(self, run: RunDir) -> None:
        self.bin = pg_bin_dir()
        self.run = run
        self.port = free_port()
        self.pgdata = run.root / "pgdata"
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            name = os.environ.get("YAMEN_FAULTS_PG_USER", "postgres")
            try:
                self.user = pwd.getpwnam(name)
            except KeyError:
                raise HarnessError(
                    f"running as root, and there is no {name!r} account to run Postgres as "
                    "(create one, or set YAMEN_FAULTS_PG_USER)"
                ) from None

    def _as_owner(self) -> dict[str, object]:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": [], "umask": 0o077}

    def _run(self, args: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": "/tmp"}
        return subprocess.run(
            args,
            env=env,
            cwd="/tmp",
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **self._as_owner(),  # type: ignore[arg-type]
        )

    def init(self) -> Postgres:
        self.pgdata.mkdir(mode=0o700)
        if self.user is not None:
            os.chown(self.pgdata, self.user.pw_uid, self.user.pw_gid)
        done = self._run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.pgdata),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",  # initdb only; the server runs with fsync on
            ]
        )
        if done.returncode != 0:
            raise HarnessError(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        return self

    def start(self) -> None:
        """Start the postmaster and wait until it accepts connections."""
        self.starts += 1
        log = open(self.run.log(f"postgres-{self.starts}.log"), "wb")  # noqa: SIM115 - inherited by the child
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": "/tmp"}
        try:
            self.proc = subprocess.Popen(
                [
                    str(self.bin / "postgres"),
                    "-D",
                    str(self.pgdata),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "unix_socket_directories=",
                    "-c",
                    "max_connections=200",
                    "-c",
                    "fsync=on",
                    "-c",
                    "synchronous_commit=on",
                ],
                env=env,
                cwd="/tmp",
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **self._as_owner(),  # type: ignore[arg-type]
            )
        finally:
            log.close()
        self.wait_ready()

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise HarnessError(f"postgres exited with {self.proc.returncode}; see {self.run.logs}")
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2, autocommit=True) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.Error as exc:
                last = exc
            time.sleep(0.05)
        raise HarnessError(f"postgres did not accept connections in {timeout}s: {last}")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def settings(self) -> dict[str, str]:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            return {
                k: conn.execute(f"SHOW {k}").fetchone()[0]  # type: ignore[index]
                for k in ("server_version", "fsync", "synchronous_commit")
            }

    def stop_immediate(self) -> None:
        """The fault: an immediate shutdown of this cluster, what ``pg_ctl stop -m immediate`` sends
        (SIGQUIT to the postmaster: no shutdown checkpoint, crash recovery at the next start).  Sent
        by PID and waited for on the process itself: ``pg_ctl -w`` gave up after its fixed 60 s on a
        loaded CI machine while the postmaster was still collecting its children.  A postmaster
        that has not gone by STOP_TIMEOUT is killed, group and all: as hard a crash, and the same
        recovery."""
        proc = self.proc
        assert proc is not None
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_group_leftovers(proc.pid)
            proc.wait(timeout=10)
        _kill_group_leftovers(proc.pid)

    def stop(self) -> None:
        """Teardown: fast shutdown, then SIGKILL by PID if it does not go."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        _kill_group_leftovers(proc.pid)

    def remove(self) -> None:
        shutil.rmtree(self.pgdata, ignore_errors=True)


# --------------------------------------------------------------------------- Redis


class Redis:
    """A disposable ``redis-server`` on a free port, no persistence (it is a cache)."""

    def __init__(self, run: RunDir) -> None:
        self.binary = redis_server_binary()
        self.run = run
        self.port = free_port()
        self.dir = run.root / "redis"
        self.dir.mkdir()
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.starts += 1
        log = open(self.run.log(f"redis-{self.starts}.log"), "wb")  # noqa: SIM115 - inherited by the child
        try:
            self.proc = subprocess.Popen(
                [
                    self.binary,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.dir),
                    "--daemonize",
                    "no",
                    "--protected-mode",
                    "no",
                ],
                cwd=self.dir,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        self.wait_ready()

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise HarnessError(f"redis-server exited with {self.proc.returncode}; see {self.run.logs}")
            try:
                if self.command("PING"):
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise HarnessError(f"redis-server did not answer PING in {timeout}s")

    def command(self, *args: str) -> object:
        """One command over a fresh connection (the harness never holds a Redis connection)."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, decode_responses=True)
        try:
            return client.execute_command(*args)
        except redis.RedisError as exc:
            raise OSError(str(exc)) from exc
        finally:
            client.close()

    def version(self) -> str:
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
        try:
            return str(client.info("server")["redis_version"])
        finally:
            client.close()

    def kill(self) -> None:
        """The fault: SIGKILL (no shutdown, no save)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=STOP_TIMEOUT)

    def subscribers(self, channel: str) -> int:
        reply = self.command("PUBSUB", "NUMSUB", channel)
        assert isinstance(reply, list)
        return int(reply[1])

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        _kill_group_leftovers(proc.pid)


# --------------------------------------------------------------------------- yamen serve


class Service:
    """``yamen serve --workers N`` in its own session against the disposable Postgres and Redis.
    Its stdout and stderr (JSON lines) go to ``logs/service-<name>-<n>.log``, one file per start."""

    def __init__(
        self,
        run: RunDir,
        name: str,
        database_url: str,
        redis_url: str,
        *,
        workers: int = 2,
        port: int | None = None,
    ) -> None:
        self.binary = yamen_binary()
        self.run = run
        self.name = name
        self.workers = workers
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "YAMEN_ACCESS_LOG": "0",
            "YAMEN_LOG_FORMAT": "json",
            "YAMEN_AUTO_MIGRATE": "0",
        }
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.logs: list[pathlib.Path] = []
        self.refused_starts: list[str] = []
        """Starts that exited at once (e.g. the port was still in use), with their last log line."""

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def migrate(self) -> None:
        done = subprocess.run(
            [str(self.binary), "migrate"], env=self.env, cwd=REPO, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise HarnessError(f"yamen migrate failed:\n{done.stdout}\n{done.stderr}")

    def spawn(self) -> subprocess.Popen:
        """Start ``yamen serve`` without waiting for it."""
        self.starts += 1
        path = self.run.log(f"service-{self.name}-{self.starts}.log")
        self.logs.append(path)
        log = open(path, "wb")  # noqa: SIM115 - inherited by the child
        try:
            self.proc = subprocess.Popen(
                [
                    str(self.binary),
                    "serve",
                    "--workers",
                    str(self.workers),
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                ],
                env=self.env,
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        return self.proc

    def healthy(self) -> bool:
        """``GET /readyz`` answers 200.  The probe reads the whole answer and closes first, so the
        TIME_WAIT it leaves is on the client's side, never on the service's port."""
        try:
            with socket.create_connection((self.host, self.port), timeout=1) as s:
                s.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = s.recv(4096)
                    if not chunk:
                        return False
                    head += chunk
                header, _, body = head.partition(b"\r\n\r\n")
                length = 0
                for line in header.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(body) < length:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    body += chunk
                return header.startswith(b"HTTP/1.1 200")
        except (OSError, ValueError):
            return False

    def worker_pids(self) -> list[int]:
        """The granian workers: children of the ``yamen serve`` process (not multiprocessing's
        resource tracker, should one exist)."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        return sorted(
            pid for pid in children(self.proc.pid) if alive(pid) and "resource_tracker" not in cmdline(pid)
        )

    def start(self, timeout: float = START_TIMEOUT) -> Service:
        """Spawn, and wait until every worker has answered ``/readyz`` (several answers in a row)."""
        self.spawn()
        self.wait_serving(timeout)
        return self

    def wait_serving(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        ok = 0
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise HarnessError(
                    f"yamen serve exited with {self.proc.returncode}; see {self.logs[-1]}:\n{self.log_tail()}"
                )
            if self.healthy():
                ok += 1
                if ok >= 3 * self.workers and len(self.worker_pids()) >= self.workers:
                    return
            time.sleep(0.05)
        raise HarnessError(f"yamen serve did not become ready in {timeout}s; see {self.logs[-1]}")

    def log_tail(self, lines: int = 5) -> str:
        try:
            return "\n".join(self.logs[-1].read_text(errors="replace").splitlines()[-lines:])
        except (OSError, IndexError):
            return ""

    def terminate(self, timeout: float = STOP_TIMEOUT) -> bool:
        """SIGTERM the process group and wait; True if it went by itself (else it was SIGKILLed)."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return True
        pgid = proc.pid  # start_new_session: the group is this service's alone
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        graceful = True
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            graceful = False
            proc.kill()
            proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while group_members(pgid) and time.monotonic() < deadline:  # workers finishing after the parent
            time.sleep(0.05)
        if group_members(pgid):
            graceful = False
            _kill_group_leftovers(pgid)
        return graceful

    def stop(self) -> None:
        self.terminate()
        with contextlib.suppress(OSError):  # the lock file `yamen serve` leaves behind
            pathlib.Path(tempfile.gettempdir(), f"yamen-serve-{self.host}-{self.port}.lock").unlink()
        _wait_port_free(self.port, timeout=2)

"""Disposable processes for the slow suites that start their own servers: the fault suite
(tests/faults) and the topology (tests/topology) share this one harness.

Everything here starts its own process on a free port, in its own session (process group), and
stops it by the PID it started (and that process group): the machine's own Postgres (5432) and
Redis (6379) are never touched.  Postgres refuses to run as root, so when a suite runs as root the
Postgres binaries run as the ``postgres`` account (override with ``YAMEN_FAULTS_PG_USER``); the data
directory is the only thing handed to that account.  A missing binary or account fails the suite
(never a skip).

- :class:`Process`: one process group, its log files (``logs/<name>-<n>.log``, one per start), its
  stop (a signal, then SIGKILL) and its kill (SIGKILL to the group).
- :class:`Postgres`: a cluster made by ``initdb``, served by ``postgres``.
- :class:`RedisServer`: a ``redis-server`` without persistence, alone or as a Redis Cluster node.
- :class:`Service`: ``yamen serve --workers N`` (granian).
- Ports (:func:`free_port`, :func:`wait_port_closed`), polling (:func:`wait_until`, :func:`wait_for`),
  /proc (:func:`children`, :func:`group_members` ...), the run's directory (:class:`RunDir`) and
  the machine's description (:func:`machine`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import platform
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping

import psycopg

REPO = pathlib.Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0


class HarnessError(RuntimeError):
    """The harness could not set up or tear down what a test needs."""


# --------------------------------------------------------------------------- ports


def free_port(address: str = "127.0.0.1", *, bus: bool = False) -> int:
    """A port free on *address* (and, with *bus*, port + 10000 too: a Redis Cluster bus port)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind((address, random.randint(20000, 32000) if bus else 0))
            port = s.getsockname()[1]
        if not bus:
            return port
        with socket.socket() as s:
            try:
                s.bind((address, port + 10000))
            except OSError:
                continue
        return port
    raise HarnessError(f"no free port pair on {address}")


def port_open(address: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((address, port)) == 0


def wait_port_closed(address: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and port_open(address, port):
        time.sleep(0.05)


# --------------------------------------------------------------------------- polling


def wait_until(what: str, predicate, timeout: float, every: float = 0.1) -> float:  # type: ignore[no-untyped-def]
    """Poll *predicate* until it is true; the time it took.  HarnessError after *timeout*."""
    t0 = time.monotonic()
    last: Exception | None = None
    while time.monotonic() - t0 < timeout:
        try:
            if predicate():
                return time.monotonic() - t0
        except Exception as exc:  # noqa: BLE001 - any failure of the probe means "not yet"
            last = exc
        time.sleep(every)
    raise HarnessError(f"{what}: not within {timeout:g} s" + (f" (last error: {last})" if last else ""))


def safe(predicate: Callable[[], object]) -> Callable[[], bool]:
    """*predicate*, with any failure of the probe meaning "not yet" (for polling)."""

    def check() -> bool:
        try:
            return bool(predicate())
        except Exception:  # noqa: BLE001
            return False

    return check


async def wait_for(predicate: Callable[[], bool], timeout: float, every: float = 0.02) -> float | None:
    """Poll *predicate* (in a thread) until true; the monotonic time it became true, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await asyncio.to_thread(predicate):
            return time.monotonic()
        await asyncio.sleep(every)
    return None


# --------------------------------------------------------------------------- binaries


def binary(name: str, *candidates: str) -> str:
    for path in (*candidates, shutil.which(name)):
        if path and os.access(path, os.X_OK):
            return path
    raise HarnessError(f"{name} is missing (install it: the topology suite needs it)")


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


def postgres_account() -> pwd.struct_passwd | None:
    """The account the Postgres binaries run as: None unless running as root (Postgres refuses to)."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("YAMEN_FAULTS_PG_USER", "postgres")
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise HarnessError(
            f"running as root, and there is no {name!r} account to run Postgres as "
            "(create one, or set YAMEN_FAULTS_PG_USER)"
        ) from None


def as_account(user: pwd.struct_passwd | None) -> dict[str, object]:
    """``subprocess`` arguments that run a child as *user* (nothing when None)."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "umask": 0o077}


# --------------------------------------------------------------------------- /proc


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


def descendants(pid: int) -> list[int]:
    """Every process below *pid*: its children, theirs, and so on (from /proc)."""
    out: list[int] = []
    for child in children(pid):
        out.append(child)
        out.extend(descendants(child))
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


def kill_group_leftovers(pgid: int) -> None:
    """SIGKILL, by PID, every process still in a process group this harness created."""
    for pid in group_members(pgid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


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


class RunDir:
    """``/tmp/<prefix>*``: the logs (kept after the run) and the data dirs (removed)."""

    def __init__(self, prefix: str) -> None:
        self.root = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
        self.root.chmod(0o711)  # the Postgres account passes through to its data dir, nothing more
        self.logs = self.root / "logs"
        self.logs.mkdir()

    def log(self, name: str) -> pathlib.Path:
        return self.logs / name


# --------------------------------------------------------------------------- stopping


def stop_process(
    proc: subprocess.Popen | None,
    sig: int = signal.SIGTERM,
    *,
    whole_group: bool = True,
    linger: float = 10.0,
    timeout: float = STOP_TIMEOUT,
) -> bool:
    """Stop a process started in its own session: *sig* to its group (or, without *whole_group*,
    to the process alone), SIGKILL to the process if it has not gone after *timeout*; then up to
    *linger* seconds for the rest of its group to go, and SIGKILL to whatever is left.  True if
    everything went by itself."""
    if proc is None:
        return True
    pgid = proc.pid  # start_new_session: the group is this process's alone
    graceful = True
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            if whole_group:
                os.killpg(pgid, sig)
            else:
                proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            graceful = False
            proc.kill()
            proc.wait(timeout=10)
    deadline = time.monotonic() + linger
    while group_members(pgid) and time.monotonic() < deadline:  # children finishing after the parent
        time.sleep(0.05)
    if group_members(pgid):
        graceful = False
        kill_group_leftovers(pgid)
    return graceful


def kill_process(proc: subprocess.Popen | None) -> None:
    """The fault: SIGKILL to the whole process group (no shutdown of any kind)."""
    if proc is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=STOP_TIMEOUT)
    deadline = time.monotonic() + 5
    while group_members(proc.pid) and time.monotonic() < deadline:
        kill_group_leftovers(proc.pid)
        time.sleep(0.02)


# --------------------------------------------------------------------------- a process


class Process:
    """One process group on one address: started in its own session, stopped (or killed) by that
    group.  Its output goes to ``logs/<log_name>-<n>.log``, one file per start."""

    program = "process"

    def __init__(
        self, run: RunDir, name: str, address: str, port: int, *, log_name: str | None = None
    ) -> None:
        self.run, self.name, self.address, self.port = run, name, address, port
        self.log_name = log_name or name
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.logs: list[pathlib.Path] = []

    def spawn_process(
        self,
        args: list[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **kwargs: object,
    ) -> subprocess.Popen:
        """Start *args* in a new session, its output to a new log file; without waiting."""
        self.starts += 1
        path = self.run.log(f"{self.log_name}-{self.starts}.log")
        self.logs.append(path)
        with open(path, "wb") as log:  # inherited by the child
            self.proc = subprocess.Popen(
                args,
                env=env,
                cwd=cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **kwargs,  # type: ignore[arg-type]
            )
        return self.proc

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pgid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def kill(self) -> None:
        """The fault: SIGKILL to the whole process group (no shutdown of any kind)."""
        kill_process(self.proc)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Teardown: *sig* to the group, then SIGKILL to whatever is left after STOP_TIMEOUT."""
        stop_process(self.proc, sig)

    def wait_ready(
        self,
        what: str,
        probe: Callable[[], object],
        *,
        every: float,
        timeout: float = START_TIMEOUT,
        errors: tuple[type[Exception], ...] = (OSError,),
    ) -> None:
        """Poll *probe* every *every* seconds until it is true (*errors* it raises mean "not yet");
        HarnessError as soon as the process exits, or after *timeout*."""
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise HarnessError(
                    f"{self.program} ({self.name}) exited with {self.proc.returncode}; "
                    f"see {self.logs[-1]}:\n{self.log_tail()}"
                )
            try:
                if probe():
                    return
            except errors as exc:
                last = exc
            time.sleep(every)
        raise HarnessError(
            f"{self.program} ({self.name}) did not {what} in {timeout}s; see {self.logs[-1]}"
            + (f" (last error: {last})" if last else "")
        )

    def log_tail(self, lines: int = 5) -> str:
        try:
            return "\n".join(self.logs[-1].read_text(errors="replace").splitlines()[-lines:])
        except (OSError, IndexError):
            return ""

    def where(self) -> str:
        return f"{self.address}:{self.port}"


# --------------------------------------------------------------------------- Postgres


class Postgres(Process):
    """A disposable cluster: initdb in the run dir, ``postgres`` on a free TCP port (no Unix socket),
    run as a non-root account, fsync on."""

    program = "postgres"

    def __init__(self, run: RunDir) -> None:
        super().__init__(run, "postgres", "127.0.0.1", free_port())
        self.bin = pg_bin_dir()
        self.pgdata = run.root / "pgdata"
        self.user = postgres_account()

    @property
    def env(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": "/tmp"}

    def init(self) -> Postgres:
        self.pgdata.mkdir(mode=0o700)
        if self.user is not None:
            os.chown(self.pgdata, self.user.pw_uid, self.user.pw_gid)
        done = subprocess.run(
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
            ],
            env=self.env,
            cwd="/tmp",
            capture_output=True,
            text=True,
            timeout=60.0,
            check=False,
            **as_account(self.user),  # type: ignore[arg-type]
        )
        if done.returncode != 0:
            raise HarnessError(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        return self

    def start(self) -> None:
        """Start the postmaster and wait until it accepts connections."""
        self.spawn_process(
            [
                str(self.bin / "postgres"),
                "-D", str(self.pgdata),
                "-p", str(self.port),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=",
                "-c", "max_connections=200",
                "-c", "fsync=on",
                "-c", "synchronous_commit=on",
            ],
            env=self.env,
            cwd="/tmp",
            **as_account(self.user),
        )  # fmt: skip
        self.wait_ready("accept connections", self.accepts, every=0.05, errors=(psycopg.Error,))

    def accepts(self) -> bool:
        with psycopg.connect(self.url("postgres"), connect_timeout=2, autocommit=True) as conn:
            conn.execute("SELECT 1")
        return True

    def url(self, database: str) -> str:
        return f"postgresql://postgres@{self.address}:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def settings(self) -> dict[str, str]:
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
            kill_group_leftovers(proc.pid)
            proc.wait(timeout=10)
        kill_group_leftovers(proc.pid)

    def stop(self, sig: int = signal.SIGINT) -> None:
        """Teardown: fast shutdown (SIGINT to the postmaster alone: to its backends it would mean
        "cancel the query"), then SIGKILL by PID if it does not go."""
        stop_process(self.proc, sig, whole_group=False, linger=0.0)

    def remove(self) -> None:
        shutil.rmtree(self.pgdata, ignore_errors=True)


# --------------------------------------------------------------------------- Redis


class RedisServer(Process):
    """A ``redis-server`` on a free port of *address*, no persistence (it is a cache); with
    *cluster*, a Redis Cluster node (node timeout 1 s) whose bus port (+10000) is free too."""

    program = "redis-server"

    def __init__(
        self, run: RunDir, name: str = "redis", address: str = "127.0.0.1", *, cluster: bool = False
    ) -> None:
        super().__init__(run, name, address, free_port(address, bus=cluster))
        self.binary = redis_server_binary()
        self.cluster = cluster
        self.dir = run.root / name
        self.dir.mkdir()

    @property
    def url(self) -> str:
        return f"redis://{self.address}:{self.port}/0"

    def start(self) -> None:
        """Start the server and wait until it answers PING."""
        if self.running:
            return
        cluster = [
            "--cluster-enabled", "yes",
            "--cluster-node-timeout", "1000",
            "--cluster-config-file", str(self.dir / "nodes.conf"),
            "--cluster-announce-ip", self.address,
        ] if self.cluster else []  # fmt: skip
        self.spawn_process(
            [
                self.binary,
                *cluster,
                "--save", "",
                "--appendonly", "no",
                "--bind", self.address,
                "--port", str(self.port),
                "--dir", str(self.dir),
                "--daemonize", "no",
                "--protected-mode", "no",
            ],
            cwd=str(self.dir),
        )  # fmt: skip
        self.wait_ready("answer PING", lambda: self.command("PING"), every=0.02)

    def command(self, *args: str, timeout: float = 2.0) -> object:
        """One command over a fresh connection to this server (the harness never holds a Redis
        connection; no cluster redirections followed).  A failure is an OSError."""
        import redis

        client = redis.Redis(host=self.address, port=self.port, socket_timeout=timeout, decode_responses=True)
        try:
            return client.execute_command(*args)
        except redis.RedisError as exc:
            raise OSError(str(exc)) from exc
        finally:
            client.close()

    def info(self, section: str) -> dict[str, str]:
        text = self.command("INFO", section)
        if isinstance(text, dict):
            return {k: str(v) for k, v in text.items()}
        return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line)

    def version(self) -> str:
        return self.info("server").get("redis_version", "?")

    def subscribers(self, channel: str) -> int:
        """Subscribers of *channel* on this server: classic (SUBSCRIBE) and, on a cluster node,
        sharded (SSUBSCRIBE) too."""
        total = 0
        for verb in ("SHARDNUMSUB", "NUMSUB") if self.cluster else ("NUMSUB",):
            reply = self.command("PUBSUB", verb, channel)
            assert isinstance(reply, list)
            total += int(reply[1])
        return total

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------- yamen serve


class Service(Process):
    """``yamen serve --workers N`` in its own session on *address*, with *env* (``DATABASE_URL``,
    ``REDIS_URL`` or ``REDIS_CLUSTER_NODES`` ...) over this process's environment; the access log
    off, JSON logs, no migration at start (:meth:`migrate` runs it).  Its stdout and stderr (JSON
    lines) go to ``logs/service-<name>-<n>.log``, one file per start."""

    program = "yamen serve"

    def __init__(
        self,
        run: RunDir,
        name: str,
        env: Mapping[str, str],
        *,
        workers: int = 2,
        address: str = "127.0.0.1",
        port: int | None = None,
    ) -> None:
        super().__init__(run, name, address, port or free_port(address), log_name=f"service-{name}")
        self.binary = yamen_binary()
        self.workers = workers
        inherited = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
        self.env = {
            **inherited,
            "YAMEN_ACCESS_LOG": "0",
            "YAMEN_LOG_FORMAT": "json",
            "YAMEN_AUTO_MIGRATE": "0",
            **env,
        }

    @property
    def host(self) -> str:
        return self.address

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
        return self.spawn_process(
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
            cwd=str(REPO),
        )

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
        if self.proc is None or not self.running:
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
        ok = 0

        def serving() -> bool:
            nonlocal ok
            if not self.healthy():
                return False
            ok += 1
            return ok >= 3 * self.workers and len(self.worker_pids()) >= self.workers

        self.wait_ready("become ready", serving, every=0.05, timeout=timeout)

    def _unlock(self) -> None:
        with contextlib.suppress(OSError):  # the lock file `yamen serve` leaves behind
            pathlib.Path(tempfile.gettempdir(), f"yamen-serve-{self.host}-{self.port}.lock").unlink()

    def terminate(self, timeout: float = STOP_TIMEOUT) -> bool:
        """SIGTERM the process group and wait; True if it went by itself (else it was SIGKILLed)."""
        return stop_process(self.proc, signal.SIGTERM, timeout=timeout)

    def kill(self) -> None:
        """The fault: SIGKILL to the whole process group (the server and its workers)."""
        super().kill()
        self._unlock()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Teardown: as :meth:`terminate`, then the lock file, and until the port is closed (2 s)."""
        stop_process(self.proc, sig)
        self._unlock()
        wait_port_closed(self.host, self.port, timeout=2)

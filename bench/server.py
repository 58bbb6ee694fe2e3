"""Start and stop the real service (``yamen serve``) and read its memory high-water mark."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Any

from tests.processes import descendants, free_port


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


RATE_LIMIT_CHECKED = "100000000/minute"
"""``YAMEN_RATE_LIMIT`` for a measurement with the rate limit on, as in production: every request
pays for the check and its Redis counter, at a limit the one-address load generator never reaches."""


class Server:
    """``python -m service.cli serve`` in its own session, so stopping it stops its workers."""

    def __init__(
        self,
        kind: str,
        workers: int,
        database_url: str,
        redis_url: str,
        pool_size: int,
        log_dir: pathlib.Path,
        label: str | None = None,
    ) -> None:
        self.kind = kind
        self.label = label or kind
        self.workers = workers
        self.port = free_port()
        self.host = "127.0.0.1"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "YAMEN_BENCH_ECHO": "1",
            "YAMEN_ACCESS_LOG": "0",
            "YAMEN_RATE_LIMIT": "off",  # the load generator is one address hammering on purpose
            "YAMEN_LOG_FORMAT": "json",
            "YAMEN_AUTO_MIGRATE": "0",
            "YAMEN_POOL_SIZE": str(pool_size),
            # No job worker: the benchmark has no bot seats or clocks, and two servers of 2 workers
            # with 16 connections each plus the ceiling's pool of 32 already fill Postgres's 100
            # connections; a worker would add its LISTEN connection per process.
            "YAMEN_JOBS": "0",
        }
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / ("server-" + re.sub(r"[^A-Za-z0-9_.+-]+", "_", self.label) + ".log")
        self.proc: subprocess.Popen | None = None
        self.games: list = []
        self.cwd = pathlib.Path(__file__).resolve().parent.parent  # the checkout whose service/ is served

    def start(self, timeout: float = 60.0) -> Server:
        cmd = [
            sys.executable,
            "-m",
            "service.cli",
            "serve",
            "--server",
            self.kind,
            "--workers",
            str(self.workers),
            "--host",
            self.host,
            "--port",
            str(self.port),
        ]
        log = open(self.log_path, "wb")  # noqa: SIM115 - the server writes to it until stop() closes it
        self.proc = subprocess.Popen(
            cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=self.cwd
        )
        log.close()
        deadline = time.monotonic() + timeout
        ok = 0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}; see {self.log_path}")
            if self._healthy():
                ok += 1
                if ok >= 3 * self.workers:  # every worker has had a chance to come up
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.kind} did not become healthy in {timeout}s; see {self.log_path}")

    def _healthy(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return s.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def memory(self) -> dict[str, Any]:
        """VmHWM (peak RSS) of the server process and each of its descendants, in MiB."""
        assert self.proc is not None
        pids = [self.proc.pid, *descendants(self.proc.pid)]
        hwm = {pid: _status_kb(pid, "VmHWM") / 1024 for pid in pids}
        workers = [hwm[p] for p in pids[1:]] or [hwm[self.proc.pid]]
        return {
            "processes": len(pids),
            "main_hwm_mib": hwm[self.proc.pid],
            "max_worker_hwm_mib": max(workers),
            "total_hwm_mib": sum(hwm.values()),
        }

    def cpu_seconds(self) -> float:
        """User + system CPU seconds used so far by the server and its workers."""
        assert self.proc is not None
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in [self.proc.pid, *descendants(self.proc.pid)]:
            try:
                fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except (OSError, IndexError, ValueError):
                pass
        return total

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        pgid = self.proc.pid  # start_new_session: the group is ours alone
        try:
            os.killpg(pgid, signal.SIGINT)
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(pgid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass
        # Workers of the group that outlived the parent.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

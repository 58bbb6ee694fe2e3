"""The fault suite's processes: its run directory (``/tmp/yamen-faults-*``), and which worker of
``yamen serve`` holds a client's connection.  Postgres, Redis and ``yamen serve`` themselves are the
shared harness's (:mod:`tests.processes`), re-exported here for the tests that import them from
this module (tests/infra)."""

from __future__ import annotations

import contextlib
import os
import pathlib

from tests import processes
from tests.processes import Postgres, pg_bin_dir

__all__ = ["Postgres", "RunDir", "connection_owner", "pg_bin_dir"]


class RunDir(processes.RunDir):
    """``/tmp/yamen-faults-*``: the logs (kept after the run) and the data dirs (removed)."""

    def __init__(self) -> None:
        super().__init__("yamen-faults-")


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

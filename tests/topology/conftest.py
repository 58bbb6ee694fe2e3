"""The topology (one for the whole module) and the block it leaves in docs/scaling.md."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from tests.processes import HarnessError, machine

from .hosts import Topology
from .report import Findings, haproxy_version, render, write


@pytest.fixture(scope="module")
def topology() -> Iterator[Topology]:
    topo = Topology.create()
    try:
        try:
            topo.up()
        except HarnessError as exc:
            pytest.fail(f"topology setup: {exc} (logs: {topo.run.logs})")  # never a skip
        yield topo
    finally:
        topo.down()
        print(f"\ntopology stopped; logs: {topo.run.logs}")


@pytest.fixture(scope="module")
def findings(topology: Topology) -> Iterator[Findings]:
    found = Findings()
    primary = topology.pg.primary()
    sync_names = ""
    if primary is not None:
        with contextlib.suppress(Exception):
            sync_names = topology.pg.synchronous(primary)[1]
    found.machine = {
        **machine(),
        "postgres": topology.pg.server_version(),
        "pg_auto_failover": (topology.pg.monitor.ctl("version").split()[2:3] or ["?"])[0],
        "synchronous_standby_names": sync_names,
        "redis": topology.redis.version(),
        "haproxy": haproxy_version(),
        "load_at_start": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }
    yield found
    found.machine["load_at_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    if found.failovers or found.consistency or found.throughput:
        block = render(found)
        print("\n" + block)
        if found.complete:
            write(found)
            print("docs/scaling.md updated")
        else:
            print("docs/scaling.md not updated: not every part ran")

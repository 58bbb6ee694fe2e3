"""Load through HAProxy while one host of the topology fails, and the throughput runs.

A failover run is the fault suite's method (:mod:`tests.faults.harness`) on the topology: clients
recording every acknowledged move (:class:`tests.faults.load.Load`, here through HAProxy, each
answer naming the replica that gave it), the fault injected under load, the topology brought
back to full strength under the same load, then the audit through the API
(:func:`tests.faults.audit.audit`) and the fault suite's checks (:class:`tests.faults.report.Outcome`).
"""

from __future__ import annotations

import asyncio
import pathlib
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tests.faults.audit import audit
from tests.faults.harness import Injected
from tests.faults.load import Answer, Load
from tests.faults.report import RECOVERY_BOUND, Check, Outcome, Spec
from tests.processes import HarnessError, safe, wait_for

from .hosts import REPLICA_HEADER, Topology

CLIENTS = 12
BEFORE = 5.0
"""Seconds of load before the fault."""
AFTER = 12.0
"""Seconds of load after the return (longer than RECOVERY_BOUND: the end of the run shows whether
failures stopped)."""
RESTORE_DELAY = 2.0
"""Seconds after the return before the failed host is started again (under the same load)."""
SETTLE = 3.0
"""Seconds of load after the topology is whole again."""

SPECS = {
    s.name: s
    for s in (
        Spec(
            "pg_primary_kill",
            "Postgres primary host SIGKILLed (pg_autoctl and Postgres) → standby promoted",
            "none",
            keeps_answering=False,
        ),
        Spec(
            "redis_master_kill",
            "Redis master of the `yamen:moves` slot SIGKILLed → its replica promoted",
            "none",
            keeps_answering=True,
        ),
        Spec(
            "replica_kill",
            "one API replica SIGKILLed → HAProxy routes around it",
            "none",
            keeps_answering=True,
        ),
    )
}
"""The failovers, in the order of the table."""


def served_by(answer: Answer) -> str | None:
    return answer.headers.get(REPLICA_HEADER.lower())


@dataclass
class Restored:
    """What bringing the failed host back reports: when the topology was at full strength."""

    full_at: float | None
    checks: list[Check] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)


@dataclass
class Failover:
    outcome: Outcome
    fault_at: float
    restored_at: float
    full_at: float | None
    started_at: float
    without_service: float
    """The longest stretch without a 2xx answer from the fault to RECOVERY_BOUND past the return."""
    rates: dict[str, float]
    """moves/s before the fault, during (fault to return), after (return to the end)."""
    timeline: list[int]
    """Moves acknowledged in each second of the run."""
    proxy: dict[str, int]
    """HAProxy's backend counters over the run (retries, redispatches, 5xx ...)."""


Inject = Callable[[Topology], Awaitable[Injected]]
Restore = Callable[[Topology], Awaitable[Restored]]


def _log_files(topo: Topology) -> list[pathlib.Path]:
    """The replicas' logs (JSON lines) and HAProxy's (its abnormal requests, its server changes)."""
    proxy = list(topo.proxy.logs) if topo.proxy else []
    return [*(p for r in topo.replicas for p in r.logs), *proxy]


def _excerpts(topo: Topology, offsets: dict[pathlib.Path, int], tag: str) -> list[pathlib.Path]:
    """What each log gained since *offsets*, copied to ``logs/<tag>--<log>`` (the run's own lines,
    for its summary; the whole logs stay where they are)."""
    out = []
    for path in _log_files(topo):
        start = offsets.get(path, 0)
        try:
            with open(path, "rb") as f:
                f.seek(start)
                chunk = f.read()
        except OSError:
            continue
        if chunk:
            excerpt = topo.run.log(f"{tag}--{path.name}")
            excerpt.write_bytes(chunk)
            out.append(excerpt)
    return out


async def run_failover(topo: Topology, spec: Spec, inject: Inject, restore: Restore, seed: int) -> Failover:
    await asyncio.to_thread(topo.heal)
    assert topo.proxy is not None
    offsets = {p: p.stat().st_size for p in _log_files(topo) if p.exists()}
    counters_before = await asyncio.to_thread(topo.proxy.backend_counters)
    load = Load(
        topo.proxy.address, topo.proxy.port, clients=CLIENTS, seed=seed, name=spec.name, served_by=served_by
    )
    started_at = time.monotonic()
    load.start()
    restored: Restored | None = None
    try:
        await asyncio.sleep(BEFORE)
        fault_at = time.monotonic()
        injected = await inject(topo)
        await asyncio.sleep(max(0.0, injected.restored_at + RESTORE_DELAY - time.monotonic()))
        restored = await restore(topo)
        end = max(injected.restored_at + AFTER, (restored.full_at or time.monotonic()) + SETTLE)
        await asyncio.sleep(max(0.0, end - time.monotonic()))
    finally:
        await load.stop()
    ended_at = load.stopped_at
    counters_after = await asyncio.to_thread(topo.proxy.backend_counters)
    # The audit reads histories as a spectator: those may be served by the standby, which must
    # first have replayed what the load wrote.
    replay = await asyncio.to_thread(topo.pg.wait_replayed)
    result = await audit(topo.proxy.base, load.ledger)
    assert restored is not None
    checks = [*injected.checks, *restored.checks]
    checks.append(
        Check(
            "every move sent with an Idempotency-Key (so HAProxy may retry it)",
            all(key for g in load.ledger.games.values() for key in g.keys),
            f"{sum(len(g.keys) for g in load.ledger.games.values())} keys",
        )
    )
    extra = {
        "return (service whole for clients) after": f"{injected.restored_at - fault_at:.2f} s",
        "back to full strength after": f"{restored.full_at - fault_at:.2f} s"
        if restored.full_at
        else "never",
        **injected.extra,
        **restored.extra,
        "standby replayed the load's last write after": f"{replay:.2f} s",
    }
    logs = _excerpts(topo, offsets, spec.name)
    outcome = Outcome(
        spec=spec,
        fault_at=fault_at,
        restored_at=injected.restored_at,
        ended_at=ended_at,
        clients=CLIENTS,
        connections=load.connections,
        ledger=load.ledger,
        audit=result,
        extra=extra,
        extra_checks=checks,
        logs=logs,
        log_dir=topo.run.logs,
        settled_at=None,
    )
    outcome.evaluate()
    acks = [a.at for a in load.ledger.acks]
    seconds = int(ended_at - started_at) + 1
    timeline = [0] * seconds
    for at in acks:
        timeline[min(seconds - 1, max(0, int(at - started_at)))] += 1

    def rate(a: float, b: float) -> float:
        return sum(1 for t in acks if a <= t < b) / (b - a) if b > a else 0.0

    rates = {
        "before": rate(started_at + 1.0, fault_at),
        "during": rate(fault_at, injected.restored_at),
        "after": rate(injected.restored_at, ended_at),
    }
    proxy = {k: counters_after.get(k, 0) - counters_before.get(k, 0) for k in counters_after}
    outcome.extra["moves/s before · during · after"] = " · ".join(f"{rates[k]:.0f}" for k in rates)
    outcome.extra["moves acknowledged per second"] = " ".join(str(n) for n in timeline)
    outcome.extra["HAProxy backend: retries · redispatches · 5xx · connection errors · response errors"] = (
        " · ".join(str(proxy.get(k, 0)) for k in ("wretr", "wredis", "hrsp_5xx", "econ", "eresp"))
    )
    refusals = Counter(
        f"{r.status} {r.code or '?'}"
        for r in load.ledger.requests
        if r.status is not None and r.status >= 400
    )
    outcome.extra["non-2xx answers by code (no_replica: HAProxy's own, none UP)"] = (
        ", ".join(f"{k}×{n}" for k, n in sorted(refusals.items())) or "none"
    )
    without = outcome.longest_gap(fault_at, injected.restored_at + RECOVERY_BOUND)
    outcome.extra["time without service (longest stretch with no 2xx answer)"] = f"{without:.2f} s"
    return Failover(
        outcome, fault_at, injected.restored_at, restored.full_at, started_at, without, rates, timeline, proxy
    )


# --------------------------------------------------------------------------- throughput


WARMUP = 2.0
MEASURE = 8.0


@dataclass
class Throughput:
    replicas: int
    moves_per_s: float
    requests_per_s: float
    move_p50_ms: float
    move_p95_ms: float
    statuses: dict[str, int]
    served: dict[str, int]
    """Answers by the replica that gave them (HAProxy's header)."""


async def throughput(topo: Topology, enabled: int, seed: int) -> Throughput:
    """The same load as the failover runs for WARMUP + MEASURE seconds with the first *enabled*
    replicas ready in HAProxy and the others in maintenance; counted over MEASURE."""
    proxy = topo.proxy
    assert proxy is not None
    names = [r.name for r in topo.replicas]
    for i, name in enumerate(names):
        await asyncio.to_thread(proxy.set_state, name, "ready" if i < enabled else "maint")
    want = set(names[:enabled])
    up = await wait_for(safe(lambda: set(proxy.up()) == want), 10.0, every=0.1)
    if up is None:
        raise HarnessError(f"HAProxy does not show exactly {sorted(want)} UP: {proxy.servers()}")
    served: dict[str, int] = {}

    def count(answer: Answer) -> str | None:
        who = served_by(answer)
        if who:
            served[who] = served.get(who, 0) + 1
        return who

    load = Load(
        proxy.address, proxy.port, clients=CLIENTS, seed=seed, name=f"throughput-{enabled}", served_by=count
    )
    load.start()
    try:
        await asyncio.sleep(WARMUP)
        t0 = time.monotonic()
        await asyncio.sleep(MEASURE)
        t1 = time.monotonic()
    finally:
        await load.stop()
        for name in names:
            await asyncio.to_thread(proxy.set_state, name, "ready")
    moves = [a for a in load.ledger.acks if t0 <= a.at < t1]
    requests = [r for r in load.ledger.requests if t0 <= r.done < t1]
    latencies = sorted(
        (r.done - r.sent) * 1000
        for r in requests
        if r.kind == "move" and r.status is not None and 200 <= r.status < 300
    )
    statuses: dict[str, int] = {}
    for r in load.ledger.requests:
        key = str(r.status) if r.status is not None else r.error or "?"
        statuses[key] = statuses.get(key, 0) + 1
    return Throughput(
        replicas=enabled,
        moves_per_s=len(moves) / (t1 - t0),
        requests_per_s=len(requests) / (t1 - t0),
        move_p50_ms=statistics.median(latencies) if latencies else 0.0,
        move_p95_ms=latencies[int(0.95 * (len(latencies) - 1))] if latencies else 0.0,
        statuses=statuses,
        served=dict(sorted(served.items())),
    )

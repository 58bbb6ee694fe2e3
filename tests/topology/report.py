"""What the topology run found, and the block it writes into docs/scaling.md (between markers,
with :func:`tests.faults.report.write_docs`)."""

from __future__ import annotations

import datetime as dt
import pathlib
import subprocess
from dataclasses import dataclass, field

from tests.faults.report import HEADER, write_docs

from .probes import Consistency, StandbyReads
from .scenarios import AFTER, BEFORE, CLIENTS, MEASURE, SPECS, Failover, Throughput

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "scaling.md"
BEGIN, END = "<!-- BEGIN TOPOLOGY -->", "<!-- END TOPOLOGY -->"

FAILOVER_HEADER = HEADER.replace("(by another worker)", "(by another replica)")


@dataclass
class Findings:
    machine: dict[str, object] = field(default_factory=dict)
    failovers: dict[str, Failover] = field(default_factory=dict)
    consistency: Consistency | None = None
    standby: StandbyReads | None = None
    throughput: list[Throughput] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return (
            set(self.failovers) >= set(SPECS)
            and self.consistency is not None
            and {t.replicas for t in self.throughput} >= {1, 2, 3}
        )


def haproxy_version() -> str:
    try:
        out = subprocess.run(["haproxy", "-v"], capture_output=True, text=True, check=False).stdout
        return out.split()[2]
    except (OSError, IndexError):
        return "?"


def failover_table(findings: Findings) -> str:
    rows = [findings.failovers[name].outcome.row() for name in SPECS if name in findings.failovers]
    return "\n".join([FAILOVER_HEADER, *rows])


def failover_times(findings: Findings) -> str:
    lines = [
        "| fault | return after s | time without service s | back to full strength after s | "
        "moves/s before · during · after | HAProxy retries · redispatches |",
        "|---|---|---|---|---|---|",
    ]
    for name in SPECS:
        f = findings.failovers.get(name)
        if f is None:
            continue
        full = f"{f.full_at - f.fault_at:.1f}" if f.full_at else "never"
        rates = " · ".join(f"{f.rates[k]:.0f}" for k in ("before", "during", "after"))
        lines.append(
            f"| {f.outcome.spec.title} | {f.restored_at - f.fault_at:.1f} | {f.without_service:.1f} "
            f"| {full} | "
            f"{rates} | {f.proxy.get('wretr', 0)} · {f.proxy.get('wredis', 0)} |"
        )
    return "\n".join(lines)


def throughput_table(findings: Findings) -> str:
    lines = [
        "| replicas ready in HAProxy | moves/s | requests/s | move p50 ms | move p95 ms | answers "
        "| answered by |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in sorted(findings.throughput, key=lambda t: t.replicas):
        statuses = " ".join(f"{k}×{v}" for k, v in sorted(t.statuses.items()))
        served = " ".join(f"{k}×{v}" for k, v in t.served.items())
        lines.append(
            f"| {t.replicas} | {t.moves_per_s:.0f} | {t.requests_per_s:.0f} | {t.move_p50_ms:.1f} | "
            f"{t.move_p95_ms:.1f} | {statuses} | {served} |"
        )
    pg = findings.failovers.get("pg_primary_kill")
    if pg is not None:
        rates = " · ".join(f"{pg.rates[k]:.0f}" for k in ("before", "during", "after"))
        lines.append(f"| 3, through the Postgres failover (before · during · after) | {rates} | | | | | |")
    return "\n".join(lines)


def render(findings: Findings) -> str:
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    m = findings.machine
    lines = [
        f"Run {when} (`bash scripts/test --slow -q tests/topology`)",
        "",
        f"Machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_mib')} MiB, "
        f"Python {m.get('python')}, {m.get('os')}. Postgres {m.get('postgres')} under pg_auto_failover "
        f"{m.get('pg_auto_failover')} "
        f"(primary + synchronous standby `{m.get('synchronous_standby_names')}`, monitor), Redis "
        f"{m.get('redis')} cluster (3 masters + 3 replicas), HAProxy {m.get('haproxy')}, 3 × `yamen serve "
        "--workers 2`. Every host, the load generator and the audit share these cores (load average "
        f"1/5/15 min at the start {m.get('load_at_start')}, at the end {m.get('load_at_end')}).",
        "",
        f"### Failovers under load ({CLIENTS} clients through HAProxy + 1 prober; {BEFORE:g} s before the "
        f"fault, {AFTER:g} s after the return, the failed host started again under the same load)",
        "",
        failover_table(findings),
        "",
        failover_times(findings),
    ]
    c = findings.consistency
    if c is not None:
        lines += [
            "",
            f"### Consistency across replicas ({c.moves} moves in {c.games} games, each posted to one "
            "replica and read at once from the other two, replica to replica without HAProxy)",
            "",
            c.table(),
        ]
    s = findings.standby
    if s is not None:
        lines += ["", "### Standby reads", "", s.table()]
    lines += [
        "",
        f"### Throughput ({CLIENTS} clients + 1 prober through HAProxy, moves/s over {MEASURE:g} s)",
        "",
        throughput_table(findings),
    ]
    return "\n".join(lines)


def write(findings: Findings) -> None:
    """The block between the markers of docs/scaling.md (the rest of the page is prose)."""
    write_docs(render(findings), DOCS, BEGIN, END, title="# Scaling: a multi-host topology")

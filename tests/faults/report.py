"""The bounds, the checks of one fault run, its table row, and docs/reliability.md.

Every bound the suite asserts is a constant here, stated in docs/reliability.md ("The bounds").
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import pathlib
from collections import Counter
from dataclasses import dataclass, field

from .audit import Audit
from .load import KINDS, Ledger, Request

RECOVERY_BOUND = 10.0
"""Each kind of request (create, legal moves, move, view) answers 2xx again within this many seconds
of the dependency's return, and no request fails later than that."""
STALE_BOUND = 1.0
"""A read may trail a move acknowledged to the same client by at most this long (TRUST_SECONDS)."""
GAP_BOUND = 5.0
"""When a fault leaves Postgres up (Redis, the pub/sub connection, one worker), the service keeps
answering: no stretch longer than this without a 2xx answer."""
RESPAWN_BOUND = 10.0
"""A killed worker is replaced within this long."""
FIRST_MOVE_BOUND = 1.0
"""After a Postgres outage, the first move is acknowledged within this long of Postgres accepting
connections again (the figure is the *move* recovery time of its row)."""

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reliability.md"
BEGIN, END = "<!-- BEGIN FAULTS -->", "<!-- END FAULTS -->"


@dataclass(frozen=True)
class Spec:
    name: str
    title: str
    connection_errors: str
    """``none``; ``per-connection`` (each client connection may break once: the killed worker's);
    ``any`` (the whole service restarts: counted, and confined to the outage window)."""
    keeps_answering: bool
    first_move_bound: float | None = None
    """When set, the first move after the return must be acknowledged within this long."""


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class Outcome:
    spec: Spec
    fault_at: float
    restored_at: float
    """The dependency's return (phases and recovery times count from it)."""
    ended_at: float
    clients: int
    connections: int
    ledger: Ledger
    audit: Audit
    extra: dict[str, object] = field(default_factory=dict)
    """Fault-specific figures (printed)."""
    extra_checks: list[Check] = field(default_factory=list)
    logs: list[pathlib.Path] = field(default_factory=list)
    log_dir: pathlib.Path | None = None
    checks: list[Check] = field(default_factory=list)
    settled_at: float | None = None
    """When the service was whole again, if later than the return (a restart: serving again)."""

    # --- figures ------------------------------------------------------------------------------
    def phase(self, r: Request) -> str:
        if r.done < self.fault_at:
            return "before"
        return "during" if r.done < self.restored_at else "after"

    def by_phase(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {"before": Counter(), "during": Counter(), "after": Counter()}
        for r in self.ledger.requests:
            out[self.phase(r)][str(r.status) if r.status is not None else r.error or "?"] += 1
        return out

    def recovery(self) -> dict[str, float | None]:
        firsts: dict[str, float | None] = dict.fromkeys(KINDS)
        for r in self.ledger.requests:
            if r.status is not None and 200 <= r.status < 300 and r.done >= self.restored_at:
                first = firsts[r.kind]
                if first is None or r.done - self.restored_at < first:
                    firsts[r.kind] = r.done - self.restored_at
        return firsts

    def stale(self) -> tuple[int, int, float]:
        stale = [r for r in self.ledger.reads if r.seen < r.acked]
        beyond = [r for r in stale if r.lag > STALE_BOUND]
        return len(stale), len(beyond), max((r.lag for r in stale), default=0.0)

    def crossed_share(self) -> float:
        reads = self.ledger.reads
        return sum(1 for r in reads if r.cross) / len(reads) if reads else 0.0

    def longest_gap(self, start: float, end: float) -> float:
        times = sorted(r.done for r in self.ledger.requests if r.status is not None and 200 <= r.status < 300)
        points = [start, *(t for t in times if start < t < end), end]
        return max(b - a for a, b in itertools.pairwise(points))

    def acked_between(self, start: float, end: float) -> int:
        return sum(1 for a in self.ledger.acks if start <= a.at < end)

    # --- the checks ---------------------------------------------------------------------------
    def evaluate(self) -> list[Check]:
        checks: list[Check] = []
        add = checks.append
        reqs = self.ledger.requests
        ok2 = lambda r: r.status is not None and 200 <= r.status < 300  # noqa: E731
        window_end = self.restored_at + RECOVERY_BOUND

        before_bad = [r for r in reqs if r.done < self.fault_at and not ok2(r)]
        add(Check("before the fault: only 2xx", not before_bad, _some(before_bad)))

        answered_bad = [r for r in reqs if r.status is not None and not ok2(r)]
        not_503 = [r for r in answered_bad if r.status not in (429, 503)]
        add(Check("every non-2xx answer is 503 or 429", not not_503, _some(not_503)))
        no_header = [r for r in answered_bad if r.status in (429, 503) and not r.retry_after]
        add(Check("every 503/429 carries Retry-After", not no_header, _some(no_header)))

        late = [r for r in reqs if not ok2(r) and r.done > window_end]
        add(
            Check(
                f"no failure later than {RECOVERY_BOUND:g} s after the return",
                not late,
                _some(late, self.restored_at),
            )
        )

        timeouts = [r for r in reqs if r.error == "timeout"]
        add(Check("no request hung (client timeout)", not timeouts, _some(timeouts)))

        conn = [r for r in reqs if r.error in ("connect", "reset")]
        rule = self.spec.connection_errors
        if rule == "none":
            add(Check("no connection errors", not conn, _some(conn)))
        elif rule == "per-connection":
            add(
                Check(
                    f"connection errors at most one per client connection ({self.connections})",
                    len(conn) <= self.connections,
                    f"{len(conn)} connection errors",
                )
            )
        outside = [r for r in conn if not (self.fault_at <= r.done <= window_end)]
        add(Check("connection errors only during the outage", not outside, _some(outside)))

        rec = self.recovery()
        slow = {k: v for k, v in rec.items() if v is None or v > RECOVERY_BOUND}
        add(
            Check(
                f"every kind answers 2xx within {RECOVERY_BOUND:g} s of the return",
                not slow,
                ", ".join(f"{k}: {'never' if v is None else f'{v:.2f} s'}" for k, v in slow.items()),
            )
        )
        bound = self.spec.first_move_bound
        if bound is not None:
            first = rec["move"]
            add(
                Check(
                    f"the first move acknowledged within {bound:g} s of the return",
                    first is not None and first <= bound,
                    "no move acknowledged after the return" if first is None else f"{first:.2f} s",
                )
            )
        if self.spec.keeps_answering:
            gap = self.longest_gap(self.fault_at, window_end)
            add(Check(f"keeps answering (no 2xx gap over {GAP_BOUND:g} s)", gap <= GAP_BOUND, f"{gap:.2f} s"))

        before = self.acked_between(0, self.fault_at)
        after = self.acked_between(self.restored_at, self.ended_at)
        add(
            Check(
                "moves acknowledged before the fault and after the return",
                before > 0 and after > 0,
                f"{before} before, {after} after",
            )
        )

        a = self.audit
        add(Check("the audit could read every game", not a.errors, "; ".join(a.errors[:3])))
        add(Check("0 acknowledged moves lost", not a.lost, "; ".join(a.lost[:3])))
        add(Check("0 commands stored twice", not a.duplicated, "; ".join(a.duplicated[:3])))
        add(Check("0 events no client sent", not a.phantom, "; ".join(a.phantom[:3])))
        add(Check("gapless seqs", not a.gaps, "; ".join(a.gaps[:3])))
        add(Check("every game's chain verifies", not a.chains, "; ".join(a.chains[:3])))
        add(
            Check(
                "every move's fate known to its client",
                a.unresolved == 0,
                f"{a.unresolved} unresolved ({a.unresolved_committed} of them committed)",
            )
        )

        crossed = [r for r in self.ledger.reads if r.cross]
        add(
            Check(
                "harness: at least a quarter of the reads answered by another worker than the move's",
                len(crossed) * 4 >= len(self.ledger.reads) > 0,
                f"{len(crossed)} of {len(self.ledger.reads)}",
            )
        )
        total, beyond, worst = self.stale()
        add(
            Check(
                f"0 stale reads beyond {STALE_BOUND:g} s",
                beyond == 0,
                f"{beyond} of {total} stale reads beyond; the worst trailed by {worst:.2f} s",
            )
        )
        add(
            Check(
                "no anomalies seen by the clients",
                not self.ledger.anomalies,
                "; ".join(self.ledger.anomalies[:3]),
            )
        )
        checks.extend(self.extra_checks)
        self.checks = checks
        return checks

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    # --- rendering ----------------------------------------------------------------------------
    def row(self) -> str:
        phases = self.by_phase()
        rec = self.recovery()
        total, beyond, worst = self.stale()
        a = self.audit
        failed = [c.name for c in self.checks if not c.ok]
        cells = [
            self.spec.title,
            f"{max(self.restored_at, self.settled_at or 0.0) - self.fault_at:.1f}",
            _counts(phases["before"]),
            _counts(phases["during"]),
            _counts(phases["after"]),
            f"{len(self.ledger.acks)} in {a.games} games",
            f"{len(a.lost)} · {len(a.duplicated)}",
            f"{'yes' if not a.gaps else 'NO'} · {'yes' if not a.chains else 'NO'}",
            " · ".join(
                "–" if rec[k] is None else f"{rec[k]:.2f}" for k in ("move", "view", "legal", "create")
            ),
            f"{len(self.ledger.reads)} ({self.crossed_share():.0%})",
            f"{total} · {beyond} · {worst:.2f}",
            "pass" if not failed else "FAIL: " + "; ".join(failed),
        ]
        return "| " + " | ".join(cells) + " |"

    def details(self) -> str:
        lines = [f"== {self.spec.title}: {'PASS' if self.ok else 'FAIL'}"]
        for c in self.checks:
            lines.append(f"  [{'ok' if c.ok else 'FAIL'}] {c.name}" + (f" — {c.detail}" if c.detail else ""))
        retried = sum(1 for a in self.ledger.acks if a.attempts > 1)
        lines.append(f"  moves acknowledged only after a retry (same key): {retried}")
        cut = Counter(
            r.kind
            for r in self.ledger.requests
            if r.status is None and r.sent < self.fault_at <= r.done and r.error != "connect"
        )
        lines.append(
            "  requests in flight at the fault that never got an answer: "
            + (", ".join(f"{k}×{n}" for k, n in sorted(cut.items())) or "none")
        )
        for k, v in self.extra.items():
            lines.append(f"  {k}: {v}")
        stale = [r for r in self.ledger.reads if r.seen < r.acked]
        if stale:
            attempts = {(a.game_id, a.version): a.attempts for a in self.ledger.acks}
            lines.append(f"  stale reads ({len(stale)}; lag = from the acknowledgement to the read):")
            for r in stale[:8]:
                tries = attempts.get((r.game_id, r.acked))
                lines.append(
                    f"    {r.kind} of {r.game_id}: saw v{r.seen}, acknowledged v{r.acked}"
                    f"{f' (at attempt {tries})' if tries else ''}, lag {r.lag:.3f} s, "
                    f"sent at {r.sent - self.fault_at:+.2f} s from the fault, "
                    f"{'by another worker' if r.cross else 'by the same worker' if r.cross is False else '?'}"
                    " than the acknowledgement's"
                )
        summary = log_summary(self.logs)
        if summary:
            lines.append("  service log, warnings and errors: " + ", ".join(f"{k}×{n}" for k, n in summary))
        lines.append(f"  logs: {self.log_dir}")
        return "\n".join(lines)


HEADER = (
    "| fault | outage s | answers before | answers during | answers after | moves acked | "
    "lost · duplicated | gapless · chains verify | recovery s (move · view · legal · create) | "
    "read-backs (by another worker) | stale reads (all · > 1 s · worst lag s) | result |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _counts(c: Counter) -> str:
    if not c:
        return "–"
    return " ".join(f"{k}×{n}" for k, n in sorted(c.items(), key=lambda kv: (not kv[0].isdigit(), kv[0])))


def _some(reqs: list[Request], origin: float | None = None) -> str:
    if not reqs:
        return ""
    shown = []
    for r in reqs[:3]:
        what = r.status if r.status is not None else r.error
        at = f" at +{r.done - origin:.2f} s" if origin is not None else ""
        shown.append(f"{r.kind} {what}{' ' + r.code if r.code else ''}{at}")
    return f"{len(reqs)}: " + ", ".join(shown)


def log_summary(paths: list[pathlib.Path]) -> list[tuple[str, int]]:
    """Warning and error events in the service's JSON-lines logs, most frequent first."""
    counts: Counter = Counter()
    for path in paths:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                if line.strip() and not line.startswith("yamen"):
                    counts[f"(text) {line.strip()[:80]}"] += 1
                continue
            if isinstance(entry, dict) and entry.get("level") in ("warning", "error", "critical"):
                counts[f"{entry['level']}:{entry.get('event')}"] += 1
    return counts.most_common(8)


def render(outcomes: list[Outcome], machine: dict[str, object]) -> str:
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    m = machine
    lines = [
        f"Run {when} (`.venv/bin/pytest tests/faults -m slow -s`)",
        "",
        f"Yamen fault suite — {m['cpu']}, {m['cores']} cores, {m['memory_mib']} MiB, Python {m['python']}, "
        f"Postgres {m['postgres']} (fsync {m['postgres_fsync']}, synchronous_commit "
        f"{m['postgres_synchronous_commit']}), Redis {m['redis']}",
        f"{m['clients']} clients playing yangtze 3p + 1 prober creating a game every "
        f"{m['probe_seconds']} s; `yamen serve --workers 2` (granian); load generator, service, Postgres "
        "and Redis share these cores",
        "",
        HEADER,
        *(o.row() for o in outcomes),
    ]
    return "\n".join(lines)


def write_docs(
    block: str,
    path: pathlib.Path = DOCS,
    begin: str = BEGIN,
    end: str = END,
    title: str = "# Reliability",
) -> None:
    """Put *block* between the markers *begin* and *end* of *path* (appended when missing)."""
    text = path.read_text() if path.exists() else f"{title}\n\n{begin}\n{end}\n"
    if begin not in text or end not in text:
        text = text.rstrip("\n") + f"\n\n{begin}\n{end}\n"
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    path.write_text(f"{head}{begin}\n{block}\n{end}{tail}")

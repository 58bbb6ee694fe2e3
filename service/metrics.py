"""Process-wide counters served as Prometheus text at ``GET /metrics``.

A few counters are all an operator needs to see the service breathe — requests by status, moves
by kind, races lost, snapshot hits — so they are kept here without a client library.  Each worker
process has its own (scrape every worker, or sum at the load balancer).
"""

from __future__ import annotations

from collections import Counter

_HELP = {
    "yamen_http_requests_total": "HTTP requests answered, by method and status",
    "yamen_http_request_seconds_total": "Time spent answering HTTP requests",
    "yamen_moves_total": "Moves accepted and appended, by game kind",
    "yamen_move_races_total": "Appends that lost a race on the expected version",
    "yamen_snapshots_total": "Snapshot lookups while loading a game, by result (hit, miss, rejected)",
    "yamen_append_batches_total": "Transactions that appended moves together (group commit)",
    "yamen_appends_batched_total": "Moves appended in those transactions (appends / batches = moves per commit)",
    "yamen_notice_batches_total": "Redis round trips that wrote snapshots and posted move notices",
    "yamen_notices_total": "Move notices posted (notices / batches = moves sharing a round trip)",
    "yamen_reads_from_memory_total": "Reads answered from the worker's memory, vouched for by the notice board",
}


class Metrics:
    def __init__(self) -> None:
        self.counters: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()

    def inc(self, name: str, amount: float = 1, **labels: str) -> None:
        self.counters[(name, tuple(sorted(labels.items())))] += amount

    def render(self) -> str:
        lines = []
        for name in sorted({n for n, _ in self.counters}):
            lines.append(f"# HELP {name} {_HELP.get(name, name)}")
            lines.append(f"# TYPE {name} counter")
            for (metric, labels), value in sorted(self.counters.items()):
                if metric != name:
                    continue
                label_text = ",".join(f'{k}="{v}"' for k, v in labels)
                number = f"{value:.6f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
                lines.append(f"{name}{{{label_text}}} {number}" if label_text else f"{name} {number}")
        return "\n".join(lines) + "\n"


METRICS = Metrics()

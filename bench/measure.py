"""What every load phase shares, whichever process it runs in: the timed measurement window and
the event loop the client runs on.  (Used by :mod:`bench.loadgen`, :mod:`bench.dbceiling` and
:mod:`bench.ws`.)
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from .stats import summarize


def run_loop(coro):
    """Run *coro* to its end on a fresh event loop: the client's, in the process it runs in."""
    try:
        import uvloop  # optional: a faster client loop when installed

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


@dataclass
class Window:
    """A timed measurement window after a warm-up; requests count only if they finish inside it."""

    warmup: float
    duration: float
    start: float = 0.0
    end: float = 0.0
    stop_at: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=dict)

    cpu0: float = 0.0
    t0: float = 0.0
    wall: tuple[float, float] = (0.0, 0.0)

    def arm(self) -> None:
        now = time.perf_counter()
        self.cpu0, self.t0 = time.process_time(), now
        self.wall = (time.time() + self.warmup, time.time() + self.warmup + self.duration)
        self.start = now + self.warmup
        self.end = self.start + self.duration
        self.stop_at = self.end

    def running(self) -> bool:
        return time.perf_counter() < self.stop_at

    def record(self, kind: str, t0: float, t1: float) -> None:
        if t0 >= self.start and t1 <= self.end:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.latencies.setdefault(kind, []).append((t1 - t0) * 1000.0)

    def result(self, kind: str) -> dict[str, Any]:
        lat = self.latencies.get(kind, [])
        # The load generator's own CPU use (1.0 = one core busy): near 1.0 would make it the bottleneck.
        cpu = (time.process_time() - self.cpu0) / max(time.perf_counter() - self.t0, 1e-9)
        return {
            "count": self.counts.get(kind, 0),
            "rps": self.counts.get(kind, 0) / self.duration,
            **summarize(lat),
            "client_cpu": cpu,
            "window": list(self.wall),
        }

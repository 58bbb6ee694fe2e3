"""Percentiles and medians."""

from __future__ import annotations

import statistics
from typing import Any


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def summarize(latencies_ms: list[float]) -> dict[str, Any]:
    s = sorted(latencies_ms)
    return {"p50_ms": percentile(s, 0.50), "p99_ms": percentile(s, 0.99), "n": len(s)}


def median(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")

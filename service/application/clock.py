"""The shell supplies time: one clock per service, replaceable in tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def record_time(clock: Clock) -> datetime:
    """The clock's reading as the record keeps it: UTC (Postgres keeps microseconds, and the
    hash chain covers the same value that is stored)."""
    return clock().astimezone(UTC)

"""A Postgres standby for the reads that may trail the primary.

Spectator views, histories and records (``YAMEN_STANDBY_URL``) may be read from a standby, so that
watching a game does not load the primary that judges its moves.  Every worker measures the
standby's replay lag every :data:`SAMPLE_SECONDS`::

    0 when everything the standby has received is replayed, else now - the last replayed commit

(under synchronous replication a commit is acknowledged only once the standby has received it,
so "received" covers every acknowledged move).  A standby is read only while its last sample is
recent, says it is a standby (``pg_is_in_recovery()``: after a failover the old standby is the
primary, and the URL's ``target_session_attrs=standby`` refuses it anyway), and lags at most
``YAMEN_STANDBY_MAX_LAG_MS``; the lag is reported in the answer's ``Standby-Lag-Ms`` header.
Anything else — no standby, a slow one, a failed query — and the read goes to the primary: a
standby never fails a read.  A seat's own reads, the long poll, the live stream and every write
stay on the primary (read-your-writes); so does a read whose caller asks for a version the standby
has not replayed yet (``min_version``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time

import structlog

from .store import EventStore, StoreUnavailable

log = structlog.get_logger("yamen.standby")

SAMPLE_SECONDS = 0.25
STALE_SAMPLE_SECONDS = 1.0
"""A lag sample older than this is not trusted (the sampler is stuck or the standby is gone)."""
SERVED_LAG: contextvars.ContextVar[int | None] = contextvars.ContextVar("yamen_standby_lag", default=None)
"""Set when this request's answer came from the standby: its lag in ms (the ``Standby-Lag-Ms``
header)."""


class Standby:
    """The standby's pool and its measured lag (see the module docstring)."""

    def __init__(self, url: str, *, max_lag_ms: int, max_size: int = 4) -> None:
        self.store = EventStore(url, min_size=0, max_size=max_size, batch_appends=False, timeout=0.5)
        self.max_lag_ms = max_lag_ms
        self.lag_ms: float | None = None
        """The last sample's lag; None while the standby is not readable."""
        self.sampled_at = 0.0
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        await self.store.pool.open(wait=False)
        self._task = asyncio.get_running_loop().create_task(self._sample_forever())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.store.close()

    async def _sample_forever(self) -> None:
        readable = None
        while True:
            try:
                self.lag_ms = await self.store.replay_lag_ms()
                self.sampled_at = time.monotonic()
            except (StoreUnavailable, Exception) as exc:  # noqa: BLE001 - any failure: not readable
                self.lag_ms = None
                if readable is not False:
                    log.warning("standby_unavailable", error=f"{type(exc).__name__}: {exc}")
            now_readable = self.lag_ms is not None
            if now_readable != readable:
                log.info("standby_readable" if now_readable else "standby_not_readable", lag_ms=self.lag_ms)
                readable = now_readable
            await asyncio.sleep(SAMPLE_SECONDS)

    def lag(self) -> int | None:
        """The lag (ms) if the standby may be read now, else None."""
        lag = self.lag_ms
        if lag is None or time.monotonic() - self.sampled_at > STALE_SAMPLE_SECONDS:
            return None
        return round(lag) if lag <= self.max_lag_ms else None

    def readable(self) -> EventStore | None:
        """The standby's store when it may be read now (recording its lag for the answer's
        header when the caller uses it: :meth:`served`)."""
        return self.store if self.lag() is not None else None

    def served(self) -> None:
        """The answer being built came from the standby: report its lag."""
        SERVED_LAG.set(self.lag() or 0)

    def failed(self, exc: Exception) -> None:
        """A read on the standby failed: stop reading it until the next good sample."""
        self.lag_ms = None
        log.warning("standby_read_failed", error=f"{type(exc).__name__}: {exc}")

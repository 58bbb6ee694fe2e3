"""The job queue: Procrastinate, on the game's own Postgres.

Work that no request is waiting for — a bot's turn — is a job in Postgres (``procrastinate_jobs``),
taken by whichever worker of whichever replica is free.  Why Procrastinate: it is a maintained
Postgres task queue built on psycopg 3 and asyncio (our driver and our loop), so the queue lives in
the database that already holds the games — no second broker to run, back up or fail over — and
its guarantees are Postgres's: a deferred job is committed, a job is taken by one worker at a time
(``FOR UPDATE SKIP LOCKED``), LISTEN/NOTIFY wakes a worker at once, jobs with the same ``lock``
run one after another, and workers send heartbeats so a job left ``doing`` by a dead worker can be
found and retried.  Every worker runs it; none is special.

Exactly once is the *move's* property, not the job's: a job may run twice (a worker killed after
the move committed, before the job was marked done), but a bot's move is appended with the
version it was decided at and an idempotency key of that version, so a second run appends
nothing.

Three tasks:

- ``yamen.bot_turn(game_id)``: play the game's bot seats while one of them is to act
  (``lock`` = the game: one bot turn per game at a time; ``queueing_lock`` = the game: at most one
  waiting);
- ``yamen.deadline(game_id, seat, since_ms)``, scheduled at a clock's deadline (``schedule_at``:
  a deadline set before a restart fires after it): if the seat is still on that decision, its
  timeout is claimed (and a bot decides for it);
- ``yamen.sweep`` (periodic, every :data:`SWEEP_CRON`, deferred once per tick whatever the number
  of workers): close jobs of workers that stopped sending heartbeats, queue a bot turn for every
  game under way with a bot seat and schedule the deadlines of every game under way with a clock —
  so a turn or a deadline whose job was never deferred (a worker killed between a move's commit
  and its defer) is taken up within a sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import procrastinate
import structlog
from procrastinate.exceptions import AlreadyEnqueued

log = structlog.get_logger("yamen.jobs")

SCHEMA_VERSION = "procrastinate-3.10.0"
"""The Procrastinate schema our migrations applied (``schema_migrations``); its version is pinned in
pyproject.toml, and a newer one comes with Procrastinate's own migration files (deploy/README.md)."""
SWEEP_CRON = "* * * * * */15"
"""Every 15 seconds (croniter's sixth field is the second)."""
HEARTBEAT_SECONDS = 5.0
POLL_SECONDS = 2.0
"""A worker looks for jobs this often even when no NOTIFY woke it (one lost with a connection)."""
RESTART_SECONDS = 1.0
"""The pause before a stopped worker is started again."""
STALLED_SECONDS = 20.0
"""A worker silent this long is dead: its jobs are retried by the next sweep."""


def procrastinate_schema() -> str:
    """Procrastinate's schema, applied by ``EventStore.migrate`` under the migrations' lock."""
    return (importlib.resources.files("procrastinate.sql") / "schema.sql").read_text()


class JobQueue:
    """Procrastinate wired to the service: *play* takes a bot turn in a game, *games_with_bots*
    names the games a sweep looks at."""

    def __init__(
        self,
        url: str,
        *,
        play: Callable[[str], Awaitable[object]],
        games_with_bots: Callable[[], Awaitable[list[str]]],
        deadline: Callable[[str, int, int], Awaitable[object]] | None = None,
        clocked_games: Callable[[], Awaitable[list[str]]] | None = None,
        reschedule: Callable[[str], Awaitable[object]] | None = None,
        concurrency: int = 4,
    ) -> None:
        self.concurrency = concurrency
        self.app = procrastinate.App(
            # Its own small pool (none held while idle) beside the store's: the store's connections
            # are autocommit ones Procrastinate cannot share; its LISTEN takes one more per process.
            connector=procrastinate.PsycopgConnector(conninfo=url, min_size=0, max_size=3)
        )
        self._worker: asyncio.Task | None = None

        @self.app.task(
            name="yamen.bot_turn",
            retry=procrastinate.RetryStrategy(max_attempts=10, wait=1, exponential_wait=2),
        )
        async def bot_turn(game_id: str) -> None:
            await play(game_id)

        @self.app.task(
            name="yamen.deadline",
            retry=procrastinate.RetryStrategy(max_attempts=10, wait=1, exponential_wait=2),
        )
        async def deadline_task(game_id: str, seat: int, since_ms: int) -> None:
            if deadline is not None:
                await deadline(game_id, seat, since_ms)

        @self.app.periodic(cron=SWEEP_CRON, periodic_id="sweep")
        @self.app.task(name="yamen.sweep", queueing_lock="yamen.sweep")
        async def sweep(timestamp: int) -> None:
            manager = self.app.job_manager
            for job in await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_SECONDS):
                # A dead worker's job is closed (which frees its game's lock) rather than retried: a
                # bot turn is asked for again below, and one may already wait under the same
                # queueing lock (a retry would collide with it and leave the game locked).
                log.warning("job_stalled", job_id=job.id, task=job.task_name)
                try:
                    await manager.finish_job(job, status=procrastinate.jobs.Status.FAILED, delete_job=False)
                except Exception as exc:  # noqa: BLE001 - the next sweep tries again
                    log.warning("job_not_closed", job_id=job.id, error=str(exc))
            for game_id in await games_with_bots():
                await self.bot_turn(game_id)
            if clocked_games is not None and reschedule is not None:
                for game_id in await clocked_games():
                    await reschedule(game_id)

        self._bot_turn = bot_turn
        self._deadline = deadline_task

    async def open(self) -> None:
        await self.app.open_async()

    def start_worker(self) -> None:
        """Take jobs in this process (every worker of every replica does)."""
        self._worker = asyncio.create_task(self._keep_working(), name="yamen-jobs")

    async def _keep_working(self) -> None:
        """Run Procrastinate's worker, and run it again whenever it stops: a Postgres restart or
        failover ends it (its listener and its heartbeat lose their connections), and a process
        whose worker has stopped would never again take a bot turn or a deadline."""
        while True:
            try:
                await self.app.run_worker_async(
                    concurrency=self.concurrency,
                    install_signal_handlers=False,
                    update_heartbeat_interval=HEARTBEAT_SECONDS,
                    stalled_worker_timeout=STALLED_SECONDS,
                    delete_jobs="successful",
                    fetch_job_polling_interval=POLL_SECONDS,
                    name="yamen",
                )
                log.warning("jobs_worker_stopped")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever stopped it, take jobs again
                log.warning("jobs_worker_failed", error=" ".join(f"{type(exc).__name__}: {exc}".split()))
            await asyncio.sleep(RESTART_SECONDS)

    async def bot_turn(self, game_id: str) -> None:
        """Queue a bot turn in *game_id* (nothing if one is already waiting)."""
        with contextlib.suppress(AlreadyEnqueued):
            key = f"game:{game_id}"
            await self._bot_turn.configure(lock=key, queueing_lock=key).defer_async(game_id=game_id)

    async def deadline(self, game_id: str, seat: int, since_ms: int, due_ms: int) -> None:
        """Check *seat*'s clock at *due_ms* (Unix ms): its decision that began at *since_ms* times
        out then unless it has moved (nothing if that check is already scheduled)."""
        with contextlib.suppress(AlreadyEnqueued):
            key = f"deadline:{game_id}:{seat}:{since_ms}"
            at = datetime.fromtimestamp(due_ms / 1000, tz=UTC)
            # No lock: Procrastinate runs a lock's jobs in the order they were queued, so a deadline
            # days away would hold back the game's bot turns (If-Match keeps the two apart instead).
            await self._deadline.configure(schedule_at=at, queueing_lock=key).defer_async(
                game_id=game_id, seat=seat, since_ms=since_ms
            )

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._worker, timeout=10)
        await self.app.close_async()

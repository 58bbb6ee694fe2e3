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

Eight tasks:

- ``yamen.bot_turn(game_id)``: play the game's bot seats while one of them is to act
  (``lock`` = the game: one bot turn per game at a time; ``queueing_lock`` = the game: at most one
  waiting);
- ``yamen.deadline(game_id, seat, since_ms)``, scheduled at a clock's deadline (``schedule_at``:
  a deadline set before a restart fires after it): if the seat is still on that decision, its
  timeout is claimed (and a bot decides for it);
- ``yamen.webhook_pump(game_id)``: turn what an app's game recorded into webhook deliveries
  (``lock`` = the game's pump, ``queueing_lock`` the same; :mod:`service.application.webhooks`);
- ``yamen.webhook_delivery(endpoint_id, game_id)``, on the :data:`WEBHOOK_QUEUE` queue: send a
  game's deliveries to one endpoint, in order (``lock`` = the pair; a retry is the same task
  scheduled at its time).  Its queue has workers of its own (``webhook_concurrency`` per process),
  so receivers that hang for their whole timeout hold none of the workers that play bots;
- ``yamen.push(game_id)``, on the :data:`PUSH_QUEUE` queue: derive a game's Web Push notifications
  ("your turn", "game finished") and send what is due (``lock`` and ``queueing_lock`` = the game;
  :mod:`service.application.push`), with workers of their own (``push_concurrency`` per process);
  ``yamen.push_later``, scheduled for a retry's time, queues it;
- ``yamen.rate_game(game_id)``: apply a finished rated game's rating change (``lock`` and
  ``queueing_lock`` = the game; :mod:`service.application.ratings`: applied at most once however
  often it runs);
- ``yamen.match(pool, kind)``: the matcher of a pool's seeks of a title (``lock`` and
  ``queueing_lock`` = the pool and title: one at a time, at most one waiting;
  :mod:`service.application.seeks`), and ``yamen.match_later``, scheduled for when a waiting seek's
  rating window widens or its bots are due, which queues it;
- ``yamen.sweep`` (periodic, every :data:`SWEEP_CRON`, deferred once per tick whatever the number
  of workers): close jobs of workers that stopped sending heartbeats, queue a bot turn for every
  game under way with a bot seat, schedule the deadlines of every game under way with a clock, and
  queue the webhook pump of every app game it trails and the sending of every delivery due, and the
  rating of every rated game finished and never applied, and expire old seeks and run the matcher
  of every pool with open seeks — so a
  turn, a deadline or a notification whose job was never deferred (a worker killed between a
  move's commit and its defer) is taken up within a sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

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
WEBHOOK_QUEUE = "webhooks"
"""The queue of webhook deliveries, taken by their own workers."""
PUSH_QUEUE = "push"
"""The queue of Web Push notifications (:mod:`service.application.push`), taken by their own workers."""


def procrastinate_schema() -> str:
    """Procrastinate's schema, applied by ``EventStore.migrate`` under the migrations' lock."""
    return (importlib.resources.files("procrastinate.sql") / "schema.sql").read_text()


@dataclass(frozen=True, slots=True)
class JobHandlers:
    """What the tasks do: the application's use cases
    (:meth:`service.application.Application.job_handlers`), handed to a worker when it starts."""

    play: Callable[[str], Awaitable[object]]
    """Play a game's bot seats while one of them is to act."""
    games_with_bots: Callable[[], Awaitable[list[str]]]
    """The games under way with a bot seat (the sweep queues a turn in each)."""
    deadline: Callable[[str, int, int], Awaitable[object]] | None = None
    clocked_games: Callable[[], Awaitable[list[str]]] | None = None
    reschedule: Callable[[str], Awaitable[object]] | None = None
    pump: Callable[[str], Awaitable[object]] | None = None
    deliver: Callable[[str, str], Awaitable[object]] | None = None
    webhook_sweep: Callable[[], Awaitable[object]] | None = None
    rate: Callable[[str], Awaitable[object]] | None = None
    ratings_sweep: Callable[[], Awaitable[object]] | None = None
    match: Callable[[str, str], Awaitable[object]] | None = None
    seek_sweep: Callable[[], Awaitable[object]] | None = None
    push: Callable[[str], Awaitable[object]] | None = None
    """Send a game's Web Push notifications; None while push is off (no push workers then)."""
    push_sweep: Callable[[], Awaitable[object]] | None = None


class JobQueue:
    """Procrastinate wired to the service.

    Made before the application and handed to the use cases that queue jobs (:meth:`bot_turn`,
    :meth:`webhook_pump`, …); a process that takes jobs starts its workers with the application's
    :class:`JobHandlers` (:meth:`start_worker`).  A task runs only on a worker, so a process that
    only queues jobs (``YAMEN_JOBS=off``) never needs them."""

    def __init__(
        self, url: str, *, concurrency: int = 4, webhook_concurrency: int = 8, push_concurrency: int = 4
    ) -> None:
        self.push_concurrency = push_concurrency
        self.concurrency = concurrency
        self.webhook_concurrency = webhook_concurrency
        self.app = procrastinate.App(
            # Its own small pool (none held while idle) beside the store's: the store's connections
            # are autocommit ones Procrastinate cannot share; its LISTEN takes one more per process.
            connector=procrastinate.PsycopgConnector(conninfo=url, min_size=0, max_size=3)
        )
        self._workers: list[asyncio.Task[None]] = []
        self._handlers: JobHandlers | None = None

        def handlers() -> JobHandlers:
            if self._handlers is None:  # pragma: no cover - tasks run on workers, started with them
                raise RuntimeError("a job ran on a queue whose workers were not started")
            return self._handlers

        @self.app.task(
            name="yamen.bot_turn",
            retry=procrastinate.RetryStrategy(max_attempts=10, wait=1, exponential_wait=2),
        )
        async def bot_turn(game_id: str) -> None:
            await handlers().play(game_id)

        @self.app.task(
            name="yamen.deadline",
            retry=procrastinate.RetryStrategy(max_attempts=10, wait=1, exponential_wait=2),
        )
        async def deadline_task(game_id: str, seat: int, since_ms: int) -> None:
            if (deadline := handlers().deadline) is not None:
                await deadline(game_id, seat, since_ms)

        @self.app.periodic(cron=SWEEP_CRON, periodic_id="sweep")
        @self.app.task(name="yamen.sweep", queueing_lock="yamen.sweep")
        async def sweep(timestamp: int) -> None:
            manager, do = self.app.job_manager, handlers()
            for job in await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_SECONDS):
                # A dead worker's job is closed (which frees its game's lock) rather than retried: a
                # bot turn is asked for again below, and one may already wait under the same
                # queueing lock (a retry would collide with it and leave the game locked).
                log.warning("job_stalled", job_id=job.id, task=job.task_name)
                try:
                    await manager.finish_job(job, status=procrastinate.jobs.Status.FAILED, delete_job=False)
                except Exception as exc:  # noqa: BLE001 - the next sweep tries again
                    log.warning("job_not_closed", job_id=job.id, error=str(exc))
            for game_id in await do.games_with_bots():
                await self.bot_turn(game_id)
            if do.clocked_games is not None and do.reschedule is not None:
                for game_id in await do.clocked_games():
                    await do.reschedule(game_id)
            for swept in (do.webhook_sweep, do.ratings_sweep, do.seek_sweep, do.push_sweep):
                if swept is not None:
                    await swept()

        @self.app.task(name="yamen.webhook_pump")
        async def webhook_pump(game_id: str) -> None:
            if (pump := handlers().pump) is not None:
                await pump(game_id)

        @self.app.task(name="yamen.webhook_delivery", queue=WEBHOOK_QUEUE)
        async def webhook_delivery(endpoint_id: str, game_id: str) -> None:
            if (deliver := handlers().deliver) is not None:
                await deliver(endpoint_id, game_id)

        @self.app.task(
            name="yamen.rate_game",
            # A deadlock between two games' row locks (Postgres aborts one) is worth another try.
            retry=procrastinate.RetryStrategy(max_attempts=10, wait=1, exponential_wait=2),
        )
        async def rate_game(game_id: str) -> None:
            if (rate := handlers().rate) is not None:
                await rate(game_id)

        @self.app.task(
            name="yamen.match",
            # A lost connection mid-step rolled the whole step back: run it again.
            retry=procrastinate.RetryStrategy(max_attempts=5, wait=1, exponential_wait=2),
        )
        async def match_task(pool: str, kind: str) -> None:
            if (match := handlers().match) is not None:
                await match(pool, kind)

        @self.app.task(name="yamen.match_later")
        async def match_later(pool: str, kind: str) -> None:
            await self.match(pool, kind)

        @self.app.task(name="yamen.push", queue=PUSH_QUEUE)
        async def push_task(game_id: str) -> None:
            if (push := handlers().push) is not None:
                await push(game_id)

        @self.app.task(name="yamen.push_later", queue=PUSH_QUEUE)
        async def push_later(game_id: str) -> None:
            await self.push(game_id)

        self._push = push_task
        self._push_later = push_later
        self._match = match_task
        self._match_later = match_later
        self._bot_turn = bot_turn
        self._rate_game = rate_game
        self._deadline = deadline_task
        self._webhook_pump = webhook_pump
        self._webhook_delivery = webhook_delivery

    async def open(self) -> None:
        await self.app.open_async()

    def start_worker(self, handlers: JobHandlers) -> None:
        """Take jobs in this process (every worker of every replica does), doing what *handlers*
        say: the default queue's, and the webhook deliveries' and pushes' on workers of their own
        (no push workers while push is off)."""
        self._handlers = handlers
        self._workers = [
            asyncio.create_task(
                self._keep_working(["default"], self.concurrency, "yamen"), name="yamen-jobs"
            ),
            asyncio.create_task(
                self._keep_working([WEBHOOK_QUEUE], self.webhook_concurrency, "yamen-webhooks"),
                name="yamen-webhooks",
            ),
        ]
        if handlers.push is not None:
            self._workers.append(
                asyncio.create_task(
                    self._keep_working([PUSH_QUEUE], self.push_concurrency, "yamen-push"), name="yamen-push"
                )
            )

    async def _keep_working(self, queues: list[str], concurrency: int, name: str) -> None:
        """Run Procrastinate's worker on *queues*, and run it again whenever it stops: a Postgres
        restart or failover ends it (its listener and its heartbeat lose their connections), and a
        process whose worker has stopped would never again take a bot turn or a deadline."""
        while True:
            try:
                await self.app.run_worker_async(
                    queues=queues,
                    concurrency=concurrency,
                    install_signal_handlers=False,
                    update_heartbeat_interval=HEARTBEAT_SECONDS,
                    stalled_worker_timeout=STALLED_SECONDS,
                    delete_jobs="successful",
                    fetch_job_polling_interval=POLL_SECONDS,
                    name=name,
                )
                log.warning("jobs_worker_stopped", worker=name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever stopped it, take jobs again
                log.warning(
                    "jobs_worker_failed", worker=name, error=" ".join(f"{type(exc).__name__}: {exc}".split())
                )
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

    async def webhook_pump(self, game_id: str) -> None:
        """Queue the webhook pump of *game_id* (nothing if one is already waiting)."""
        with contextlib.suppress(AlreadyEnqueued):
            key = f"webhooks:{game_id}"
            await self._webhook_pump.configure(lock=key, queueing_lock=key).defer_async(game_id=game_id)

    async def match(self, pool: str, kind: str, *, delay: float | None = None) -> None:
        """Queue the matcher of *pool*'s seeks of *kind* (nothing if one is already waiting); with
        *delay*, at that many seconds from now (when a seek's window widens or its bots are due), by
        a job that then queues it (so a matcher scheduled later never holds back the pool's lock)."""
        key = f"seeks:{pool}:{kind}"
        with contextlib.suppress(AlreadyEnqueued):
            if delay is None:
                await self._match.configure(lock=key, queueing_lock=key).defer_async(pool=pool, kind=kind)
                return
            at = datetime.now(UTC) + timedelta(seconds=max(0.0, delay))
            await self._match_later.configure(
                schedule_at=at, queueing_lock=f"{key}@{int(at.timestamp())}"
            ).defer_async(pool=pool, kind=kind)

    async def push(self, game_id: str, *, at: datetime | None = None) -> None:
        """Queue the Web Push job of *game_id* (nothing if one is already waiting); with *at*, at
        that time, by a job that then queues it (a retry scheduled later never holds back the
        game's next "your turn")."""
        key = f"push:{game_id}"
        with contextlib.suppress(AlreadyEnqueued):
            if at is None:
                await self._push.configure(lock=key, queueing_lock=key).defer_async(game_id=game_id)
                return
            await self._push_later.configure(
                schedule_at=at, queueing_lock=f"{key}@{int(at.timestamp())}"
            ).defer_async(game_id=game_id)

    async def rate_game(self, game_id: str) -> None:
        """Queue the rating of the finished *game_id* (nothing if one is already waiting)."""
        with contextlib.suppress(AlreadyEnqueued):
            key = f"rating:{game_id}"
            await self._rate_game.configure(lock=key, queueing_lock=key).defer_async(game_id=game_id)

    async def webhook_delivery(
        self, endpoint_id: str, game_id: str, *, at: datetime | None = None, bring_forward: bool = False
    ) -> None:
        """Queue the sending of *game_id*'s deliveries to *endpoint_id*, at *at* (now if None).  One
        waiting already stands for this one — unless *bring_forward*, when a waiting one scheduled
        later (a retry's) is cancelled for one now (an endpoint enabled again, a redelivery)."""
        key = f"webhook:{endpoint_id}:{game_id}"
        deferrer = self._webhook_delivery.configure(lock=key, queueing_lock=key, schedule_at=at)
        try:
            await deferrer.defer_async(endpoint_id=endpoint_id, game_id=game_id)
            return
        except AlreadyEnqueued:
            if not bring_forward:
                return
        manager = self.app.job_manager
        now = datetime.now(UTC)
        for job in await manager.list_jobs_async(queueing_lock=key, status="todo"):
            if job.id is not None and job.scheduled_at is not None and job.scheduled_at > now:
                await manager.cancel_job_by_id_async(job.id, delete_job=True)
        with contextlib.suppress(AlreadyEnqueued):
            await deferrer.defer_async(endpoint_id=endpoint_id, game_id=game_id)

    async def close(self) -> None:
        for worker in self._workers:
            worker.cancel()
        if self._workers:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.gather(*self._workers, return_exceptions=True), timeout=10)
        await self.app.close_async()

"""Faults under load: each test starts ``yamen serve --workers 2`` on the suite's own Postgres and
Redis, drives bounded load, injects one fault, and checks what the clients saw and what was stored.

The method and the bounds are in docs/reliability.md; the table of the last full run is written
there (and printed: ``pytest tests/faults -m slow -s``).  A failing check names itself, with the
numbers and the directory of the service's logs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from service.infra.notices import CHANNEL
from tests.processes import HarnessError, Service, wait_for

from .harness import SPECS, Env, Injected, run_fault
from .report import RECOVERY_BOUND, RESPAWN_BOUND, STALE_BOUND, Check, Outcome

pytestmark = pytest.mark.slow

REDIS_DOWN = 7.0
POSTGRES_DOWN = 5.0
POSTGRES_LONG_DOWN = 9.0
"""Long enough for a reconnect backoff that doubles (1, 2, 4, 8 s…) to show: its retries fall
about 7 and 15 s into the outage, and Postgres returns about 10 s in, between them."""
RESTART_GIVE_UP = 90.0
"""How long the harness keeps trying to start ``yamen serve`` again on its port (a refused start
is reported; this only keeps the rest of the run meaningful)."""


def _report(outcome: Outcome) -> None:
    print("\n" + outcome.row() + "\n" + outcome.details())
    assert outcome.ok, outcome.details()


async def _resubscribed(env: Env, service: Service) -> tuple[float | None, Check]:
    back = await wait_for(lambda: env.redis.subscribers(CHANNEL) >= service.workers, RECOVERY_BOUND)
    return back, Check(
        f"every worker subscribed to the notice board again within {RECOVERY_BOUND:g} s",
        back is not None,
        f"{env.redis.subscribers(CHANNEL)} subscriber(s) on {CHANNEL}",
    )


async def test_redis_killed_and_restarted(env: Env) -> None:
    async def inject(env: Env, service: Service) -> Injected:
        await asyncio.to_thread(env.redis.kill)
        await asyncio.sleep(REDIS_DOWN)
        await asyncio.to_thread(env.redis.start)
        restored = time.monotonic()
        back, check = await _resubscribed(env, service)
        extra = {"notice board re-subscribed after": f"{back - restored:.2f} s" if back else "never"}
        return Injected(restored, [check], extra)

    _report(await run_fault(env, SPECS["redis_kill"], inject))


def _postgres_down_for(seconds: float):
    async def inject(env: Env, service: Service) -> Injected:
        await asyncio.to_thread(env.postgres.stop_immediate)
        await asyncio.sleep(seconds)
        # start() returns once Postgres accepts connections: the return, from which the first
        # acknowledged move is timed.
        await asyncio.to_thread(env.postgres.start)
        return Injected(time.monotonic())

    return inject


async def test_postgres_stopped_immediately_and_started(env: Env) -> None:
    _report(await run_fault(env, SPECS["postgres_stop"], _postgres_down_for(POSTGRES_DOWN)))


async def test_postgres_stopped_for_longer(env: Env) -> None:
    _report(await run_fault(env, SPECS["postgres_long_stop"], _postgres_down_for(POSTGRES_LONG_DOWN)))


async def test_worker_killed(env: Env) -> None:
    async def inject(env: Env, service: Service) -> Injected:
        before = service.worker_pids()
        victim = before[0]
        os.kill(victim, signal.SIGKILL)  # a child of the yamen serve this test started
        killed = time.monotonic()

        def spawned() -> bool:
            now = service.worker_pids()
            return len(now) == service.workers and victim not in now

        # The new worker subscribes to the notice board when its app has started: the number of
        # subscribers drops with the killed worker's connection and is whole again once the
        # replacement is ready to serve.
        await wait_for(lambda: env.redis.subscribers(CHANNEL) < service.workers, 2.0)
        process = await wait_for(spawned, RESPAWN_BOUND)
        ready = await wait_for(
            lambda: spawned() and env.redis.subscribers(CHANNEL) >= service.workers,
            max(0.1, killed + RESPAWN_BOUND - time.monotonic()),
        )
        check = Check(
            f"the killed worker was replaced, and the new one serving, within {RESPAWN_BOUND:g} s",
            ready is not None,
            f"workers before {before}, now {service.worker_pids()}; "
            f"{env.redis.subscribers(CHANNEL)} subscriber(s) on {CHANNEL}",
        )
        extra = {
            "killed worker": victim,
            "new worker process after": f"{process - killed:.2f} s" if process else "never",
            "new worker subscribed (serving) after": f"{ready - killed:.2f} s" if ready else "never",
        }
        return Injected(ready or time.monotonic(), [check], extra)

    _report(await run_fault(env, SPECS["worker_kill"], inject))


async def test_pubsub_connections_killed(env: Env) -> None:
    async def inject(env: Env, service: Service) -> Injected:
        killed_at = time.monotonic()
        killed = await asyncio.to_thread(env.redis.command, "CLIENT", "KILL", "TYPE", "pubsub")
        back, check = await _resubscribed(env, service)
        checks = [
            Check(
                "the kill hit every worker's subscription",
                killed == service.workers,
                f"{killed} connection(s) killed",
            ),
            check,
        ]
        extra = {"re-subscribed after": f"{back - killed_at:.2f} s" if back else "never"}
        return Injected(back or time.monotonic(), checks, extra)

    _report(await run_fault(env, SPECS["pubsub_kill"], inject))


async def test_service_restarted(env: Env) -> None:
    async def inject(env: Env, service: Service) -> Injected:
        t0 = time.monotonic()
        graceful = await asyncio.to_thread(service.terminate)
        stopped = time.monotonic()
        first_spawn: float | None = None
        refused: list[str] = []
        # the return is the first start, right after the old process group has gone
        while True:
            await asyncio.to_thread(service.spawn)
            first_spawn = first_spawn or time.monotonic()
            try:
                await asyncio.to_thread(service.wait_serving)
                break
            except HarnessError:
                refused.append(f"+{time.monotonic() - stopped:.1f} s: {service.log_tail(1).strip()}")
                if len(refused) > 1:  # the first refused start's log is kept; the rest say the same
                    service.logs.pop().unlink(missing_ok=True)
                if time.monotonic() - stopped > RESTART_GIVE_UP:
                    raise
                await asyncio.sleep(1.0)
        serving = time.monotonic()
        checks = [
            Check("stopped by SIGTERM within 30 s (no SIGKILL needed)", graceful, f"{stopped - t0:.2f} s"),
            Check(
                "started again on its port at the first attempt",
                not refused,
                f"{len(refused)} refused start(s), first: {refused[0] if refused else ''}",
            ),
        ]
        extra = {
            "stopped after SIGTERM": f"{stopped - t0:.2f} s",
            "serving again after the first start": f"{serving - first_spawn:.2f} s",
            "refused starts": len(refused),
        }
        assert first_spawn is not None
        return Injected(first_spawn, checks, extra, settled_at=serving)

    _report(await run_fault(env, SPECS["service_restart"], inject))


def test_stated_staleness_bound_is_the_service_trust_window() -> None:
    """The suite asserts reads trail acknowledged moves by at most STALE_BOUND: the service's
    TRUST_SECONDS (how long a remembered state answers reads without asking Postgres) must not
    exceed it."""
    from service.application.states import TRUST_SECONDS

    assert TRUST_SECONDS <= STALE_BOUND

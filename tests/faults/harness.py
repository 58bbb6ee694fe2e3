"""One fault run: a fresh database and ``yamen serve`` on the suite's Postgres and Redis, bounded
load, the fault injected under it, then the audit and the checks (:mod:`tests.faults.report`)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tests.processes import Postgres, RedisServer, Service, machine

from .audit import audit
from .load import PROBE_SECONDS, Load
from .processes import RunDir, connection_owner
from .report import FIRST_MOVE_BOUND, Check, Outcome, Spec

SPECS = {
    s.name: s
    for s in (
        Spec("redis_kill", "Redis SIGKILL, restarted on the same port", "none", keeps_answering=True),
        Spec(
            "postgres_stop",
            "Postgres `pg_ctl stop -m immediate`, started again 5 s later",
            "none",
            keeps_answering=False,
            first_move_bound=FIRST_MOVE_BOUND,
        ),
        Spec(
            "postgres_long_stop",
            "Postgres `pg_ctl stop -m immediate`, started again 9 s later",
            "none",
            keeps_answering=False,
            first_move_bound=FIRST_MOVE_BOUND,
        ),
        Spec("worker_kill", "one granian worker SIGKILLed", "per-connection", keeps_answering=True),
        Spec("pubsub_kill", "`CLIENT KILL TYPE pubsub` on Redis", "none", keeps_answering=True),
        Spec(
            "service_restart",
            "`yamen serve` SIGTERMed and started again on its port",
            "any",
            keeps_answering=False,
        ),
    )
}
"""The faults, in the order of the table."""

CLIENTS = 12
BEFORE = 6.0
"""Seconds of load before the fault."""
AFTER = 15.0
"""Seconds of load after the dependency's return (longer than RECOVERY_BOUND, so that the end of
the run shows whether failures stopped)."""


@dataclass
class Env:
    """The suite's disposable Postgres and Redis (one of each for the whole module)."""

    run: RunDir
    postgres: Postgres
    redis: RedisServer
    services: list[Service] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    _serial: itertools.count = field(default_factory=itertools.count)

    def ensure_up(self) -> None:
        """Bring back whatever an earlier test left down (a failed fault must not cascade)."""
        if not self.postgres.running:
            self.postgres.start()
        if not self.redis.running:
            self.redis.start()

    def machine(self) -> dict[str, object]:
        settings = self.postgres.settings()
        return {
            **machine(),
            "postgres": settings["server_version"],
            "postgres_fsync": settings["fsync"],
            "postgres_synchronous_commit": settings["synchronous_commit"],
            "redis": self.redis.version(),
            "clients": CLIENTS,
            "probe_seconds": PROBE_SECONDS,
        }

    def new_service(self, name: str, **kwargs: object) -> Service:
        self.ensure_up()
        url = self.postgres.create_database(f"faults_{name}_{next(self._serial)}")
        env = {"DATABASE_URL": url, "REDIS_URL": self.redis.url}
        service = Service(self.run, name, env, **kwargs)  # type: ignore[arg-type]
        self.services.append(service)  # stopped by the fixture, whatever happens
        service.migrate()
        return service.start()

    def stop_services(self) -> None:
        while self.services:
            self.services.pop().stop()


@dataclass
class Injected:
    """What an injection reports: when the dependency was back, fault-specific checks and figures."""

    restored_at: float
    checks: list[Check] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)
    settled_at: float | None = None
    """When the service was whole again, if later than the return (the load runs AFTER seconds past
    it, so that the run also shows the service after its recovery)."""


Inject = Callable[[Env, Service], Awaitable[Injected]]


async def run_fault(env: Env, spec: Spec, inject: Inject) -> Outcome:
    service = await asyncio.to_thread(env.new_service, spec.name)
    workers_at_start = service.worker_pids()
    load = Load(
        service.host,
        service.port,
        clients=CLIENTS,
        seed=len(env.outcomes) + 1,
        name=spec.name,
        owner=lambda client_port: connection_owner(service.port, client_port, service.worker_pids()),
    )
    load.start()
    try:
        await asyncio.sleep(BEFORE)
        fault_at = time.monotonic()
        injected = await inject(env, service)
        settled = max(injected.restored_at, injected.settled_at or 0.0)
        await asyncio.sleep(max(0.0, settled + AFTER - time.monotonic()))
    finally:
        await load.stop()
    ended_at = load.stopped_at
    extra = {
        "outage (fault to return)": f"{injected.restored_at - fault_at:.2f} s",
        "workers at start / at end": f"{workers_at_start} / {service.worker_pids()}",
        **injected.extra,
    }
    checks = list(injected.checks)
    alive = service.proc is not None and service.proc.poll() is None
    checks.append(Check("yamen serve still running at the end", alive, f"exit code {service.proc.poll()}"))
    checks.append(
        Check(
            f"{service.workers} workers serving at the end",
            len(service.worker_pids()) == service.workers,
            f"workers: {service.worker_pids()}",
        )
    )
    if spec.name not in ("worker_kill", "service_restart"):
        checks.append(
            Check(
                "no worker died (the same worker processes at the end)",
                service.worker_pids() == workers_at_start,
                f"{workers_at_start} -> {service.worker_pids()}",
            )
        )
    result = await audit(service.base, load.ledger)
    outcome = Outcome(
        spec=spec,
        fault_at=fault_at,
        restored_at=injected.restored_at,
        ended_at=ended_at,
        clients=CLIENTS,
        connections=load.connections,
        ledger=load.ledger,
        audit=result,
        extra=extra,
        extra_checks=checks,
        logs=list(service.logs),
        log_dir=env.run.logs,
        settled_at=injected.settled_at,
    )
    outcome.evaluate()
    env.outcomes.append(outcome)
    return outcome

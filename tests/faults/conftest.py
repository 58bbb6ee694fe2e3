"""The fault suite's disposable Postgres and Redis, and the table it leaves in docs/reliability.md."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.processes import HarnessError, Postgres, RedisServer

from .harness import SPECS, Env
from .processes import RunDir
from .report import render, write_docs


@pytest.fixture(scope="session")
def fault_env() -> Iterator[Env]:
    run = RunDir()
    postgres: Postgres | None = None
    redis: RedisServer | None = None
    env: Env | None = None
    try:
        try:
            postgres = Postgres(run).init()
            postgres.start()
            redis = RedisServer(run)
            redis.start()
        except HarnessError as exc:
            pytest.fail(f"fault suite setup: {exc} (logs: {run.logs})")  # never a skip
        env = Env(run, postgres, redis)
        machine = env.machine()
        yield env
    finally:
        if env is not None:
            env.stop_services()
        if redis is not None:
            redis.stop()
            redis.remove()
        if postgres is not None:
            postgres.stop()
            postgres.remove()
    if env is not None and env.outcomes:
        order = list(SPECS)
        outcomes = sorted(env.outcomes, key=lambda o: order.index(o.spec.name))
        block = render(outcomes, machine)
        print("\n" + block + f"\n\nlogs: {run.logs}")
        if {o.spec.name for o in outcomes} >= set(SPECS):
            write_docs(block)
            print("docs/reliability.md updated")
        else:
            print("docs/reliability.md not updated: not every fault ran")


@pytest.fixture
def env(fault_env: Env) -> Iterator[Env]:
    """The suite's Env, with this test's services stopped afterwards, whatever happened."""
    try:
        yield fault_env
    finally:
        fault_env.stop_services()

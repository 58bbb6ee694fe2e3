"""Real Postgres and Redis for every test that needs them (never mocks of our own infrastructure).

A fresh database is created per test session on the Postgres at ``YAMEN_TEST_PG`` (default
127.0.0.1:5432, user postgres) and dropped afterwards.  If the server is missing the tests fail:
they never skip.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from domain.kernel import Game
from service.infra.logging import write_access_lines_at_once
from tests.fixture_game import GAME as BLUFF
from tests.servers import REDIS_URL, fresh_database

# A request's access line is written when it is logged, into the output pytest captured for the
# test that made it (tests/infra/test_access_lines.py and the servers the tests start buffer them).
write_access_lines_at_once()


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    with fresh_database("yamen_test_") as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> str:
    return REDIS_URL


@pytest.fixture(scope="session")
async def store(database_url: str) -> AsyncIterator:
    from service.infra.store import EventStore

    the_store = EventStore(database_url, max_size=20)
    await the_store.open()
    await the_store.migrate()
    yield the_store
    await the_store.close()


def test_games() -> dict[str, Game]:
    """The games every API test app serves: production games plus the fixture."""
    from domain.registry import production_games

    return {**production_games(), BLUFF.kind: BLUFF}


test_games.__test__ = False  # type: ignore[attr-defined]


def make_app(
    database_url: str,
    redis_url: str | None,
    games: dict[str, Game] | None = None,
    *,
    notices: bool = True,
    batch_appends: bool = True,
    **settings: Any,
):
    """The real app, owning its Postgres pool and Redis client (created on the app's own loop)."""
    from service.http.app import create_app
    from service.settings import Settings

    return create_app(
        games if games is not None else test_games(),
        settings=Settings(
            database_url=database_url,
            redis_url=redis_url,
            log_format="json",
            auto_migrate=True,
            pool_size=8,
            notices=notices,
            batch_appends=batch_appends,
            **settings,
        ),
    )


@pytest.fixture(scope="session")
async def client(database_url: str, redis_url: str) -> AsyncIterator:
    from litestar.testing import AsyncTestClient

    async with AsyncTestClient(app=make_app(database_url, redis_url)) as test_client:
        yield test_client

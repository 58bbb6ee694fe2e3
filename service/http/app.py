"""The Litestar application: ``create_app`` wires the controllers to one application service.

::

    request -> AccessLogMiddleware -> controller (service.http.controllers)
            -> dependencies: the application's part, the caller's seat (service.http.dependencies)
            -> application (service.application) -> domain / store / cache
            -> answer; a refusal becomes problem+json (service.http.problems)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
from litestar import Litestar, Request, Response, post
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.params import JSONBody

from domain.kernel import Game
from domain.registry import production_games

from ..application import Application
from ..infra.cache import MemorySnapshotCache, RedisSnapshotCache, SnapshotCache
from ..infra.jobs import JobQueue
from ..infra.logging import AccessLogMiddleware, configure_logging
from ..infra.notices import NoticeBoard
from ..infra.standby import SERVED_LAG, Standby
from ..infra.store import EventStore
from ..settings import Settings
from .contract import signature_namespace
from .controllers import CONTROLLERS
from .controllers.responses import STANDBY_LAG
from .dependencies import ApplicationSlot, dependencies
from .limits import (
    MAX_BODY_BYTES,
    BodyTimeoutMiddleware,
    cors_config,
    parse_proxies,
    parse_rate_limit,
    rate_limit_config,
    rate_limit_store,
)
from .openapi import finish_openapi
from .problems import EXCEPTION_HANDLERS

log = structlog.get_logger("yamen.app")

API_VERSION = "1.0.0"
DESCRIPTION = (
    "Yamen judges every move and keeps the record. Create a game, take or claim seats, read the game "
    "as your seat may see it, list your legal moves, submit moves, and read the redacted event history. "
    "Errors are RFC 9457 problem+json with a stable `code`."
)


@post("/bench/echo", include_in_schema=False, status_code=200)
async def bench_echo(data: JSONBody[dict[str, Any]]) -> dict[str, Any]:
    """The framework's ceiling for the benchmark: decode a JSON body and encode it back."""
    return data


def _fresh_request(request: Request) -> None:
    SERVED_LAG.set(None)


async def _report_standby_lag(response: Response) -> Response:
    """``Standby-Lag-Ms`` on an answer the standby gave (:mod:`service.infra.standby`)."""
    lag = SERVED_LAG.get()
    if lag is not None:
        response.headers[STANDBY_LAG] = str(lag)
    return response


def snapshot_cache(settings: Settings) -> SnapshotCache:
    """Redis (one server, or a cluster's seed nodes) when configured, else an in-process LRU."""
    if settings.redis_cluster_nodes:
        return RedisSnapshotCache(
            cluster_nodes=settings.redis_cluster_nodes, password=settings.redis_password
        )
    if settings.redis_url:
        return RedisSnapshotCache(settings.redis_url)
    return MemorySnapshotCache()


def create_app(
    games: dict[str, Game] | None = None,
    *,
    settings: Settings | None = None,
    store: EventStore | None = None,
    cache: SnapshotCache | None = None,
) -> Litestar:
    """The app serving *games* (the production titles by default).  It opens its own Postgres pool,
    snapshot cache and notice board at start-up unless *store* / *cache* are given."""
    settings = settings or Settings.from_env()
    games = games if games is not None else production_games()
    configure_logging(settings.log_format)
    slot = ApplicationSlot()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        own_store, own_cache = store is None, cache is None
        the_store = store or EventStore(
            _require_db(settings),
            max_size=settings.pool_size,
            timeout=settings.pg_timeout,
            batch_appends=settings.batch_appends,
        )
        the_cache: SnapshotCache = cache or snapshot_cache(settings)
        if own_store:
            await the_store.open()
            if settings.auto_migrate:
                await the_store.migrate()
        application = Application(games, the_store, the_cache, snapshot_every=settings.snapshot_every)
        board = None
        standby = None
        if settings.standby_url:
            standby = Standby(settings.standby_url, max_lag_ms=settings.standby_max_lag_ms)
            await standby.open()
            application.attach_standby(standby)
        if settings.notices and isinstance(the_cache, RedisSnapshotCache):
            board = NoticeBoard(
                the_cache.url,
                locate=the_cache.notice_master if the_cache.cluster else None,
                password=settings.redis_password,
            )
            board.on_live = the_cache.reachable
            application.attach_board(board)
            await board.start()
        # Every process queues bot turns; those with YAMEN_JOBS on (the default) also take them.
        queue = JobQueue(
            the_store.url,
            play=application.bots.play,
            games_with_bots=the_store.games_with_bots,
            deadline=application.bots.deadline,
            clocked_games=the_store.games_with_clocks,
            reschedule=application.bots.reschedule,
        )
        await queue.open()
        if settings.jobs:
            queue.start_worker()
        application.bots.queue = queue
        app.state.application = slot.application = application
        log.info(
            "started", games=sorted(games), cache=the_cache.name, notices=board is not None and board.live
        )
        try:
            yield
        finally:
            await queue.close()
            if board is not None:
                await board.close()
            if standby is not None:
                await standby.close()
            if own_store:
                await the_store.close()
            if own_cache:
                await the_cache.close()

    documents: dict[str, Any] = {}

    def openapi_document(app: Litestar) -> dict[str, Any]:
        if "doc" not in documents:
            documents["doc"] = finish_openapi(app.openapi_schema.to_schema(), games)
        return documents["doc"]

    limit = parse_rate_limit(settings.rate_limit)
    middleware = [
        DefineMiddleware(AccessLogMiddleware, write_lines=settings.access_log),
        DefineMiddleware(BodyTimeoutMiddleware, seconds=settings.body_timeout),
    ]
    if limit is not None:
        middleware.append(rate_limit_config(limit, parse_proxies(settings.trusted_proxies)).middleware)
    app = Litestar(
        route_handlers=[*CONTROLLERS, *([bench_echo] if settings.bench_echo else [])],
        before_request=_fresh_request if settings.standby_url else None,
        after_request=_report_standby_lag if settings.standby_url else None,
        dependencies=dependencies(slot),
        signature_namespace=signature_namespace(games),
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        middleware=middleware,
        stores={"rate_limit": rate_limit_store(settings)},
        request_max_body_size=MAX_BODY_BYTES,
        cors_config=cors_config(settings.cors_origins),
        openapi_config=OpenAPIConfig(
            title="Yamen", version=API_VERSION, description=DESCRIPTION, path="/schema", render_plugins=[]
        ),
        logging_config=None,
        debug=False,
    )
    app.state.openapi_document = openapi_document
    return app


def _require_db(settings: Settings) -> str:
    if not settings.database_url:
        raise RuntimeError("DATABASE_URL is not set (use `yamen serve`, which starts an embedded Postgres)")
    return settings.database_url

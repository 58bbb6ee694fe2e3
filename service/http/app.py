"""The Litestar application: ``create_app`` wires the controllers to one application service.

::

    request -> AccessLogMiddleware (around all of Litestar) -> controller (service.http.controllers)
            -> dependencies: the application's part, the caller's seat (service.http.dependencies)
            -> application (service.application) -> domain / store / cache
            -> answer; a refusal becomes problem+json (service.http.problems)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import structlog
from litestar import Litestar, Request, Response, post
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.params import JSONBody

from domain.kernel import Game
from domain.registry import production_games

from ..application import Application
from ..application.apps import AppDefaults
from ..application.push import PushSettings
from ..application.webhooks import WebhookSettings
from ..infra.cache import MemorySnapshotCache, RedisSnapshotCache, SnapshotCache, cluster_tls
from ..infra.jobs import JobQueue
from ..infra.logging import ACCESS_LINES, AccessLogMiddleware, configure_logging
from ..infra.notices import NoticeBoard
from ..infra.standby import SERVED_LAG, Standby
from ..infra.store import EventStore
from ..settings import Settings
from .compression import compression_config
from .contract import signature_namespace
from .controllers import CONTROLLERS
from .controllers.responses import STANDBY_LAG, stamp_server_time
from .dependencies import ApplicationSlot, GameAccess, dependencies
from .limits import (
    MAX_BODY_BYTES,
    BodyTimeoutMiddleware,
    CallerLimitMiddleware,
    cors_config,
    parse_proxies,
    parse_rate_limit,
    rate_counters,
)
from .openapi import finish_openapi, render_plugins
from .problems import EXCEPTION_HANDLERS
from .realtime import asyncapi_json, realtime_hub, realtime_socket
from .shutdown import on_stop_signal
from .strict import strict_body

log = structlog.get_logger("yamen.app")

API_VERSION = "1.0.0"
SOCKETS_CLOSE_SECONDS = 2.0
"""How long a stopping worker waits for its sockets to send their close frames (each waits up to a
second for what it has queued, then up to a second for the frame)."""
DESCRIPTION = (
    "Yamen judges every move and keeps the record. Create a game, take or claim seats, read the game "
    "as your seat may see it, list your legal moves, submit moves, and read the redacted event history. "
    "Errors are RFC 9457 problem+json with a stable `code`."
)


@post("/bench/echo", include_in_schema=False, status_code=200)
async def bench_echo(data: JSONBody[dict[str, Any]]) -> dict[str, Any]:
    """The framework's ceiling for the benchmark: decode a JSON body and encode it back."""
    return data


def _fresh_request(request: Request[Any, Any, Any]) -> None:
    SERVED_LAG.set(None)


async def _before_standby_request(request: Request[Any, Any, Any]) -> None:
    _fresh_request(request)
    await strict_body(request)


async def _report_standby_lag(response: Response[Any]) -> Response[Any]:
    """``Standby-Lag-Ms`` on an answer the standby gave (:mod:`service.infra.standby`)."""
    lag = SERVED_LAG.get()
    if lag is not None:
        response.headers[STANDBY_LAG] = str(lag)
    return response


def snapshot_cache(settings: Settings) -> SnapshotCache:
    """Redis (one server, or a cluster's seed nodes) when configured, else an in-process LRU."""
    if settings.redis_cluster_nodes:
        return RedisSnapshotCache(
            cluster_nodes=settings.redis_cluster_nodes,
            password=settings.redis_password,
            tls=cluster_tls(settings.redis_cluster_tls),
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
        board = None
        standby = None
        if settings.standby_url:
            standby = Standby(settings.standby_url, max_lag_ms=settings.standby_max_lag_ms)
            await standby.open()
        if settings.notices and isinstance(the_cache, RedisSnapshotCache):
            board = NoticeBoard(
                the_cache.url,
                locate=the_cache.notice_master if the_cache.cluster else None,
                password=settings.redis_password,
                tls=the_cache.notice_tls(),
            )
            board.on_live(the_cache.reachable)  # Redis answers again: post notices at once
        # Every process queues jobs (bot turns, webhooks, ratings, the matcher, pushes); those with
        # YAMEN_JOBS on (the default) also take them, doing what the application's handlers say.
        queue = JobQueue(the_store.url, webhook_concurrency=settings.webhook_concurrency)
        await queue.open()
        application = Application(
            games,
            the_store,
            the_cache,
            snapshot_every=settings.snapshot_every,
            app_defaults=AppDefaults(
                requests_per_minute=settings.app_requests_per_minute,
                games_per_day=settings.app_games_per_day,
                concurrent_games=settings.app_concurrent_games,
            ),
            assertion_audience=settings.assertion_audience,
            webhooks=WebhookSettings(
                backoff=settings.webhook_backoff,
                allow_private=settings.webhook_allow_private,
                retention=timedelta(days=settings.webhook_retention_days),
            ),
            push=PushSettings(
                private_key=settings.vapid_private_key,
                subject=settings.vapid_subject,
                backoff=settings.push_backoff,
                allow_private=settings.webhook_allow_private,
            ),
            board=board,
            standby=standby,
            queue=queue,
        )
        if board is not None:
            await board.start()
        if settings.jobs:
            queue.start_worker(application.job_handlers())
        app.state.application = slot.application = application
        # The server waits for every open request before it stops: live feeds and long polls end
        # when it is told to, and sockets close with 1001 (service.http.realtime); the server hears
        # the signal once they have (service.http.shutdown).
        realtime = app.state.realtime = realtime_hub(application, settings, counters)

        async def stop_serving() -> None:
            application.reads.stop_following()
            realtime.stop()
            await realtime.closed(SOCKETS_CLOSE_SECONDS)

        unwatch = on_stop_signal(stop_serving, SOCKETS_CLOSE_SECONDS + 0.5)
        log.info(
            "started", games=sorted(games), cache=the_cache.name, notices=board is not None and board.live
        )
        try:
            yield
        finally:
            unwatch()
            # Every socket's close frame goes out before the worker exits (1001: reconnect, resume).
            realtime.stop()
            await realtime.closed(SOCKETS_CLOSE_SECONDS)
            await queue.close()
            await application.webhooks.close()
            await application.push.close()
            await application.ratings.close()
            if board is not None:
                await board.close()
            if standby is not None:
                await standby.close()
            if own_store:
                await the_store.close()
            if own_cache:
                await the_cache.close()
            ACCESS_LINES.flush()  # a worker exits without atexit: its last access lines go out now

    documents: dict[str, dict[str, Any]] = {}

    def openapi_document(app: Litestar) -> dict[str, Any]:
        if "doc" not in documents:
            documents["doc"] = finish_openapi(app.openapi_schema.to_schema(), games)
        return documents["doc"]

    counters = rate_counters(settings)
    """Where callers' requests are counted: apps' sockets count their messages there too."""
    middleware: list[DefineMiddleware | CallerLimitMiddleware] = [
        DefineMiddleware(BodyTimeoutMiddleware, seconds=settings.body_timeout),
        CallerLimitMiddleware(
            limit=parse_rate_limit(settings.rate_limit),
            counters=counters,
            trusted=parse_proxies(settings.trusted_proxies),
        ),
        DefineMiddleware(GameAccess),  # who may see a game: one check for every route with a {game_id}
    ]
    app = Litestar(
        route_handlers=[
            *CONTROLLERS,
            realtime_socket,
            asyncapi_json,
            *([bench_echo] if settings.bench_echo else []),
        ],
        before_request=_before_standby_request if settings.standby_url else strict_body,
        after_request=_report_standby_lag if settings.standby_url else None,
        before_send=[stamp_server_time],
        dependencies=dependencies(slot),
        signature_namespace=signature_namespace(games),
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=middleware,
        request_max_body_size=MAX_BODY_BYTES,
        cors_config=cors_config(settings.cors_origins),
        compression_config=compression_config(),
        openapi_config=OpenAPIConfig(
            title="Yamen",
            version=API_VERSION,
            description=DESCRIPTION,
            path="/schema",
            render_plugins=render_plugins(),  # every one of them the finished document
        ),
        logging_config=None,
        debug=False,
    )
    app.state.openapi_document = openapi_document
    app.state.admin_token = settings.admin_token  # None: no admin API (controllers.admin)
    app.state.realtime_origins = settings.cors_origins  # whose pages may open /v1/ws
    # The access log wraps the whole app, not the routes: Litestar answers an exception raised in a
    # middleware (the rate limit's 429), an unmatched route and a refused CORS preflight outside
    # every middleware given above, so only out here is each answer's real status seen.
    app.asgi_handler = AccessLogMiddleware(app.asgi_handler, write_lines=settings.access_log)
    return app


def _require_db(settings: Settings) -> str:
    if not settings.database_url:
        raise RuntimeError("DATABASE_URL is not set (use `yamen serve`, which starts an embedded Postgres)")
    return settings.database_url

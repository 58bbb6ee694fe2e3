"""The Litestar application: routes, the problem+json error map, lifespan and OpenAPI."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any, Optional

import msgspec
import structlog
from litestar import Litestar, Request, Response, get, post
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.params import HeaderParameter, JSONBody, RawBody, PathParameter, QueryParameter
from litestar.response import ServerSentEvent, Stream
from litestar.response.sse import ServerSentEventMessage

from domain.kernel import Game
from domain.registry import production_games

from .audit import Verification
from .cache import MemorySnapshotCache, RedisSnapshotCache, SnapshotCache
from .codec import json_encoder
from .games import GameService
from .logging import AccessLogMiddleware, configure_logging
from .metrics import METRICS
from .notices import NoticeBoard
from .openapi import finish_openapi
from .problems import Problem, ProblemDetails
from .schemas import (
    Catalogue,
    CatalogueEntry,
    ContractTypes,
    CreateGame,
    GameCreated,
    GameList,
    GameSummary,
    Health,
    Imported,
    Joined,
    contract_types,
)
from .settings import Settings
from .store import EventStore, StoreUnavailable

log = structlog.get_logger("yamen.app")

API_VERSION = "1.0.0"
JSON = "application/json"
NDJSON = "application/x-ndjson"
MAX_RECORD_BYTES = 64 * 1024 * 1024
PROBLEM = "application/problem+json"

GameId = Annotated[str, PathParameter(description="The game's id", max_length=64)]
Authorization = Annotated[
    Optional[str],
    HeaderParameter(name="Authorization", description="`Bearer <seat token>`; omit to act as a spectator", required=False),
]


def _json(body: bytes | Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    content = body if isinstance(body, bytes) else json_encoder.encode(body)
    return Response(content=content, status_code=status, media_type=JSON, headers=headers)


class _Versioned(msgspec.Struct):
    version: Optional[int] = None


_version_of = msgspec.json.Decoder(_Versioned)  # reads the version, skips the rest of the answer


def _etag(version: int) -> str:
    return f'"{version}"'


def _parse_version_header(value: str | None, name: str) -> int | None:
    if value is None:
        return None
    text = value.strip()
    if text.startswith("W/"):
        text = text[2:]
    text = text.strip('"')
    if not text.isdigit():
        raise Problem(400, "invalid_precondition", f"{name} must be a game version such as \"12\"")
    return int(text)


def _decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    try:
        stamp, _, game_id = cursor.partition("~")
        return datetime.fromisoformat(stamp), game_id
    except ValueError:
        raise Problem(400, "invalid_cursor", "the cursor is not one this API returned") from None


def build_handlers(types: ContractTypes, *, echo: bool = False) -> list:
    """Route handlers typed with this app's games (their commands, events and views)."""
    Command = types.command
    GameDocument = types.document
    LegalMoves = types.legal_moves
    MoveResult = types.move_result
    History = types.history

    @get("/healthz", tags=["operations"], summary="The process is up")
    async def healthz() -> Health:
        return Health(status="ok")

    @get("/readyz", tags=["operations"], summary="Postgres is reachable (Redis state reported)")
    async def readyz(request: Request) -> Response[Health]:
        service: GameService = request.app.state.service
        try:
            await service.store.ping()
            pg = "ok"
        except StoreUnavailable:
            pg = "unavailable"
        redis_state = await service.cache.status()
        health = Health(status="ok" if pg == "ok" else "unavailable", postgres=pg, redis=redis_state)
        return _json(health, 200 if pg == "ok" else 503)

    @get("/v1/catalogue", tags=["catalogue"], summary="The games hosted here, their player counts and options")
    async def catalogue(request: Request) -> Catalogue:
        service: GameService = request.app.state.service
        return Catalogue(
            games=[
                CatalogueEntry(
                    kind=g.kind,
                    title=g.title,
                    summary=g.summary,
                    rules_version=g.rules_version,
                    player_counts=list(g.player_counts),
                    options_schema=msgspec.json.schema(g.options_type),
                    variants=dict(g.variants),
                )
                for g in (service.games[k] for k in sorted(service.games))
            ]
        )

    @get(
        "/v1/catalogue/{kind:str}/components",
        tags=["catalogue"],
        summary="A game's component data (tiles, cards, tracks) for rendering; assumed values are marked",
    )
    async def components(request: Request, kind: Annotated[str, PathParameter(max_length=64)]) -> dict[str, Any]:
        service: GameService = request.app.state.service
        game, _ = service.game_of(kind)
        return msgspec.to_builtins(game.components())

    @get("/v1/games", tags=["games"], summary="Find games by kind and status, newest first")
    async def list_games(
        request: Request,
        kind: Annotated[Optional[str], QueryParameter(name="kind", required=False, max_length=64)] = None,
        status: Annotated[Optional[str], QueryParameter(name="status", required=False, pattern="^(open|active|finished)$")] = None,
        cursor: Annotated[Optional[str], QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> GameList:
        service: GameService = request.app.state.service
        rows = await service.store.list_games(kind, status, _decode_cursor(cursor), limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        summaries = []
        for row in rows:
            open_seats = [s for s, h in await service.store.seats(row.game_id) if h is None] if row.status == "open" else []
            summaries.append(
                GameSummary(
                    game_id=row.game_id, kind=row.kind, status=row.status, players=row.players,
                    open_seats=open_seats, version=row.version, created_at=row.created_at.isoformat(),
                )
            )
        next_cursor = f"{rows[-1].created_at.isoformat()}~{rows[-1].game_id}" if more and rows else None
        return GameList(games=summaries, next_cursor=next_cursor)

    @post("/v1/games", tags=["games"], summary="Create a game; returns the seat tokens taken now (shown once)", status_code=201)
    async def create_game(request: Request, data: JSONBody[CreateGame]) -> GameCreated:
        service: GameService = request.app.state.service
        created = await service.create(data.kind, data.options, data.seed, data.take_seats)
        structlog.contextvars.bind_contextvars(game_id=created["game_id"])
        return GameCreated(**created)

    @post(
        "/v1/games/{game_id:str}/seats/{seat:int}",
        tags=["games"],
        summary="Claim an open seat; returns its token (shown once). The game starts when every seat is taken",
        status_code=201,
    )
    async def join_game(request: Request, game_id: GameId, seat: Annotated[int, PathParameter(ge=0, le=16)]) -> Joined:
        service: GameService = request.app.state.service
        token, status = await service.join(game_id, seat)
        structlog.contextvars.bind_contextvars(seat=seat)
        return Joined(game_id=game_id, seat=seat, token=token, status=status)

    @get(
        "/v1/games/{game_id:str}",
        tags=["games"],
        summary="The game as the caller may see it; ETag is the version",
        response_headers=[],
    )
    async def get_game(
        request: Request,
        game_id: GameId,
        authorization: Authorization = None,
        if_none_match: Annotated[Optional[str], HeaderParameter(name="If-None-Match", required=False)] = None,
    ) -> Response[GameDocument]:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        structlog.contextvars.bind_contextvars(seat=seat)
        cached = _parse_version_header(if_none_match, "If-None-Match") if if_none_match not in (None, "*") else None
        version, body = await service.read_document(game_id, seat, cached)
        if body is None:
            return Response(content=b"", status_code=304, headers={"ETag": _etag(version), "Vary": "Authorization"})
        return _json(body, headers={"ETag": _etag(version), "Vary": "Authorization"})

    @get(
        "/v1/games/{game_id:str}/states/{version:int}",
        tags=["audit"],
        summary="Time travel: the game right after event *version*, as the caller may see it (after the end: reveal=true shows everything)",
    )
    async def get_state_at(
        request: Request,
        game_id: GameId,
        version: Annotated[int, PathParameter(ge=1, description="1 is the state right after setup")],
        authorization: Authorization = None,
        reveal: Annotated[bool, QueryParameter(name="reveal", description="The full state, hidden parts included; only once the game has ended")] = False,
    ) -> Response[GameDocument]:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        loaded = await service.state_at(game_id, version)
        if reveal and loaded.row.status != "finished":
            raise Problem(403, "not_revealed_yet", "hidden information is revealed when the game ends")
        document = service.document(loaded, seat, await service.seat_infos(game_id))
        if reveal:
            document["revealed_state"] = msgspec.to_builtins(loaded.state)
        return _json(document, headers={"ETag": _etag(version), "Vary": "Authorization"})

    @get("/v1/games/{game_id:str}/legal-moves", tags=["games"], summary="Every command the caller's seat may send now")
    async def legal_moves(request: Request, game_id: GameId, authorization: Authorization = None) -> Response[LegalMoves]:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        structlog.contextvars.bind_contextvars(seat=seat)
        version, body = await service.read_legal_moves(game_id, seat)
        return _json(body, headers={"ETag": _etag(version)})

    @post(
        "/v1/games/{game_id:str}/moves",
        tags=["games"],
        summary="Submit a command. If-Match pins the version (stale: 412); Idempotency-Key makes retries safe",
        status_code=200,
    )
    async def submit_move(
        request: Request,
        game_id: GameId,
        data: JSONBody[Command],
        authorization: Authorization = None,
        if_match: Annotated[Optional[str], HeaderParameter(name="If-Match", required=False)] = None,
        idempotency_key: Annotated[Optional[str], HeaderParameter(name="Idempotency-Key", required=False, max_length=200)] = None,
    ) -> Response[MoveResult]:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        if seat is None:
            raise Problem(401, "token_required", "send the seat's token: 'Authorization: Bearer ymn.<seat>.<secret>'")
        structlog.contextvars.bind_contextvars(seat=seat)
        version = _parse_version_header(if_match, "If-Match") if if_match != "*" else None
        status, body = await service.move(game_id, seat, data, if_match=version, idempotency_key=idempotency_key)
        new_version = _version_of.decode(body).version
        return _json(body, status, headers={"ETag": _etag(new_version)} if new_version is not None else None)

    @get("/v1/games/{game_id:str}/events", tags=["games"], summary="The event history after a version, redacted for the caller")
    async def events(
        request: Request,
        game_id: GameId,
        authorization: Authorization = None,
        after: Annotated[int, QueryParameter(name="after", ge=0)] = 0,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=1000)] = 100,
    ) -> Response[History]:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        return _json(await service.history(game_id, seat, after, limit))

    @get(
        "/v1/games/{game_id:str}/events/stream",
        tags=["games"],
        summary="Server-sent events: new events as they are appended, redacted for the caller",
        include_in_schema=False,
    )
    async def stream(
        request: Request,
        game_id: GameId,
        authorization: Authorization = None,
        after: Annotated[int, QueryParameter(name="after", ge=0)] = 0,
    ) -> ServerSentEvent:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        follow = service.follow(game_id, seat, after)
        first = await follow.__anext__()  # raises 404 before the stream starts

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            batches = [first]
            while True:
                for finished, envelopes in batches:
                    for envelope in envelopes:
                        yield ServerSentEventMessage(data=json_encoder.encode(envelope).decode(), event="event", id=envelope.seq)
                    if finished and not envelopes:
                        yield ServerSentEventMessage(data="{}", event="end")
                        return
                try:
                    batches = [await follow.__anext__()]
                except StopAsyncIteration:
                    yield ServerSentEventMessage(data="{}", event="end")
                    return

        return ServerSentEvent(messages())

    @get(
        "/v1/games/{game_id:str}/record",
        tags=["audit"],
        summary="The game's record as NDJSON (header, events, footer): redacted for the caller while it runs, complete after",
        media_type=NDJSON,
    )
    async def export_record(request: Request, game_id: GameId, authorization: Authorization = None) -> Stream:
        service: GameService = request.app.state.service
        seat = await service.authenticate(game_id, authorization)
        lines = await service.export(game_id, seat)
        return Stream(lines, media_type=NDJSON, headers={"Content-Disposition": f'attachment; filename="{game_id}.ndjson"'})

    @get(
        "/v1/games/{game_id:str}/verification",
        tags=["audit"],
        summary="Check the stored game: hash chain, fold, replay through decide, and (after the end) the seed",
    )
    async def verification(request: Request, game_id: GameId) -> Verification:
        service: GameService = request.app.state.service
        return await service.verification(game_id)

    @post(
        "/v1/games/import",
        tags=["audit"],
        summary="Verify a finished game's complete record and store it as a new game to browse",
        status_code=201,
    )
    async def import_game(request: Request, body: RawBody) -> Imported:
        data = bytes(body)
        service: GameService = request.app.state.service
        if len(data) > MAX_RECORD_BYTES:
            raise Problem(413, "record_too_large", f"records up to {MAX_RECORD_BYTES} bytes can be imported")
        return Imported(**await service.import_record(data.splitlines()))

    @get("/metrics", include_in_schema=False, media_type="text/plain; version=0.0.4")
    async def metrics() -> str:
        """Prometheus text: requests by status, moves by kind, races lost, snapshot hits."""
        return METRICS.render()

    @get("/v1/openapi.json", include_in_schema=False)
    async def openapi(request: Request) -> Response:
        return _json(request.app.state.openapi_document(request.app))

    handlers = [
        healthz, readyz, catalogue, components, list_games, create_game, join_game, get_game,
        get_state_at, legal_moves, submit_move, events, stream, export_record, verification, import_game, metrics, openapi,
    ]
    if echo:

        @post("/bench/echo", include_in_schema=False, status_code=200)
        async def bench_echo(data: JSONBody[dict[str, Any]]) -> dict[str, Any]:
            """The framework's ceiling for the benchmark: decode a JSON body and encode it back."""
            return data

        handlers.append(bench_echo)
    return handlers


# --- errors: one place --------------------------------------------------------------------------
def _problem_response(request: Request, problem: Problem) -> Response:
    structlog.contextvars.bind_contextvars(code=problem.code)
    return Response(
        content=json_encoder.encode(problem.document(instance=request.url.path)),
        status_code=problem.status,
        media_type=PROBLEM,
    )


def _on_problem(request: Request, exc: Problem) -> Response:
    return _problem_response(request, exc)


def _on_validation(request: Request, exc: ValidationException) -> Response:
    extra = exc.extra if isinstance(exc.extra, list) else None
    errors = [e for e in (extra or []) if isinstance(e, dict)] or None
    # The message never echoes the request (it could carry a token).
    return _problem_response(request, Problem(400, "invalid_request", str(exc.detail), errors=errors))


def _on_http(request: Request, exc: HTTPException) -> Response:
    codes = {400: "invalid_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 415: "unsupported_media_type", 413: "body_too_large"}
    return _problem_response(request, Problem(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail)))


def _on_store_down(request: Request, exc: StoreUnavailable) -> Response:
    log.error("postgres_unavailable")
    return _problem_response(request, Problem(503, "store_unavailable", "the event store is unavailable; retry later"))


def _on_crash(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", error=type(exc).__name__)
    return _problem_response(request, Problem(500, "internal_error", "an unexpected error occurred"))


# --- the app ------------------------------------------------------------------------------------
def create_app(
    games: dict[str, Game] | None = None,
    *,
    settings: Settings | None = None,
    store: EventStore | None = None,
    cache: SnapshotCache | None = None,
) -> Litestar:
    settings = settings or Settings.from_env()
    games = games if games is not None else production_games()
    configure_logging(settings.log_format)
    types = contract_types(games)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        own_store = store is None
        own_cache = cache is None
        the_store = store or EventStore(_require_db(settings), max_size=settings.pool_size)
        the_cache: SnapshotCache = cache or (
            RedisSnapshotCache(settings.redis_url) if settings.redis_url else MemorySnapshotCache()
        )
        if own_store:
            await the_store.open()
            if settings.auto_migrate:
                await the_store.migrate()
        service = GameService(games, the_store, the_cache)
        board = None
        if settings.notices and isinstance(the_cache, RedisSnapshotCache):
            board = NoticeBoard(the_cache.url)
            service.attach_board(board)
            await board.start()
        app.state.service = service
        log.info("started", games=sorted(games), cache=the_cache.name, notices=board is not None and board.live)
        try:
            yield
        finally:
            if board is not None:
                await board.close()
            if own_store:
                await the_store.close()
            if own_cache:
                await the_cache.close()

    document_cache: dict[str, Any] = {}

    def openapi_document(app: Litestar) -> dict[str, Any]:
        if "doc" not in document_cache:
            document_cache["doc"] = finish_openapi(app.openapi_schema.to_schema(), games)
        return document_cache["doc"]

    app = Litestar(
        route_handlers=build_handlers(types, echo=settings.bench_echo),
        lifespan=[lifespan],
        exception_handlers={
            Problem: _on_problem,
            ValidationException: _on_validation,
            NotFoundException: _on_http,
            HTTPException: _on_http,
            StoreUnavailable: _on_store_down,
            Exception: _on_crash,
        },
        middleware=[DefineMiddleware(AccessLogMiddleware, write_lines=settings.access_log)],
        openapi_config=OpenAPIConfig(
            title="Yamen",
            version=API_VERSION,
            description=(
                "Yamen judges every move and keeps the record. Create a game, take or claim seats, "
                "read the game as your seat may see it, list your legal moves, submit moves, and read "
                "the redacted event history. Errors are RFC 9457 problem+json with a stable `code`."
            ),
            path="/schema",
            render_plugins=[],
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


def problem_schema() -> dict[str, Any]:
    return msgspec.json.schema(ProblemDetails)

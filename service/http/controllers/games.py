"""Games and their seats: find, create, join, read as a seat sees it, and list a seat's legal moves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import structlog
from litestar import Controller, Response, delete, get, post, put
from litestar.openapi import ResponseSpec
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter

from ...application.documents import (
    CreateGame,
    GameCreated,
    GameDocument,
    GameList,
    HandToBot,
    Joined,
    LegalMoves,
    Table,
)
from ...application.errors import (
    AppKeyRequired,
    ConcurrentGamesReached,
    GameNotFinished,
    GameNotFound,
    GamesPerDayReached,
    InvalidCursor,
    InvalidOptions,
    InvalidPrecondition,
    InvalidSeat,
    InvalidToken,
    InvalidVisibility,
    NotTheCreator,
    NotYourSeat,
    PlayerNotFound,
    SeatNotFound,
    SeatNotHandedOver,
    SeatTaken,
    TokenRequired,
    UnknownBotLevel,
    UnknownKind,
    UnstorableValue,
    VersionNotReached,
)
from ...application.identity import AppCaller, Identity, PlayerCaller
from ...application.players import JoinSeat
from ..dependencies import VERSION_TAG, App, Caller, GameId, Player, Principal, version_in
from ..problems import problems
from .responses import created, encoded, etag_header, game_path, location_header, standby_lag_header

if TYPE_CHECKING:  # each app names these: the union of its games' (see service.http.contract)
    from domain.kernel import Command, View


MinVersion = Annotated[
    int,
    QueryParameter(
        name="min_version",
        ge=0,
        description=(
            "A version the caller has already seen (a move's acknowledged `version`, from any replica): "
            "the answer is never older than it (0: any). A version the game has not reached is refused "
            "(409 `version_not_reached`, with `current_version`)"
        ),
    ),
]


class GamesController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/",
        operation_id="listGames",
        summary="Find games by kind and status, newest first",
        responses=problems(InvalidCursor),
    )
    async def list_games(
        self,
        application: App,
        principal: Principal,
        kind: Annotated[
            str | None, QueryParameter(name="kind", required=False, max_length=64, pattern="^[a-z0-9_-]+$")
        ] = None,
        status: Annotated[
            str | None, QueryParameter(name="status", required=False, pattern="^(open|active|finished)$")
        ] = None,
        cursor: Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> GameList:
        """Public games, and those the caller may see besides: an app key lists all of its app's
        games, an app's player its app's `app` games and the games where it holds a seat."""
        return await application.reads.games(kind, status, cursor, limit, Identity.listing(principal))

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game; returns the seat tokens taken now (shown once)",
        status_code=201,
        response_headers=[location_header("The new game (`GET` it as a seat or a spectator)")],
        responses=problems(
            UnknownKind,
            InvalidOptions,
            InvalidSeat,
            UnknownBotLevel,
            UnstorableValue,
            InvalidVisibility,
            GamesPerDayReached,
            ConcurrentGamesReached,
        ),
    )
    async def create_game(
        self, data: JSONBody[CreateGame], application: App, principal: Principal
    ) -> Response[GameCreated]:
        """With an app key (or an app's player) the game belongs to the app: its limits count it and
        `visibility` (default: the app's `default_visibility`) decides who may list and watch it.
        A player creating it (credential or assertion) holds the seats it takes: they are bound to it."""
        app_id, visibility = await application.apps.ownership(principal, data.visibility)
        game = await application.seats.create(
            data.kind,
            data.options,
            data.seed,
            data.take_seats,
            data.bots,
            app_id=app_id,
            visibility=visibility,
            player_id=principal.player_id if isinstance(principal, PlayerCaller) else None,
            rated=data.rated,
        )
        application.identity.remember_owner(game.game_id, app_id, visibility)
        structlog.contextvars.bind_contextvars(game_id=game.game_id)
        return created(game, game_path(game.game_id))

    @post(
        "/{game_id:str}/seats/{seat:int}",
        operation_id="joinSeat",
        summary=(
            "Claim an open seat; returns its token (shown once). The game starts when every seat is taken"
        ),
        status_code=201,
        response_headers=[location_header("The game the seat now plays (`GET` it with the seat's token)")],
        responses=problems(GameNotFound, SeatNotFound, SeatTaken, AppKeyRequired, PlayerNotFound),
    )
    async def join_game(
        self,
        game_id: GameId,
        seat: Annotated[int, PathParameter(ge=0, le=16)],
        application: App,
        principal: Principal,
        data: JSONBody[JoinSeat | None] = None,
    ) -> Response[Joined]:
        """A player claiming a seat (its credential or an assertion) holds it: the seat is bound to
        the player, who acts there with its own credential and may have the seat's token re-issued.
        An app's key may claim a seat for one of its players (`player_id`)."""
        claimant = await application.players.claimant(principal, data)
        joined = await application.seats.join(game_id, seat, claimant)
        structlog.contextvars.bind_contextvars(seat=seat)
        return created(joined, game_path(game_id))

    @put(
        "/{game_id:str}/seats/{seat:int}/bot",
        operation_id="handSeatToBot",
        summary="A bot of the given level plays this seat from now on: the caller's own seat (its token "
        "stays valid: take the seat back with DELETE), or an open seat, which only the game's creator "
        "may fill (its player, its app's key, or a holder of a seat its create took; anybody may join "
        "it). Returns the table",
        responses=problems(
            GameNotFound, SeatNotFound, SeatTaken, UnknownBotLevel, InvalidToken, NotYourSeat, NotTheCreator
        ),
    )
    async def hand_seat_to_bot(
        self,
        game_id: GameId,
        seat: Annotated[int, PathParameter(ge=0, le=16)],
        data: JSONBody[HandToBot],
        application: App,
        caller: Caller,
        principal: Principal,
    ) -> Table:
        """The bot decides from this seat's view and legal moves only, like a person in the seat; its
        moves are recorded like anybody's, with the seat's number."""
        match principal:
            case PlayerCaller(player_id=player_id):
                filler: str | None = f"player:{player_id}"
            case AppCaller(app_id=app_id):
                filler = f"app:{app_id}"
            case _:
                filler = None
        status = await application.seats.hand_to_bot(game_id, caller, seat, data.level, filler)
        return Table(status=status, seats=await application.seats.fresh_table(game_id))

    @delete(
        "/{game_id:str}/seats/{seat:int}/bot",
        operation_id="takeSeatBack",
        summary="The holder of a seat a bot was playing plays it again. Returns the table",
        status_code=200,
        responses=problems(GameNotFound, TokenRequired, InvalidToken, NotYourSeat, SeatNotHandedOver),
    )
    async def take_seat_back(
        self,
        game_id: GameId,
        seat: Annotated[int, PathParameter(ge=0, le=16)],
        application: App,
        player: Player,
    ) -> Table:
        await application.seats.take_back(game_id, player, seat)
        row = await application.states.row(game_id)
        return Table(status=row.status, seats=await application.seats.fresh_table(game_id))

    @post(
        "/{game_id:str}/rematch",
        operation_id="rematch",
        summary="The rematch of a finished game: same title, options, seats and bots, a new seed. Every "
        "seat asking gets the same new game, and its token of this game holds the same seat there",
        status_code=201,
        response_headers=[location_header("The rematch (`GET` it with this game's seat token)")],
        responses=problems(GameNotFound, TokenRequired, InvalidToken, GameNotFinished),
    )
    async def rematch(self, game_id: GameId, application: App, player: Player) -> Response[GameCreated]:
        del player  # any seat of the finished game may ask
        game = await application.seats.rematch(game_id)
        return created(game, game_path(game.game_id))

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        summary="The game as the caller may see it; ETag is the version",
        response_headers=[
            etag_header(
                "The game's version; send it back in If-None-Match for a 304 "
                "(none while seats are open: a claim changes the game without a new version)"
            ),
            standby_lag_header(),
        ],
        responses={
            **problems(GameNotFound, InvalidToken, InvalidPrecondition, VersionNotReached),
            304: ResponseSpec(None, description="Not modified since the version in If-None-Match"),
        },
    )
    async def get_game(
        self,
        game_id: GameId,
        application: App,
        caller: Caller,
        if_none_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-None-Match",
                required=False,
                pattern=VERSION_TAG,
                description='The ETag of the copy the caller holds (e.g. "12"): 304 when it is current',
            ),
        ] = None,
        min_version: MinVersion = 0,
    ) -> Response[GameDocument[View]]:
        answer = await application.reads.document(
            game_id, caller, version_in(if_none_match, "If-None-Match"), min_version
        )
        return encoded(answer, vary=True)

    @get(
        "/{game_id:str}/legal-moves",
        operation_id="getLegalMoves",
        summary="Every command the caller's seat may send now",
        response_headers=[etag_header("The version these moves are legal at")],
        responses=problems(GameNotFound, InvalidToken, VersionNotReached),
    )
    async def legal_moves(
        self, game_id: GameId, application: App, caller: Caller, min_version: MinVersion = 0
    ) -> Response[LegalMoves[Command]]:
        return encoded(await application.reads.legal_moves(game_id, caller, min_version))

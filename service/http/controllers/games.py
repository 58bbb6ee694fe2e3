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
    GameNotFinished,
    GameNotFound,
    InvalidCursor,
    InvalidOptions,
    InvalidPrecondition,
    InvalidSeat,
    InvalidToken,
    NotYourSeat,
    SeatNotFound,
    SeatNotHandedOver,
    SeatTaken,
    UnknownBotLevel,
    UnknownKind,
)
from ..dependencies import VERSION_TAG, App, Caller, GameId, Player, version_in
from ..problems import problems
from .responses import encoded, etag_header, server_time_header, standby_lag_header

if TYPE_CHECKING:  # each app names these: the union of its games' (see service.http.contract)
    from domain.kernel import Command, View


MinVersion = Annotated[
    int,
    QueryParameter(
        name="min_version",
        ge=0,
        description=(
            "A version the caller has already seen (a move's acknowledged `version`, from any replica): "
            "the answer is never older than it (0: any)"
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
        kind: Annotated[
            str | None, QueryParameter(name="kind", required=False, max_length=64, pattern="^[a-z0-9_-]+$")
        ] = None,
        status: Annotated[
            str | None, QueryParameter(name="status", required=False, pattern="^(open|active|finished)$")
        ] = None,
        cursor: Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> GameList:
        return await application.reads.games(kind, status, cursor, limit)

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game; returns the seat tokens taken now (shown once)",
        status_code=201,
        responses=problems(UnknownKind, InvalidOptions, InvalidSeat, UnknownBotLevel),
    )
    async def create_game(self, data: JSONBody[CreateGame], application: App) -> GameCreated:
        created = await application.seats.create(
            data.kind, data.options, data.seed, data.take_seats, data.bots
        )
        structlog.contextvars.bind_contextvars(game_id=created.game_id)
        return created

    @post(
        "/{game_id:str}/seats/{seat:int}",
        operation_id="joinSeat",
        summary=(
            "Claim an open seat; returns its token (shown once). The game starts when every seat is taken"
        ),
        status_code=201,
        responses=problems(GameNotFound, SeatNotFound, SeatTaken),
    )
    async def join_game(
        self,
        game_id: GameId,
        seat: Annotated[int, PathParameter(ge=0, le=16)],
        application: App,
    ) -> Joined:
        joined = await application.seats.join(game_id, seat)
        structlog.contextvars.bind_contextvars(seat=seat)
        return joined

    @put(
        "/{game_id:str}/seats/{seat:int}/bot",
        operation_id="handSeatToBot",
        summary="A bot of the given level plays this seat from now on: an open seat (anybody may fill it, "
        "as anybody may join), or the caller's own seat (its token stays valid: take the seat back "
        "with DELETE). Returns the table",
        responses=problems(GameNotFound, SeatNotFound, SeatTaken, UnknownBotLevel, InvalidToken, NotYourSeat),
    )
    async def hand_seat_to_bot(
        self,
        game_id: GameId,
        seat: Annotated[int, PathParameter(ge=0, le=16)],
        data: JSONBody[HandToBot],
        application: App,
        caller: Caller,
    ) -> Table:
        """The bot decides from this seat's view and legal moves only, like a person in the seat; its
        moves are recorded like anybody's, with the seat's number."""
        status = await application.seats.hand_to_bot(game_id, caller, seat, data.level)
        return Table(status=status, seats=await application.seats.fresh_table(game_id))

    @delete(
        "/{game_id:str}/seats/{seat:int}/bot",
        operation_id="takeSeatBack",
        summary="The holder of a seat a bot was playing plays it again. Returns the table",
        status_code=200,
        responses=problems(GameNotFound, InvalidToken, NotYourSeat, SeatNotHandedOver),
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
        responses=problems(GameNotFound, InvalidToken, GameNotFinished),
    )
    async def rematch(self, game_id: GameId, application: App, player: Player) -> GameCreated:
        del player  # any seat of the finished game may ask
        return await application.seats.rematch(game_id)

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        summary="The game as the caller may see it; ETag is the version",
        response_headers=[
            etag_header(
                "The game's version; send it back in If-None-Match for a 304 "
                "(none while seats are open: a claim changes the game without a new version)"
            ),
            server_time_header(),
            standby_lag_header(),
        ],
        responses={
            **problems(GameNotFound, InvalidToken, InvalidPrecondition),
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
        responses=problems(GameNotFound, InvalidToken),
    )
    async def legal_moves(
        self, game_id: GameId, application: App, caller: Caller, min_version: MinVersion = 0
    ) -> Response[LegalMoves[Command]]:
        return encoded(await application.reads.legal_moves(game_id, caller, min_version))

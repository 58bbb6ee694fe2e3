"""Moves: a seat submits a command; the rules judge it and the record keeps it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from litestar import Controller, Response, post
from litestar.params import HeaderParameter, JSONBody, QueryParameter

from domain.kernel import NotYourTurn

from ...application.documents import MoveResult
from ...application.errors import (
    GameEnded,
    GameNotFound,
    GameNotStarted,
    IdempotencyConflict,
    IdempotencyKeyReused,
    IllegalMove,
    InvalidPrecondition,
    InvalidToken,
    RulesRetired,
    TokenRequired,
    TooMuchContention,
    VersionMismatch,
    WrongGameKind,
)
from ..dependencies import VERSION_TAG, App, GameId, Player, version_in
from ..problems import Rules, problems
from .responses import encoded, etag_header

if TYPE_CHECKING:  # each app names these: the union of its games' (see service.http.contract)
    from domain.kernel import Command, Event, View

Include = Literal["legal_moves", "document"]


class MovesController(Controller):
    path = "/v1/games/{game_id:str}/moves"
    tags = ("games",)

    @post(
        "/",
        operation_id="submitMove",
        summary=(
            "Submit a command. If-Match pins the version (stale: 412); Idempotency-Key makes retries safe"
        ),
        status_code=200,
        response_headers=[etag_header("The game's version after the move")],
        responses=problems(
            TokenRequired,
            InvalidToken,
            NotYourTurn,
            GameNotFound,
            GameNotStarted,
            GameEnded,
            RulesRetired,
            TooMuchContention,
            IdempotencyConflict,
            VersionMismatch,
            InvalidPrecondition,
            Rules,
            WrongGameKind,
            IllegalMove,
            IdempotencyKeyReused,
        ),
    )
    async def submit_move(
        self,
        game_id: GameId,
        data: JSONBody[Command],
        application: App,
        player: Player,
        if_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-Match",
                required=False,
                pattern=VERSION_TAG,
                description='The version decided on, e.g. "12" (the ETag of the view or legal moves)',
            ),
        ] = None,
        idempotency_key: Annotated[
            str | None,
            HeaderParameter(
                name="Idempotency-Key",
                required=False,
                max_length=200,
                description="A key unique to this move: a retry with it gets the first answer, applied once",
            ),
        ] = None,
        include: Annotated[
            list[Include] | None,
            QueryParameter(
                name="include",
                required=False,
                description=(
                    "One round trip per move: `legal_moves` adds the mover's legal moves after the move "
                    "(what GET …/legal-moves would answer), `document` the game as the mover sees it"
                ),
            ),
        ] = None,
    ) -> Response[MoveResult[Event, Command, View]]:
        answer = await application.moves.submit(
            game_id, player, data, if_match=version_in(if_match, "If-Match"), idempotency_key=idempotency_key
        )
        if include and answer.body is not None:
            answer = await application.reads.after_move(game_id, player, answer, frozenset(include))
        return encoded(answer)

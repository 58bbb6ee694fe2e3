"""Moves: a seat submits a command; the rules judge it and the record keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from litestar import Controller, Response, post
from litestar.openapi.spec import OpenAPIType, Operation, Parameter, Schema
from litestar.params import HeaderParameter, JSONBody, QueryParameter
from msgspec import Meta

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
    SeatReplaced,
    TokenRequired,
    TooMuchContention,
    UnstorableValue,
    VersionMismatch,
    WrongGameKind,
)
from ..dependencies import VERSION_TAG, App, GameId, Player, version_in
from ..problems import Rules, problems
from .responses import encoded, etag_header

if TYPE_CHECKING:  # each app names these: the union of its games' (see service.http.contract)
    from domain.kernel import Command, Event, View

INCLUDABLE = "(legal_moves|document)"
INCLUDE = f"^{INCLUDABLE}(,{INCLUDABLE})*$"
Include = Annotated[str, Meta(pattern=INCLUDE)]
"""What a move's answer may include, repeated (``include=legal_moves&include=document``) or
comma-separated (``include=legal_moves,document``): each value of the parameter is a list."""


@dataclass
class IncludeEither(Operation):
    """The document says how ``include`` is sent (a form list, exploded: the parameter repeated) and
    what each value may be, commas included (Litestar drops an item's pattern from the document)."""

    def __post_init__(self) -> None:
        for parameter in self.parameters or ():
            if isinstance(parameter, Parameter) and parameter.name == "include":
                parameter.style, parameter.explode = "form", True
                parameter.schema = Schema(
                    type=OpenAPIType.ARRAY, items=Schema(type=OpenAPIType.STRING, pattern=INCLUDE)
                )


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
        operation_class=IncludeEither,
        responses=problems(
            TokenRequired,
            InvalidToken,
            NotYourTurn,
            GameNotFound,
            GameNotStarted,
            GameEnded,
            RulesRetired,
            SeatReplaced,
            TooMuchContention,
            IdempotencyConflict,
            VersionMismatch,
            InvalidPrecondition,
            Rules,
            WrongGameKind,
            IllegalMove,
            IdempotencyKeyReused,
            UnstorableValue,
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
                    "(what GET …/legal-moves would answer), `document` the game as the mover sees it. "
                    "Repeat the parameter (`include=legal_moves&include=document`) or separate the "
                    "values by commas (`include=legal_moves,document`)"
                ),
            ),
        ] = None,
    ) -> Response[MoveResult[Event, Command, View]]:
        answer = await application.moves.submit(
            game_id, player, data, if_match=version_in(if_match, "If-Match"), idempotency_key=idempotency_key
        )
        if include and answer.body is not None:
            parts = frozenset(part for value in include for part in value.split(","))
            answer = await application.reads.after_move(game_id, player, answer, parts)
        return encoded(answer)

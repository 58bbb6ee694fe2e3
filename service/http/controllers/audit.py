"""Audit: time travel, the game's record, its verification, and importing a finished record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from litestar.params import PathParameter, QueryParameter
from litestar.response import Stream

from ...application import audit
from ...application.documents import GameDocument, Imported
from ...application.errors import (
    GameNotFound,
    IncompleteRecord,
    InvalidRecord,
    InvalidToken,
    NotRevealedYet,
    RecordDoesNotVerify,
    RecordTooLarge,
    UnstorableValue,
    VersionNotFound,
)
from ...codec import json_encoder
from ...record.verify import Verification
from ..dependencies import App, Caller, GameId
from ..limits import read_body
from ..problems import problems
from .responses import created, etag, game_path, json_answer, location_header, standby_lag_header

OCTETS = "application/octet-stream"

if TYPE_CHECKING:  # each app names this: the union of its games' views (see service.http.contract)
    from domain.kernel import View

NDJSON = "application/x-ndjson"


@dataclass
class RecordUpload(Operation):
    """The import's request body is a record in NDJSON, read raw (Litestar documents only decoded bodies)."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            content={NDJSON: OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))},
            description="A complete game record as exported by GET /v1/games/{game_id}/record",
            required=True,
        )


class AuditController(Controller):
    path = "/v1/games"
    tags = ("audit",)

    @get(
        "/{game_id:str}/states/{version:int}",
        operation_id="getStateAt",
        summary=(
            "Time travel: the game right after event *version*, as the caller may see it "
            "(after the end: reveal=true shows everything)"
        ),
        response_headers=[standby_lag_header()],
        responses=problems(GameNotFound, VersionNotFound, InvalidToken, NotRevealedYet),
    )
    async def get_state_at(
        self,
        game_id: GameId,
        version: Annotated[int, PathParameter(ge=1, description="1 is the state right after setup")],
        application: App,
        caller: Caller,
        reveal: Annotated[
            bool,
            QueryParameter(
                name="reveal",
                description="The full state, hidden parts included; only once the game has ended",
            ),
        ] = False,
    ) -> Response[GameDocument[View]]:
        shown = await application.reads.at(game_id, version, caller, reveal=reveal)
        headers = {"ETag": etag(version), "Vary": "Authorization"}
        return json_answer(json_encoder.encode(shown), headers)

    @get(
        "/{game_id:str}/record",
        operation_id="getRecord",
        summary=(
            "The game's record as NDJSON (header, events, footer): redacted for the caller while it runs, "
            "complete after"
        ),
        responses={
            200: ResponseSpec(
                str,
                description="NDJSON lines: a header, one line per event, and a footer once the game ended",
                media_type=NDJSON,
                generate_examples=False,
            ),
            **problems(GameNotFound, InvalidToken),
        },
        response_headers=[standby_lag_header()],
    )
    async def export_record(
        self, game_id: GameId, application: App, caller: Caller, request: Request[Any, Any, Any]
    ) -> Stream:
        lines = await application.audit.export(game_id, caller)
        disposition = f'attachment; filename="{game_id}.ndjson"'
        # The same bytes either way; a generated client that asks for octet-stream gets that label.
        media_type = request.accept.best_match([NDJSON, OCTETS], default=NDJSON) or NDJSON
        return Stream(lines, media_type=media_type, headers={"Content-Disposition": disposition})

    @get(
        "/{game_id:str}/verification",
        operation_id="getVerification",
        summary=(
            "Check the stored game: hash chain, fold, replay through decide, and (after the end) the seed"
        ),
        responses=problems(GameNotFound),
    )
    async def verification(self, game_id: GameId, application: App) -> Verification:
        return await application.audit.verification(game_id)

    @post(
        "/import",
        operation_id="importRecord",
        summary="Verify a finished game's complete record and store it as a new game to browse",
        status_code=201,
        request_max_body_size=None,  # read below, up to MAX_RECORD_BYTES (the app's limit is far lower)
        operation_class=RecordUpload,
        response_headers=[location_header("The imported game, to browse here")],
        responses=problems(
            RecordTooLarge, InvalidRecord, IncompleteRecord, RecordDoesNotVerify, UnstorableValue
        ),
    )
    async def import_game(self, application: App, request: Request[Any, Any, Any]) -> Response[Imported]:
        imported = await application.audit.import_record(await read_body(request, audit.MAX_RECORD_BYTES))
        return created(imported, game_path(imported.game_id))

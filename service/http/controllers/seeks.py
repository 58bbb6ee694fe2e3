"""Seeks: a player asks for a game of a title, follows its seek (read, or long-polled) until the
matcher seats it in a game, or cancels it (:mod:`service.application.seeks`, ``docs/matching.md``)."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, Response, delete, get, post
from litestar.params import JSONBody, PathParameter, QueryParameter

from ...application.errors import (
    InvalidCursor,
    InvalidSeek,
    SeekClosed,
    SeekExists,
    SeekNotFound,
    UnknownKind,
)
from ...application.seeks import Seek, SeekList, SeekRequest
from ..dependencies import App, Me
from ..problems import problems
from .players import PLAYER, PLAYER_CALLERS
from .responses import created, location_header

SeekId = Annotated[
    str, PathParameter(description="The seek's id (`s_…`)", max_length=40, pattern="^s_[0-9a-f]+$")
]


class SeeksController(Controller):
    path = "/v1/seeks"
    tags = ("seeks",)
    security = PLAYER

    @post(
        "/",
        operation_id="createSeek",
        summary="Seek a game: a title, the player counts and option values acceptable, rated or casual, "
        "and whether bots may fill it after a wait. The matcher seats the player in a game as soon as "
        "enough compatible seekers exist",
        status_code=201,
        response_headers=[location_header("The seek (`GET` it, with `?wait=` to long-poll until matched)")],
        responses=problems(*PLAYER_CALLERS, UnknownKind, InvalidSeek, SeekExists),
    )
    async def create_seek(self, data: JSONBody[SeekRequest], application: App, me: Me) -> Response[Seek]:
        """One open seek per title at a time. Seeks are matched with those of the same app's players
        (guests with guests), oldest first, within a rating window that widens as they wait
        (`docs/matching.md`). When the player's seek is matched, its other open seeks are withdrawn."""
        seek = await application.seeks.create(me, data)
        return created(seek, seek.links.seek)

    @get(
        "/{seek_id:str}",
        operation_id="getSeek",
        summary="The calling player's seek; with `wait`, a long poll that answers as soon as it is "
        "matched (with its game and seat), cancelled or expired",
        responses=problems(*PLAYER_CALLERS, SeekNotFound),
    )
    async def get_seek(
        self,
        seek_id: SeekId,
        application: App,
        me: Me,
        wait: Annotated[
            float,
            QueryParameter(
                name="wait",
                ge=0,
                le=60,
                description="Seconds to wait while the seek is open (0-60): the answer comes as soon as "
                "it is matched, cancelled or expired, or when the time is up (still open)",
            ),
        ] = 0,
    ) -> Seek:
        """A matched seek names its `game_id` and `seat`: the player acts there with its own
        credential (or asks `links.seat_token` for a seat token, shown once)."""
        return await application.seeks.get(me, seek_id, wait)

    @delete(
        "/{seek_id:str}",
        operation_id="cancelSeek",
        summary="Cancel the calling player's open seek (409 `seek_closed` once it was matched or ended)",
        status_code=200,
        responses=problems(*PLAYER_CALLERS, SeekNotFound, SeekClosed),
    )
    async def cancel_seek(self, seek_id: SeekId, application: App, me: Me) -> Seek:
        return await application.seeks.cancel(me, seek_id)


class MySeeksController(Controller):
    path = "/v1/me/seeks"
    tags = ("seeks",)
    security = PLAYER

    @get(
        "/",
        operation_id="listMySeeks",
        summary="The calling player's seeks, newest first: filter by status",
        responses=problems(*PLAYER_CALLERS, InvalidCursor),
    )
    async def my_seeks(
        self,
        application: App,
        me: Me,
        status: Annotated[
            Literal["open", "matched", "cancelled", "expired"] | None,
            QueryParameter(name="status", required=False),
        ] = None,
        cursor: Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> SeekList:
        return await application.seeks.mine(me, status, cursor, limit)

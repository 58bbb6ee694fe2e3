"""Ratings and leaderboards (:mod:`service.application.ratings`): a player's ratings and their
history, and each title's leaderboard.  Ratings are global per title, across apps, and public like
the leaderboard they make (``docs/ratings.md``)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import PathParameter, QueryParameter

from ...application.errors import InvalidCursor, NotOnLeaderboard, PlayerNotFound, UnknownKind
from ...application.ratings import NEIGHBOURS, AroundPlayer, Leaderboard, PlayerRatings
from ..dependencies import App, Me
from ..problems import problems
from .players import ANONYMOUS, PLAYER, PLAYER_CALLERS, PlayerId

Kind = Annotated[str, PathParameter(description="A kind from `/v1/catalogue`", max_length=64)]
KindFilter = Annotated[
    str | None,
    QueryParameter(
        name="kind", required=False, max_length=64, pattern="^[a-z0-9_-]+$", description="Only this title"
    ),
]
Cursor = Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)]
Limit = Annotated[int, QueryParameter(name="limit", ge=1, le=100)]


class RatingsController(Controller):
    path = "/v1"
    tags = ("ratings",)
    security = ANONYMOUS

    @get(
        "/players/{player_id:str}/ratings",
        operation_id="getPlayerRatings",
        summary="A player's rating in each title and its rating changes, newest first (paged)",
        responses=problems(PlayerNotFound, UnknownKind, InvalidCursor),
    )
    async def player_ratings(
        self,
        player_id: PlayerId,
        application: App,
        kind: KindFilter = None,
        cursor: Cursor = None,
        limit: Limit = 20,
    ) -> PlayerRatings:
        """Public, like the leaderboards: ratings are global per title, across apps."""
        return await application.ratings.player(player_id, kind, cursor, limit)

    @get(
        "/me/ratings",
        operation_id="getMyRatings",
        summary="The calling player's rating in each title and its rating changes, newest first (paged)",
        security=PLAYER,
        responses=problems(*PLAYER_CALLERS, UnknownKind, InvalidCursor),
    )
    async def my_ratings(
        self, application: App, me: Me, kind: KindFilter = None, cursor: Cursor = None, limit: Limit = 20
    ) -> PlayerRatings:
        return await application.ratings.player(me.player_id, kind, cursor, limit)

    @get(
        "/leaderboards/{kind:str}",
        operation_id="getLeaderboard",
        summary="A title's leaderboard: its established players by rating, best first (paged)",
        responses=problems(UnknownKind, InvalidCursor),
    )
    async def leaderboard(
        self, kind: Kind, application: App, cursor: Cursor = None, limit: Limit = 100
    ) -> Leaderboard:
        """Players with fewer than `established_games` rated games in the title (provisional) and
        bots are not on it. Follow `next_cursor` for the next page."""
        return await application.ratings.board(kind, cursor, limit)

    @get(
        "/leaderboards/{kind:str}/around/{player_id:str}",
        operation_id="getLeaderboardAround",
        summary="A player's place on a title's leaderboard, with its neighbours above and below",
        responses=problems(UnknownKind, PlayerNotFound, NotOnLeaderboard),
    )
    async def around(
        self,
        kind: Kind,
        player_id: PlayerId,
        application: App,
        neighbours: Annotated[
            int, QueryParameter(name="neighbours", ge=0, le=50, description="Players shown on each side")
        ] = NEIGHBOURS,
    ) -> AroundPlayer:
        return await application.ratings.around(kind, player_id, neighbours)

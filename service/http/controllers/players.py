"""Players: an app registers its users and gives them credentials (with the app key), a player
lists its games across titles (with its credential or an assertion), and the reference client
makes guests (:mod:`service.application.players`)."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, Response, delete, get, post
from litestar.openapi import ResponseSpec
from litestar.params import JSONBody, PathParameter, QueryParameter

from ...application.documents import Joined
from ...application.errors import (
    AppDisabled,
    AppKeyRequired,
    AssertionExpired,
    AssertionInvalid,
    AssertionNotYetValid,
    AssertionWrongAudience,
    CredentialNotFound,
    GameNotFound,
    InvalidAppKey,
    InvalidCursor,
    InvalidPlayerCredential,
    NotYourSeat,
    PlayerNotFound,
    PlayerRequired,
    SeatNotFound,
)
from ...application.players import CredentialInfo, MyGames, PlayerInfo, RegisterPlayer
from ..dependencies import App, AppKey, GameId, Me
from ..problems import problems
from .responses import created, game_path, location_header

PlayerId = Annotated[
    str, PathParameter(description="The player's id (`p_…`)", max_length=40, pattern="^p_[0-9a-f]+$")
]
CredentialId = Annotated[
    str,
    PathParameter(
        description="The credential's id (the 12 hex characters after `ymp_`)", pattern="^[0-9a-f]{12}$"
    ),
]
SHOWN_ONCE = {"Cache-Control": "no-store"}
"""An answer carrying a new credential is kept by no cache."""

APP_KEY: tuple[dict[str, list[str]], ...] = ({"appKey": []},)
PLAYER: tuple[dict[str, list[str]], ...] = ({"playerCredential": []},)
ANONYMOUS: tuple[dict[str, list[str]], ...] = ({},)
APP_CALLERS = (AppKeyRequired, InvalidAppKey, AppDisabled)
PLAYER_CALLERS = (
    PlayerRequired,
    InvalidPlayerCredential,
    AssertionExpired,
    AssertionNotYetValid,
    AssertionWrongAudience,
    AssertionInvalid,
    AppDisabled,
)


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)
    security = APP_KEY

    @post(
        "/",
        operation_id="registerPlayer",
        summary="Register the app's user by its external_id, or find the player registered with it; with "
        '`"credential": true`, also a new player credential (shown once)',
        status_code=201,
        response_headers=[location_header("The player")],
        responses={
            200: ResponseSpec(PlayerInfo, description="The app had registered this external_id already"),
            **problems(*APP_CALLERS),
        },
    )
    async def register(
        self, data: JSONBody[RegisterPlayer], application: App, app_key: AppKey
    ) -> Response[PlayerInfo]:
        """Idempotent: the same `external_id` always finds the same player (201 the first time, 200
        after); a `display_name` given replaces the stored one. Each `"credential": true` makes
        another credential: a player may hold several (one per device), each revocable."""
        player, made = await application.players.register(app_key, data)
        headers = {"Location": f"/v1/players/{player.player_id}"}
        if player.credential is not None:
            headers.update(SHOWN_ONCE)
        return Response(player, status_code=201 if made else 200, headers=headers)

    @get(
        "/{player_id:str}",
        operation_id="getPlayer",
        summary="One of the app's players, with its credentials (never their secrets)",
        responses=problems(*APP_CALLERS, PlayerNotFound),
    )
    async def get_player(self, player_id: PlayerId, application: App, app_key: AppKey) -> PlayerInfo:
        return await application.players.player(app_key, player_id)

    @delete(
        "/{player_id:str}/credentials/{credential_id:str}",
        operation_id="revokePlayerCredential",
        summary="Revoke a player's credential: refused from now on, on every worker",
        status_code=200,
        responses=problems(*APP_CALLERS, PlayerNotFound, CredentialNotFound),
    )
    async def revoke_credential(
        self, player_id: PlayerId, credential_id: CredentialId, application: App, app_key: AppKey
    ) -> CredentialInfo:
        return await application.players.revoke(app_key, player_id, credential_id)


class MeController(Controller):
    path = "/v1/me"
    tags = ("players",)
    security = PLAYER

    @get(
        "/",
        operation_id="getMe",
        summary="The calling player (credential or assertion)",
        responses=problems(*PLAYER_CALLERS),
    )
    async def me(self, application: App, me: Me) -> PlayerInfo:
        """With the player's credentials (their ids and dates, never a secret)."""
        return await application.players.me(me)

    @delete(
        "/credentials/{credential_id:str}",
        operation_id="revokeMyCredential",
        summary="Revoke one of the calling player's own credentials (a lost device, or signing out with "
        "the one it calls with): refused from now on, on every worker",
        status_code=200,
        responses=problems(*PLAYER_CALLERS, CredentialNotFound),
    )
    async def revoke_my_credential(
        self, credential_id: CredentialId, application: App, me: Me
    ) -> CredentialInfo:
        """A guest's only way to end a credential it no longer trusts (no app can do it for it)."""
        return await application.players.revoke_own(me, credential_id)

    @get(
        "/games",
        operation_id="listMyGames",
        summary="The calling player's games across titles, most recently changed first: filter by status "
        "and by `to_act=true` (one of its seats is to act now)",
        responses=problems(*PLAYER_CALLERS, InvalidCursor),
    )
    async def my_games(
        self,
        application: App,
        me: Me,
        status: Annotated[
            Literal["open", "active", "finished"] | None, QueryParameter(name="status", required=False)
        ] = None,
        to_act: Annotated[
            bool,
            QueryParameter(
                name="to_act", description="`true`: only the games where one of the player's seats is to act"
            ),
        ] = False,
        cursor: Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> MyGames:
        """Each game lists the seats the player holds and which of them are to act, with links to
        its resources; the player acts there with its own credential (`?seat=` when it holds
        several seats). A game that changes while you page moves to the front: start again from
        the first page to see it."""
        return await application.players.games(me, status, to_act, cursor, limit)


class GuestsController(Controller):
    path = "/v1/guests"
    tags = ("players",)
    security = ANONYMOUS

    @post(
        "/",
        operation_id="createGuest",
        summary="A new anonymous player (no app vouches for it) and its credential, shown once: how the "
        "reference web client plays without an app",
        status_code=201,
        response_headers=[location_header("The guest (`GET /v1/me` with its credential)")],
        responses=problems(),
    )
    async def create_guest(self, application: App) -> Response[PlayerInfo]:
        """Keep the credential: it is the guest's only key to its seats, from any device."""
        answer = created(await application.players.guest(), "/v1/me")
        answer.headers.update(SHOWN_ONCE)
        return answer


class SeatTokenController(Controller):
    path = "/v1/games/{game_id:str}/seats/{seat:int}/token"
    tags = ("games",)
    security = PLAYER

    @post(
        "/",
        operation_id="reissueSeatToken",
        summary="A new token for a seat bound to the calling player (shown once): the old token stops "
        "working at once, on every worker. How a player recovers its seat on another device",
        status_code=201,
        response_headers=[location_header("The game the seat plays")],
        responses=problems(*PLAYER_CALLERS, GameNotFound, SeatNotFound, NotYourSeat),
    )
    async def reissue(
        self, game_id: GameId, seat: Annotated[int, PathParameter(ge=0, le=16)], application: App, me: Me
    ) -> Response[Joined]:
        """Only the player the seat is bound to (it claimed the seat, or created the game taking it)
        may: a seat claimed with no player keeps the token it was given."""
        answer = created(await application.seats.reissue(game_id, seat, me.player_id), game_path(game_id))
        answer.headers.update(SHOWN_ONCE)
        return answer

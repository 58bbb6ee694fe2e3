"""Web Push: the VAPID public key, and a browser's subscriptions for "your turn" and "game
finished" (:mod:`service.application.push`).  A player's credential subscribes the player; a seat
token subscribes its seat (the body names the game).  Push off (no VAPID key): 404 ``push_off``."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.params import JSONBody, PathParameter

from ...application import identity
from ...application.errors import (
    InvalidPushSubscription,
    PushOff,
    PushOwnerRequired,
    PushSubscriptionNotFound,
)
from ...application.push import Owner, PushKey, PushSubscription, SubscribePush
from ..dependencies import App, Authorization, credential_of
from ..problems import problems
from .responses import created, location_header

SubscriptionId = Annotated[
    str,
    PathParameter(
        description="The subscription's id (`psub_…`)", max_length=64, pattern="^psub_[0-9a-f]{24}$"
    ),
]

CALLERS = (PushOwnerRequired,)
"""Who may: a player (credential or assertion) or a seat token; any credential may be refused."""


async def _owner_of(request: Request[Any, Any, Any], application: Any) -> tuple[str | None, str | None]:
    """(player id, seat token) of the caller; :class:`PushOwnerRequired` for anybody else."""
    credential = await credential_of(request, application)
    match credential:
        case identity.PlayerCaller(player_id=player_id):
            return player_id, None
        case identity.SeatBearer(token=token):
            return None, token
    raise PushOwnerRequired(
        "send a player credential ('Authorization: Bearer ymp_<id>.<secret>'), an assertion, or a seat token"
    )


class PushController(Controller):
    path = "/v1/push"
    tags = ("push",)

    @get(
        "/key",
        operation_id="getPushKey",
        summary="The VAPID public key to subscribe a browser with (404 `push_off` when push is off)",
        responses=problems(PushOff),
    )
    async def key(self, application: App) -> PushKey:
        return application.push.key()

    @post(
        "/subscriptions",
        operation_id="subscribePush",
        summary=(
            "Subscribe a browser (its PushSubscription JSON) to 'your turn' and 'game finished': "
            "a player's credential subscribes the player, a seat token its seat (with `game_id`)"
        ),
        status_code=201,
        response_headers=[location_header("The new subscription")],
        responses=problems(*CALLERS, PushOff, InvalidPushSubscription),
    )
    async def subscribe(
        self,
        data: JSONBody[SubscribePush],
        application: App,
        request: Request[Any, Any, Any],
        authorization: Authorization = None,
    ) -> Response[PushSubscription]:
        del authorization  # read by credential_of; declared for the OpenAPI document
        application.push.key()  # push off: 404 before anything else
        player_id, token = await _owner_of(request, application)
        if player_id is not None:
            if data.game_id is not None:
                raise InvalidPushSubscription(
                    "game_id is for a seat token: a player's subscription hears of all its seats"
                )
            owner = Owner(player_id=player_id)
        else:
            assert token is not None
            if data.game_id is None:
                raise InvalidPushSubscription("with a seat token, name its game in game_id")
            seat = await application.seats.authenticate(data.game_id, token)
            owner = Owner(game_id=data.game_id, seat=seat)
        made = await application.push.subscribe(owner, data)
        return created(made, f"/v1/push/subscriptions/{made.subscription_id}")

    @get(
        "/subscriptions/{subscription_id:str}",
        operation_id="getPushSubscription",
        summary="One of the caller's push subscriptions (its player's, or its seat's)",
        responses=problems(*CALLERS, PushOff, PushSubscriptionNotFound),
    )
    async def get_subscription(
        self,
        subscription_id: SubscriptionId,
        application: App,
        request: Request[Any, Any, Any],
        authorization: Authorization = None,
    ) -> PushSubscription:
        del authorization
        application.push.key()
        player_id, token = await _owner_of(request, application)
        return await application.push.subscription(player_id, token, subscription_id)

    @delete(
        "/subscriptions/{subscription_id:str}",
        operation_id="deletePushSubscription",
        summary="Stop pushing to a browser (the caller's subscription: its player's, or its seat's)",
        responses=problems(*CALLERS, PushOff, PushSubscriptionNotFound),
    )
    async def delete_subscription(
        self,
        subscription_id: SubscriptionId,
        application: App,
        request: Request[Any, Any, Any],
        authorization: Authorization = None,
    ) -> None:
        del authorization
        application.push.key()
        player_id, token = await _owner_of(request, application)
        await application.push.unsubscribe(player_id, token, subscription_id)

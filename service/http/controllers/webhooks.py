"""An app's webhook endpoints: subscribe, list, change, delete, rotate the secret, read the
delivery log and redeliver (:mod:`service.application.webhooks`).  Only the app's own key may;
another app's endpoint is answered 404, exactly as one that does not exist."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, Response, delete, get, patch, post
from litestar.params import JSONBody, PathParameter, QueryParameter

from ...application.errors import (
    AppDisabled,
    AppKeyRequired,
    DeliveryNotFound,
    InvalidAppKey,
    InvalidCursor,
    WebhookLimitReached,
    WebhookNotFound,
    WebhookUrlRefused,
)
from ...application.webhooks import (
    RotateWebhookSecret,
    SubscribeWebhook,
    WebhookDelivery,
    WebhookDeliveryList,
    WebhookEndpoint,
    WebhookEndpointChange,
    WebhookEndpointCreated,
    WebhookEndpointList,
    WebhookSecretRotated,
)
from ..dependencies import GAME_ID, App, AppKey
from ..problems import problems
from .responses import created, location_header

EndpointId = Annotated[
    str,
    PathParameter(description="The endpoint's id (`whep_…`)", max_length=64, pattern="^whep_[0-9a-f]{24}$"),
]
SECRET_SHOWN = {"Cache-Control": "no-store"}
"""An answer carrying a signing secret is kept by no cache."""


CALLERS = (AppKeyRequired, InvalidAppKey, AppDisabled)
"""Only the app's own key may (``app_key``)."""


class WebhooksController(Controller):
    path = "/v1/webhooks"
    tags = ("webhooks",)
    security = ({"appKey": []},)

    @post(
        "/",
        operation_id="subscribeWebhook",
        summary="Subscribe an endpoint to notifications about the app's games; its secret is shown once",
        status_code=201,
        response_headers=[location_header("The new endpoint")],
        responses=problems(*CALLERS, WebhookUrlRefused, WebhookLimitReached),
    )
    async def subscribe(
        self, data: JSONBody[SubscribeWebhook], application: App, app_key: AppKey
    ) -> Response[WebhookEndpointCreated]:
        endpoint = await application.webhooks.subscribe(app_key.app_id, data)
        answer = created(endpoint, f"/v1/webhooks/{endpoint.endpoint_id}")
        answer.headers.update(SECRET_SHOWN)
        return answer

    @get(
        "/", operation_id="listWebhooks", summary="The app's webhook endpoints", responses=problems(*CALLERS)
    )
    async def list_endpoints(self, application: App, app_key: AppKey) -> WebhookEndpointList:
        return await application.webhooks.endpoints(app_key.app_id)

    @get(
        "/{endpoint_id:str}",
        operation_id="getWebhook",
        summary="One webhook endpoint (with why the service disabled it, if it did)",
        responses=problems(*CALLERS, WebhookNotFound),
    )
    async def get_endpoint(
        self, endpoint_id: EndpointId, application: App, app_key: AppKey
    ) -> WebhookEndpoint:
        return await application.webhooks.endpoint(app_key.app_id, endpoint_id)

    @patch(
        "/{endpoint_id:str}",
        operation_id="changeWebhook",
        summary="Change an endpoint's URL, types or description; enable it (its backlog resumes) or pause it",
        responses=problems(*CALLERS, WebhookNotFound, WebhookUrlRefused),
    )
    async def change_endpoint(
        self,
        endpoint_id: EndpointId,
        data: JSONBody[WebhookEndpointChange],
        application: App,
        app_key: AppKey,
    ) -> WebhookEndpoint:
        return await application.webhooks.change(app_key.app_id, endpoint_id, data)

    @delete(
        "/{endpoint_id:str}",
        operation_id="deleteWebhook",
        summary="Delete an endpoint, its secrets and its delivery log",
        responses=problems(*CALLERS, WebhookNotFound),
    )
    async def delete_endpoint(self, endpoint_id: EndpointId, application: App, app_key: AppKey) -> None:
        await application.webhooks.remove(app_key.app_id, endpoint_id)

    @post(
        "/{endpoint_id:str}/secrets",
        operation_id="rotateWebhookSecret",
        summary=(
            "Rotate the signing secret: a new one (shown once), and the previous ones sign alongside it "
            "until the overlap ends"
        ),
        status_code=201,
        response_headers=[location_header("The endpoint the new secret signs for")],
        responses=problems(*CALLERS, WebhookNotFound),
    )
    async def rotate_secret(
        self,
        endpoint_id: EndpointId,
        application: App,
        app_key: AppKey,
        data: JSONBody[RotateWebhookSecret | None] = None,
    ) -> Response[WebhookSecretRotated]:
        rotated = await application.webhooks.rotate(
            app_key.app_id, endpoint_id, data or RotateWebhookSecret()
        )
        answer = created(rotated, f"/v1/webhooks/{endpoint_id}")
        answer.headers.update(SECRET_SHOWN)
        return answer

    @get(
        "/{endpoint_id:str}/deliveries",
        operation_id="listWebhookDeliveries",
        summary="The endpoint's delivery log, newest first, each delivery with its attempts",
        responses=problems(*CALLERS, WebhookNotFound, InvalidCursor),
    )
    async def list_deliveries(
        self,
        endpoint_id: EndpointId,
        application: App,
        app_key: AppKey,
        status: Annotated[
            Literal["pending", "succeeded", "failed"] | None, QueryParameter(name="status", required=False)
        ] = None,
        game_id: Annotated[
            str | None, QueryParameter(name="game_id", required=False, max_length=64, pattern=GAME_ID)
        ] = None,
        cursor: Annotated[str | None, QueryParameter(name="cursor", required=False, max_length=200)] = None,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=100)] = 20,
    ) -> WebhookDeliveryList:
        return await application.webhooks.deliveries(
            app_key.app_id, endpoint_id, status=status, game_id=game_id, cursor=cursor, limit=limit
        )

    @post(
        "/{endpoint_id:str}/deliveries/{delivery_id:str}/redeliver",
        operation_id="redeliverWebhook",
        summary="Send a delivery again now, with the same webhook-id (receivers spot the replay by it)",
        status_code=202,
        responses=problems(*CALLERS, WebhookNotFound, DeliveryNotFound),
    )
    async def redeliver(
        self,
        endpoint_id: EndpointId,
        delivery_id: Annotated[
            str, PathParameter(description="The delivery's id (its `webhook-id`)", max_length=100)
        ],
        application: App,
        app_key: AppKey,
    ) -> WebhookDelivery:
        return await application.webhooks.redeliver(app_key.app_id, endpoint_id, delivery_id)

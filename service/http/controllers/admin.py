"""The operator's admin API: apps, their API keys and signing keys, and their limits.

Guarded by the operator's token (``YAMEN_ADMIN_TOKEN``, sent as ``Authorization: Bearer <token>``
and compared in constant time).  Without that setting the admin API does not exist: every path
under ``/v1/admin`` answers 404 like any unknown path.  ``yamen apps …`` does the same from a shell.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from litestar import Controller, Response, delete, get, patch, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import Body, JSONBody, PathParameter

from ...application.apps import (
    AddSigningKey,
    AppCreated,
    AppInfo,
    AppList,
    CreateApp,
    KeyInfo,
    NewKey,
    NewSigningKey,
    RotateKey,
    SigningKeyInfo,
    UpdateApp,
)
from ...application.errors import (
    AdminApiOff,
    AdminTokenRequired,
    AppNotFound,
    InvalidSigningKey,
    KeyNotFound,
    SigningKeyNotFound,
)
from ..dependencies import App
from ..problems import problems
from .responses import created, location_header

AppId = Annotated[
    str, PathParameter(description="The app's id (`app_…`)", max_length=40, pattern="^app_[0-9a-f]+$")
]
KeyId = Annotated[
    str,
    PathParameter(description="The key's id (the 12 hex characters after `ymk_`)", pattern="^[0-9a-f]{12}$"),
]
Kid = Annotated[
    str, PathParameter(description="The signing key's `kid`", max_length=40, pattern="^sk_[0-9a-f]+$")
]

ADMIN_SECURITY: tuple[dict[str, list[str]], ...] = ({"adminToken": []},)


def operator_only(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """The operator's token, or no admin API at all (404 when ``YAMEN_ADMIN_TOKEN`` is unset)."""
    expected: str | None = connection.app.state.admin_token
    if expected is None:
        raise AdminApiOff("Not Found")  # what a path no route matches answers
    del handler
    scheme, _, presented = (connection.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(presented.strip().encode(), expected.encode()):
        raise AdminTokenRequired("send the operator's token: 'Authorization: Bearer <YAMEN_ADMIN_TOKEN>'")


class AdminController(Controller):
    path = "/v1/admin/apps"
    tags = ("admin",)
    guards = (operator_only,)
    security = ADMIN_SECURITY

    @post(
        "/",
        operation_id="adminCreateApp",
        summary="Create an app; returns its id and its first API key (shown once)",
        status_code=201,
        response_headers=[location_header("The new app (`GET` it with the operator's token)")],
        responses=problems(AdminApiOff, AdminTokenRequired),
    )
    async def create_app(self, data: JSONBody[CreateApp], application: App) -> Response[AppCreated]:
        made = await application.apps.create(data)
        return created(made, f"/v1/admin/apps/{made.app.app_id}")

    @get(
        "/",
        operation_id="adminListApps",
        summary="Every app, oldest first",
        responses=problems(AdminApiOff, AdminTokenRequired),
    )
    async def list_apps(self, application: App) -> AppList:
        return await application.apps.list()

    @get(
        "/{app_id:str}",
        operation_id="adminGetApp",
        summary="An app with its limits, its keys (never their secrets) and its signing keys",
        responses=problems(AdminApiOff, AdminTokenRequired, AppNotFound),
    )
    async def get_app(self, app_id: AppId, application: App) -> AppInfo:
        return await application.apps.get(app_id)

    @patch(
        "/{app_id:str}",
        operation_id="adminUpdateApp",
        summary="Change an app's name, limits or default visibility, or disable it (`disabled: true`: every "
        "key and player of the app is refused at once, on every worker) or enable it again",
        responses=problems(AdminApiOff, AdminTokenRequired, AppNotFound),
    )
    async def update_app(self, app_id: AppId, data: JSONBody[UpdateApp], application: App) -> AppInfo:
        return await application.apps.update(app_id, data)

    @post(
        "/{app_id:str}/keys",
        operation_id="adminCreateKey",
        summary="Another API key for the app (shown once); its other keys keep working",
        status_code=201,
        response_headers=[location_header("The app the key belongs to (its keys are listed there)")],
        responses=problems(AdminApiOff, AdminTokenRequired, AppNotFound),
    )
    async def create_key(self, app_id: AppId, application: App) -> Response[NewKey]:
        return created(await application.apps.create_key(app_id), f"/v1/admin/apps/{app_id}")

    @post(
        "/{app_id:str}/keys/{key_id:str}/rotate",
        operation_id="adminRotateKey",
        summary="A new API key (shown once) replacing this one, which keeps working for `overlap_seconds` "
        "(default 86,400) while the app rolls the new one out",
        status_code=201,
        response_headers=[location_header("The app the key belongs to (its keys are listed there)")],
        responses=problems(AdminApiOff, AdminTokenRequired, AppNotFound, KeyNotFound),
    )
    async def rotate_key(
        self,
        app_id: AppId,
        key_id: KeyId,
        application: App,
        data: Annotated[RotateKey | None, Body(description="Optional: the overlap")] = None,
    ) -> Response[NewKey]:
        overlap = (data or RotateKey()).overlap_seconds
        return created(await application.apps.rotate_key(app_id, key_id, overlap), f"/v1/admin/apps/{app_id}")

    @delete(
        "/{app_id:str}/keys/{key_id:str}",
        operation_id="adminRevokeKey",
        summary="Revoke an API key: refused at once, on every worker and replica",
        status_code=200,
        responses=problems(AdminApiOff, AdminTokenRequired, KeyNotFound),
    )
    async def revoke_key(self, app_id: AppId, key_id: KeyId, application: App) -> KeyInfo:
        return await application.apps.revoke_key(app_id, key_id)

    @post(
        "/{app_id:str}/signing-keys",
        operation_id="adminAddSigningKey",
        summary="A key the app's server signs player assertions with: HS256 (a secret made here, shown "
        "once) or EdDSA (the app's Ed25519 public key)",
        status_code=201,
        response_headers=[location_header("The app the key belongs to (its keys are listed there)")],
        responses=problems(AdminApiOff, AdminTokenRequired, AppNotFound, InvalidSigningKey),
    )
    async def add_signing_key(
        self, app_id: AppId, data: JSONBody[AddSigningKey], application: App
    ) -> Response[NewSigningKey]:
        return created(await application.apps.add_signing_key(app_id, data), f"/v1/admin/apps/{app_id}")

    @delete(
        "/{app_id:str}/signing-keys/{kid:str}",
        operation_id="adminRevokeSigningKey",
        summary="Revoke a signing key: assertions signed with it are refused at once, on every worker",
        status_code=200,
        responses=problems(AdminApiOff, AdminTokenRequired, SigningKeyNotFound),
    )
    async def revoke_signing_key(self, app_id: AppId, kid: Kid, application: App) -> SigningKeyInfo:
        return await application.apps.revoke_signing_key(app_id, kid)

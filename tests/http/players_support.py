"""What the players tests share: an app with an operator token, and apps, players and guests made
through the real API."""

from __future__ import annotations

from typing import Any

from tests.http.helpers import bearer

ADMIN_TOKEN = "players-tests-operator-token-0123456789"
"""The operator's token of the apps these tests start (``YAMEN_ADMIN_TOKEN``)."""


def operator() -> dict[str, str]:
    return bearer(ADMIN_TOKEN)


async def new_app(client: Any, name: str = "front end", **settings: Any) -> tuple[str, str]:
    """A new app through the admin API: its id and its first key."""
    response = await client.post("/v1/admin/apps", json={"name": name, **settings}, headers=operator())
    assert response.status_code == 201, response.text
    made = response.json()
    return made["app"]["app_id"], made["key"]["key"]


async def new_player(client: Any, app_key: str, external_id: str, **fields: Any) -> dict[str, Any]:
    """The app's player *external_id*, with a new credential."""
    response = await client.post(
        "/v1/players",
        json={"external_id": external_id, "credential": True, **fields},
        headers=bearer(app_key),
    )
    assert response.status_code in (200, 201), response.text
    return response.json()


async def new_guest(client: Any) -> dict[str, Any]:
    response = await client.post("/v1/guests")
    assert response.status_code == 201, response.text
    return response.json()

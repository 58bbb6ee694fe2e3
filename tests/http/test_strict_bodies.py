"""Request bodies are taken as the OpenAPI document types them: a number or a string where the
document says boolean is refused (msgspec's lax conversion, which Litestar applies to bodies, had
turned ``"rated": 0`` into a casual game), while an integral ``2.0`` for an integer stays the
integer JSON Schema takes it for."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.players_support import ADMIN_TOKEN, new_app


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


@pytest.mark.parametrize("rated", [0, 1, "true", "false", None])
async def test_a_boolean_member_takes_only_a_boolean(api, rated):
    answer = await api.post("/v1/games", json={"kind": "yangtze", "options": {"players": 2}, "rated": rated})
    assert answer.status_code == 400, answer.text
    problem = answer.json()
    assert problem["code"] == "invalid_request" and "$.rated" in problem["errors"][0]["message"]


async def test_booleans_and_integral_numbers_pass(api):
    made = await api.post("/v1/games", json={"kind": "yangtze", "options": {"players": 2}, "rated": True})
    assert made.status_code == 201, made.text
    _, key = await new_app(api)
    registered = await api.post(
        "/v1/players",
        json={"external_id": "strict", "credential": True, "credential_expires_in": 600.0},
        headers=bearer(key),
    )
    assert registered.status_code == 201, registered.text
    refused = await api.post(
        "/v1/players", json={"external_id": "strict", "credential": "yes"}, headers=bearer(key)
    )
    assert refused.status_code == 400 and "$.credential" in refused.json()["errors"][0]["message"]

"""Apps through the real app, Postgres and Redis: the admin API and its operator token, API keys
(shown once, stored hashed, rotated with an overlap, revoked), signing keys, and the credentials
refused whatever the route (a key in the URL, a malformed or unknown key, a disabled app)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.test_games_api import assert_problem

OPERATOR = "apps-tests-operator-token-0123456789abcdef"
"""``YAMEN_ADMIN_TOKEN`` of the apps these tests start."""


def operator() -> dict[str, str]:
    return bearer(OPERATOR)


async def new_app(client: Any, name: str = "a front end", **fields: Any) -> tuple[str, str]:
    """A new app through the admin API: its id and its first key."""
    response = await client.post("/v1/admin/apps", json={"name": name, **fields}, headers=operator())
    assert response.status_code == 201, response.text
    made = response.json()
    return made["app"]["app_id"], made["key"]["key"]


@pytest.fixture(scope="module")
async def client(database_url: str, redis_url: str):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=OPERATOR)) as test_client:
        yield test_client


async def test_without_its_setting_the_admin_api_does_not_exist(database_url):
    async with AsyncTestClient(app=make_app(database_url, None)) as client:
        for answer in (
            await client.post("/v1/admin/apps", json={"name": "x"}, headers=operator()),
            await client.get("/v1/admin/apps", headers=operator()),
            await client.get("/v1/admin/apps/app_0123456789abcdef"),
        ):
            assert_problem(answer, 404, "not_found")


async def test_the_admin_api_wants_the_operators_token(client):
    assert_problem(await client.get("/v1/admin/apps"), 401, "admin_token_required")
    assert_problem(
        await client.get("/v1/admin/apps", headers=bearer(OPERATOR[:-1] + "x")), 401, "admin_token_required"
    )
    assert_problem(
        await client.get("/v1/admin/apps", headers={"Authorization": OPERATOR}), 401, "admin_token_required"
    )
    _, key = await new_app(client)
    assert_problem(await client.get("/v1/admin/apps", headers=bearer(key)), 401, "admin_token_required")
    assert (await client.get("/v1/admin/apps", headers=operator())).status_code == 200


async def test_an_app_is_created_listed_changed_and_disabled(client, database_url):
    created = await client.post(
        "/v1/admin/apps",
        json={
            "name": "Tea House",
            "requests_per_minute": 500,
            "games_per_day": 40,
            "default_visibility": "app",
        },
        headers=operator(),
    )
    assert created.status_code == 201, created.text
    app, key = created.json()["app"], created.json()["key"]
    app_id = app["app_id"]
    assert (
        re.fullmatch(r"app_[0-9a-f]{16}", app_id)
        and created.headers["location"] == f"/v1/admin/apps/{app_id}"
    )
    assert app["limits"] == {"requests_per_minute": 500, "games_per_day": 40, "concurrent_games": 10_000}
    assert app["default_visibility"] == "app" and app["disabled_at"] is None
    listed = (await client.get("/v1/admin/apps", headers=operator())).json()["apps"]
    assert app_id in [a["app_id"] for a in listed]
    shown = (await client.get(f"/v1/admin/apps/{app_id}", headers=operator())).json()
    assert [k["key_id"] for k in shown["keys"]] == [key["key_id"]] and shown["keys"][0]["status"] == "active"
    assert key["key"] not in str(shown) and key["key"] not in str(listed)  # shown once
    assert_problem(
        await client.get("/v1/admin/apps/app_00000000000000ff", headers=operator()), 404, "app_not_found"
    )

    changed = await client.patch(
        f"/v1/admin/apps/{app_id}", json={"concurrent_games": 3, "name": "Tea House 2"}, headers=operator()
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["limits"]["concurrent_games"] == 3 and changed.json()["name"] == "Tea House 2"
    assert changed.json()["limits"]["requests_per_minute"] == 500  # what was not given stays
    for wrong in (
        {"games_per_day": -1},
        {"default_visibility": "secret"},
        {"colour": "red"},
        {"name": ""},
        {"name": "Tea\n"},
    ):
        assert_problem(
            await client.patch(f"/v1/admin/apps/{app_id}", json=wrong, headers=operator()),
            400,
            "invalid_request",
        )

    assert (await client.get("/v1/games", headers=bearer(key["key"]))).status_code == 200
    disabled = await client.patch(f"/v1/admin/apps/{app_id}", json={"disabled": True}, headers=operator())
    assert disabled.json()["disabled_at"] is not None
    assert_problem(await client.get("/v1/games", headers=bearer(key["key"])), 403, "app_disabled")
    await client.patch(f"/v1/admin/apps/{app_id}", json={"disabled": False}, headers=operator())
    assert (await client.get("/v1/games", headers=bearer(key["key"]))).status_code == 200


async def test_a_key_is_shown_once_and_stored_hashed(client, database_url):
    app_id, key = await new_app(client)
    match = re.fullmatch(r"ymk_([0-9a-f]{12})\.([A-Za-z0-9_-]{43})", key)
    assert match, key
    with psycopg.connect(database_url) as conn:
        stored = conn.execute(
            "SELECT app_id, secret_hash FROM app_keys WHERE key_id = %s", (match.group(1),)
        ).fetchone()
        everything = str(conn.execute("SELECT * FROM app_keys").fetchall())
    assert stored == (app_id, hashlib.sha256(key.encode()).hexdigest())
    assert match.group(2) not in everything
    # A key of the right shape with one character of its secret changed is no key.
    forged = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert_problem(await client.get("/v1/games", headers=bearer(forged)), 401, "invalid_app_key")
    for malformed in ("ymk_", "ymk_0123.abc", "ymk_zzzzzzzzzzzz." + "a" * 43, key + "\x7f"):
        assert_problem(await client.get("/v1/catalogue", headers=bearer(malformed)), 401, "invalid_app_key")
    assert_problem(await client.get("/v1/catalogue", headers=bearer("something-else")), 401, "invalid_token")


async def test_keys_are_rotated_with_an_overlap_and_revoked(client):
    app_id, first = await new_app(client)
    first_id = first[4:16]
    second = await client.post(f"/v1/admin/apps/{app_id}/keys", headers=operator())
    assert second.status_code == 201
    second_key = second.json()["key"]

    rotated = await client.post(
        f"/v1/admin/apps/{app_id}/keys/{first_id}/rotate", json={"overlap_seconds": 3600}, headers=operator()
    )
    assert rotated.status_code == 201, rotated.text
    third_key = rotated.json()["key"]
    assert (
        rotated.json()["replaces"]["key_id"] == first_id
        and rotated.json()["replaces"]["status"] == "expiring"
    )
    for key in (first, second_key, third_key):  # the old key works on through the overlap
        assert (await client.get("/v1/games", headers=bearer(key))).status_code == 200

    # Rotated again with no overlap: the old key stops at once.
    now = await client.post(
        f"/v1/admin/apps/{app_id}/keys/{first_id}/rotate", json={"overlap_seconds": 0}, headers=operator()
    )
    assert now.status_code == 201
    refused = assert_problem(await client.get("/v1/games", headers=bearer(first)), 401, "invalid_app_key")
    assert "expired" in refused["detail"]

    revoked = await client.delete(f"/v1/admin/apps/{app_id}/keys/{second_key[4:16]}", headers=operator())
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    refused = assert_problem(
        await client.get("/v1/games", headers=bearer(second_key)), 401, "invalid_app_key"
    )
    assert "revoked" in refused["detail"]
    assert (await client.get("/v1/games", headers=bearer(third_key))).status_code == 200
    # A revoked key cannot be rotated; another app's key is not this app's to touch.
    assert_problem(
        await client.post(f"/v1/admin/apps/{app_id}/keys/{second_key[4:16]}/rotate", headers=operator()),
        404,
        "key_not_found",
    )
    _, other_key = await new_app(client)
    assert_problem(
        await client.delete(f"/v1/admin/apps/{app_id}/keys/{other_key[4:16]}", headers=operator()),
        404,
        "key_not_found",
    )
    assert_problem(
        await client.post(
            f"/v1/admin/apps/{app_id}/keys/{third_key[4:16]}/rotate",
            json={"overlap_seconds": -5},
            headers=operator(),
        ),
        400,
        "invalid_request",
    )
    statuses = {
        k["key_id"]: k["status"]
        for k in (await client.get(f"/v1/admin/apps/{app_id}", headers=operator())).json()["keys"]
    }
    assert statuses[first_id] == "expired" and statuses[second_key[4:16]] == "revoked"
    assert statuses[third_key[4:16]] == "active"


async def test_signing_keys_hs256_secret_shown_once_eddsa_public_key_registered(client):
    app_id, _ = await new_app(client)
    hs = await client.post(f"/v1/admin/apps/{app_id}/signing-keys", json={"alg": "HS256"}, headers=operator())
    assert hs.status_code == 201, hs.text
    assert (
        hs.json()["alg"] == "HS256" and len(hs.json()["secret"]) >= 60 and hs.json()["kid"].startswith("sk_")
    )

    public = ed25519.Ed25519PrivateKey.generate().public_key()
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    ed = await client.post(
        f"/v1/admin/apps/{app_id}/signing-keys", json={"alg": "EdDSA", "public_key": pem}, headers=operator()
    )
    assert ed.status_code == 201, ed.text
    assert ed.json()["public_key"] == pem and ed.json().get("secret") is None

    shown = (await client.get(f"/v1/admin/apps/{app_id}", headers=operator())).json()["signing_keys"]
    assert {s["kid"] for s in shown} == {hs.json()["kid"], ed.json()["kid"]}
    assert hs.json()["secret"] not in str(shown)  # the HS256 secret is never shown again

    rsa_pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    for wrong in (
        {"alg": "EdDSA"},
        {"alg": "EdDSA", "public_key": "not a key"},
        {"alg": "EdDSA", "public_key": rsa_pem},
        {"alg": "HS256", "public_key": pem},
    ):
        assert_problem(
            await client.post(f"/v1/admin/apps/{app_id}/signing-keys", json=wrong, headers=operator()),
            422,
            "invalid_signing_key",
        )
    assert_problem(
        await client.post(f"/v1/admin/apps/{app_id}/signing-keys", json={"alg": "RS256"}, headers=operator()),
        400,
        "invalid_request",
    )
    revoked = await client.delete(
        f"/v1/admin/apps/{app_id}/signing-keys/{hs.json()['kid']}", headers=operator()
    )
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    assert_problem(
        await client.delete(f"/v1/admin/apps/{app_id}/signing-keys/sk_000000000000", headers=operator()),
        404,
        "signing_key_not_found",
    )


@pytest.mark.parametrize("name", ["key", "token", "api_key", "access_token", "API_KEY"])
async def test_a_credential_in_the_query_string_is_refused(client, name):
    _, key = await new_app(client)
    for path in ("/v1/catalogue", "/v1/games", "/v1/games/g_nope", "/v1/games/g_nope/events"):
        refused = assert_problem(await client.get(f"{path}?{name}={key}"), 400, "credential_in_url")
        assert key not in refused["detail"]
    # With the key in its header too: still refused (it is in the URL all the same).
    assert_problem(await client.get(f"/v1/games?{name}=x", headers=bearer(key)), 400, "credential_in_url")


async def test_a_named_seat_must_be_a_seat_number(client):
    """``?seat=`` (the seat a player holding several acts as) is declared on the game operations a
    player may call, and anything but a seat number is refused before the game is looked at."""
    document = (await client.get("/schema/openapi.json")).json()
    declared = [
        name
        for path, item in document["paths"].items()
        for name, operation in item.items()
        if "{game_id}" in path
        and any(p["name"] == "seat" and p["in"] == "query" for p in operation.get("parameters", []))
    ]
    assert len(declared) >= 8
    for wrong in ("abc", "-1", "17", "1e1", "٣"):
        assert_problem(await client.get(f"/v1/games/g_nope?seat={wrong}"), 400, "invalid_request")
    assert_problem(await client.get("/v1/games/g_nope?seat=1"), 404, "game_not_found")

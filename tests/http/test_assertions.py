"""Player assertions: JWTs an app's server signs (HS256 with the secret Yamen made for the app, or
EdDSA with the app's own key), verified by PyJWT.  Every way one can be wrong is refused 401 with
its code; a valid one lets a browser play with no call to the app's server."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.players_support import ADMIN_TOKEN, new_app, new_player, operator

ORIGIN = "https://front-end.example"


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


class Issuer:
    """An app's server as the tests play it: an app, and a signing key of each algorithm."""

    def __init__(
        self, app_id: str, key: str, hs: dict[str, Any], ed: dict[str, Any], private: Ed25519PrivateKey
    ):
        self.app_id, self.key, self.hs, self.ed, self.private = app_id, key, hs, ed, private

    def claims(self, sub: str = "user-1", **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {"iss": self.app_id, "sub": sub, "aud": "yamen", "iat": now, "exp": now + 300}
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def hs256(self, claims: dict[str, Any] | None = None, **headers: Any) -> str:
        return jwt.encode(
            claims or self.claims(),
            self.hs["secret"],
            algorithm="HS256",
            headers={"kid": self.hs["kid"], **headers},
        )

    def eddsa(self, claims: dict[str, Any] | None = None, private: Ed25519PrivateKey | None = None) -> str:
        return jwt.encode(
            claims or self.claims(),
            private or self.private,
            algorithm="EdDSA",
            headers={"kid": self.ed["kid"]},
        )


async def issuer(client: Any) -> Issuer:
    app_id, key = await new_app(client)
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    keys = f"/v1/admin/apps/{app_id}/signing-keys"
    hs = await client.post(keys, json={"alg": "HS256"}, headers=operator())
    ed = await client.post(keys, json={"alg": "EdDSA", "public_key": public.decode()}, headers=operator())
    assert hs.status_code == ed.status_code == 201, (hs.text, ed.text)
    return Issuer(app_id, key, hs.json(), ed.json(), private)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(header: dict[str, Any], claims: dict[str, Any], secret: bytes | None) -> str:
    """A JWT put together by hand (an attacker's: PyJWT refuses to make these), HMAC-SHA256 signed
    with *secret*, or unsigned."""
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
    signature = b"" if secret is None else hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


async def refused(client: Any, assertion: str) -> tuple[int, str, str]:
    answer = await client.get("/v1/me", headers=bearer(assertion))
    body = answer.json()
    return answer.status_code, body.get("code", ""), body.get("detail", "")


@pytest.mark.parametrize("alg", ["HS256", "EdDSA"])
async def test_a_valid_assertion_is_the_player_its_app_vouches_for(api, alg):
    app = await issuer(api)
    sign = app.hs256 if alg == "HS256" else app.eddsa
    first = await api.get("/v1/me", headers=bearer(sign(app.claims("new-user"))))
    assert first.status_code == 200, first.text
    player = first.json()
    assert player["app_id"] == app.app_id and player["external_id"] == "new-user"  # registered now
    again = await api.get("/v1/me", headers=bearer(sign(app.claims("new-user"))))
    assert again.json()["player_id"] == player["player_id"]
    # The app's server finds the same player by the same external id.
    registered = await new_player(api, app.key, "new-user")
    assert registered["player_id"] == player["player_id"]


async def test_clock_skew_within_30_seconds_is_allowed(api):
    app = await issuer(api)
    now = int(time.time())
    just_expired = app.claims(iat=now - 100, exp=now - 20)
    slightly_ahead = app.claims(iat=now + 20, exp=now + 300)
    for claims in (just_expired, slightly_ahead):
        assert (await api.get("/v1/me", headers=bearer(app.hs256(claims)))).status_code == 200


async def test_each_wrong_assertion_is_refused_with_its_code(api):
    app = await issuer(api)
    other = await issuer(api)
    now = int(time.time())
    stranger = Ed25519PrivateKey.generate()
    public_pem = app.ed["public_key"].encode()
    cases = {
        "expired": (app.hs256(app.claims(iat=now - 600, exp=now - 60)), "assertion_expired"),
        "expired, EdDSA": (app.eddsa(app.claims(iat=now - 600, exp=now - 60)), "assertion_expired"),
        "issued in the future": (
            app.hs256(app.claims(iat=now + 120, exp=now + 600)),
            "assertion_not_yet_valid",
        ),
        "not before the future": (app.hs256(app.claims(nbf=now + 120)), "assertion_not_yet_valid"),
        "wrong audience": (app.hs256(app.claims(aud="another-service")), "assertion_wrong_audience"),
        "audiences without ours": (app.hs256(app.claims(aud=["a", "b"])), "assertion_wrong_audience"),
        "re-signed with another secret": (
            jwt.encode(app.claims(), "not-the-secret" * 4, algorithm="HS256", headers={"kid": app.hs["kid"]}),
            "assertion_invalid",
        ),
        "re-signed with another Ed25519 key": (app.eddsa(private=stranger), "assertion_invalid"),
        "another app's key and secret": (
            jwt.encode(app.claims(), other.hs["secret"], algorithm="HS256", headers={"kid": other.hs["kid"]}),
            "assertion_invalid",
        ),
        "alg confusion: HS256 keyed with the EdDSA public key": (
            forged({"alg": "HS256", "typ": "JWT", "kid": app.ed["kid"]}, app.claims(), public_pem),
            "assertion_invalid",
        ),
        "alg none": (
            forged({"alg": "none", "typ": "JWT", "kid": app.hs["kid"]}, app.claims(), None),
            "assertion_invalid",
        ),
        "no kid": (jwt.encode(app.claims(), app.hs["secret"], algorithm="HS256"), "assertion_invalid"),
        "unknown kid": (
            jwt.encode(app.claims(), app.hs["secret"], algorithm="HS256", headers={"kid": "sk_000000000000"}),
            "assertion_invalid",
        ),
        "iss of another app": (app.hs256(app.claims(iss=other.app_id)), "assertion_invalid"),
        "too long-lived": (app.hs256(app.claims(iat=now, exp=now + 3601)), "assertion_invalid"),
        "sub not text": (app.hs256(app.claims(sub=None) | {"sub": 42}), "assertion_invalid"),
        "sub with a control character": (app.hs256(app.claims(sub="a\nb")), "assertion_invalid"),
        "sub too long": (app.hs256(app.claims(sub="x" * 201)), "assertion_invalid"),
        "exp not a number": (app.hs256(app.claims(exp="tomorrow")), "assertion_invalid"),
        "not a JWT": ("eyJhbGciOiJIUzI1NiJ9.e30.bm90IGEgc2lnbmF0dXJl!", "assertion_invalid"),
        "header not JSON": ("eyJub3QganNvbg.eyJpc3MiOiJ4In0.c2ln", "assertion_invalid"),
    }
    for missing in ("iss", "sub", "aud", "exp", "iat"):
        cases[f"missing {missing}"] = (app.hs256(app.claims(**{missing: None})), "assertion_invalid")
    wrong = {}
    for name, (assertion, code) in cases.items():
        status, got, detail = await refused(api, assertion)
        if (status, got) != (401, code):
            wrong[name] = (status, got, detail)
    assert not wrong
    # Nothing refused registered anybody.
    assert (await api.get("/v1/me", headers=bearer(app.hs256()))).status_code == 200


@pytest.mark.parametrize("boards", [True, False], ids=["with the notice board", "without Redis"])
async def test_a_revoked_signing_key_is_refused_at_once_on_every_worker(database_url, redis_url, boards):
    redis = redis_url if boards else None
    async with (
        AsyncTestClient(app=make_app(database_url, redis, admin_token=ADMIN_TOKEN)) as a,
        AsyncTestClient(app=make_app(database_url, redis, admin_token=ADMIN_TOKEN)) as b,
    ):
        app = await issuer(a)
        for _ in range(3):  # b remembers the key
            assert (await b.get("/v1/me", headers=bearer(app.eddsa()))).status_code == 200
        assert ((app.app_id, app.ed["kid"]) in b.app.state.application.players._keys) is boards
        revoked = await a.delete(
            f"/v1/admin/apps/{app.app_id}/signing-keys/{app.ed['kid']}", headers=operator()
        )
        assert revoked.status_code == 200, revoked.text
        status, code, detail = await refused(b, app.eddsa())
        assert (status, code) == (401, "assertion_invalid") and "revoked" in detail
        # The app's other key still signs.
        assert (await b.get("/v1/me", headers=bearer(app.hs256()))).status_code == 200


async def test_a_disabled_app_s_assertions_are_refused(api):
    app = await issuer(api)
    assert (await api.get("/v1/me", headers=bearer(app.hs256()))).status_code == 200
    await api.patch(f"/v1/admin/apps/{app.app_id}", json={"disabled": True}, headers=operator())
    answer = await api.get("/v1/me", headers=bearer(app.hs256()))
    assert answer.status_code == 403 and answer.json()["code"] == "app_disabled"


async def test_the_audience_is_a_setting(database_url, redis_url):
    async with AsyncTestClient(
        app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN, assertion_audience="games.example")
    ) as client:
        app = await issuer(client)
        assert (await refused(client, app.hs256()))[1] == "assertion_wrong_audience"
        ours = await client.get("/v1/me", headers=bearer(app.hs256(app.claims(aud="games.example"))))
        assert ours.status_code == 200, ours.text


async def test_a_browser_holding_an_assertion_plays_with_no_call_to_its_app(api):
    """The app's server signs an assertion (offline: no call to Yamen); a page on the app's origin
    then creates a game, moves and lists its games with it alone."""
    app = await issuer(api)
    assertion = app.eddsa(app.claims("browser-user", exp=int(time.time()) + 600))
    page = {**bearer(assertion), "Origin": ORIGIN}
    preflight = await api.options(
        "/v1/games",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    assert preflight.status_code in (200, 204)
    made = await api.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}}, headers=page)
    assert made.status_code == 201, made.text
    assert made.headers["access-control-allow-origin"] in ("*", ORIGIN)
    game_id = made.json()["game_id"]
    doc = (await api.get(f"/v1/games/{game_id}?seat=0", headers=page)).json()
    seat = doc["to_act"][0]
    legal = (await api.get(f"/v1/games/{game_id}/legal-moves?seat={seat}", headers=page)).json()
    assert legal["seat"] == seat and legal["moves"]
    moved = await api.post(f"/v1/games/{game_id}/moves?seat={seat}", json=legal["moves"][0], headers=page)
    assert moved.status_code == 200, moved.text
    mine = (await api.get("/v1/me/games", headers=page)).json()["games"]
    assert [g["game_id"] for g in mine] == [game_id] and mine[0]["seats"] == [0, 1]


async def test_a_remembered_assertion_still_expires(api):
    """A verified assertion is remembered (no parsing on the next request), but only until its exp
    (and the 30 s of leeway): here that is two seconds away."""
    app = await issuer(api)
    now = int(time.time())
    assertion = app.hs256(app.claims(iat=now - 60, exp=now - 28))
    for _ in range(2):
        assert (await api.get("/v1/me", headers=bearer(assertion))).status_code == 200
    assert assertion in api.app.state.application.players._assertions
    await asyncio.sleep(max(0.0, now + 2.2 - time.time()))
    status, code, _ = await refused(api, assertion)
    assert (status, code) == (401, "assertion_expired")


async def test_a_revoked_signing_key_in_the_socket_is_heard_before_a_remembered_assertion_is_trusted(
    api, database_url, redis_url
):
    """As for credentials: the notice that has arrived is read before memory answers, even for an
    assertion verified (and remembered) a moment ago."""
    import psycopg
    import redis

    from service.application.errors import AssertionInvalid

    players = api.app.state.application.players
    app = await issuer(api)
    assertion = app.eddsa()
    assert (await players.authenticate_assertion(assertion)).app_id == app.app_id
    assert assertion in players._assertions
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("UPDATE app_signing_keys SET revoked_at = now() WHERE kid = %s", (app.ed["kid"],))
    publisher = redis.Redis.from_url(redis_url)
    publisher.publish("yamen:moves", f"{app.ed['kid']} revoked")
    publisher.ping()
    publisher.close()
    with pytest.raises(AssertionInvalid):
        await players.authenticate_assertion(assertion)

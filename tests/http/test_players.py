"""Players vouched for by an app: registered by external id with the app's key, given credentials
(shown once, several, revocable at once on every worker), seen by their own app only; guests."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.players_support import ADMIN_TOKEN, new_app, new_guest, new_player, operator


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


async def test_registering_an_external_id_twice_finds_the_same_player(api):
    _, key = await new_app(api)
    first = await api.post(
        "/v1/players", json={"external_id": "user-42", "display_name": "Wang"}, headers=bearer(key)
    )
    assert first.status_code == 201, first.text
    player = first.json()
    assert player["player_id"].startswith("p_") and player["external_id"] == "user-42"
    assert player["display_name"] == "Wang" and player["credential"] is None
    assert first.headers["location"] == f"/v1/players/{player['player_id']}"
    again = await api.post("/v1/players", json={"external_id": "user-42"}, headers=bearer(key))
    assert again.status_code == 200, again.text
    assert again.json()["player_id"] == player["player_id"]
    assert again.json()["display_name"] == "Wang"  # omitted: kept
    renamed = await api.post(
        "/v1/players", json={"external_id": "user-42", "display_name": "Li"}, headers=bearer(key)
    )
    assert renamed.json()["player_id"] == player["player_id"] and renamed.json()["display_name"] == "Li"


async def test_a_credential_is_shown_once_and_a_player_may_hold_several(api):
    _, key = await new_app(api)
    one = await new_player(api, key, "alice")
    two = await new_player(api, key, "alice")
    assert one["player_id"] == two["player_id"]
    credentials = [one["credential"], two["credential"]]
    assert all(c["credential"].startswith(f"ymp_{c['credential_id']}.") for c in credentials)
    assert credentials[0]["credential_id"] != credentials[1]["credential_id"]
    for c in credentials:
        me = await api.get("/v1/me", headers=bearer(c["credential"]))
        assert me.status_code == 200, me.text
        assert me.json()["player_id"] == one["player_id"]
        assert me.json()["app_id"] is not None and me.json()["credential"] is None
    listed = (await api.get(f"/v1/players/{one['player_id']}", headers=bearer(key))).json()
    assert [c["credential_id"] for c in listed["credentials"]] == [c["credential_id"] for c in credentials]
    assert "ymp_" not in str(listed)  # never a secret again


async def test_an_app_sees_only_its_own_players(api):
    _, key_a = await new_app(api, "a")
    _, key_b = await new_app(api, "b")
    mine = await new_player(api, key_a, "same-id")
    theirs = await new_player(api, key_b, "same-id")
    assert mine["player_id"] != theirs["player_id"]  # an external id is the app's own namespace
    pid, cid = mine["player_id"], mine["credential"]["credential_id"]
    for method, path in (("GET", f"/v1/players/{pid}"), ("DELETE", f"/v1/players/{pid}/credentials/{cid}")):
        answer = await api.request(method, path, headers=bearer(key_b))
        assert answer.status_code == 404, answer.text
        assert answer.json()["code"] == "player_not_found"
    assert (await api.get("/v1/me", headers=bearer(mine["credential"]["credential"]))).status_code == 200


@pytest.mark.parametrize("who", ["nobody", "player", "seat token", "operator"])
async def test_only_an_app_key_registers_players(api, who):
    _, key = await new_app(api)
    player = await new_player(api, key, "p")
    game = (await api.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}})).json()
    headers = {
        "nobody": {},
        "player": bearer(player["credential"]["credential"]),
        "seat token": bearer(game["tokens"][0]["token"]),
        "operator": operator(),
    }[who]
    answer = await api.post("/v1/players", json={"external_id": "x"}, headers=headers)
    assert answer.status_code == 401, answer.text
    assert answer.json()["code"] in ("app_key_required", "invalid_token")


async def test_a_revoked_credential_is_refused_and_the_others_keep_working(api):
    _, key = await new_app(api)
    one = await new_player(api, key, "bob")
    two = await new_player(api, key, "bob")
    revoked = await api.delete(
        f"/v1/players/{one['player_id']}/credentials/{one['credential']['credential_id']}",
        headers=bearer(key),
    )
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["revoked_at"] is not None
    refused = await api.get("/v1/me", headers=bearer(one["credential"]["credential"]))
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_player_credential"
    assert (await api.get("/v1/me", headers=bearer(two["credential"]["credential"]))).status_code == 200
    unknown = await api.delete(
        f"/v1/players/{one['player_id']}/credentials/0123456789ab", headers=bearer(key)
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "credential_not_found"


@pytest.mark.parametrize("boards", [True, False], ids=["with the notice board", "without Redis"])
async def test_a_revocation_on_one_worker_is_refused_at_once_on_the_other(database_url, redis_url, boards):
    redis = redis_url if boards else None
    async with (
        AsyncTestClient(app=make_app(database_url, redis, admin_token=ADMIN_TOKEN)) as a,
        AsyncTestClient(app=make_app(database_url, redis, admin_token=ADMIN_TOKEN)) as b,
    ):
        _, key = await new_app(a)
        player = await new_player(a, key, "carol")
        credential = player["credential"]
        for _ in range(3):  # b remembers the verified credential
            assert (await b.get("/v1/me", headers=bearer(credential["credential"]))).status_code == 200
        remembered = b.app.state.application.players._credentials
        assert (credential["credential_id"] in remembered) is boards
        revoked = await a.delete(
            f"/v1/players/{player['player_id']}/credentials/{credential['credential_id']}",
            headers=bearer(key),
        )
        assert revoked.status_code == 200
        refused = await b.get("/v1/me", headers=bearer(credential["credential"]))
        assert refused.status_code == 401, refused.text
        assert refused.json()["code"] == "invalid_player_credential"


async def test_an_expiring_credential_stops_working(api):
    _, key = await new_app(api)
    player = await new_player(api, key, "dana", credential_expires_in=60)
    credential = player["credential"]
    assert credential["expires_at"] is not None
    assert (await api.get("/v1/me", headers=bearer(credential["credential"]))).status_code == 200
    players = api.app.state.application.players
    saved = players.clock
    try:
        from datetime import timedelta

        players.clock = lambda: saved() + timedelta(seconds=61)
        refused = await api.get("/v1/me", headers=bearer(credential["credential"]))
        assert refused.status_code == 401 and "expired" in refused.json()["detail"]
    finally:
        players.clock = saved


async def test_a_disabled_apps_players_are_refused(api):
    app_id, key = await new_app(api)
    player = await new_player(api, key, "erin")
    credential = bearer(player["credential"]["credential"])
    assert (await api.get("/v1/me", headers=credential)).status_code == 200
    disabled = await api.patch(f"/v1/admin/apps/{app_id}", json={"disabled": True}, headers=operator())
    assert disabled.status_code == 200, disabled.text
    refused = await api.get("/v1/me", headers=credential)
    assert refused.status_code == 403 and refused.json()["code"] == "app_disabled"
    await api.patch(f"/v1/admin/apps/{app_id}", json={"disabled": False}, headers=operator())
    assert (await api.get("/v1/me", headers=credential)).status_code == 200


@pytest.mark.parametrize(
    "credential",
    ["ymp_nothex.secret", "ymp_0123456789ab", "ymp_0123456789ab.short", "ymp_0123456789ab." + "x" * 43],
)
async def test_a_malformed_or_unknown_credential_is_refused(api, credential):
    refused = await api.get("/v1/me", headers=bearer(credential))
    assert refused.status_code == 401, refused.text
    assert refused.json()["code"] == "invalid_player_credential"
    assert refused.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"external_id": ""},
        {"external_id": "x" * 201},
        {"external_id": "line\nbreak"},
        {"external_id": "trailing newline\n"},
        {"external_id": "ok", "display_name": "bell\x07"},
        {"external_id": "ok", "extra": 1},
        {"external_id": "ok", "credential_expires_in": 5},
    ],
)
async def test_a_bad_registration_is_a_400(api, body):
    _, key = await new_app(api)
    answer = await api.post("/v1/players", json=body, headers=bearer(key))
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "invalid_request"


async def test_a_guest_is_a_player_no_app_vouches_for(api):
    guest = await new_guest(api)
    assert guest["app_id"] is None and guest["external_id"] is None
    assert guest["credential"]["credential"].startswith("ymp_")
    me = await api.get("/v1/me", headers=bearer(guest["credential"]["credential"]))
    assert me.status_code == 200 and me.json()["player_id"] == guest["player_id"]
    assert (await new_guest(api))["player_id"] != guest["player_id"]
    # A guest is nobody's to look up: no app's key finds it.
    _, key = await new_app(api)
    assert (await api.get(f"/v1/players/{guest['player_id']}", headers=bearer(key))).status_code == 404


async def test_a_player_lists_and_revokes_its_own_credentials(api):
    """A guest (whom no app can help) and an app's player alike: ``GET /v1/me`` lists the
    credentials, and ``DELETE /v1/me/credentials/{id}`` ends one — another device's, or the one it
    calls with (signing out); another player's credential is not its to revoke."""
    guest = await new_guest(api)
    own = guest["credential"]
    me = (await api.get("/v1/me", headers=bearer(own["credential"]))).json()
    assert [c["credential_id"] for c in me["credentials"]] == [own["credential_id"]]
    assert "credential" not in me["credentials"][0] and me["credentials"][0]["revoked_at"] is None
    _, key = await new_app(api)
    first, second = await new_player(api, key, "two-devices"), await new_player(api, key, "two-devices")
    listed = (await api.get("/v1/me", headers=bearer(first["credential"]["credential"]))).json()
    assert {c["credential_id"] for c in listed["credentials"]} == {
        first["credential"]["credential_id"],
        second["credential"]["credential_id"],
    }
    # Not another player's: 404, as for a credential nobody has.
    other = await api.delete(
        f"/v1/me/credentials/{first['credential']['credential_id']}", headers=bearer(own["credential"])
    )
    assert other.status_code == 404 and other.json()["code"] == "credential_not_found"
    # The lost device's credential, from the other device.
    lost = await api.delete(
        f"/v1/me/credentials/{second['credential']['credential_id']}",
        headers=bearer(first["credential"]["credential"]),
    )
    assert lost.status_code == 200 and lost.json()["revoked_at"] is not None
    assert (await api.get("/v1/me", headers=bearer(second["credential"]["credential"]))).status_code == 401
    # Signing out: the guest's own, with itself.
    out = await api.delete(f"/v1/me/credentials/{own['credential_id']}", headers=bearer(own["credential"]))
    assert out.status_code == 200
    refused = await api.get("/v1/me", headers=bearer(own["credential"]))
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_player_credential"


async def test_a_players_requests_count_against_its_apps_limit(api):
    """The app's key and its players share the app's own bucket (not their addresses')."""
    _, key = await new_app(api, requests_per_minute=6)
    player = await new_player(api, key, "frank")  # 1 request of the app's
    credential = bearer(player["credential"]["credential"])
    answers = [await api.get("/v1/me", headers=credential) for _ in range(3)]
    answers += [await api.get("/v1/games", headers=bearer(key)) for _ in range(2)]
    assert [a.status_code for a in answers] == [200] * 5
    limited = await api.get("/v1/me", headers=credential)
    assert limited.status_code == 429, limited.text
    assert "retry-after" in limited.headers
    assert (await api.get("/v1/games", headers=bearer(key))).status_code == 429
    guest = await new_guest(api)  # another caller entirely: its own bucket
    assert (await api.get("/v1/me", headers=bearer(guest["credential"]["credential"]))).status_code == 200


async def test_no_player_credential_assertion_or_reissued_token_reaches_a_log_line(database_url, redis_url):
    import json
    import time

    import jwt
    import structlog

    app = make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)  # configures structlog: capture after
    capture = structlog.testing.LogCapture()
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, capture], cache_logger_on_first_use=False
    )
    try:
        async with AsyncTestClient(app=app) as client:
            app_id, key = await new_app(client)
            signing = (
                await client.post(
                    f"/v1/admin/apps/{app_id}/signing-keys", json={"alg": "HS256"}, headers=operator()
                )
            ).json()
            now = int(time.time())
            claims = {"iss": app_id, "sub": "logged", "aud": "yamen", "iat": now, "exp": now + 60}
            assertion = jwt.encode(
                claims, signing["secret"], algorithm="HS256", headers={"kid": signing["kid"]}
            )
            player = await new_player(client, key, "logged")
            credential = player["credential"]["credential"]
            guest = (await new_guest(client))["credential"]["credential"]
            made = await client.post(
                "/v1/games", json={"kind": "bluff", "options": {"players": 2}}, headers=bearer(assertion)
            )
            game_id = made.json()["game_id"]
            reissued = await client.post(f"/v1/games/{game_id}/seats/0/token", headers=bearer(assertion))
            token = reissued.json()["token"]
            await client.get(f"/v1/games/{game_id}?seat=0", headers=bearer(credential))
            await client.get("/v1/me/games", headers=bearer(guest))
            await client.get(f"/v1/me?token={credential}")  # refused: a credential in the URL
            await client.get("/v1/me", headers=bearer(credential[:-2] + "xx"))
            await client.get("/v1/me", headers=bearer(assertion[:-2] + "xx"))
    finally:
        from service.infra.logging import configure_logging

        configure_logging("json")
    text = json.dumps(capture.entries, default=str)
    assert any(line.get("path") == "/v1/me/games" for line in capture.entries)
    for secret in (credential, guest, assertion, signing["secret"], token, assertion.split(".")[2]):
        assert secret not in text
    for shown in (credential, guest):  # nor the secret part of a credential (its id names it)
        assert shown.split(".")[1] not in text


async def test_a_revocation_in_the_socket_is_heard_before_a_remembered_credential_is_trusted(
    api, database_url, redis_url
):
    """The revoker answers once every board has the notice in its socket; a worker that has not read
    it yet (its loop busy) must still not trust the credential: it reads what has arrived first."""
    import psycopg
    import redis

    from service.application.errors import InvalidPlayerCredential

    players = api.app.state.application.players
    assert players.board is not None and players.board.live
    _, key = await new_app(api)
    player = await new_player(api, key, "gina")
    credential, credential_id = player["credential"]["credential"], player["credential"]["credential_id"]
    assert (await players.authenticate_credential(credential)).player_id == player["player_id"]
    assert credential_id in players._credentials
    # Revoked elsewhere, its notice posted and delivered, without this loop running meanwhile.
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE player_credentials SET revoked_at = now() WHERE credential_id = %s", (credential_id,)
        )
    publisher = redis.Redis.from_url(redis_url)
    publisher.publish("yamen:moves", f"{credential_id} revoked")
    publisher.ping()
    publisher.close()
    with pytest.raises(InvalidPlayerCredential):
        await players.authenticate_credential(credential)

"""A revoked key is refused at once on every worker: two app instances share Postgres (and Redis),
one revokes, the other refuses the very next request — with the key remembered there while its
notice board vouched for it, and with no Redis at all (every request then reads the key)."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
import redis
from litestar.testing import AsyncTestClient

from service.application.errors import InvalidAppKey
from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.test_apps import OPERATOR, new_app, operator
from tests.http.test_games_api import assert_problem


async def _board_live(client: Any) -> None:
    board = client.app.state.application.apps.board
    for _ in range(100):
        if board is not None and board.live:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the notice board never went live")


async def test_a_key_revoked_on_one_worker_is_refused_at_once_on_another(database_url, redis_url):
    async with (
        AsyncTestClient(app=make_app(database_url, redis_url, admin_token=OPERATOR)) as a,
        AsyncTestClient(app=make_app(database_url, redis_url, admin_token=OPERATOR)) as b,
    ):
        await _board_live(a)
        await _board_live(b)
        remembered = b.app.state.application.apps.remembered_app
        app_id, key = await new_app(a)
        spare = (await a.post(f"/v1/admin/apps/{app_id}/keys", headers=operator())).json()["key"]
        for held in (key, spare):
            assert (await b.get("/v1/games", headers=bearer(held))).status_code == 200
            assert remembered(held[4:16]) is not None  # b answers the next request from memory

        revoked = await a.delete(f"/v1/admin/apps/{app_id}/keys/{key[4:16]}", headers=operator())
        assert revoked.status_code == 200
        assert_problem(await b.get("/v1/games", headers=bearer(key)), 401, "invalid_app_key")
        assert (await b.get("/v1/games", headers=bearer(spare))).status_code == 200

        # A rotation with no overlap, and a disabled app, reach b as fast.
        rotated = await a.post(
            f"/v1/admin/apps/{app_id}/keys/{spare[4:16]}/rotate",
            json={"overlap_seconds": 0},
            headers=operator(),
        )
        assert_problem(await b.get("/v1/games", headers=bearer(spare)), 401, "invalid_app_key")
        newest = rotated.json()["key"]
        assert (await b.get("/v1/games", headers=bearer(newest))).status_code == 200
        assert remembered(newest[4:16]) is not None
        await a.patch(f"/v1/admin/apps/{app_id}", json={"disabled": True}, headers=operator())
        assert_problem(await b.get("/v1/games", headers=bearer(newest)), 403, "app_disabled")


async def test_without_redis_every_request_reads_its_key(database_url):
    async with (
        AsyncTestClient(app=make_app(database_url, None, admin_token=OPERATOR)) as a,
        AsyncTestClient(app=make_app(database_url, None, admin_token=OPERATOR)) as b,
    ):
        app_id, key = await new_app(a)
        assert (await b.get("/v1/games", headers=bearer(key))).status_code == 200
        assert b.app.state.application.apps.remembered_app(key[4:16]) is None  # nothing vouches for it
        await a.delete(f"/v1/admin/apps/{app_id}/keys/{key[4:16]}", headers=operator())
        assert_problem(await b.get("/v1/games", headers=bearer(key)), 401, "invalid_app_key")
        # New limits reach b at once as well.
        other_id, other = await new_app(a)
        await a.patch(f"/v1/admin/apps/{other_id}", json={"requests_per_minute": 1}, headers=operator())
        assert (await b.get("/v1/games", headers=bearer(other))).status_code == 200
        assert_problem(await b.get("/v1/games", headers=bearer(other)), 429, "too_many_requests")


async def test_a_revocation_in_the_socket_is_heard_before_a_remembered_key_is_trusted(
    database_url, redis_url
):
    """The revoker answers once every board has the notice in its socket; a worker that has not
    read it yet (its loop busy) still must not trust the key: it reads what has arrived first."""
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=OPERATOR)) as b:
        await _board_live(b)
        apps = b.app.state.application.apps
        app_id, key = await new_app(b)
        assert (await apps.authenticate_key(key)).app_id == app_id
        assert apps.remembered_app(key[4:16]) is not None
        # Revoked elsewhere, its notice posted and delivered, without this loop running meanwhile.
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("UPDATE app_keys SET revoked_at = now() WHERE key_id = %s", (key[4:16],))
        publisher = redis.Redis.from_url(redis_url)
        publisher.publish("yamen:moves", f"{key[4:16]} revoked")
        publisher.ping()
        publisher.close()
        with pytest.raises(InvalidAppKey):
            await apps.authenticate_key(key)

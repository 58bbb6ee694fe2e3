"""What one client may ask: rate limits (429 with Retry-After and RateLimit headers), body sizes
that agree with each other (413), and slow bodies (408)."""

from __future__ import annotations

import asyncio

import pytest
import redis
from litestar.testing import AsyncTestClient

from service.http.app import create_app
from service.http.limits import MAX_BODY_BYTES, parse_rate_limit
from service.settings import Settings
from tests.conftest import test_games
from tests.http.helpers import bearer, create
from tests.http.test_games_api import assert_problem


def _app(database_url: str, redis_url: str | None, **settings):
    return create_app(
        test_games(),
        settings=Settings(
            database_url=database_url, redis_url=redis_url, log_format="json", auto_migrate=True, pool_size=4,
            **settings,
        ),
    )  # fmt: skip


def test_rate_limits_are_parsed_or_refused():
    assert parse_rate_limit("1200/minute") == ("minute", 1200)
    assert parse_rate_limit(" 5 / second ") == ("second", 5)
    assert (
        parse_rate_limit("off") is None and parse_rate_limit("0") is None and parse_rate_limit(None) is None
    )
    for wrong in ("1200", "12/fortnight", "-1/minute", "0/minute"):
        with pytest.raises(ValueError):
            parse_rate_limit(wrong)


@pytest.mark.parametrize("with_redis", [True, False])
async def test_a_caller_over_its_rate_limit_is_told_when_to_retry(database_url, redis_url, with_redis):
    if with_redis:  # the counts of an earlier run, still in their minute
        cleaner = redis.Redis.from_url(redis_url)
        cleaner.delete(*(cleaner.keys("yamen:rate:*") or ["-"]))
        cleaner.close()
    async with AsyncTestClient(
        app=_app(database_url, redis_url if with_redis else None, rate_limit="6/minute")
    ) as client:
        created = await create(client, "bluff", {"players": 2})  # 1 request from this address
        game_id, token = created["game_id"], created["tokens"][0]["token"]
        for _ in range(6):  # a seat token counts on its own, not against its address
            assert (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).status_code == 200
        refused = await client.get(f"/v1/games/{game_id}", headers=bearer(token))
        assert_problem(refused, 429, "too_many_requests")
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert refused.headers["ratelimit-limit"] == "6" and refused.headers["ratelimit-remaining"] == "0"
        assert refused.headers["ratelimit-policy"] == "6; w=60"
        # The address still has room, another token too; probes are never limited.
        assert (await client.get(f"/v1/games/{game_id}")).status_code == 200
        assert (
            await client.get(f"/v1/games/{game_id}", headers=bearer(created["tokens"][1]["token"]))
        ).status_code == 200
        for _ in range(10):
            assert (await client.get("/healthz")).status_code == 200
        ok = await client.get("/v1/catalogue")
        assert int(ok.headers["ratelimit-remaining"]) < 6


async def test_bodies_have_one_limit_and_the_record_import_its_own(database_url, monkeypatch):
    async with AsyncTestClient(app=_app(database_url, None)) as client:
        huge = b'{"kind": "bluff", "seed": "' + b"x" * MAX_BODY_BYTES + b'"}'
        assert_problem(
            await client.post("/v1/games", content=huge, headers={"content-type": "application/json"}),
            413,
            "body_too_large",
        )
        # A record larger than the general limit is read (and refused for what it is, not its size)...
        junk = b"not a record\n" * (2 * MAX_BODY_BYTES // 13)
        response = await client.post(
            "/v1/games/import", content=junk, headers={"content-type": "application/x-ndjson"}
        )
        assert_problem(response, 422, "invalid_record")
        # ...up to the import's own limit.
        from service.application import audit

        monkeypatch.setattr(audit, "MAX_RECORD_BYTES", MAX_BODY_BYTES * 3)
        response = await client.post(
            "/v1/games/import", content=junk * 2, headers={"content-type": "application/x-ndjson"}
        )
        assert_problem(response, 413, "record_too_large")


async def test_a_stalled_body_is_answered_408(database_url):
    app = _app(database_url, None, body_timeout=0.3)
    async with AsyncTestClient(app=app):  # runs the lifespan
        sent: list[dict] = []
        parts = [{"type": "http.request", "body": b'{"kind": "bl', "more_body": True}]

        async def receive():
            if parts:
                return parts.pop()
            await asyncio.sleep(3600)  # the client stalls mid-body

        async def send(message):
            sent.append(message)

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "path": "/v1/games", "raw_path": b"/v1/games", "query_string": b"", "root_path": "",
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
            "client": ("127.0.0.1", 1), "server": ("test", 80), "scheme": "http",
        }  # fmt: skip
        await asyncio.wait_for(app(scope, receive, send), 5)
        assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
        assert b"body_timeout" in b"".join(m.get("body", b"") for m in sent[1:])


async def test_a_rate_limit_whose_redis_is_down_lets_requests_through(database_url):
    """The limit protects the service; a dead Redis behind it must not refuse every request."""
    async with AsyncTestClient(
        app=_app(database_url, "redis://127.0.0.1:1/0", rate_limit="1000/minute")
    ) as client:
        for _ in range(5):
            assert (await client.get("/v1/catalogue")).status_code == 200
        created = await create(client, "bluff", {"players": 2})
        assert (await client.get(f"/v1/games/{created['game_id']}")).status_code == 200

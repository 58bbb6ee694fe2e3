"""One structured line per request, with request id, game id and seat — and never a token, the
seed or a hidden card."""

from __future__ import annotations

import json

import structlog
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer, create, play_to_end
from tests.http.test_apps import OPERATOR, new_app, operator


async def test_access_lines_carry_context_and_no_secrets(database_url, redis_url):
    app = make_app(database_url, redis_url, admin_token=OPERATOR)  # configures structlog; capture after that
    capture = structlog.testing.LogCapture()
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, capture], cache_logger_on_first_use=False
    )
    lines = capture.entries
    try:
        async with AsyncTestClient(app=app) as client:
            created = await create(client, "bluff", {"players": 2}, seed="do-not-log-me")
            tokens = {t["seat"]: t["token"] for t in created["tokens"]}
            game_id = created["game_id"]
            hidden = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()["view"][
                "card"
            ]
            await client.post(
                f"/v1/games/{game_id}/moves",
                json={"type": "bluff.Claim", "claim": "low"},
                headers=bearer(tokens[1]),
            )
            await play_to_end(client, game_id, tokens)
            # An app's key: used, sent where it is refused (in the URL, forged), rotated and revoked.
            app_id, key = await new_app(client)
            await create(client, "bluff", {"players": 2})
            await client.get("/v1/games", headers=bearer(key))
            await client.get(f"/v1/games?key={key}")
            await client.get("/v1/games", headers=bearer(key[:-2] + "xx"))
            rotated = await client.post(
                f"/v1/admin/apps/{app_id}/keys/{key[4:16]}/rotate", headers=operator()
            )
            new_key = rotated.json()["key"]
            await client.get("/v1/games", headers=bearer(new_key))
            await client.delete(f"/v1/admin/apps/{app_id}/keys/{new_key[4:16]}", headers=operator())
            await client.get("/v1/games", headers=bearer(new_key))
    finally:
        from service.infra.logging import configure_logging

        configure_logging("json")
    requests = [line for line in lines if line["event"] == "request"]
    assert requests and all(
        {"request_id", "method", "path", "status", "ms"} <= set(line) for line in requests
    )
    moves = [line for line in requests if line["path"].endswith("/moves")]
    assert all(line["game_id"] == game_id and "seat" in line for line in moves)
    refused = [line for line in moves if line["status"] == 403]
    assert refused and refused[0]["code"] == "not_your_turn"
    text = json.dumps(lines, default=str)
    for secret in [*tokens.values(), "do-not-log-me", OPERATOR, key, new_key]:
        assert secret not in text
    # Nor the secret part of a key (its id may be logged: it names the key, and is not secret).
    assert key.split(".")[1] not in text and new_key.split(".")[1] not in text
    assert f'"card": {hidden}' not in text


def test_json_renderer_in_production(capsys):
    from service.infra.logging import configure_logging

    configure_logging("json")
    structlog.get_logger("t").info("hello", game_id="g_1")
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert json.loads(line)["event"] == "hello"


def test_library_records_are_json_lines_and_repeats_are_held_back(capsys, monkeypatch):
    """psycopg's pool logs every failed connection attempt (five a second per worker while Postgres
    is down): each goes out as one of our JSON lines, a repeat of the same message once in a while,
    saying how many it stood for; a library's INFO stays out."""
    import logging

    from service.infra import logging as yamen_logging

    clock = [1000.0]
    monkeypatch.setattr(yamen_logging.time, "monotonic", lambda: clock[0])
    yamen_logging.configure_logging("json")
    pool = logging.getLogger("psycopg.pool")
    for attempt in range(12):  # 2.4 s of attempts, then one after the window
        pool.warning("error connecting in %r: %s", "pool-1", f"refused {attempt}")
        clock[0] += 0.2
    clock[0] += yamen_logging.REPEAT_SECONDS
    pool.warning("error connecting in %r: %s", "pool-1", "refused again")
    pool.warning("another message")
    logging.getLogger("procrastinate").info("worker started")
    lines = [json.loads(line) for line in capsys.readouterr().err.strip().splitlines()]
    assert [line["event"] for line in lines] == [
        "error connecting in 'pool-1': refused 0",
        "error connecting in 'pool-1': refused again",
        "another message",
    ]
    assert lines[0]["logger"] == "psycopg.pool" and lines[0]["level"] == "warning"
    assert "repeated" not in lines[0] and lines[1]["repeated"] == 11
    yamen_logging.configure_logging("json")  # again, as every app does: still one line a record
    pool.warning("once")
    assert len(capsys.readouterr().err.strip().splitlines()) == 1

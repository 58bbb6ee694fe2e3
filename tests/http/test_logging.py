"""One structured line per request, with request id, game id and seat — and never a token, the
seed or a hidden card."""

from __future__ import annotations

import json

import structlog
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer, create, play_to_end


async def test_access_lines_carry_context_and_no_secrets(database_url, redis_url):
    app = make_app(database_url, redis_url)  # configures structlog; capture after that
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
    for secret in [*tokens.values(), "do-not-log-me"]:
        assert secret not in text
    assert f'"card": {hidden}' not in text


def test_json_renderer_in_production(capsys):
    from service.infra.logging import configure_logging

    configure_logging("json")
    structlog.get_logger("t").info("hello", game_id="g_1")
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert json.loads(line)["event"] == "hello"

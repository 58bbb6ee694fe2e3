"""What a browser (and a phone) needs: CORS for pages on other origins, a seat's private stream
opened by ``EventSource`` with a short-lived ticket, ``Last-Event-ID`` resume, heartbeats, the
end event, and a long poll for clients that cannot hold a stream."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time

import httpx
from litestar.testing import AsyncTestClient

from service.application.seats import _ticket_mac
from service.http.app import create_app
from service.settings import Settings, parse_origins
from tests.conftest import test_games
from tests.http.helpers import bearer, create, play_to_end

MOVE_HEADERS = "authorization, content-type, if-match, idempotency-key"


async def test_a_preflight_from_any_origin_is_allowed_by_default(client):
    response = await client.options(
        "/v1/games/g_x/moves",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": MOVE_HEADERS,
        },
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == "*"
    allowed = {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= allowed
    assert "POST" in response.headers["access-control-allow-methods"]


async def test_a_page_on_another_origin_reads_the_version_tag_and_rate_limit_headers(client):
    created = await create(client, "bluff", {"players": 2})
    response = await client.get(f"/v1/games/{created['game_id']}", headers={"Origin": "https://play.example"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    exposed = {h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"etag", "location", "retry-after", "ratelimit-remaining"} <= exposed


async def test_only_the_configured_origins_are_allowed(database_url, redis_url):
    settings = Settings(
        database_url=database_url,
        redis_url=redis_url,
        log_format="json",
        auto_migrate=True,
        pool_size=2,
        cors_origins=parse_origins("https://play.example, https://admin.example/"),
    )
    async with AsyncTestClient(app=create_app(test_games(), settings=settings)) as client:
        allowed = await client.get("/v1/catalogue", headers={"Origin": "https://admin.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://admin.example"
        other = await client.get("/v1/catalogue", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_origins_are_parsed_strictly():
    assert parse_origins("*") == ("*",)
    assert parse_origins("off") == ()
    assert parse_origins("") == ()
    try:
        parse_origins("play.example")
    except ValueError as exc:
        assert "not an origin" in str(exc)
    else:
        raise AssertionError("an origin without a scheme was accepted")


# --- the stream, as EventSource uses it -----------------------------------------------------------
async def _stream(client: httpx.AsyncClient, url: str, headers=None, *, stop, timeout=10.0):
    """The stream's messages as (event, id, data, comment) until *stop* says so."""
    messages = []
    async with client.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200, await response.aread()
        event = ident = data = comment = None

        async def consume():
            nonlocal event, ident, data, comment
            async for line in response.aiter_lines():
                if line == "":
                    if event or data or comment:
                        messages.append((event, ident, data, comment))
                        if stop(messages):
                            return
                    event = ident = data = comment = None
                elif line.startswith(":"):
                    comment = line[1:].strip()
                else:
                    field, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if field == "event":
                        event = value
                    elif field == "id":
                        ident = int(value)
                    elif field == "data":
                        data = json.loads(value)

        await asyncio.wait_for(consume(), timeout)
    return messages


def _events(messages):
    return [data for event, _, data, _ in messages if event == "event"]


def _ended(messages):
    return bool(messages) and messages[-1][0] == "end"


async def test_a_ticket_opens_the_seats_private_stream_without_its_token(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        issued = await client.post(f"/v1/games/{game_id}/events/tickets", headers=bearer(tokens[0]))
        assert issued.status_code == 201
        ticket = issued.json()
        assert ticket["stream"] == f"/v1/games/{game_id}/events/stream?ticket={ticket['ticket']}"
        assert tokens[0].split(".")[2] not in ticket["ticket"]
        assert 0 < ticket["expires_in"] <= 600
        final = await play_to_end(client, game_id, tokens)
        # Before the end a spectator sees no card; the seat's ticket shows the seat's own draws.
        at_one = await _stream(client, ticket["stream"], stop=lambda m: len(_events(m)) >= 1)
        assert at_one[0][3] is not None  # the opening comment carries retry
        seen = await _stream(client, ticket["stream"], stop=_ended)
        assert [e["seq"] for e in _events(seen)] == list(range(1, final["version"] + 1))
        assert seen[-1][2] == {"version": final["version"], "status": "finished"}


async def test_a_seat_sees_its_own_hidden_draws_through_its_ticket(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id, version = created["game_id"], created["version"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        ticket = (await client.post(f"/v1/games/{game_id}/events/tickets", headers=bearer(tokens[0]))).json()
        mine = await _stream(client, ticket["stream"], stop=lambda m: len(_events(m)) >= version)
        public = await _stream(
            client, f"/v1/games/{game_id}/events/stream", stop=lambda m: len(_events(m)) >= version
        )

        def draws(messages, seat):
            return [
                e["event"]["card"]
                for e in _events(messages)
                if e["event"]["type"] == "bluff.CardDrawn" and e["event"]["seat"] == seat
            ]

        assert draws(mine, 0) and all(card is not None for card in draws(mine, 0))
        assert all(card is None for card in draws(mine, 1))
        assert all(card is None for card in draws(public, 0))


async def test_a_ticket_is_refused_for_another_game_when_forged_or_expired(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        first = await create(client, "bluff", {"players": 2})
        second = await create(client, "bluff", {"players": 2})
        token = first["tokens"][0]["token"]
        ticket = (
            await client.post(f"/v1/games/{first['game_id']}/events/tickets", headers=bearer(token))
        ).json()["ticket"]

        async def refusal(game_id, ticket):
            response = await client.get(f"/v1/games/{game_id}/events/stream", params={"ticket": ticket})
            assert response.status_code == 401, response.text
            assert response.headers["content-type"].startswith("application/problem+json")
            return response.json()["code"]

        assert await refusal(second["game_id"], ticket) == "invalid_ticket"
        forged = ticket[:-4] + ("0000" if not ticket.endswith("0000") else "1111")
        assert await refusal(first["game_id"], forged) == "invalid_ticket"
        assert await refusal(first["game_id"], "ymn.0.not-a-ticket") == "invalid_ticket"
        past = int(time.time()) - 1
        digest = hashlib.sha256(token.encode()).hexdigest()
        expired = f"ymt.0.{past}.{_ticket_mac(digest, first['game_id'], 0, past)}"
        assert await refusal(first["game_id"], expired) == "ticket_expired"
        spectator = await client.post(f"/v1/games/{first['game_id']}/events/tickets")
        assert spectator.status_code == 401 and spectator.json()["code"] == "token_required"


async def test_a_reconnect_resumes_after_last_event_id(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id = created["game_id"]
        final = await play_to_end(client, game_id, {t["seat"]: t["token"] for t in created["tokens"]})
        resumed = await _stream(
            client, f"/v1/games/{game_id}/events/stream?after=1", headers={"Last-Event-ID": "3"}, stop=_ended
        )
        events = _events(resumed)
        assert [e["seq"] for e in events] == list(range(4, final["version"] + 1))
        assert [ident for event, ident, _, _ in resumed if event == "event"] == [e["seq"] for e in events]
        # A reconnect after the end is just the end: nothing replayed, the client stops.
        after_end = await _stream(
            client,
            f"/v1/games/{game_id}/events/stream",
            headers={"Last-Event-ID": str(final["version"])},
            stop=_ended,
        )
        assert _events(after_end) == [] and _ended(after_end)


async def test_a_quiet_stream_sends_heartbeats(live_server, monkeypatch):
    import service.http.controllers.history as history

    monkeypatch.setattr(history, "HEARTBEAT_SECONDS", 0.2)
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2})
        url = f"/v1/games/{created['game_id']}/events/stream?after={created['version']}"
        messages = await _stream(
            client, url, stop=lambda m: sum(c == "heartbeat" for *_, c in m) >= 2, timeout=10
        )
    assert _events(messages) == []


async def test_a_long_poll_answers_with_the_next_event(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=30) as client:
        created = await create(client, "bluff", {"players": 2})
        game_id, version = created["game_id"], created["version"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        quiet = await client.get(f"/v1/games/{game_id}/events", params={"after": version, "wait": 0.3})
        assert quiet.status_code == 200 and quiet.json()["events"] == []
        poll = asyncio.create_task(
            client.get(f"/v1/games/{game_id}/events", params={"after": version, "wait": 20})
        )
        await asyncio.sleep(0.3)
        assert not poll.done()
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[0]))).json()
        moved = await client.post(
            f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[0])
        )
        assert moved.status_code == 200, moved.text
        answered = (await asyncio.wait_for(poll, 20)).json()
        assert answered["events"][0]["seq"] == version + 1
        bad = await client.get(f"/v1/games/{game_id}/events", params={"wait": 61})
        assert bad.status_code == 400


async def test_answers_that_depend_on_the_seat_are_never_reused_for_another(client):
    created = await create(client, "bluff", {"players": 2})
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/legal-moves"):
        response = await client.get(path, headers=bearer(token))
        assert response.status_code == 200
        assert "Authorization" in {v.strip() for v in response.headers["vary"].split(",")}
        assert response.headers["cache-control"] == "private, no-cache"


async def test_an_open_games_document_is_never_answered_not_modified(client):
    """Claiming a seat changes an open game (seats, then status) without a new version: its
    document carries no ETag, and an If-None-Match never gets a 304 for a copy from before a join."""
    created = await create(client, "bluff", {"players": 2}, take="none")
    game_id, version = created["game_id"], created["version"]
    first = await client.get(f"/v1/games/{game_id}")
    assert first.status_code == 200 and "etag" not in first.headers
    assert first.json()["status"] == "open"
    await client.post(f"/v1/games/{game_id}/seats/0")
    cached = await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": f'"{version}"'})
    assert cached.status_code == 200
    assert [s["claimed"] for s in cached.json()["seats"]] == [True, False]
    await client.post(f"/v1/games/{game_id}/seats/1")
    started = await client.get(f"/v1/games/{game_id}")  # no tag to send: the open copy had none
    assert started.status_code == 200 and started.json()["status"] == "active"
    assert started.headers["etag"] == f'"{version}"'
    again = await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": started.headers["etag"]})
    assert again.status_code == 304


async def test_a_waiting_table_hears_each_claim_on_the_stream(live_server):
    """Claims are not events, but a page waiting for players sees each one live: `seats` at
    once, after every claim, and with `active` when the last claim starts the game."""
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, "bluff", {"players": 2}, take="none")
        game_id = created["game_id"]

        def tables(messages):
            return [data for event, _, data, _ in messages if event == "seats"]

        watcher = asyncio.create_task(
            _stream(
                client,
                f"/v1/games/{game_id}/events/stream?after={created['version']}",
                stop=lambda m: any(t["status"] == "active" for t in tables(m)),
            )
        )
        await asyncio.sleep(0.3)
        assert (await client.post(f"/v1/games/{game_id}/seats/1")).status_code == 201
        await asyncio.sleep(0.3)
        assert (await client.post(f"/v1/games/{game_id}/seats/0")).status_code == 201
        seen = tables(await asyncio.wait_for(watcher, 10))
    claimed = [[s["claimed"] for s in t["seats"]] for t in seen]
    assert claimed[0] == [False, False] and seen[0]["status"] == "open"
    assert [False, True] in claimed
    assert claimed[-1] == [True, True] and seen[-1]["status"] == "active"

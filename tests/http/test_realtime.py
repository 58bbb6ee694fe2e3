"""The realtime WebSocket (``/v1/ws``): authentication, subscriptions that resume exactly once, moves
with HTTP's semantics and problems, hidden information, limits and close codes.

The app runs in-process on the test's loop (``tests/http/ws_client.py``), HTTP calls and sockets
on the same app; a move over HTTP must reach a socket, and a move over a socket must answer what
``POST …/moves`` answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.conftest import make_app
from tests.http.helpers import bearer, create
from tests.http.ws_client import Closed, Socket, running

GOOD_ORIGIN = "https://good.example"


@pytest.fixture(scope="module")
async def served(database_url, redis_url):
    """The app with production limits, browsers allowed from one origin."""
    app = make_app(database_url, redis_url, cors_origins=(GOOD_ORIGIN,))
    async with running(app) as client:
        yield app, client


@pytest.fixture(scope="module")
async def tight(database_url, redis_url):
    """The app with tight limits: a fast heartbeat, a short send queue, a low rate of messages."""
    app = make_app(
        database_url,
        redis_url,
        ws_heartbeat_seconds=0.2,
        ws_send_queue=4,
        ws_messages_per_second=20.0,
        ws_max_message_bytes=1024,
    )
    async with running(app) as client:
        yield app, client


async def _bluff(client, players: int = 2) -> tuple[str, dict[int, str], int]:
    created = await create(client, "bluff", {"players": players})
    return created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}, created["version"]


async def _move(client, game_id: str, token: str, command: dict[str, Any]) -> dict[str, Any]:
    answer = await client.post(f"/v1/games/{game_id}/moves", json=command, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _events_until(socket: Socket, game_id: str, version: int) -> list[dict[str, Any]]:
    """The envelopes of every ``events`` message for *game_id* up to *version*."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["seq"] < version:
        message = await socket.recv()
        assert message["type"] != "problem", message
        if message["type"] == "events" and message["game_id"] == game_id:
            got += message["events"]
    return got


async def _history(client, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    headers = bearer(token) if token else {}
    answer = await client.get(f"/v1/games/{game_id}/events", params={"limit": 1000}, headers=headers)
    return answer.json()["events"]


# --- authentication ---------------------------------------------------------------------------------
async def test_a_spectator_says_hello_and_follows_a_game_redacted(served):
    app, client = served
    game_id, _tokens, version = await _bluff(client)
    socket = await Socket(app).open()
    welcome = await socket.hello()
    assert welcome["protocol"] == 1 and welcome["limits"]["send_queue"] == 256
    socket.send({"type": "subscribe", "id": "s1", "game_id": game_id})
    subscribed = await socket.recv()
    assert subscribed == {"type": "subscribed", "id": "s1", "game_id": game_id, "seat": None, "after": 0}
    events = await _events_until(socket, game_id, version)
    assert events == await _history(client, game_id)
    drawn = [e["event"] for e in events if e["event"]["type"] == "bluff.CardDrawn"]
    assert drawn and all(d["card"] is None for d in drawn)
    await socket.close()


async def test_the_first_message_must_be_hello(served):
    app, _ = served
    socket = await Socket(app).open()
    socket.send({"type": "ping"})
    closed = await socket.closed()
    assert closed.code == 4001


async def test_a_refused_credential_in_hello_is_a_problem_then_4001(served):
    app, _ = served
    socket = await Socket(app).open()
    socket.send({"type": "hello", "id": "h", "credential": "ymk_nokey.secret"})
    problem = await socket.recv()
    assert problem["type"] == "problem" and problem["id"] == "h"
    assert problem["problem"]["status"] == 401 and problem["problem"]["code"] == "invalid_app_key"
    assert (await socket.closed()).code == 4001


async def test_a_credential_in_the_url_is_refused(served):
    app, _ = served
    socket = await Socket(app, query="token=ymn.0.secret").open()
    problem = await socket.recv()
    assert problem["problem"]["code"] == "credential_in_url"
    assert (await socket.closed()).code == 4001


async def test_the_upgrade_request_may_carry_the_credential(served):
    app, client = served
    game_id, tokens, _version = await _bluff(client)
    socket = await Socket(app, headers={"authorization": f"Bearer {tokens[0]}"}).open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id})
    assert (await socket.recv())["seat"] == 0
    await socket.close()


async def test_browsers_from_other_origins_are_refused_before_the_upgrade(served):
    app, _ = served
    with pytest.raises(Closed) as refused:
        await Socket(app, headers={"origin": "https://evil.example"}).open()
    assert refused.value.code == 1008
    for origin in (GOOD_ORIGIN, "http://testserver"):  # the allowed origin, and the service's own
        socket = await Socket(app, headers={"origin": origin}).open()
        await socket.hello()
        await socket.close()


async def test_a_stream_ticket_opens_its_seat_read_only(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    ticket = (await client.post(f"/v1/games/{game_id}/events/tickets", headers=bearer(tokens[0]))).json()
    socket = await Socket(app, query=f"ticket={ticket['ticket']}").open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id, "as": "seat"})
    assert (await socket.recv())["seat"] == 0
    assert await _events_until(socket, game_id, version) == await _history(client, game_id, tokens[0])
    socket.send(
        {"type": "move", "id": "m", "game_id": game_id, "command": {"type": "bluff.Claim", "claim": "low"}}
    )
    refused = await socket.recv_until(lambda m: m["type"] == "problem")
    assert refused[-1]["problem"]["code"] == "token_required" and refused[-1]["problem"]["status"] == 401
    await socket.close()


async def test_a_private_game_does_not_exist_for_a_socket_that_may_not_see_it(served):
    app, _client = served
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "subscribe", "id": "x", "game_id": "g_doesnotexist"})
    problem = await socket.recv()
    assert problem["problem"]["code"] == "game_not_found" and problem["problem"]["status"] == 404
    socket.send({"type": "subscribe", "id": "y", "game_id": "g_x", "as": "seat"})
    assert (await socket.recv())["problem"]["code"] == "game_not_found"
    await socket.close()


async def test_asking_to_follow_as_a_seat_without_one_is_refused(served):
    app, client = served
    game_id, _, _ = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id, "as": "seat"})
    assert (await socket.recv())["problem"]["code"] == "token_required"
    await socket.close()


# --- subscriptions --------------------------------------------------------------------------------
async def test_resume_after_a_version_gets_every_later_event_exactly_once(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    await _move(client, game_id, tokens[0], {"type": "bluff.Claim", "claim": "low"})
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id, "after": version})
    await socket.recv()  # subscribed
    # Moves made over HTTP while subscribed arrive; nothing before `after`, nothing twice.
    answer = await _move(client, game_id, tokens[0], {"type": "bluff.Stake", "amount": 2})
    first = await _events_until(socket, game_id, answer["version"])
    assert [e["seq"] for e in first] == list(range(version + 1, answer["version"] + 1))
    # Unsubscribed, the socket misses moves; resubscribing after the last seq it saw fills the gap.
    socket.send({"type": "unsubscribe", "id": "u", "game_id": game_id})
    assert await socket.recv() == {"type": "unsubscribed", "id": "u", "game_id": game_id}
    answer = await _move(client, game_id, tokens[1], {"type": "bluff.Answer", "believe": False})
    socket.send({"type": "subscribe", "game_id": game_id, "after": first[-1]["seq"]})
    await socket.recv()
    second = await _events_until(socket, game_id, answer["version"])
    seqs = [e["seq"] for e in first + second]
    assert seqs == list(range(version + 1, answer["version"] + 1))
    assert first + second == (await _history(client, game_id))[version:]
    await socket.close()


async def test_events_say_who_is_to_act(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id, "after": version})
    await socket.recv()
    answer = await _move(client, game_id, tokens[0], {"type": "bluff.Claim", "claim": "high"})
    message = await socket.recv()
    assert message["type"] == "events" and message["version"] == answer["version"]
    assert message["to_act"] == answer["to_act"] and message["status"] == "active"
    await socket.close()


async def test_one_socket_follows_several_games(served):
    app, client = served
    games = [await _bluff(client) for _ in range(3)]
    socket = await Socket(app).open()
    await socket.hello()
    for game_id, _, version in games:
        socket.send({"type": "subscribe", "game_id": game_id, "after": version})
    assert {(await socket.recv())["game_id"] for _ in games} == {g for g, _, _ in games}
    versions = {}
    for game_id, tokens, _ in games:
        versions[game_id] = (
            await _move(client, game_id, tokens[0], {"type": "bluff.Claim", "claim": "low"})
        )["version"]
    seen: dict[str, int] = {}
    while seen != versions:
        message = await socket.recv()
        assert message["type"] == "events"
        seen[message["game_id"]] = message["version"]
    await socket.close()


async def test_a_game_waiting_for_players_shows_its_table(served):
    app, client = served
    created = await create(client, "bluff", {"players": 2}, take=[0])
    game_id = created["game_id"]
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "subscribe", "game_id": game_id})
    messages = await socket.recv_until(lambda m: m["type"] == "table")
    assert messages[-1]["status"] == "open"
    assert [s["claimed"] for s in messages[-1]["seats"]] == [True, False]
    claimed = await client.post(f"/v1/games/{game_id}/seats/1")
    assert claimed.status_code in (200, 201), claimed.text
    table = await socket.recv_until(lambda m: m["type"] == "table" and m["status"] == "active")
    assert [s["claimed"] for s in table[-1]["seats"]] == [True, True]
    await socket.close()


# --- moves: the same semantics as POST …/moves ------------------------------------------------------
async def _socket_move(socket: Socket, id: str, game_id: str, command: Any, **fields: Any) -> dict[str, Any]:
    socket.send({"type": "move", "id": id, "game_id": game_id, "command": command, **fields})
    answers = await socket.recv_until(lambda m: m.get("id") == id)
    return answers[-1]


async def _http_problem(client, game_id, token, command, headers=None) -> dict[str, Any]:
    answer = await client.post(
        f"/v1/games/{game_id}/moves", json=command, headers={**bearer(token), **(headers or {})}
    )
    assert answer.status_code >= 400
    return answer.json()


async def test_a_move_over_the_socket_answers_what_http_answers(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello(tokens[0])
    claim = {"type": "bluff.Claim", "claim": "low"}
    result = await _socket_move(
        socket, "m1", game_id, claim, expected_version=version, include=["legal_moves", "document"]
    )
    assert result["type"] == "move_result" and result["game_id"] == game_id
    moved = result["result"]
    assert moved["version"] > version and moved["status"] == "active"
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[0]))).json()
    document = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
    assert moved["legal_moves"] == legal
    assert (
        moved["document"]["view"] == document["view"] and moved["document"]["version"] == document["version"]
    )
    history = await _history(client, game_id, tokens[0])
    assert moved["events"] == history[version:]
    await socket.close()


async def test_refused_moves_carry_the_http_problem_codes(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello(tokens[0])
    await socket.hello(tokens[1])  # a second credential: this socket holds both seats
    cases = [
        # (command, fields, HTTP headers): a stale version, a rule, the wrong seat, another game's command
        (
            {"type": "bluff.Claim", "claim": "low"},
            {"expected_version": version - 1, "seat": 0},
            {"If-Match": f'"{version - 1}"'},
        ),
        ({"type": "bluff.Stake", "amount": 2}, {"seat": 0}, {}),
        ({"type": "bluff.Claim", "claim": "low"}, {"seat": 1}, {}),
        ({"type": "bluff.Stake", "amount": 9, "extra": 1}, {"seat": 0}, {}),
    ]
    for n, (command, fields, headers) in enumerate(cases):
        over_socket = await _socket_move(socket, f"r{n}", game_id, command, **fields)
        assert over_socket["type"] == "problem", over_socket
        token = tokens[fields["seat"]]
        over_http = await _http_problem(client, game_id, token, command, headers)
        got = over_socket["problem"]
        assert (got["status"], got["code"]) == (over_http["status"], over_http["code"]), (got, over_http)
        assert got.get("current_version") == over_http.get("current_version")
        assert got.get("rule") == over_http.get("rule")
    await socket.close()


async def test_an_idempotency_key_replays_the_first_answer(served):
    app, client = served
    game_id, tokens, _version = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello(tokens[0])
    claim = {"type": "bluff.Claim", "claim": "high"}
    first = await _socket_move(socket, "a", game_id, claim, idempotency_key="k1")
    again = await _socket_move(socket, "b", game_id, claim, idempotency_key="k1")
    assert first["result"] == again["result"]
    over_http = await client.post(
        f"/v1/games/{game_id}/moves", json=claim, headers={**bearer(tokens[0]), "Idempotency-Key": "k1"}
    )
    assert over_http.json() == first["result"]
    assert len(await _history(client, game_id)) == first["result"]["version"]  # appended once
    other = await _socket_move(
        socket, "c", game_id, {"type": "bluff.Claim", "claim": "low"}, idempotency_key="k1"
    )
    assert other["problem"]["code"] == "idempotency_key_reused" and other["problem"]["status"] == 422
    await socket.close()


async def test_a_malformed_message_is_answered_and_the_socket_stays_open(served):
    app, _client = served
    socket = await Socket(app).open()
    await socket.hello()
    socket.send("{not json")
    assert (await socket.recv())["problem"]["code"] == "invalid_request"
    socket.send({"type": "subscribe", "game_id": "bad id!"})
    assert (await socket.recv())["problem"]["status"] == 400
    socket.send({"type": "ping", "t": 7})
    assert await socket.recv() == {"type": "pong", "t": 7}
    await socket.close()


async def test_a_spectator_cannot_move(served):
    app, client = served
    game_id, _, _ = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello()
    refused = await _socket_move(socket, "m", game_id, {"type": "bluff.Claim", "claim": "low"})
    assert refused["problem"]["code"] == "token_required"
    await socket.close()


# --- hidden information -------------------------------------------------------------------------------
async def test_a_seats_socket_carries_exactly_what_http_shows_that_seat(served):
    """Each seat's socket (and a spectator's) receives the history HTTP shows it, byte for byte in
    JSON: never another seat's card."""
    app, client = served
    game_id, tokens, version = await _bluff(client, players=3)
    sockets: dict[int | None, Socket] = {}
    for seat in (0, 1, 2, None):
        socket = await Socket(app).open()
        await socket.hello(tokens[seat] if seat is not None else None)
        socket.send({"type": "subscribe", "game_id": game_id})
        assert (await socket.recv())["seat"] == seat
        # While the game runs: exactly the history HTTP shows the same seat (or a spectator).
        shown = await _events_until(socket, game_id, version)
        assert shown == await _history(client, game_id, tokens[seat] if seat is not None else None)
        sockets[seat] = socket
    final = await _play_over_sockets(app, client, game_id, tokens)
    for seat, socket in sockets.items():
        messages = []
        while not messages or messages[-1]["version"] < final:
            message = await socket.recv()
            assert message["type"] == "events", message
            messages.append(message)
        received = [e for m in messages for e in m["events"]]
        assert [e["seq"] for e in received] == list(range(version + 1, final + 1))
        ended = await socket.recv()
        assert ended == {"type": "end", "game_id": game_id, "version": final, "status": "finished"}
        # While the game ran each seat saw only its own cards; the events that come with the end
        # are revealed to everyone, as HTTP's history of a finished game is.
        for message in messages:
            for envelope in message["events"]:
                event = envelope["event"]
                if event and event["type"] == "bluff.CardDrawn":
                    shown = event["card"] is not None
                    assert shown == (message["status"] == "finished" or event["seat"] == seat), (
                        seat,
                        envelope,
                    )
        await socket.close()


async def _play_over_sockets(app, client, game_id: str, tokens: dict[int, str]) -> int:
    """Play to the end, each seat moving over its own socket with include=legal_moves."""
    movers = {}
    for seat, token in tokens.items():
        movers[seat] = await Socket(app).open()
        await movers[seat].hello(token)
    document = (await client.get(f"/v1/games/{game_id}")).json()
    version, to_act = document["version"], document["to_act"]
    n = 0
    while to_act:
        seat = to_act[0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        answer = await _socket_move(
            movers[seat], f"p{n}", game_id, legal["moves"][n % len(legal["moves"])], expected_version=version
        )
        assert answer["type"] == "move_result", answer
        version, to_act = answer["result"]["version"], answer["result"]["to_act"]
        n += 1
    for socket in movers.values():
        await socket.close()
    return version


# --- limits and close codes -------------------------------------------------------------------------
async def test_the_server_pings_and_closes_a_silent_client(tight):
    app, _ = tight
    socket = await Socket(app).open()
    socket.send({"type": "hello"})
    kinds = []
    while True:
        message = await socket.from_app.get()
        if message["type"] == "websocket.close":
            assert message["code"] == 4009
            break
        kinds.append(json.loads(message["text"])["type"])
    assert kinds[0] == "welcome" and "ping" in kinds


async def test_a_client_that_answers_pings_stays(tight):
    app, _ = tight
    socket = await Socket(app).open()
    await socket.hello()
    for _ in range(3):  # answered by recv: well past twice the heartbeat
        socket.send({"type": "ping", "t": 1})
        assert await socket.recv() == {"type": "pong", "t": 1}
        await asyncio.sleep(0.2)
    await socket.close()


async def test_no_hello_closes_with_4001(tight):
    app, _ = tight
    socket = await Socket(app).open()
    assert (await socket.closed()).code == 4001


async def test_an_oversized_message_closes_with_1009(tight):
    app, _ = tight
    socket = await Socket(app).open()
    await socket.hello()
    socket.send({"type": "ping", "t": 1, "pad": "x" * 2000})
    assert (await socket.closed()).code == 1009


async def test_too_many_messages_close_with_4029(tight):
    app, _ = tight
    socket = await Socket(app).open()
    await socket.hello()
    for _ in range(100):
        socket.send({"type": "ping"})
    assert (await socket.closed()).code == 4029


async def test_a_client_that_stops_reading_is_closed_with_4008(tight):
    """Every send to this client blocks (as over a full TCP window): its queue of 4 fills and the
    connection is closed, rather than growing memory."""
    app, _ = tight
    socket = await Socket(app, stalled=True).open()
    socket.send({"type": "hello"})
    for _ in range(8):
        socket.send({"type": "ping"})
    await asyncio.wait_for(socket.task, 10)  # the handler returned
    closes = [m for m in socket.attempted if m["type"] == "websocket.close"]
    assert closes and closes[-1]["code"] == 4008


async def test_stopping_the_server_closes_sockets_with_1001(database_url, redis_url):
    app = make_app(database_url, redis_url)
    async with running(app) as client:
        game_id, _, version = await _bluff(client)
        socket = await Socket(app).open()
        await socket.hello()
        socket.send({"type": "subscribe", "game_id": game_id})
        await _events_until(socket, game_id, version)
        app.state.application.reads.stop_following()
        app.state.realtime.stop()
        closed = await socket.closed()
        assert closed.code == 1001
        late = await Socket(app).open()  # a socket opened while stopping closes at once
        late.send({"type": "hello"})
        assert (await late.closed()).code == 1001


async def test_a_subscriber_that_stops_reading_is_closed_with_4008(tight):
    """Events pushed to a client that reads nothing fill its queue: closed, not buffered."""
    app, client = tight
    game_id, tokens, _ = await _bluff(client, players=3)
    socket = await Socket(app, stalled=True).open()
    socket.send({"type": "hello"})
    socket.send({"type": "subscribe", "game_id": game_id})
    await _play_over_sockets(app, client, game_id, tokens)
    await asyncio.wait_for(socket.task, 10)
    closes = [m for m in socket.attempted if m["type"] == "websocket.close"]
    assert closes and closes[-1]["code"] == 4008


async def test_legal_moves_over_the_socket_are_the_http_answer(served):
    app, client = served
    game_id, tokens, version = await _bluff(client)
    socket = await Socket(app).open()
    await socket.hello(tokens[0])
    await socket.hello(tokens[1])
    for seat in (0, 1):
        socket.send({"type": "get_legal_moves", "id": f"l{seat}", "game_id": game_id, "seat": seat})
        answer = await socket.recv()
        assert answer["type"] == "legal_moves" and answer["id"] == f"l{seat}"
        over_http = await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))
        assert answer["result"] == over_http.json()
    socket.send(
        {"type": "get_legal_moves", "id": "v", "game_id": game_id, "seat": 0, "min_version": version + 5}
    )
    assert (await socket.recv())["problem"]["code"] == "version_not_reached"
    await socket.close()


async def test_a_socket_that_has_played_many_games_proves_each_request_with_one_token(served):
    """A long-lived socket holds the seat-0 token of every game it has played.  A request in one of
    them is proved by the token that proved that game last, not by trying each older game's token
    first; every token still holds its own game's seat, and a re-issued token stops at once."""
    from tests.http.players_support import new_guest

    app, client = served
    guest = await new_guest(client)
    credential = bearer(guest["credential"]["credential"])
    games = []
    for _ in range(6):
        options = {"kind": "bluff", "options": {"players": 2}, "take_seats": [0]}
        made = await client.post("/v1/games", json=options, headers=credential)
        assert made.status_code == 201, made.text
        game_id = made.json()["game_id"]
        assert (await client.post(f"/v1/games/{game_id}/seats/1")).status_code == 201  # it starts
        games.append((game_id, made.json()["tokens"][0]["token"]))
    socket = await Socket(app).open()
    for _, token in games:  # the oldest game's token first, as a socket collects them
        await socket.hello(token)
    seats = app.state.application.seats
    authenticate, tried = seats.authenticate, []

    async def counted(game_id: str, token: str) -> int:
        tried.append(token)
        return await authenticate(game_id, token)

    async def legal(game_id: str, id: str) -> dict[str, Any]:
        socket.send({"type": "get_legal_moves", "id": id, "game_id": game_id, "seat": 0})
        return (await socket.recv_until(lambda m: m.get("id") == id))[-1]

    seats.authenticate = counted
    try:
        newest, token = games[-1]
        assert (await legal(newest, "first"))["type"] == "legal_moves"
        assert tried[-1] == token  # found by scanning the tokens once
        tried.clear()
        claim = {"type": "bluff.Claim", "claim": "low"}
        assert (await _socket_move(socket, "m", newest, claim, seat=0))["type"] == "move_result"
        assert (await legal(newest, "again"))["type"] == "legal_moves"
        assert tried == [token, token]  # one proof per request, by the token that holds the seat
        tried.clear()  # a request that names no seat is proved alike, once found
        stake = {"type": "bluff.Stake", "amount": 1}
        assert (await _socket_move(socket, "n", newest, stake))["type"] == "move_result"
        assert tried[-1] == token
        tried.clear()
        assert (await legal(newest, "unnamed"))["type"] == "legal_moves"  # (names seat 0)
        assert tried == [token]
        for k, (game_id, token) in enumerate(games[:-1]):  # the older games' seats are still held
            tried.clear()
            assert (await legal(game_id, f"old{k}"))["type"] == "legal_moves"
            assert tried[-1] == token
    finally:
        seats.authenticate = authenticate
    newest, token = games[-1]
    reissued = await client.post(f"/v1/games/{newest}/seats/0/token", headers=credential)
    assert reissued.status_code == 201, reissued.text
    refused = await _socket_move(socket, "stale", newest, {"type": "bluff.Claim", "claim": "high"}, seat=0)
    # The remembered token no longer proves the seat: the socket holds no seat there now.
    assert refused["problem"]["code"] == "token_required", refused
    await socket.hello(reissued.json()["token"])
    assert (await legal(newest, "renewed"))["type"] == "legal_moves"
    await socket.close()


async def test_an_apps_socket_messages_count_in_the_apps_bucket(database_url, redis_url):
    """A socket opened with an app's key (or its player's credential) spends the app's requests per
    minute as its HTTP requests do: a socket is no way around the app's limit."""
    from tests.http.test_apps import OPERATOR, new_app

    # No anonymous limit: the operator's calls would count in the address's bucket, which other
    # tests (tests/http/test_apps_limits.py) count in at the same time.
    app = make_app(database_url, redis_url, admin_token=OPERATOR, rate_limit="off")
    async with running(app) as client:
        _, key = await new_app(client, requests_per_minute=4)
        created = await client.post(
            "/v1/games", json={"kind": "bluff", "options": {"players": 2}}, headers=bearer(key)
        )
        assert created.status_code == 201, created.text  # the app's first request
        game_id = created.json()["game_id"]
        socket = await Socket(app).open()
        await socket.hello(key)  # saying who it is costs nothing
        for n in range(3):  # its second to fourth
            socket.send({"type": "subscribe", "id": str(n), "game_id": game_id})
            # The game's events since 0 may come before the next answer: the first subscriptions
            # are following the game until the next one replaces them.
            answered = await socket.recv_until(lambda m: m["type"] != "events")
            assert answered[-1]["type"] == "subscribed", answered
        socket.send({"type": "get_legal_moves", "id": "over", "game_id": game_id})
        refused = (await socket.recv_until(lambda m: m["type"] != "events"))[-1]
        assert refused["type"] == "problem" and refused["id"] == "over", refused
        problem = refused["problem"]
        assert (problem["status"], problem["code"], problem["limit"]) == (429, "too_many_requests", 4)
        assert 0 < problem["retry_after"] <= 60
        socket.send({"type": "unsubscribe", "id": "still open", "game_id": game_id})
        assert (await socket.recv_until(lambda m: m["type"] == "unsubscribed"))[-1]["id"] == "still open"
        over = await client.get(f"/v1/games/{game_id}", headers=bearer(key))
        assert over.status_code == 429  # one bucket for both
        await socket.close()


async def test_a_subscription_can_carry_the_narration(served):
    """``include: ["narration"]`` gives each event its line, as ``GET …/events?include=narration``
    tells it to the same seat (the reference client's feed over the socket)."""
    app, client = served
    created = await create(client, "yangtze", {"players": 2}, seed="narrated-socket")
    game_id, version = created["game_id"], created["version"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    socket = await Socket(app).open()
    await socket.hello(tokens[0])
    socket.send({"type": "subscribe", "game_id": game_id, "after": 0, "include": ["narration"]})
    assert (await socket.recv())["type"] == "subscribed"
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
    answer = await _move(client, game_id, tokens[seat], legal["moves"][0])
    assert answer["version"] > version
    shown = await _events_until(socket, game_id, answer["version"])
    told = (
        await client.get(
            f"/v1/games/{game_id}/events",
            params={"limit": 1000, "include": "narration"},
            headers=bearer(tokens[0]),
        )
    ).json()["events"]
    assert shown == told
    assert sum(1 for e in shown if e.get("text")) > len(shown) // 2, "most events are told"
    socket.send({"type": "subscribe", "id": "x", "game_id": game_id, "include": ["legal_moves"]})
    assert (await socket.recv())["problem"]["code"] == "invalid_request"
    await socket.close()

"""The notice board: reads answered from a worker's memory stay exactly as current as Postgres.

Two apps on the same Postgres and Redis stand for two workers (each on its own event loop, with
its own subscription), as `yamen serve --workers 2` runs them.
"""

from __future__ import annotations

import asyncio
import socket
import time

import redis.asyncio as aioredis
from litestar.testing import AsyncTestClient

from service.application import states
from service.infra.notices import NoticeBoard
from tests.conftest import make_app
from tests.http.helpers import bearer, create


def _board(client) -> NoticeBoard:
    board = client.app.state.application.states.board
    assert board is not None
    return board


async def _move(client, game_id, tokens, seat):
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
    r = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[seat]))
    assert r.status_code == 200, r.text
    return r.json()["version"]


async def _to_act(client, game_id):
    return (await client.get(f"/v1/games/{game_id}")).json()["to_act"]


async def test_a_move_judged_by_one_worker_is_read_at_once_by_the_other(database_url, redis_url):
    async with (
        AsyncTestClient(app=make_app(database_url, redis_url)) as a,
        AsyncTestClient(app=make_app(database_url, redis_url)) as b,
    ):
        assert _board(a).live and _board(b).live
        created = await create(a, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        served_from_memory = 0
        for turn in range(12):
            mover, reader = (a, b) if turn % 2 == 0 else (b, a)
            seats = await _to_act(reader, game_id)
            if not seats:
                break
            # The other worker remembers the game from its last read, and must not answer with it.
            version = await _move(mover, game_id, tokens, seats[0])
            for seat in (None, 0, 1, 2):
                headers = bearer(tokens[seat]) if seat is not None else {}
                doc = (await reader.get(f"/v1/games/{game_id}", headers=headers)).json()
                assert doc["version"] == version
                legal = (await reader.get(f"/v1/games/{game_id}/legal-moves", headers=headers)).json()
                assert legal["version"] == version
            # And what memory answers is what Postgres answers.
            assert (await reader.get(f"/v1/games/{game_id}", headers=bearer(tokens[1]))).json() == (
                await mover.get(f"/v1/games/{game_id}", headers=bearer(tokens[1]))
            ).json()
            # ...because the reader now answers from memory: the documents rendered from it are kept.
            remembered = reader.app.state.application.states._recent.get(game_id)
            served_from_memory += (
                remembered is not None and remembered.row.version == version and 1 in remembered.documents
            )
        assert served_from_memory >= 6
        # A conditional read answered from memory.
        etag = (await b.get(f"/v1/games/{game_id}")).headers["etag"]
        assert (await b.get(f"/v1/games/{game_id}", headers={"If-None-Match": etag})).status_code == 304


async def test_memory_answers_only_what_postgres_vouched_for(database_url, redis_url):
    """A state is trusted only within TRUST_SECONDS of Postgres vouching for it, so a move whose
    notice never came (here: judged by a worker without Redis) is seen within that bound."""
    states.TRUST_SECONDS, saved = 1.0, states.TRUST_SECONDS
    try:
        async with (
            AsyncTestClient(app=make_app(database_url, redis_url)) as a,
            AsyncTestClient(app=make_app(database_url, None)) as silent,
        ):
            created = await create(a, "bluff", {"players": 3})
            game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
            seat = (await _to_act(a, game_id))[0]
            before = (await a.get(f"/v1/games/{game_id}")).json()["version"]
            version = await _move(silent, game_id, tokens, seat)
            assert version > before
            # No notice: the remembered state still answers (this is the bound, not a wish).
            assert (await a.get(f"/v1/games/{game_id}")).json()["version"] == before
            await asyncio.sleep(1.1)
            assert (await a.get(f"/v1/games/{game_id}")).json()["version"] == version
            # A state that has only grown old is vouched for again by its version, answers kept.
            states_a = a.app.state.application.states
            entry = states_a._recent[game_id]
            await asyncio.sleep(1.1)
            assert (await a.get(f"/v1/games/{game_id}")).json()["version"] == version
            assert states_a._recent[game_id] is entry
            # A move judged on the stale memory is judged again on the current state.
            seat = (await _to_act(a, game_id))[0]
            assert await _move(a, game_id, tokens, seat) > version
    finally:
        states.TRUST_SECONDS = saved


async def test_a_dropped_subscription_stops_memory_reads_until_it_is_back(database_url, redis_url):
    admin = aioredis.Redis.from_url(redis_url)
    async with (
        AsyncTestClient(app=make_app(database_url, redis_url)) as a,
        AsyncTestClient(app=make_app(database_url, redis_url)) as b,
    ):
        created = await create(a, "bluff", {"players": 3})
        game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
        await b.get(f"/v1/games/{game_id}")
        epoch = _board(b).epoch
        await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        # While the board is down, moves elsewhere are still read at once (from Postgres).
        for _ in range(2):
            seats = await _to_act(a, game_id)
            version = await _move(a, game_id, tokens, seats[0])
            assert (await b.get(f"/v1/games/{game_id}")).json()["version"] == version
        assert _board(b).epoch > epoch
        deadline = time.monotonic() + 5
        while not (_board(a).live and _board(b).live) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert _board(a).live and _board(b).live
        seats = await _to_act(b, game_id)
        version = await _move(a, game_id, tokens, seats[0])
        assert (await b.get(f"/v1/games/{game_id}")).json()["version"] == version
    await admin.aclose()


async def test_without_redis_there_is_no_board_and_reads_go_to_postgres(database_url):
    async with AsyncTestClient(app=make_app(database_url, None)) as client:
        assert client.app.state.application.states.board is None
        created = await create(client, "bluff", {"players": 3})
        assert (await client.get(f"/v1/games/{created['game_id']}")).json()["version"] == created["version"]


async def test_a_notice_counts_only_once_it_has_all_arrived():
    """Redis may deliver a message in pieces: drain() acts on whole replies only, and a protocol
    error or an error reply stops trusting memory."""
    board = NoticeBoard("redis://127.0.0.1:1/0")
    ours, redis_end = socket.socketpair()
    ours.setblocking(False)
    board._sock = ours
    board.live = True
    message = b"*3\r\n$7\r\nmessage\r\n$11\r\nyamen:moves\r\n$12\r\ng_x 12\ng_y 7\r\n"
    for byte in message[:-1]:
        redis_end.send(bytes([byte]))
        board.drain()
        assert board.announced == {}
    redis_end.send(message[-1:])
    board.drain()
    assert board.announced == {"g_x": 12, "g_y": 7}
    epoch = board.epoch
    redis_end.send(b"-NOAUTH Authentication required.\r\n")
    board.drain()
    assert not board.live and board.epoch > epoch and board._sock is None
    redis_end.close()

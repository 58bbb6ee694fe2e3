"""The realtime socket against a real ``yamen serve`` with two workers (slow lane): every title played
to the end over sockets, with a spectator following each game; moves made over HTTP reach sockets
held on either worker (the notice board); SIGTERM closes open sockets with 1001 (going away)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from domain.registry import production_games
from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow


def _serve() -> Any:
    started: list[subprocess.Popen] = []
    with (
        fresh_database("yamen_ws_") as url,
        yamen_serve(url, env={"YAMEN_WORKERS": "2"}, started=started) as base,
    ):
        yield base, started[0]


@pytest.fixture(scope="module")
def served() -> Any:
    yield from _serve()


@pytest.fixture
def stopped_by_the_test() -> Any:
    """A server of its own: the test sends it SIGTERM (pytest-xdist may run this module's other
    tests before, after, or beside it)."""
    yield from _serve()


def _ws(base: str) -> str:
    return base.replace("http://", "ws://") + "/v1/ws"


async def _recv(socket: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if message["type"] == "ping":
            await socket.send(json.dumps({"type": "pong", "t": message.get("t")}))
            continue
        return message


async def _hello(socket: ClientConnection, credential: str | None = None) -> None:
    await socket.send(json.dumps({"type": "hello", **({"credential": credential} if credential else {})}))
    assert (await _recv(socket))["type"] == "welcome"


async def _follow_to_end(socket: ClientConnection, game_id: str) -> list[int]:
    seqs: list[int] = []
    while True:
        message = await _recv(socket)
        if message["game_id"] != game_id:
            continue
        if message["type"] == "events":
            seqs += [e["seq"] for e in message["events"]]
        elif message["type"] == "end":
            return seqs


CASES = [(kind, min(game.player_counts)) for kind, game in sorted(production_games().items())]


@pytest.mark.parametrize(("kind", "players"), CASES, ids=[k for k, _ in CASES])
async def test_every_title_plays_to_the_end_over_sockets(served, kind, players):
    base, _ = served
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games", json={"kind": kind, "options": {"players": players}, "take_seats": "all"}
            )
        ).json()
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        async with connect(_ws(base)) as spectator:
            await _hello(spectator)
            await spectator.send(json.dumps({"type": "subscribe", "game_id": game_id}))
            assert (await _recv(spectator))["type"] == "subscribed"
            watching = asyncio.create_task(_follow_to_end(spectator, game_id))
            seats = {}
            for seat, token in tokens.items():
                seats[seat] = await connect(_ws(base))
                await _hello(seats[seat], token)
            rng = random.Random(game_id)
            version, to_act = created["version"], (await http.get(f"/v1/games/{game_id}")).json()["to_act"]
            moves = 0
            while to_act:
                seat = to_act[rng.randrange(len(to_act))]
                legal = (
                    await http.get(
                        f"/v1/games/{game_id}/legal-moves",
                        params={"min_version": version},
                        headers={"Authorization": f"Bearer {tokens[seat]}"},
                    )
                ).json()
                command = legal["moves"][rng.randrange(len(legal["moves"]))]
                await seats[seat].send(
                    json.dumps(
                        {
                            "type": "move",
                            "id": str(moves),
                            "game_id": game_id,
                            "command": command,
                            "expected_version": legal["version"],
                        }
                    )
                )
                answer = await _recv(seats[seat])
                assert answer["type"] == "move_result" and answer["id"] == str(moves), answer
                version, to_act = answer["result"]["version"], answer["result"]["to_act"]
                moves += 1
                assert moves < 20_000
            for socket in seats.values():
                await socket.close()
            seen = await asyncio.wait_for(watching, 60)
        assert seen == list(range(1, version + 1))  # every event once, in order
        final = (await http.get(f"/v1/games/{game_id}")).json()
        assert final["status"] == "finished" and final["version"] == version


async def test_a_move_over_http_reaches_sockets_on_both_workers_and_sigterm_closes_them(stopped_by_the_test):
    base, process = stopped_by_the_test
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games", json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all"}
            )
        ).json()
        game_id, version = created["game_id"], created["version"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        # Eight connections: the two workers share the port, so both hold some of them.
        sockets = [await connect(_ws(base)) for _ in range(8)]
        for socket in sockets:
            await _hello(socket)
            await socket.send(json.dumps({"type": "subscribe", "game_id": game_id, "after": version}))
            assert (await _recv(socket))["type"] == "subscribed"
        seat = (await http.get(f"/v1/games/{game_id}")).json()["to_act"][0]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = (await http.get(f"/v1/games/{game_id}/legal-moves", headers=headers)).json()
        moved = await http.post(
            f"/v1/games/{game_id}/moves",
            json=legal["moves"][0],
            headers={**headers, "If-Match": f'"{version}"'},
        )
        assert moved.status_code == 200, moved.text
        for socket in sockets:
            message = await _recv(socket)
            assert message["type"] == "events" and message["version"] == moved.json()["version"]
        os.killpg(process.pid, signal.SIGTERM)
        for socket in sockets:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await _recv(socket)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001

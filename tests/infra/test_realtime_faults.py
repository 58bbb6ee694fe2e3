"""A worker or a whole replica killed (SIGKILL) under socket load loses no acknowledged move and
duplicates none, and the sockets that reconnect see every event once (slow lane).

``yamen serve`` with two workers; each game has a player socket moving with idempotency keys and a
spectator socket following it.  A worker is killed mid-load: the clients whose socket it held
reconnect (to the surviving worker, or its replacement), say hello again, send their unanswered
move again with the same key, and subscribe again with ``after`` = the last version they saw."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import random
import signal
import subprocess
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow

GAMES = 10
MOVES = 2000


def _workers(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(c) for c in pathlib.Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


async def _open(url: str | list[str], credentials: list[str]) -> ClientConnection:
    """A socket to the first server that answers (behind a load balancer, the next replica)."""
    urls = [url] if isinstance(url, str) else url
    for attempt in range(100):
        try:
            socket = await connect(urls[attempt % len(urls)], open_timeout=2)
            for credential in credentials or [""]:
                await socket.send(
                    json.dumps({"type": "hello", **({"credential": credential} if credential else {})})
                )
                assert (await _recv(socket))["type"] == "welcome"
            return socket
        except (OSError, TimeoutError, WebSocketException):  # refused, or a handshake cut short
            await asyncio.sleep(0.1)
    raise AssertionError("could not reconnect")


async def _recv(socket: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if message["type"] != "ping":
            return message
        await socket.send(json.dumps({"type": "pong", "t": message.get("t")}))


async def _player(
    url: str | list[str],
    game_id: str,
    tokens: dict[int, str],
    start: tuple[int, list[int]],
    acked: list[dict[str, Any]],
) -> int:
    """Moves until MOVES are acknowledged or the game ends; each move is sent until it is answered,
    always with its own idempotency key."""
    rng = random.Random(game_id)
    socket = await _open(url, list(tokens.values()))
    version, to_act = start
    reconnects = 0
    while len(acked) < MOVES and to_act:
        seat = to_act[0]
        key = f"{game_id}-{len(acked)}"
        try:
            asked = {"type": "get_legal_moves", "game_id": game_id, "seat": seat, "min_version": version}
            moves = (await _ask(socket, asked))["result"]["moves"]
            command = moves[rng.randrange(len(moves))]
            while True:
                try:
                    move = {"type": "move", "game_id": game_id, "seat": seat, "command": command}
                    answer = await _ask(socket, {**move, "idempotency_key": key})
                    break
                except (ConnectionClosed, TimeoutError):
                    reconnects += 1
                    socket = await _open(url, list(tokens.values()))  # the same move, the same key
        except (ConnectionClosed, TimeoutError):
            reconnects += 1
            socket = await _open(url, list(tokens.values()))
            continue
        assert answer["type"] == "move_result", answer
        acked.append(answer["result"])
        version, to_act = answer["result"]["version"], answer["result"].get("to_act") or []
    await socket.close()
    return reconnects


async def _ask(socket: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await socket.send(json.dumps({**message, "id": "q"}))
    while True:
        answer = await _recv(socket)
        if answer.get("id") == "q":
            return answer


async def _watcher(url: str | list[str], game_id: str, seen: list[int], stop: asyncio.Event) -> int:
    """Follows the game, resubscribing after the last version seen whenever its socket drops."""
    reconnects = 0
    while not stop.is_set():
        socket = await _open(url, [])
        try:
            after = seen[-1] if seen else 0
            await socket.send(json.dumps({"type": "subscribe", "game_id": game_id, "after": after}))
            while not stop.is_set():
                try:
                    message = json.loads(await asyncio.wait_for(socket.recv(), 0.5))
                except TimeoutError:
                    continue
                if message["type"] == "events":
                    seen += [e["seq"] for e in message["events"]]
                elif message["type"] == "end":
                    return reconnects
                elif message["type"] == "ping":
                    await socket.send(json.dumps({"type": "pong"}))
            await socket.close()
        except ConnectionClosed:
            reconnects += 1
    return reconnects


async def _scenario(http: httpx.AsyncClient, url: str | list[str], kill: Any) -> None:
    """Load on sockets, *kill* mid-game, then the checks (see the module docstring)."""
    games = []
    starts: dict[str, tuple[int, list[int]]] = {}
    for _ in range(GAMES):
        body = {"kind": "yangtze", "options": {"players": 4}, "take_seats": "all"}
        created = (await http.post("/v1/games", json=body)).json()
        games.append((created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}))
        document = (await http.get(f"/v1/games/{created['game_id']}")).json()
        starts[created["game_id"]] = (document["version"], document["to_act"])
    acked: dict[str, list[dict[str, Any]]] = {g: [] for g, _ in games}
    seen: dict[str, list[int]] = {g: [] for g, _ in games}
    stop = asyncio.Event()
    watchers = [asyncio.create_task(_watcher(url, g, seen[g], stop)) for g, _ in games]
    players = [asyncio.create_task(_player(url, g, tokens, starts[g], acked[g])) for g, tokens in games]
    await asyncio.sleep(1.0)
    kill()
    reconnects = await asyncio.wait_for(asyncio.gather(*players), 240)
    final = {}
    for game_id, _ in games:
        history = (await http.get(f"/v1/games/{game_id}/events", params={"limit": 1000})).json()
        final[game_id] = [e["seq"] for e in history["events"]]
    for _ in range(100):  # the spectators catch up with the last moves
        if all(seen[g][-1:] == final[g][-1:] for g, _ in games):
            break
        await asyncio.sleep(0.1)
    stop.set()
    watcher_reconnects = await asyncio.gather(*watchers)
    counts = [len(moves) for moves in acked.values()]
    print(f"players reconnected {reconnects}, spectators {watcher_reconnects}; moves {counts}")
    assert sum(reconnects) + sum(watcher_reconnects) > 0, "the killed process held no socket"
    for game_id, _ in games:
        setup = starts[game_id][0]
        # Each acknowledged answer's events, over all keys, are exactly the history after the
        # setup: no acknowledged move lost, none applied twice, none applied unacknowledged.
        moved = sorted(e["seq"] for result in acked[game_id] for e in result["events"])
        assert moved == list(range(setup + 1, final[game_id][-1] + 1)), f"{game_id}: {moved}"
        # The spectator saw every event once, in order, across its reconnections.
        assert seen[game_id] == final[game_id], (
            f"{game_id}: {len(seen[game_id])} seen of {len(final[game_id])}"
        )


def _ws(base: str) -> str:
    return base.replace("http://", "ws://") + "/v1/ws"


async def test_a_killed_worker_loses_and_duplicates_nothing_and_sockets_resume():
    started: list[subprocess.Popen] = []
    with (
        fresh_database("yamen_wskill_") as database,
        yamen_serve(database, env={"YAMEN_WORKERS": "2"}, started=started) as base,
    ):
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            await _scenario(http, _ws(base), lambda: os.kill(_workers(started[0].pid)[0], signal.SIGKILL))


async def test_a_killed_replica_loses_and_duplicates_nothing_and_sockets_resume_on_another():
    """Two replicas on one Postgres and Redis; every client starts on the first, which is killed
    whole (SIGKILL to its process group): they reconnect to the second, as behind a load balancer."""
    started: list[subprocess.Popen] = []
    with (
        fresh_database("yamen_wsreplica_") as database,
        yamen_serve(database, started=started) as first,
        yamen_serve(database, started=started) as second,
    ):
        async with httpx.AsyncClient(base_url=second, timeout=30) as http:
            await _scenario(
                http, [_ws(first), _ws(second)], lambda: os.killpg(started[0].pid, signal.SIGKILL)
            )

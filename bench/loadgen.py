"""The load generator: runs in its own process (see :mod:`bench.runner`) so the client's event
loop never shares an interpreter with the server's.  Every entry point is a plain function taking
and returning builtins, so it can be submitted to a ProcessPoolExecutor.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any

import msgspec

from .http import Connection, header_value
from .measure import Window, run_loop
from .stats import summarize

_json = msgspec.json.Decoder()
_enc = msgspec.json.Encoder()


async def _connections(host: str, port: int, n: int) -> list[Connection]:
    return list(await asyncio.gather(*(Connection(host, port).open() for _ in range(n))))


# --- echo ---------------------------------------------------------------------------------------
ECHO_BODY = _enc.encode({"type": "yangtze.purchase_good", "market": 3, "goods": [1, 4], "pay": {"copper": 2}})


def echo(host: str, port: int, connections: int, warmup: float, duration: float) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        conns = await _connections(host, port, connections)
        w = Window(warmup, duration)
        errors = 0

        async def worker(c: Connection) -> None:
            nonlocal errors
            raw = c.build("POST", "/bench/echo", b"", ECHO_BODY)
            while w.running():
                t0 = time.perf_counter()
                status, _, body = await c.send(raw)
                t1 = time.perf_counter()
                if status != 200 or len(body) < 10:
                    errors += 1
                w.record("echo", t0, t1)

        w.arm()
        await asyncio.gather(*(worker(c) for c in conns))
        for c in conns:
            await c.close()
        return {**w.result("echo"), "errors": errors}

    return run_loop(main())


# --- games --------------------------------------------------------------------------------------
@dataclass
class Slot:
    game_id: str
    auth: list[bytes]
    players: int
    seat: int = 0
    version: int = 0
    legal: list[Any] | None = None
    """The legal moves of ``seat`` at ``version``, when a one-trip move answer carried them."""
    moves: int = 0


def _auth(token: str) -> bytes:
    return f"Authorization: Bearer {token}\r\n".encode()


async def _create(c: Connection, kind: str, players: int, seed: str | None = None) -> Slot:
    body: dict[str, Any] = {"kind": kind, "options": {"players": players}}
    if seed is not None:
        body["seed"] = seed
    status, _, resp = await c.request("POST", "/v1/games", b"", _enc.encode(body))
    if status != 201:
        raise RuntimeError(f"create failed: {status} {resp[:300]!r}")
    doc = _json.decode(resp)
    tokens = sorted(doc["tokens"], key=lambda t: t["seat"])
    return Slot(doc["game_id"], [_auth(t["token"]) for t in tokens], doc["players"], 0, doc["version"])


class MoveError(Exception):
    pass


async def _one_move(
    c: Connection, slot: Slot, rng: random.Random, w: Window | None, one_trip: bool = False
) -> bool:
    """Make one move in *slot*'s game as the seat to act; True when the game has finished.

    The two-request client asks the seat to act (named by the last move's answer) for its legal
    moves, picks one uniformly and submits it.  The one-trip client submits with
    ``?include=legal_moves`` and, when the same seat acts again, plays from the moves the answer
    carried without a GET (its GET is needed only when the turn passes to another seat: a seat's
    legal moves are its own).  A seat that may not act (a stale guess) is answered an empty list,
    and the next seat is asked.
    """
    moves = slot.legal if one_trip else None
    if moves is None:
        path = f"/v1/games/{slot.game_id}/legal-moves"
        for _ in range(slot.players):
            t0 = time.perf_counter()
            status, _, body = await c.request("GET", path, slot.auth[slot.seat])
            t1 = time.perf_counter()
            if w is not None:
                w.record("legal", t0, t1)
            if status != 200:
                raise MoveError(f"legal-moves {status}: {body[:300]!r}")
            moves = _json.decode(body)["moves"]
            if moves:
                break
            slot.seat = (slot.seat + 1) % slot.players
        else:
            return True  # nobody may act: the game is over
    move = _enc.encode(moves[rng.randrange(len(moves))])
    path = f"/v1/games/{slot.game_id}/moves" + ("?include=legal_moves" if one_trip else "")
    t0 = time.perf_counter()
    status, _, body = await c.request("POST", path, slot.auth[slot.seat], move)
    t1 = time.perf_counter()
    if status != 200:
        raise MoveError(f"move {status}: {body[:300]!r}")
    if w is not None:
        w.record("move", t0, t1)
        if one_trip and slot.legal is not None:
            w.counts["without_get"] = w.counts.get("without_get", 0) + (t0 >= w.start and t1 <= w.end)
    slot.moves += 1
    answer = _json.decode(body)
    slot.version = answer["version"]
    mover, to_act = slot.seat, answer.get("to_act") or []
    slot.legal = None
    if to_act:
        slot.seat = to_act[0]
        if one_trip and slot.seat == mover and answer.get("legal_moves", {}).get("moves"):
            slot.legal = answer["legal_moves"]["moves"]
    return answer["status"] == "finished"


def moves(
    host: str,
    port: int,
    kind: str,
    players: int,
    games: int,
    connections: int,
    warmup: float,
    duration: float,
    seed: int = 1,
    one_trip: bool = False,
) -> dict[str, Any]:
    """Play *games* games concurrently over *connections* keep-alive connections for a window
    (with the one-trip client when *one_trip*: see :func:`_one_move`).

    Each connection owns games/connections games and makes one move in each in turn, so every game
    is in flight all the time; a game that finishes is replaced by a new one (its creation is
    counted apart).  Returns the window's figures and the games (with seat-0 tokens) for the reads.
    """

    async def main() -> dict[str, Any]:
        conns = await _connections(host, port, connections)
        per = [games // connections + (1 if i < games % connections else 0) for i in range(connections)]
        slots: list[list[Slot]] = await asyncio.gather(
            *(_create_many(c, kind, players, n) for c, n in zip(conns, per))
        )
        w = Window(warmup, duration)
        finished = 0
        errors: list[str] = []

        async def worker(i: int, c: Connection, mine: list[Slot]) -> None:
            nonlocal finished
            rng = random.Random(seed * 1000 + i)
            while w.running() and mine:
                for k in range(len(mine)):
                    if not w.running():
                        break
                    try:
                        done = await _one_move(c, mine[k], rng, w, one_trip)
                    except MoveError as exc:
                        errors.append(str(exc))
                        done = True
                    if done:
                        finished += 1
                        t0 = time.perf_counter()
                        mine[k] = await _create(c, kind, players)
                        w.record("create", t0, time.perf_counter())

        w.arm()
        await asyncio.gather(*(worker(i, c, s) for i, (c, s) in enumerate(zip(conns, slots))))
        for c in conns:
            await c.close()
        flat = [s for group in slots for s in group]
        return {
            "move": w.result("move"),
            "legal": w.result("legal"),
            "create": w.result("create"),
            "moves_without_get": w.counts.get("without_get", 0),
            "finished": finished,
            "errors": len(errors),
            "first_errors": errors[:3],
            "games_in_flight": len(flat),
            "games": [(s.game_id, s.auth[0].decode()) for s in flat],
        }

    return run_loop(main())


def whole_games(
    host: str,
    port: int,
    configs: list[tuple[str, int]],
    games: int,
    connections: int,
    one_trip: bool,
    seed: int = 7,
) -> dict[str, Any]:
    """Whole games, per title and player count: *games* games created, played to the end and
    finished, *connections* at a time, timed from the first creation to the last move.  The
    figure counts everything a game costs (creation, every move, its legal-moves reads, the end)."""

    async def main() -> dict[str, Any]:
        conns = await _connections(host, port, connections)
        out = {
            f"{kind} {players}p": await _whole(conns, kind, players, games, one_trip, seed)
            for kind, players in configs
        }
        for c in conns:
            await c.close()
        return out

    return run_loop(main())


async def _whole(
    conns: list[Connection], kind: str, players: int, games: int, one_trip: bool, seed: int
) -> dict[str, Any]:
    left = [games]
    played: list[int] = []
    errors: list[str] = []

    async def worker(i: int, c: Connection) -> None:
        rng = random.Random(seed * 1000 + i)
        while left[0] > 0:
            left[0] -= 1
            slot = await _create(c, kind, players)
            try:
                while not await _one_move(c, slot, rng, None, one_trip):
                    pass
            except MoveError as exc:
                errors.append(str(exc))
            played.append(slot.moves)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(i, c) for i, c in enumerate(conns)))
    seconds = time.perf_counter() - t0
    return {
        "games": len(played),
        "moves": sum(played),
        "seconds": seconds,
        "games_per_s": len(played) / seconds,
        "moves_per_s": sum(played) / seconds,
        "moves_per_game": sum(played) / max(len(played), 1),
        "errors": len(errors),
        "first_errors": errors[:3],
    }


async def _create_many(c: Connection, kind: str, players: int, n: int) -> list[Slot]:
    return [await _create(c, kind, players) for _ in range(n)]


# --- reads --------------------------------------------------------------------------------------
def reads(
    host: str,
    port: int,
    games: list[tuple[str, str]],
    connections: int,
    warmup: float,
    duration: float,
    conditional: bool,
) -> dict[str, Any]:
    """GET /v1/games/{id} as seat 0 (warm snapshot cache), or with If-None-Match (304)."""

    async def main() -> dict[str, Any]:
        conns = await _connections(host, port, connections)
        targets = [(g, a.encode()) for g, a in games]
        if conditional:
            # Learn each game's ETag first (one plain GET each).
            tagged = []
            for i in range(0, len(targets), connections):
                batch = targets[i : i + connections]
                heads = await asyncio.gather(
                    *(c.request("GET", f"/v1/games/{g}", a) for c, (g, a) in zip(conns, batch))
                )
                for (g, a), (_, head, _) in zip(batch, heads):
                    tagged.append((g, a + b"If-None-Match: " + header_value(head, b"etag") + b"\r\n"))
            targets = tagged
        w = Window(warmup, duration)
        errors = 0
        expect = 304 if conditional else 200

        async def worker(i: int, c: Connection) -> None:
            nonlocal errors
            mine = [c.build("GET", f"/v1/games/{g}", h) for g, h in targets[i::connections]] or [
                c.build("GET", f"/v1/games/{targets[0][0]}", targets[0][1])
            ]
            k = 0
            while w.running():
                raw = mine[k % len(mine)]
                k += 1
                t0 = time.perf_counter()
                status, _, _ = await c.send(raw)
                t1 = time.perf_counter()
                if status != expect:
                    errors += 1
                w.record("get", t0, t1)

        w.arm()
        await asyncio.gather(*(worker(i, c) for i, c in enumerate(conns)))
        for c in conns:
            await c.close()
        return {**w.result("get"), "errors": errors}

    return run_loop(main())


# --- growth -------------------------------------------------------------------------------------
def growth(
    host: str, port: int, kind: str, players: int, points: list[int], samples: int, seed: str
) -> dict[str, Any]:
    """One game per point, each played over HTTP until its version first reaches the point (a game
    that ends too early is replaced by the next seed); then *samples* warm GETs of each view on one
    connection, the games taken in turn so that every point sees the same background load."""

    async def main() -> dict[str, Any]:
        c = await Connection(host, port).open()
        rng = random.Random(seed)
        games: dict[int, Slot] = {}
        n = 0
        for point in sorted(points):
            while point not in games and n < 50:
                slot = await _create(c, kind, players, seed=f"{seed}-{n}")
                n += 1
                done = False
                while slot.version < point and not done:
                    done = await _one_move(c, slot, rng, None)
                if slot.version >= point:
                    games[point] = slot
        raws = {p: c.build("GET", f"/v1/games/{g.game_id}", g.auth[0]) for p, g in games.items()}
        lat: dict[int, list[float]] = {p: [] for p in raws}
        size: dict[int, int] = {}
        for i in range(samples + samples // 5 + 1):  # the first fifth warms the token and snapshot caches
            for p, raw in raws.items():
                t0 = time.perf_counter()
                status, _, body = await c.send(raw)
                t1 = time.perf_counter()
                if status != 200:
                    raise RuntimeError(f"GET {status}")
                if i > samples // 5:
                    lat[p].append((t1 - t0) * 1000.0)
                size[p] = len(body)
        await c.close()
        return {str(p): {"version": games[p].version, "bytes": size[p], **summarize(lat[p])} for p in raws}

    return run_loop(main())

"""Measured reads across the replicas, sent to each replica directly (not through HAProxy).

:func:`consistency`: a few hundred moves, each posted to one replica, and the game read at once
from the other two — plainly, with ``?min_version=<acknowledged version>`` and with
``If-None-Match: "<acknowledged version>"`` — counting the reads that show an older version than
the one acknowledged (*stale*).

:func:`standby_reads`: a game's document, history and record read by a spectator (no token) from
every replica once the standby has replayed the game, each answer's ``Standby-Lag-Ms`` noted; and
a seat's own reads of the game right after each of its moves, on the other replicas
(read-your-writes).
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tests.faults.load import Answer, Http, Unreachable

from .hosts import Replica

_enc = msgspec.json.Encoder()
_dec = msgspec.json.Decoder()

READ_KINDS = ("plain", "min_version", "if_none_match")
READ_TITLES = {
    "plain": "`GET /v1/games/{id}`",
    "min_version": "`GET /v1/games/{id}?min_version=N`",
    "if_none_match": '`GET /v1/games/{id}` with `If-None-Match: "N"`',
}
STANDBY_HEADER = "standby-lag-ms"
COLD, WARM = "spectator, on a replica new to the game", "spectator, on a replica that served it"


class ProbeError(AssertionError):
    """A replica answered something a probe cannot go on from (recorded with the request)."""


def _headers(token: str | None, **extra: str) -> dict[str, str]:
    out = {"Authorization": f"Bearer {token}"} if token else {}
    out.update(extra)
    return out


async def _send(
    http: Http, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> Answer:
    """One request; a 503 (Retry-After) or a broken connection is tried again a few times."""
    last = ""
    for _ in range(10):
        try:
            answer = await http.request(method, path, headers, body)
        except Unreachable as exc:
            last = str(exc)
            await asyncio.sleep(0.2)
            continue
        if answer.status != 503:
            return answer
        last = f"503 {answer.body[:200]!r}"
        await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
    raise ProbeError(f"{method} {http.host}:{http.port}{path}: no answer but {last}")


@dataclass
class Played:
    """A game being played by a probe (tokens by seat, the version last acknowledged)."""

    game_id: str
    tokens: dict[int, str]
    version: int
    to_act: list[int]


async def new_game(http: Http) -> Played:
    body = _enc.encode({"kind": "yangtze", "options": {"players": 3}, "take_seats": "all"})
    answer = await _send(http, "POST", "/v1/games", {}, body)
    if answer.status != 201:
        raise ProbeError(f"create answered {answer.status}: {answer.body[:300]!r}")
    doc = answer.json()
    tokens = {t["seat"]: t["token"] for t in doc["tokens"]}
    view = await _send(http, "GET", f"/v1/games/{doc['game_id']}", _headers(tokens[0]))
    if view.status != 200:
        raise ProbeError(f"read of a new game answered {view.status}: {view.body[:300]!r}")
    return Played(doc["game_id"], tokens, doc["version"], list(view.json()["to_act"]))


async def play_one(http: Http, game: Played, rng: random.Random) -> tuple[int, float] | None:
    """One move of the seat to act, decided on its legal moves at the acknowledged version and
    sent with If-Match and an Idempotency-Key; (the seat, when acknowledged) or None when the game
    is over."""
    for seat in game.to_act or list(game.tokens):
        legal = await _send(http, "GET", f"/v1/games/{game.game_id}/legal-moves", _headers(game.tokens[seat]))
        if legal.status != 200:
            raise ProbeError(f"legal-moves answered {legal.status}: {legal.body[:300]!r}")
        doc = legal.json()
        if doc["version"] < game.version:
            raise ProbeError(
                f"the replica that acknowledged v{game.version} of {game.game_id} listed moves at "
                f"v{doc['version']}"
            )
        if doc["moves"]:
            break
    else:
        return None
    command = doc["moves"][rng.randrange(len(doc["moves"]))]
    headers = _headers(
        game.tokens[seat], **{"If-Match": f'"{game.version}"', "Idempotency-Key": uuid.uuid4().hex}
    )
    answer = await _send(http, "POST", f"/v1/games/{game.game_id}/moves", headers, _enc.encode(command))
    if answer.status != 200:
        raise ProbeError(
            f"move on {game.game_id}@{game.version} answered {answer.status}: {answer.body[:300]!r}"
        )
    moved = answer.json()
    game.version = moved["version"]
    game.to_act = list(moved.get("to_act") or [])
    if moved["status"] == "finished":
        game.to_act = []
    return seat, time.monotonic()


# --------------------------------------------------------------------------- consistency


@dataclass
class CrossRead:
    kind: str
    replica: str
    acked: int
    seen: int | None
    """The version shown (None: a 304, i.e. the acknowledged version is current there)."""
    status: int
    lag: float
    """Seconds from the acknowledgement to the answer."""
    standby_lag_ms: str | None = None


@dataclass
class Consistency:
    moves: int = 0
    games: int = 0
    reads: list[CrossRead] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def stale(self, kind: str) -> list[CrossRead]:
        return [r for r in self.reads if r.kind == kind and r.seen is not None and r.seen < r.acked]

    def count(self, kind: str) -> int:
        return sum(1 for r in self.reads if r.kind == kind)

    def statuses(self, kind: str) -> Counter:
        return Counter(r.status for r in self.reads if r.kind == kind)

    def ahead(self) -> list[CrossRead]:
        return [r for r in self.reads if r.seen is not None and r.seen > r.acked]

    def table(self) -> str:
        lines = [
            "| read from the two other replicas, right after the move | reads | answers "
            "| stale (older than acknowledged) | worst stale lag ms |",
            "|---|---|---|---|---|",
        ]
        for kind in READ_KINDS:
            stale = self.stale(kind)
            statuses = " ".join(f"{s}×{n}" for s, n in sorted(self.statuses(kind).items()))
            worst = max((r.lag for r in stale), default=0.0) * 1000
            lines.append(
                f"| {READ_TITLES[kind]} | {self.count(kind)} | {statuses} | {len(stale)} | {worst:.0f} |"
            )
        return "\n".join(lines)


async def consistency(
    replicas: list[Replica], moves: int, *, parallel: int = 6, seed: int = 19
) -> Consistency:
    """*moves* moves over *parallel* games at once; the mover replica turns with each move."""
    out = Consistency()
    done = [0]
    t0 = time.monotonic()

    async def player(k: int) -> None:
        rng = random.Random(seed * 100 + k)
        conns = {
            (r.name, purpose): Http(r.host, r.port) for r in replicas for purpose in ("mover", *READ_KINDS)
        }
        try:
            game: Played | None = None
            turn = k
            while done[0] < moves:
                mover = replicas[turn % len(replicas)]
                turn += 1
                http = conns[(mover.name, "mover")]
                if game is None:
                    game = await new_game(http)
                    out.games += 1
                played = await play_one(http, game, rng)
                if played is None:
                    game = None
                    continue
                seat, acked_at = played
                done[0] += 1
                out.moves += 1
                token, path, version = game.tokens[seat], f"/v1/games/{game.game_id}", game.version
                reads = []
                for other in (r for r in replicas if r is not mover):
                    reads.append(("plain", other, path, _headers(token)))
                    reads.append(("min_version", other, f"{path}?min_version={version}", _headers(token)))
                    reads.append(
                        ("if_none_match", other, path, _headers(token, **{"If-None-Match": f'"{version}"'}))
                    )
                answers = await asyncio.gather(
                    *(_send(conns[(o.name, kind)], "GET", p, h) for kind, o, p, h in reads)
                )
                for (kind, other, _, _), answer in zip(reads, answers):
                    lag = time.monotonic() - acked_at
                    if answer.status == 304 and kind == "if_none_match":
                        seen = None
                    elif answer.status == 200:
                        seen = answer.json()["version"]
                    else:
                        out.errors.append(
                            f"{kind} read of {game.game_id} from {other.name}: "
                            f"{answer.status} {answer.body[:200]!r}"
                        )
                        seen = None
                    out.reads.append(
                        CrossRead(
                            kind,
                            other.name,
                            version,
                            seen,
                            answer.status,
                            lag,
                            answer.headers.get(STANDBY_HEADER),
                        )
                    )
        finally:
            for http in conns.values():
                await http.close()

    results = await asyncio.gather(*(player(k) for k in range(parallel)), return_exceptions=True)
    out.errors += [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
    out.seconds = time.monotonic() - t0
    return out


# --------------------------------------------------------------------------- standby reads


@dataclass
class StandbyRead:
    who: str
    """seat, or spectator (:data:`COLD`, :data:`WARM`)"""
    what: str
    """document, history, record, legal moves"""
    replica: str
    status: int
    version: int | None
    acked: int
    lag_header: str | None


@dataclass
class StandbyReads:
    game_id: str = ""
    acked: int = 0
    """The game's last acknowledged version."""
    last_move_at: float = 0.0
    moves: int = 0
    reads: list[StandbyRead] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def spectator(self) -> list[StandbyRead]:
        return [r for r in self.reads if r.who in (COLD, WARM)]

    def seat(self) -> list[StandbyRead]:
        return [r for r in self.reads if r.who == "seat"]

    def table(self) -> str:
        lines = [
            "| reader | read | answers | with Standby-Lag-Ms (values) | older than acknowledged |",
            "|---|---|---|---|---|",
        ]
        groups: dict[tuple[str, str], list[StandbyRead]] = {}
        for r in self.reads:
            groups.setdefault((r.who, r.what), []).append(r)
        for (who, what), reads in groups.items():
            statuses = " ".join(f"{s}×{n}" for s, n in sorted(Counter(r.status for r in reads).items()))
            lagged = [r.lag_header for r in reads if r.lag_header is not None]
            values = f" ({', '.join(sorted(set(lagged))[:6])})" if lagged else ""
            older = sum(1 for r in reads if r.version is not None and r.version < r.acked)
            lines.append(f"| {who} | {what} | {statuses} | {len(lagged)} of {len(reads)}{values} | {older} |")
        return "\n".join(lines)


def _record_version(body: bytes) -> int | None:
    first = body.split(b"\n", 1)[0]
    try:
        return int(_dec.decode(first)["version"])
    except (msgspec.DecodeError, KeyError, TypeError, ValueError):
        return None


SEAT_READS = ("document ?min_version=N", "legal moves ?min_version=N", "history", "document (plain)")
"""A seat's reads right after its move, from the other replicas: the ones a client that needs its
own move uses (``min_version``; a seat's history is read on the primary), and the plain document
(its staleness across replicas is measured, as in :func:`consistency`)."""


async def seat_reads(replicas: list[Replica], moves: int, seed: int = 7) -> StandbyReads:
    """A game played move by move on turning *replicas*; after each move the seat that moved reads
    the game (:data:`SEAT_READS`) from the others at once."""
    out = StandbyReads()
    rng = random.Random(seed)
    conns = {r.name: Http(r.host, r.port) for r in replicas}
    readers = {(r.name, w): Http(r.host, r.port) for r in replicas for w in SEAT_READS}
    try:
        game = await new_game(conns[replicas[0].name])
        out.game_id = game.game_id
        turn = 0
        while out.moves < moves:
            mover = replicas[turn % len(replicas)]
            turn += 1
            played = await play_one(conns[mover.name], game, rng)
            if played is None:
                game = await new_game(conns[mover.name])
                continue
            out.moves += 1
            seat, out.last_move_at = played
            token, v = game.tokens[seat], game.version
            base = f"/v1/games/{game.game_id}"
            paths = dict(
                zip(
                    SEAT_READS,
                    (
                        f"{base}?min_version={v}",
                        f"{base}/legal-moves?min_version={v}",
                        f"{base}/events?limit=1000",
                        base,
                    ),
                )
            )
            asks = [
                (what, other, paths[what]) for other in replicas if other is not mover for what in SEAT_READS
            ]
            answers = await asyncio.gather(
                *(_send(readers[(o.name, w)], "GET", p, _headers(token)) for w, o, p in asks)
            )
            for (what, other, _), answer in zip(asks, answers):
                version = answer.json()["version"] if answer.status == 200 else None
                if answer.status != 200:
                    out.errors.append(f"seat {what} from {other.name}: {answer.status} {answer.body[:200]!r}")
                out.reads.append(
                    StandbyRead(
                        "seat",
                        what,
                        other.name,
                        answer.status,
                        version,
                        game.version,
                        answer.headers.get(STANDBY_HEADER),
                    )
                )
        out.game_id, out.acked = game.game_id, game.version
    finally:
        for http in [*conns.values(), *readers.values()]:
            await http.close()
    return out


async def spectator_reads(replicas: list[Replica], game_id: str, acked: int, cold: set[str]) -> StandbyReads:
    """The game's document, history and record, read with no token from every replica; *cold*:
    the replicas that never served the game (no remembered state that could answer instead)."""
    out = StandbyReads(game_id=game_id)
    base = f"/v1/games/{game_id}"
    for r in replicas:
        http = Http(r.host, r.port)
        try:
            for what, path in (
                ("document", base),
                ("history", f"{base}/events?after=0&limit=1000"),
                ("record", f"{base}/record"),
            ):
                answer = await _send(http, "GET", path, {})
                version: Any = None
                if answer.status == 200:
                    version = _record_version(answer.body) if what == "record" else answer.json()["version"]
                else:
                    out.errors.append(
                        f"spectator {what} from {r.name}: {answer.status} {answer.body[:200]!r}"
                    )
                out.reads.append(
                    StandbyRead(
                        COLD if r.name in cold else WARM,
                        what,
                        r.name,
                        answer.status,
                        version,
                        acked,
                        answer.headers.get(STANDBY_HEADER),
                    )
                )
        finally:
            await http.close()
    return out

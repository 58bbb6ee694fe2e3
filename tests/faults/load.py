"""Bounded load that records everything: every request's outcome, every acknowledged move, every read.

Each client plays its own 3-player Yangtze games (``take_seats: "all"``) over two keep-alive
connections, one for its moves and one for its reads, kept on different workers of the service
where it can (which worker holds a connection is read from /proc): a read answered by the worker
that has just acknowledged the move would test nothing.  The client asks the seat to act for its
legal moves, picks one at random, and sends it with ``If-Match`` (the version it decided on) and a
fresh ``Idempotency-Key``.  A 503 or 429 is retried with the same key after ``Retry-After``; a
connection error or a timeout after a short pause, on a new connection.  Each acknowledged move is
recorded (game, key, version, its events), and the game is read back at once with the seat's
token: a read showing a lower version than the one acknowledged is a *stale read*, recorded with
its lag (the time from the acknowledgement to the sending of that read); stale reads are repeated
until the acknowledged version shows.  A prober creates a game every ``PROBE_SECONDS`` so that
creation is exercised all along.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

_json = msgspec.json.Decoder()
_enc = msgspec.json.Encoder()

REQUEST_TIMEOUT = 15.0
"""A request unanswered for this long is recorded as a timeout (a hang), never waited on longer."""
CONNECT_PAUSE = 0.2
"""The pause before retrying after a connection error (the service gives no Retry-After then)."""
MAX_RETRY_AFTER = 5.0
STALE_REREAD = 0.05
"""How often a stale read is repeated until the acknowledged version shows."""
STALE_GIVE_UP = 10.0
PROBE_SECONDS = 0.5
FINISH_SECONDS = 45.0
"""After the load is told to stop, how long a client keeps retrying a move whose fate it does not
know yet before recording it as unresolved."""
UNEXPECTED_RETRIES = 3
SEPARATIONS = 200
"""How often a client may reconnect its reader to get it off its mover's worker."""

KINDS = ("create", "legal", "move", "view")


class Unreachable(Exception):
    """No HTTP answer: ``kind`` is ``connect`` (refused), ``reset`` (the connection broke) or
    ``timeout``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass(slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return _json.decode(self.body)

    @property
    def code(self) -> str | None:
        if self.status < 400:
            return None
        try:
            return str(_json.decode(self.body).get("code"))
        except (msgspec.DecodeError, AttributeError):
            return None


class Http:
    """A minimal HTTP/1.1 keep-alive client (Content-Length and chunked bodies), one connection."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.local_port: int | None = None
        self.worker: int | str | None = None
        """The service worker holding this connection, once known (see :class:`Load`); behind a
        proxy, the server that answered its last request (``served_by``)."""

    async def close(self) -> None:
        writer, self.reader, self.writer = self.writer, None, None
        self.local_port = self.worker = None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> Answer:
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                return await self._request(method, path, headers or {}, body)
        except TimeoutError:
            await self.close()
            raise Unreachable("timeout", f"{method} {path}: no answer in {REQUEST_TIMEOUT}s") from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            fresh = self.writer is None
            await self.close()
            kind = "connect" if fresh or isinstance(exc, ConnectionRefusedError) else "reset"
            raise Unreachable(kind, f"{method} {path}: {type(exc).__name__}: {exc}") from None

    async def _request(self, method: str, path: str, headers: dict[str, str], body: bytes | None) -> Answer:
        if self.writer is None:
            try:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
            except OSError:
                self.reader = self.writer = None
                raise
            self.local_port = self.writer.get_extra_info("sockname")[1]
        assert self.reader is not None and self.writer is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        got: dict[str, str] = {}
        for line in header_lines:
            if ":" in line:
                name, _, value = line.partition(":")
                got[name.strip().lower()] = value.strip()
        if "content-length" in got:
            n = int(got["content-length"])
            payload = await self.reader.readexactly(n) if n else b""
        elif got.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    break
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            payload = b"".join(parts)
        else:
            payload = b""
        if got.get("connection", "").lower() == "close":
            await self.close()
        return Answer(status, got, payload)


# --------------------------------------------------------------------------- what is recorded


@dataclass(slots=True)
class Request:
    kind: str
    """create, legal, move, view"""
    sent: float
    done: float
    status: int | None
    """None when there was no answer (see ``error``)."""
    error: str | None = None
    """connect, reset or timeout"""
    retry_after: str | None = None
    code: str | None = None


@dataclass(slots=True)
class Ack:
    """An acknowledged move."""

    client: int
    game_id: str
    key: str
    expected: int
    """The version the move was decided on (If-Match)."""
    version: int
    events: list[tuple[int, str | None]]
    """(seq, event type as the caller saw it, None when hidden)"""
    at: float
    attempts: int


@dataclass(slots=True)
class Read:
    kind: str
    """view or legal"""
    game_id: str
    acked: int
    seen: int
    lag: float
    """Seconds from the acknowledgement to the sending of this read."""
    cross: bool | None
    """Answered by another worker than the one that acknowledged the move (None: unknown)."""
    sent: float = 0.0


@dataclass
class Game:
    game_id: str
    tokens: dict[int, str]
    created_version: int
    client: int
    keys: dict[str, str] = field(default_factory=dict)
    """Every Idempotency-Key sent for this game, with its fate: acked, unresolved, refused:<status>."""
    finished: bool = False


@dataclass
class Ledger:
    requests: list[Request] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)
    games: dict[str, Game] = field(default_factory=dict)
    anomalies: list[str] = field(default_factory=list)
    """What a client saw that should never happen (a read newer than any move, a 412 ...)."""


# --------------------------------------------------------------------------- the clients


class Load:
    def __init__(
        self,
        host: str,
        port: int,
        *,
        clients: int,
        seed: int = 1,
        name: str = "f",
        owner: Callable[[int], int | None] | None = None,
        served_by: Callable[[Answer], str | None] | None = None,
    ) -> None:
        self.host, self.port = host, port
        self.owner = owner
        """client port -> the worker pid holding that connection (None: cannot tell)."""
        self.served_by = served_by
        """answer -> who served it (e.g. the replica a proxy names in a header), for a load sent
        through a proxy: each answer then says which server holds the connection's last request,
        and a read is *crossed* when another server answered it than the client's last move."""
        self.n_clients = clients
        self.seed = seed
        self.name = name
        self.ledger = Ledger()
        self.stopping = False
        self.stopped_at = 0.0
        self._tasks: list[asyncio.Task] = []
        self._serial = itertools.count()

    @property
    def connections(self) -> int:
        return 2 * self.n_clients + 1  # the clients' movers and readers, and the prober

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._client(i)) for i in range(self.n_clients)]
        self._tasks.append(loop.create_task(self._prober()))

    async def stop(self) -> None:
        """Stop starting new moves; wait for every move in flight to be resolved (or given up)."""
        self.stopping = True
        self.stopped_at = time.monotonic()
        results = await asyncio.gather(*self._tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                self.ledger.anomalies.append(f"a load client crashed: {type(r).__name__}: {r}")

    def _give_up(self) -> bool:
        return self.stopping and time.monotonic() - self.stopped_at > FINISH_SECONDS

    # --- one request, recorded ----------------------------------------------------------------
    async def _send(
        self, http: Http, kind: str, method: str, path: str, headers: dict[str, str], body: bytes | None
    ) -> Answer | Unreachable:
        sent = time.monotonic()
        try:
            answer = await http.request(method, path, headers, body)
        except Unreachable as exc:
            self.ledger.requests.append(Request(kind, sent, time.monotonic(), None, exc.kind))
            return exc
        done = time.monotonic()
        if self.served_by is not None:
            http.worker = self.served_by(answer) or http.worker
        elif http.worker is None and http.local_port is not None and self.owner is not None:
            http.worker = self.owner(http.local_port)
        self.ledger.requests.append(
            Request(
                kind,
                sent,
                done,
                answer.status,
                None,
                answer.headers.get("retry-after"),
                answer.code,
            )
        )
        return answer

    async def _pause(self, outcome: Answer | Unreachable) -> None:
        if isinstance(outcome, Answer) and outcome.status in (429, 503):
            try:
                wait = float(outcome.headers.get("retry-after", "1"))
            except ValueError:
                wait = 1.0
            await asyncio.sleep(min(max(wait, 0.05), MAX_RETRY_AFTER))
        else:
            await asyncio.sleep(CONNECT_PAUSE)

    async def _until_answered(
        self,
        http: Http,
        kind: str,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes | None = None,
        *,
        finish: bool = False,
        sends: list[int] | None = None,
    ) -> Answer | None:
        """The first answer that is not 503/429, retrying the very same request; None when the load
        stops first (or, with *finish*, when it has been stopping for FINISH_SECONDS).  Each send
        is counted in *sends* (one item) when given."""
        while True:
            if sends is not None:
                sends[0] += 1
            outcome = await self._send(http, kind, method, path, headers, body)
            if isinstance(outcome, Answer) and outcome.status not in (429, 503):
                return outcome
            if self._give_up() if finish else self.stopping:
                return None
            await self._pause(outcome)

    # --- a client -----------------------------------------------------------------------------
    async def _create(self, http: Http, client: int) -> Game | None:
        body = _enc.encode({"kind": "yangtze", "options": {"players": 3}, "take_seats": "all"})
        while not self.stopping:
            answer = await self._until_answered(http, "create", "POST", "/v1/games", {}, body)
            if answer is None:
                return None
            if answer.status == 201:
                doc = answer.json()
                game = Game(
                    doc["game_id"], {t["seat"]: t["token"] for t in doc["tokens"]}, doc["version"], client
                )
                self.ledger.games[game.game_id] = game
                return game
            self.ledger.anomalies.append(f"create answered {answer.status}: {answer.body[:200]!r}")
            await asyncio.sleep(0.5)
        return None

    async def _client(self, i: int) -> None:
        rng = random.Random(self.seed * 1000 + i)
        pair = Pair(Http(self.host, self.port), Http(self.host, self.port))
        if self.served_by is not None:
            pair.separations = SEPARATIONS  # a proxy picks the server per request: never reconnect
        try:
            while not self.stopping:
                game = await self._create(pair.mover, i)
                if game is None:
                    return
                await self._play(pair, i, game, rng)
        finally:
            await pair.mover.close()
            await pair.reader.close()

    def _auth(self, game: Game, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {game.tokens[seat]}"}

    async def _play(self, pair: Pair, i: int, game: Game, rng: random.Random) -> None:
        version = game.created_version
        ack_at = time.monotonic()
        to_act = await self._read_back(pair, game, version, ack_at)
        while not self.stopping and to_act is not None:
            # the legal moves of the seat to act, at the acknowledged version
            moves = None
            for seat in [*to_act, *(s for s in game.tokens if s not in to_act)]:
                moves = await self._legal(pair, game, seat, version, ack_at)
                if moves is None:
                    return  # stopping
                if moves:
                    break
            if not moves:
                game.finished = True
                return
            command = moves[rng.randrange(len(moves))]
            key = f"{self.name}-{i}-{next(self._serial)}-{uuid.uuid4().hex[:8]}"
            acked = await self._move(pair.mover, i, game, seat, command, key, version)
            if acked is None:
                return  # unresolved, or refused: this game is left here
            version, status, ack_at = acked.version, acked.status, time.monotonic()
            if status == "finished":
                game.finished = True
                await self._read_back(pair, game, version, ack_at, seat)
                return
            to_act = await self._read_back(pair, game, version, ack_at, seat)

    async def _legal(
        self, pair: Pair, game: Game, seat: int, version: int, ack_at: float
    ) -> list[Any] | None:
        path = f"/v1/games/{game.game_id}/legal-moves"
        while True:
            await pair.separate()
            sent = time.monotonic()
            answer = await self._until_answered(pair.reader, "legal", "GET", path, self._auth(game, seat))
            if answer is None:
                return None
            if answer.status != 200:
                self.ledger.anomalies.append(f"legal-moves answered {answer.status}: {answer.body[:200]!r}")
                return []
            doc = answer.json()
            self.ledger.reads.append(
                Read("legal", game.game_id, version, doc["version"], sent - ack_at, pair.crossed(), sent)
            )
            if doc["version"] > version:
                self.ledger.anomalies.append(f"legal-moves of {game.game_id} at {doc['version']} > {version}")
            if doc["version"] >= version:
                return doc["moves"]
            if time.monotonic() - ack_at > STALE_GIVE_UP:
                return []
            await asyncio.sleep(STALE_REREAD)

    async def _read_back(
        self, pair: Pair, game: Game, version: int, ack_at: float, seat: int = 0
    ) -> list[int] | None:
        """Read the game with *seat*'s token until it shows *version*; every read is recorded.
        Returns the seats to act (None when stopping)."""
        path = f"/v1/games/{game.game_id}"
        while True:
            await pair.separate()
            sent = time.monotonic()
            answer = await self._until_answered(pair.reader, "view", "GET", path, self._auth(game, seat))
            if answer is None:
                return None
            if answer.status != 200:
                self.ledger.anomalies.append(f"read answered {answer.status}: {answer.body[:200]!r}")
                return None
            doc = answer.json()
            self.ledger.reads.append(
                Read("view", game.game_id, version, doc["version"], sent - ack_at, pair.crossed(), sent)
            )
            if doc["version"] > version:
                self.ledger.anomalies.append(f"read of {game.game_id} at {doc['version']} > acked {version}")
            if doc["version"] >= version:
                return list(doc["to_act"])
            if time.monotonic() - ack_at > STALE_GIVE_UP:
                return None
            await asyncio.sleep(STALE_REREAD)

    async def _move(
        self, http: Http, i: int, game: Game, seat: int, command: Any, key: str, version: int
    ) -> Any:
        """Send the move until its fate is known: the acknowledgement, or None (refused/unresolved)."""
        path = f"/v1/games/{game.game_id}/moves"
        headers = {**self._auth(game, seat), "If-Match": f'"{version}"', "Idempotency-Key": key}
        body = _enc.encode(command)
        game.keys[key] = "unresolved"
        sends = [0]
        unexpected = 0
        while True:
            answer = await self._until_answered(
                http, "move", "POST", path, headers, body, finish=True, sends=sends
            )
            if answer is None:
                return None  # unresolved: recorded as such
            if answer.status == 200:
                doc = answer.json()
                events = [
                    (e["seq"], (e.get("event") or {}).get("type") if e.get("event") else None)
                    for e in doc["events"]
                ]
                self.ledger.acks.append(
                    Ack(i, game.game_id, key, version, doc["version"], events, time.monotonic(), sends[0])
                )
                game.keys[key] = "acked"
                return _Acked(doc["version"], doc["status"])
            # Never expected: the move came from the legal moves at this version and nobody else
            # plays this game.  Recorded; the same request is tried again a few times (a 500 after a
            # commit would be answered from the idempotency record), then the game is left.
            self.ledger.anomalies.append(
                f"move {key} on {game.game_id}@{version} answered {answer.status}: {answer.body[:300]!r}"
            )
            unexpected += 1
            if unexpected >= UNEXPECTED_RETRIES:
                game.keys[key] = f"refused:{answer.status}"
                return None
            await asyncio.sleep(0.5)

    # --- the prober ---------------------------------------------------------------------------
    async def _prober(self) -> None:
        http = Http(self.host, self.port)
        try:
            while not self.stopping:
                t0 = time.monotonic()
                if await self._create(http, -1) is None:
                    return
                await asyncio.sleep(max(0.0, PROBE_SECONDS - (time.monotonic() - t0)))
        finally:
            await http.close()


@dataclass
class Pair:
    """A client's two connections: moves go through ``mover``, reads through ``reader``."""

    mover: Http
    reader: Http
    separations: int = 0

    async def separate(self) -> None:
        """If both connections are held by the same worker, drop the reader (the next read
        reconnects, and the kernel hands it to a worker that is ready to accept)."""
        if (
            self.reader.worker is not None
            and self.reader.worker == self.mover.worker
            and self.separations < SEPARATIONS
        ):
            self.separations += 1
            await self.reader.close()

    def crossed(self) -> bool | None:
        if self.reader.worker is None or self.mover.worker is None:
            return None
        return self.reader.worker != self.mover.worker


@dataclass(slots=True)
class _Acked:
    version: int
    status: str

"""The application service: load a game, decide a command, append its events, cache the fold.

This is the only module that strings the pure domain and the infrastructure together::

    load state (snapshot + newer events) -> game.decide -> store.append(expected version)
    -> fold the new events -> write the snapshot and post the notice -> answer, redacted for the caller

Reads are answered from the state this worker remembers when the notice board
(:mod:`service.notices`) vouches that nothing newer was committed; otherwise from Redis and Postgres.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog

from domain.kernel import Event, Game, NotYourTurn, Outcome, Rng, RuleViolation, Seat, redact_for, seed_commitment

from .cache import SnapshotCache, decode_state, encode_snapshot, peek_snapshot
from .codec import GameCodec, json_encoder, new_events, tag_of
from .metrics import METRICS
from .notices import NoticeBoard
from .problems import Problem
from .records import StoredEvent, seal, timestamp
from .store import DuplicateIdempotencyKey, EventStore, GameRow, IdempotentResponse, VersionConflict

log = structlog.get_logger("yamen.games")

MAX_RACE_RETRIES = 32
RECENT_STATES = 4096
TOKEN_HASHES = 400_000
"""Seat token hashes a worker remembers (a claimed seat's hash never changes)."""
TRUST_SECONDS = 5.0
"""How long a remembered state may answer reads before Postgres is asked again, even with no
notice: a notice lost to a Redis hiccup leaves a view at most this stale."""
STREAM_POLL_SECONDS = 15.0
"""The event stream re-reads Postgres at least this often when no notice arrives."""


# --- what the HTTP layer returns ---------------------------------------------------------------
class SeatInfo(msgspec.Struct, kw_only=True):
    seat: int
    claimed: bool


class SeatToken(msgspec.Struct, kw_only=True):
    seat: int
    token: str
    """Bearer token for this seat. Shown once; only its hash is stored."""


class EventEnvelope(msgspec.Struct, kw_only=True):
    seq: int
    seat: int | None
    """The seat whose command caused the event (None for setup)."""
    recorded_at: str
    event: Any
    """The event as the caller may see it; null when it is hidden from the caller entirely."""


@dataclass(slots=True)
class Remembered:
    """The last state this worker loaded or wrote for a game, and the answers rendered from it."""

    row: GameRow
    blob: bytes
    """The snapshot bytes: a move decodes its own scratch copy from these."""
    epoch: int
    """The notice board's epoch when Postgres vouched for it (see :mod:`service.notices`)."""
    checked_at: float
    trust_for: float
    """Seconds from checked_at; drawn per state in [0.75, 1] x TRUST_SECONDS so that states
    remembered together are not all re-checked in the same instant."""
    state: Any = None
    """Decoded on the first read and shared by reads, which never mutate it."""
    documents: dict[Seat | None, bytes] = field(default_factory=dict)
    legal: dict[Seat | None, bytes] = field(default_factory=dict)


@dataclass
class Loaded:
    game: Game
    codec: GameCodec
    row: GameRow
    state: Any
    version: int

    @property
    def finished(self) -> bool:
        return self.row.status == "finished"


def _state_at(blob: bytes, codec: GameCodec, version: int) -> Any | None:
    """The state a remembered snapshot holds, if it is the one at *version* and still decodes."""
    snap = peek_snapshot(blob)
    return decode_state(snap, codec.state_decoder) if snap is not None and snap.version == version else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def utcnow() -> datetime:
    return datetime.now(UTC)


class GameService:
    def __init__(
        self,
        games: dict[str, Game],
        store: EventStore,
        cache: SnapshotCache,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.games = games
        self.codecs = {kind: GameCodec(game) for kind, game in games.items()}
        self.store = store
        self.cache = cache
        self.clock = clock
        self._token_hashes: dict[tuple[str, int], str] = {}
        self._full_tables: dict[str, list[SeatInfo]] = {}
        # The last state this process loaded or wrote per game (row + snapshot bytes), so a move that
        # follows its legal-moves read skips Redis and Postgres; the append's expected version
        # checks it, and any doubt (a conflict, a refusal) judges again on a fresh load.
        self._recent: OrderedDict[str, Remembered] = OrderedDict()
        self.board: NoticeBoard | None = None
        self._jitter = random.Random()

    def attach_board(self, board: NoticeBoard) -> None:
        """Let reads trust remembered states while *board* is live."""
        self.board = board
        board.on_notice = self._noticed

    def _noticed(self, game_id: str, version: int) -> None:
        entry = self._recent.get(game_id)
        if entry is not None and entry.row.version < version:
            del self._recent[game_id]

    # --- helpers ------------------------------------------------------------------------------
    def _now(self) -> datetime:
        # Postgres keeps microseconds; the hash covers the same value we store.
        return self.clock().astimezone(UTC)

    def game_of(self, kind: str) -> tuple[Game, GameCodec]:
        game = self.games.get(kind)
        if game is None:
            raise Problem(404, "unknown_kind", f"no game kind {kind!r}; see /v1/catalogue")
        return game, self.codecs[kind]

    def envelope(self, codec: GameCodec, stored: StoredEvent, viewer: Seat | None, revealed: bool, event: Event | None = None) -> EventEnvelope:
        if event is None:
            event = codec.decode_event(stored.payload)
        return EventEnvelope(
            seq=stored.seq,
            seat=stored.seat,
            recorded_at=timestamp(stored.recorded_at),
            event=redact_for(event, viewer, revealed=revealed),
        )

    # --- create and join ----------------------------------------------------------------------
    async def create(self, kind: str, options: dict[str, Any], seed: str | None, take: str | list[int]) -> dict[str, Any]:
        game, codec = self.game_of(kind)
        try:
            opts = codec.decode_options(options)
        except msgspec.ValidationError as exc:
            raise Problem(422, "invalid_options", str(exc)) from None
        if opts.players not in game.player_counts:
            raise Problem(422, "invalid_options", f"{game.title} is played by {', '.join(map(str, game.player_counts))} players")
        secret_seed = seed if seed is not None else secrets.token_hex(32)
        try:
            state, events = game.start(opts, secret_seed)
        except RuleViolation as violation:
            raise Problem(422, violation.code, violation.message) from None
        players = opts.players
        seats_taken = list(range(players)) if take == "all" else ([] if take == "none" else sorted(set(take)))
        if any(s < 0 or s >= players for s in seats_taken):
            raise Problem(422, "invalid_seat", f"seats are numbered 0..{players - 1}")
        game_id = "g_" + secrets.token_hex(10)
        tokens = {seat: f"ymn.{seat}.{secrets.token_urlsafe(24)}" for seat in seats_taken}
        now = self._now()
        commitment = seed_commitment(secret_seed)
        stored = seal(game_id, 1, commitment, new_events(events, None, None, None), now, secret_seed)
        status = "active" if len(tokens) == players else "open"
        row = GameRow(
            game_id=game_id, kind=kind, rules_version=game.rules_version,
            options=json_encoder.encode(opts), players=players, seed=secret_seed,
            seed_commitment=commitment, status=status, version=len(stored),
            last_hash=stored[-1].hash if stored else commitment, imported=False,
            created_at=now, updated_at=now,
        )
        hashes = [token_hash(tokens[s]) if s in tokens else None for s in range(players)]
        await self.store.create_game(row, hashes, stored)
        for seat, digest in enumerate(hashes):
            if digest is not None:  # a claimed seat's token never changes: no lookup on its first move here
                self._remember_token(game_id, seat, digest)
        await self.cache.set(game_id, encode_snapshot(row.version, game.rules_version, state))
        return {
            "game_id": game_id,
            "kind": kind,
            "status": status,
            "version": row.version,
            "players": players,
            "seed_commitment": commitment,
            "tokens": [SeatToken(seat=s, token=t) for s, t in sorted(tokens.items())],
        }

    async def join(self, game_id: str, seat: int) -> tuple[str, str]:
        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise Problem(404, "seat_not_found", f"seats are numbered 0..{row.players - 1}")
        token = f"ymn.{seat}.{secrets.token_urlsafe(24)}"
        digest = token_hash(token)
        status = await self.store.claim_seat(game_id, seat, digest, self._now())
        if status is None:
            raise Problem(409, "seat_taken", f"seat {seat} is already taken")
        self._remember_token(game_id, seat, digest)
        return token, status

    # --- identity -----------------------------------------------------------------------------
    def _remember_token(self, game_id: str, seat: Seat, digest: str) -> None:
        if len(self._token_hashes) >= TOKEN_HASHES:
            self._token_hashes.clear()  # a bound, not an LRU: a forgotten hash is one lookup away
        self._token_hashes[(game_id, seat)] = digest

    async def authenticate(self, game_id: str, authorization: str | None) -> Seat | None:
        """The seat a bearer token belongs to; None for a spectator (no token)."""
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        parts = token.strip().split(".")
        if scheme.lower() != "bearer" or len(parts) != 3 or parts[0] != "ymn" or not parts[1].isdigit():
            raise Problem(401, "invalid_token", "expected 'Authorization: Bearer ymn.<seat>.<secret>'")
        seat = int(parts[1])
        expected = self._token_hashes.get((game_id, seat))
        if expected is None:
            expected = await self.store.seat_token_hash(game_id, seat)
            if expected is not None:
                # A claimed seat's token never changes, so its hash can be remembered.
                self._remember_token(game_id, seat, expected)
        if expected is None or not hmac.compare_digest(expected, token_hash(token.strip())):
            raise Problem(401, "invalid_token", "this token does not hold a seat in this game")
        return seat

    # --- loading ------------------------------------------------------------------------------
    async def load(self, game_id: str, *, recall: bool = False) -> Loaded:
        """The current state: the cached snapshot plus the events appended after it.

        Any doubt about the snapshot (wrong rules version, newer than the stream, a gap, bytes
        that do not decode) means folding from the first event instead.  With *recall*, the
        snapshot this process saw last stands in for Redis's (Postgres still says what is newer).
        """
        epoch = self.board.epoch if self.board is not None else 0
        entry = self._recent.get(game_id) if recall else None
        blob = entry.blob if entry is not None else await self.cache.get(game_id)
        snap = peek_snapshot(blob)
        loaded = await self.store.load(game_id, snap.version if snap is not None else 0)
        if loaded is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        row, newer = loaded
        game, codec = self.game_of(row.kind)
        state, base_version = None, 0
        if snap is not None:
            contiguous = newer[0].seq == snap.version + 1 if newer else snap.version == row.version
            if snap.rules_version == game.rules_version and contiguous:
                state = decode_state(snap, codec.state_decoder)
                base_version = snap.version
            if state is None:
                newer = await self.store.events(game_id)
        METRICS.inc("yamen_snapshots_total", result="miss" if snap is None else ("hit" if state is not None else "rejected"))
        if state is None:
            state = game.initial(codec.decode_options_json(row.options))
            base_version = 0
        state = game.fold(state, (codec.decode_event(e.payload) for e in newer))
        version = newer[-1].seq if newer else base_version
        current = blob if snap is not None and base_version == snap.version else None  # the snapshot as accepted
        if newer:
            current = encode_snapshot(version, game.rules_version, state)
            await self.cache.set(game_id, current)
        if current is not None and version == row.version:
            self._remember(game_id, row, current, epoch)
        return Loaded(game=game, codec=codec, row=row, state=state, version=version)

    def _remember(self, game_id: str, row: GameRow, blob: bytes, epoch: int, state: Any = None) -> None:
        """Remember the state Postgres just vouched for (unless a notice already superseded it)."""
        if self.board is not None and self.board.superseded(game_id, row.version):
            self._recent.pop(game_id, None)
            return
        trust_for = TRUST_SECONDS * self._jitter.uniform(0.75, 1.0)
        self._recent[game_id] = Remembered(row, blob, epoch, time.monotonic(), trust_for, state)
        self._recent.move_to_end(game_id)
        if len(self._recent) > RECENT_STATES:
            self._recent.popitem(last=False)

    def _trusted(self, game_id: str) -> Remembered | None:
        """The remembered state, if nothing says it is stale: the board is live and has vouched
        for it since Postgres did, and no newer version was announced (its age is not checked)."""
        board = self.board
        if board is None:
            return None
        board.drain()  # every notice that has arrived, before deciding
        if not board.live:
            return None
        entry = self._recent.get(game_id)
        if (
            entry is None
            or entry.epoch != board.epoch
            or entry.row.status == "open"  # a join changes the row without an event
            or board.superseded(game_id, entry.row.version)
        ):
            return None
        return entry

    def current(self, game_id: str) -> Remembered | None:
        """The remembered state, if it may answer a read now (trusted, and younger than TRUST_SECONDS)."""
        entry = self._trusted(game_id)
        if entry is None or time.monotonic() - entry.checked_at > entry.trust_for:
            return None
        METRICS.inc("yamen_reads_from_memory_total")
        return entry

    async def vouched(self, game_id: str) -> Remembered | None:
        """:meth:`current`, asking Postgres for the game's version when the state has only grown
        old: if it has not moved, the state (and the answers rendered from it) stay trusted."""
        entry = self.current(game_id)
        if entry is not None or self.board is None:
            return entry
        entry = self._trusted(game_id)
        if entry is None:
            return None
        epoch, asked_at = self.board.epoch, time.monotonic()
        if await self.store.version_of(game_id) != entry.row.version:
            return None
        if self._trusted(game_id) is not entry or self.board.epoch != epoch:
            return None  # a notice or a dropped board while we asked
        entry.checked_at = asked_at
        METRICS.inc("yamen_reads_from_memory_total")
        return entry

    def recalled_for_reading(self, entry: Remembered) -> Loaded:
        """A :class:`Loaded` over a remembered state (decoded once; reads must not mutate it)."""
        game, codec = self.game_of(entry.row.kind)
        if entry.state is None:
            entry.state = _state_at(entry.blob, codec, entry.row.version)
            if entry.state is None:  # pragma: no cover - we encoded these bytes ourselves
                raise Problem(500, "snapshot_unreadable", "a remembered snapshot did not decode")
        return Loaded(game=game, codec=codec, row=entry.row, state=entry.state, version=entry.row.version)

    def _recalled(self, game_id: str) -> Loaded | None:
        """The state this process last saw for the game (possibly stale: the append checks it)."""
        entry = self._recent.get(game_id)
        if entry is None:
            return None
        row = entry.row
        game, codec = self.game_of(row.kind)
        state = _state_at(entry.blob, codec, row.version)  # a scratch copy: the move folds into it
        if state is None:
            return None
        return Loaded(game=game, codec=codec, row=row, state=state, version=row.version)

    async def state_at(self, game_id: str, version: int) -> Loaded:
        """Time travel: the state right after event *version* (not cached)."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        if version < 1 or version > row.version:
            raise Problem(404, "version_not_found", f"versions run from 1 (after setup) to {row.version}")
        game, codec = self.game_of(row.kind)
        state = game.initial(codec.decode_options_json(row.options))
        events = await self.store.events(game_id, upto=version)
        state = game.fold(state, (codec.decode_event(e.payload) for e in events))
        return Loaded(game=game, codec=codec, row=row, state=state, version=version)

    # --- moves --------------------------------------------------------------------------------
    async def move(
        self,
        game_id: str,
        seat: Seat,
        command: Any,
        *,
        if_match: int | None,
        idempotency_key: str | None,
    ) -> tuple[int, bytes]:
        body = json_encoder.encode(command)
        request_hash = hashlib.sha256(f"{seat}\n".encode() + body).hexdigest()
        if idempotency_key is not None:
            earlier = await self.store.idempotent_response(game_id, idempotency_key)
            if earlier is not None:
                return self._replay(earlier, request_hash)
        recall = True
        for _ in range(MAX_RACE_RETRIES):
            loaded = self._recalled(game_id) if recall else None
            fresh = loaded is None
            if fresh:
                loaded = await self.load(game_id)
            recall = False  # a second attempt always reads Postgres
            try:
                events = self._judge(loaded, seat, command, if_match)
            except Exception:
                if fresh:
                    raise
                continue  # judged on a remembered state: judge again on the current one
            game, codec, row = loaded.game, loaded.codec, loaded.row
            state = game.fold(loaded.state, events)
            outcome = game.outcome(state)
            status = "finished" if outcome is not None else "active"
            now = self._now()
            stored = seal(
                game_id, loaded.version + 1, row.last_hash,
                new_events(events, seat, body, idempotency_key), now, row.seed,
            )
            new_version = stored[-1].seq
            response = json_encoder.encode(
                {
                    "version": new_version,
                    "status": status,
                    "events": [self.envelope(codec, s, seat, status == "finished", e) for s, e in zip(stored, events)],
                }
            )
            idem = None
            if idempotency_key is not None:
                idem = (idempotency_key, IdempotentResponse(seat, request_hash, 200, response))
            epoch = self.board.epoch if self.board is not None else 0
            try:
                await self.store.append(game_id, loaded.version, stored, status=status, now=now, idempotency=idem)
            except VersionConflict as conflict:
                METRICS.inc("yamen_move_races_total")
                if if_match is not None:
                    raise Problem(
                        412, "version_mismatch", f"the game is at version {conflict.current_version}",
                        current_version=conflict.current_version,
                    ) from None
                continue
            except DuplicateIdempotencyKey:
                earlier = await self.store.idempotent_response(game_id, idempotency_key or "")
                if earlier is None:  # pragma: no cover - the row that collided must exist
                    raise Problem(409, "idempotency_conflict", "retry the request") from None
                return self._replay(earlier, request_hash)
            blob = encode_snapshot(new_version, game.rules_version, state)
            self._remember(
                game_id, msgspec.structs.replace(row, version=new_version, last_hash=stored[-1].hash, status=status, updated_at=now),
                blob, epoch, state,
            )
            if self.board is not None:
                self.board.post(game_id, new_version)  # this worker's own streams need not wait for Redis
            await self.cache.set_and_announce(game_id, blob, new_version)
            structlog.contextvars.bind_contextvars(version=new_version)
            METRICS.inc("yamen_moves_total", kind=game.kind)
            return 200, response
        raise Problem(409, "too_much_contention", "the game changed too often while deciding; retry")

    def _judge(self, loaded: Loaded, seat: Seat, command: Any, if_match: int | None) -> list[Event]:
        """The command's events on *loaded*, or the Problem that refuses it."""
        game, row = loaded.game, loaded.row
        if row.status == "open":
            raise Problem(409, "game_not_started", "the game starts when every seat is taken")
        if row.status == "finished":
            raise Problem(409, "game_over", "the game has ended")
        if row.rules_version != game.rules_version:
            # A game is judged by the rules it was created with; this build has newer ones.
            raise Problem(
                409, "rules_version_retired",
                f"this game was created under {row.rules_version}; the service now judges {game.rules_version}",
            )
        if if_match is not None and if_match != loaded.version:
            raise Problem(412, "version_mismatch", f"the game is at version {loaded.version}", current_version=loaded.version)
        if type(command) not in game.command_types:
            raise Problem(422, "wrong_game_kind", f"{tag_of(type(command))} is not a command of {game.kind}")
        try:
            events = game.decide(loaded.state, seat, command, Rng(row.seed, loaded.version))
        except NotYourTurn as violation:
            raise Problem(403, violation.code, violation.message, rule=violation.rule) from None
        except RuleViolation as violation:
            raise Problem(422, violation.code, violation.message, rule=violation.rule) from None
        except Exception:
            # A command no rule anticipated (out-of-range values) must still be a 4xx; a crash
            # on a move the game itself offered is a bug and stays a 500.
            if command in game.legal_moves(loaded.state, seat):
                raise
            log.warning("decide_crashed_on_illegal_command", command=tag_of(type(command)))
            raise Problem(422, "illegal_move", "this move is not among the legal moves") from None
        return events

    @staticmethod
    def _replay(earlier: IdempotentResponse, request_hash: str) -> tuple[int, bytes]:
        if earlier.request_hash != request_hash:
            raise Problem(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request")
        return earlier.status_code, earlier.response

    # --- reading ------------------------------------------------------------------------------
    async def read_document(self, game_id: str, viewer: Seat | None, if_none_match: int | None) -> tuple[int, bytes | None]:
        """The game as *viewer* may see it, encoded, and its version; None for the body when the
        caller's copy (*if_none_match*) is current."""
        entry = await self.vouched(game_id)
        if entry is not None:
            if if_none_match == entry.row.version:
                return entry.row.version, None
            body = entry.documents.get(viewer)
            if body is None:
                loaded = self.recalled_for_reading(entry)
                body = json_encoder.encode(self.document(loaded, viewer, await self.seat_infos(game_id)))
                entry.documents[viewer] = body
            return entry.row.version, body
        if if_none_match is not None:
            row = await self.store.get_game(game_id)
            if row is None:
                raise Problem(404, "game_not_found", f"no game {game_id}")
            if row.version == if_none_match:
                return row.version, None
        loaded = await self.load(game_id)
        return loaded.version, json_encoder.encode(self.document(loaded, viewer, await self.seat_infos(game_id)))

    async def read_legal_moves(self, game_id: str, seat: Seat | None) -> tuple[int, bytes]:
        """Every command *seat* may send now, encoded, and the version they are for."""
        entry = await self.vouched(game_id)
        if entry is not None:
            body = entry.legal.get(seat)
            if body is None:
                body = self._legal_body(self.recalled_for_reading(entry), seat)
                entry.legal[seat] = body
            return entry.row.version, body
        loaded = await self.load(game_id, recall=True)
        return loaded.version, self._legal_body(loaded, seat)

    @staticmethod
    def _legal_body(loaded: Loaded, seat: Seat | None) -> bytes:
        moves = [] if seat is None or loaded.row.status != "active" else loaded.game.legal_moves(loaded.state, seat)
        return json_encoder.encode({"version": loaded.version, "seat": seat, "moves": moves})

    def document(self, loaded: Loaded, viewer: Seat | None, seats: list[SeatInfo]) -> dict[str, Any]:
        game, state, row = loaded.game, loaded.state, loaded.row
        outcome: Outcome | None = game.outcome(state)
        finished = outcome is not None
        return {
            "game_id": row.game_id,
            "kind": row.kind,
            "title": game.title,
            "rules_version": row.rules_version,
            "status": "finished" if finished else ("open" if row.status == "open" else "active"),
            "version": loaded.version,
            "players": row.players,
            "seats": seats,
            "viewer": viewer,
            "to_act": [] if row.status == "open" else game.to_act(state),
            "view": game.view(state, viewer),
            "outcome": outcome,
            "seed_commitment": row.seed_commitment,
            "seed": row.seed if row.status == "finished" else None,
            "created_at": timestamp(row.created_at),
        }

    async def seat_infos(self, game_id: str) -> list[SeatInfo]:
        infos = self._full_tables.get(game_id)
        if infos is not None:
            return infos
        infos = [SeatInfo(seat=s, claimed=h is not None) for s, h in await self.store.seats(game_id)]
        if infos and all(i.claimed for i in infos):
            # A claimed seat is never released, so a full table can be remembered (one query less per read).
            if len(self._full_tables) >= 100_000:
                self._full_tables.clear()
            self._full_tables[game_id] = infos
        return infos

    async def history(self, game_id: str, viewer: Seat | None, after: int, limit: int) -> dict[str, Any]:
        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        _, codec = self.game_of(row.kind)
        events = await self.store.events(game_id, after=after, limit=limit)
        revealed = row.status == "finished"
        return {
            "version": row.version,
            "events": [self.envelope(codec, e, viewer, revealed) for e in events],
            "next_after": events[-1].seq if events and events[-1].seq < row.version else None,
        }

    async def follow(self, game_id: str, viewer: Seat | None, after: int) -> AsyncIterator[tuple[bool, list[EventEnvelope]]]:
        """Batches of new events as they are appended (for the SSE stream); ends with the game."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        _, codec = self.game_of(row.kind)
        while True:
            events = await self.store.events(game_id, after=after, limit=500)
            row = await self.store.get_game(game_id)
            finished = row is not None and row.status == "finished"
            if events:
                after = events[-1].seq
                yield finished, [self.envelope(codec, e, viewer, finished) for e in events]
                if len(events) == 500:
                    continue  # more are waiting
                if finished:
                    return  # the last events of a finished game: nothing will follow
            elif finished:
                return
            else:
                yield False, []
            await self._news(game_id, after)

    async def _news(self, game_id: str, after: int) -> None:
        """Until the game may have moved past *after*: a notice (or a dropped board, or
        STREAM_POLL_SECONDS) with the board; a quarter of a second without it."""
        board = self.board
        if board is None or not board.live:
            await asyncio.sleep(0.25)
            return
        board.drain()
        if board.announced.get(game_id, -1) > after:
            return
        await board.wait(game_id, STREAM_POLL_SECONDS)

    # --- audit --------------------------------------------------------------------------------
    def record_header(self, row: GameRow, viewer: Seat | None, *, complete: bool) -> Any:
        from .audit import RecordHeader

        game, _ = self.game_of(row.kind)
        return RecordHeader(
            game_id=row.game_id, kind=row.kind, title=game.title, rules_version=row.rules_version,
            options=msgspec.Raw(row.options), players=row.players, seed_commitment=row.seed_commitment,
            seed=row.seed if row.status == "finished" else None, status=row.status, version=row.version,
            created_at=timestamp(row.created_at), viewer=viewer, complete=complete,
        )

    async def export(self, game_id: str, viewer: Seat | None) -> AsyncIterator[bytes]:
        """The game's record as NDJSON lines: redacted for *viewer* while it runs, complete after."""
        from .audit import export_lines

        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        game, codec = self.game_of(row.kind)
        header = self.record_header(row, viewer, complete=row.status == "finished")
        events = self.store.stream_events(game_id, upto=row.version)
        return export_lines(game, codec, header, events, viewer, row.seed)

    async def verification(self, game_id: str) -> Any:
        """The four audit checks on the stored game (replay uses the server's seed even before the
        end; the answer says only whether each check passed)."""
        from .audit import Record, export_lines, read_record, verify

        row = await self.store.get_game(game_id)
        if row is None:
            raise Problem(404, "game_not_found", f"no game {game_id}")
        game, codec = self.game_of(row.kind)
        header = self.record_header(row, None, complete=True)
        lines = [line async for line in export_lines(game, codec, header, self.store.stream_events(game_id, upto=row.version), None, row.seed)]
        record: Record = read_record(lines)
        report = verify(record, {row.kind: game}, seed=row.seed)
        # The stored final state must also match what the service serves now (snapshot included).
        loaded = await self.load(game_id)
        from .audit import state_digest

        if record.footer is not None and state_digest(loaded.state) != record.footer.state_sha256:
            report.ok = False
            report.checks[1] = msgspec.structs.replace(
                report.checks[1], status="failed", first_bad_seq=row.version, detail="the served state differs from the fold"
            )
        return report

    async def import_record(self, lines: list[bytes]) -> dict[str, Any]:
        """Verify a complete record and store it as a new, finished, browsable game."""
        from .audit import RecordError, present, read_record, verify

        try:
            record = read_record(lines)
        except RecordError as exc:
            raise Problem(422, "invalid_record", str(exc)) from None
        header = record.header
        if not header.complete or header.seed is None or record.footer is None:
            raise Problem(422, "incomplete_record", "only a finished game's complete record (with its seed) can be imported")
        try:
            report = verify(record, self.games)
        except RecordError as exc:
            raise Problem(422, "invalid_record", str(exc)) from None
        failed = [c for c in report.checks if c.status != "passed"]
        if failed:
            first = failed[0]
            raise Problem(
                422, "record_does_not_verify",
                f"check {first.name} {first.status} at seq {first.first_bad_seq}: {first.detail}",
            )
        game, codec = self.game_of(header.kind)
        game_id = "g_" + secrets.token_hex(10)
        now = self._now()
        stored = [
            StoredEvent(
                game_id=game_id, seq=e.seq, type=e.type, payload=bytes(e.payload),
                visible_to=e.visible_to, seat=e.seat, command=present(e.command),
                idempotency_key=e.idempotency_key, recorded_at=datetime.fromisoformat(e.recorded_at),
                prev_hash=e.prev_hash, hash=e.hash,
            )
            for e in record.events
        ]
        row = GameRow(
            game_id=game_id, kind=header.kind, rules_version=header.rules_version,
            options=json_encoder.encode(codec.decode_options_json(bytes(header.options))), players=header.players,
            seed=header.seed, seed_commitment=header.seed_commitment, status="finished",
            version=header.version, last_hash=stored[-1].hash if stored else header.seed_commitment,
            imported=True, created_at=now, updated_at=now,
        )
        await self.store.create_game(row, [None] * header.players, stored)
        return {"game_id": game_id, "kind": header.kind, "version": header.version, "imported_from": header.game_id, "verification": report}

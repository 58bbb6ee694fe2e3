"""A move, from command to acknowledged event: judge, append, cache, announce.

::

    state (remembered, or loaded) -> game.decide -> store.append(expected version)
    -> fold the new events -> snapshot + notice (one Redis round trip) -> the answer, redacted

A move first tries the state this worker remembers; the append's expected version checks it, and
a conflict or a refusal judges again on a freshly loaded state.  Without If-Match a lost race is
judged again on the new state; with it, the caller hears 412.  An Idempotency-Key stores the
answer with the events, so a retry gets the same answer and nothing is appended twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from datetime import datetime
from typing import Any

import msgspec
import structlog

from domain.kernel import Event, Rng, RuleViolation, Seat
from domain.kernel.table import TableCommand, Timed, replaced_seats, table_of

from ..codec import json_encoder, new_events, tag_of
from ..infra import metrics
from ..infra.cache import SnapshotCache, encode_snapshot
from ..infra.store import DuplicateIdempotencyKey, EventStore, IdempotentResponse, VersionConflict
from ..record.chain import seal
from .clock import Clock, record_time, utcnow
from .documents import Encoded, MoveResult, envelope
from .errors import (
    ApplicationError,
    GameEnded,
    GameNotStarted,
    IdempotencyConflict,
    IdempotencyKeyReused,
    IllegalMove,
    RulesRetired,
    SeatReplaced,
    TooMuchContention,
    VersionMismatch,
    WrongGameKind,
)
from .hooks import GameHooks
from .states import Loaded, States

log = structlog.get_logger("yamen.moves")

MAX_RACE_RETRIES = 32
SNAPSHOT_EVERY = 8
"""A move writes the game's snapshot to the cache when its version crosses a multiple of this (and
when the game ends); its notice goes out on every move.  A worker that loads the game folds the
few events after the snapshot (``States.load``).  Set by ``YAMEN_SNAPSHOT_EVERY``.  Measured
(docs/performance.md): throughput is the same for 1 and 8 within the benchmark's order bias (two
runs with the order swapped, the second-listed server won by 11-14 % both times); 8 sends an
eighth of the snapshot bytes to Redis and folds at most 7 more events on a cold load."""


class _Versioned(msgspec.Struct):
    version: int | None = None


_version_of = msgspec.json.Decoder(_Versioned)  # reads a stored answer's version, skips the rest


class Moves:
    def __init__(
        self,
        states: States,
        store: EventStore,
        cache: SnapshotCache,
        clock: Clock = utcnow,
        snapshot_every: int = SNAPSHOT_EVERY,
        *,
        hooks: GameHooks | None = None,
    ) -> None:
        self.states = states
        self.store = store
        self.cache = cache
        self.clock = clock
        self.snapshot_every = max(1, snapshot_every)
        self._in_flight: dict[tuple[str, str], asyncio.Future[None]] = {}
        """Keyed moves this worker is judging, by (game, Idempotency-Key)."""
        self.hooks = hooks if hooks is not None else GameHooks()
        """Told of every committed move (changed), the one that finished a game (finished), and who
        is to act after it (moved: the bots, the clocks)."""

    async def submit(
        self,
        game_id: str,
        seat: Seat,
        command: Any,
        *,
        if_match: int | None,
        idempotency_key: str | None,
        by_service: bool = False,
    ) -> Encoded:
        """Judge *command* from *seat* and append its events; the answer, encoded, and its version.

        Refuses with the domain's :class:`RuleViolation` or an application error; a retried
        Idempotency-Key gets the stored answer.  *by_service*: the service itself moves for the seat
        (its bot, a timeout), which may also send the table's service commands.
        """
        body = json_encoder.encode(command)
        request_hash = hashlib.sha256(f"{seat}\n".encode() + body).hexdigest()
        if idempotency_key is None:
            return await self._judge_and_append(
                game_id, seat, command, body, request_hash, if_match, None, by_service
            )
        return await self._keyed(
            game_id, seat, command, body, request_hash, if_match, idempotency_key, by_service
        )

    async def _keyed(
        self,
        game_id: str,
        seat: Seat,
        command: Any,
        body: bytes,
        request_hash: str,
        if_match: int | None,
        key: str,
        by_service: bool = False,
    ) -> Encoded:
        """A move with an Idempotency-Key is applied once: a retry gets the stored answer.  Retries
        reaching this worker while the first is judged wait for it.  The stored answer is looked up
        only when the move cannot be applied (most moves are first tries: a lookup before judging
        cost each of them a Postgres round trip): a retry of an applied move is refused by the rules
        or the version now, or, if the game would take it again, its append fails on the key
        (:class:`DuplicateIdempotencyKey`); either way the stored answer is its answer."""
        flight = (game_id, key)
        while (first := self._in_flight.get(flight)) is not None:
            await asyncio.shield(first)
        self._in_flight[flight] = done = asyncio.get_running_loop().create_future()
        try:
            return await self._judge_and_append(
                game_id, seat, command, body, request_hash, if_match, key, by_service
            )
        except (RuleViolation, ApplicationError):
            # Refused now, perhaps because this very request was applied before — a client's
            # retry of its own applied move, or the same request applied by another worker
            # since: then the stored answer is this request's answer.
            earlier = await self.store.idempotent_response(game_id, key)
            if earlier is not None:
                return await self._replayed(game_id, earlier, request_hash)
            raise
        finally:
            del self._in_flight[flight]
            done.set_result(None)

    async def _replayed(self, game_id: str, earlier: IdempotentResponse, request_hash: str) -> Encoded:
        """The stored answer — and a notice of its version: the worker that judged the move may
        have died between its commit and its notice, leaving other workers' memories stale."""
        answer = _replay(earlier, request_hash)
        if answer.version is not None:
            board = self.states.board
            if board is not None:
                board.post(game_id, answer.version)
            await self.cache.announce(game_id, answer.version)
        return answer

    async def _judge_and_append(
        self,
        game_id: str,
        seat: Seat,
        command: Any,
        body: bytes,
        request_hash: str,
        if_match: int | None,
        idempotency_key: str | None,
        by_service: bool = False,
    ) -> Encoded:
        started = time.perf_counter()
        recall = True
        for _ in range(MAX_RACE_RETRIES):
            loaded = self.states.recalled(game_id) if recall else None
            fresh = loaded is None
            if loaded is None:
                loaded = await self.states.load(game_id)
            recall = False  # a second attempt always reads Postgres
            try:
                now = record_time(self.clock)
                events, judged = judge(loaded, seat, command, if_match, now, by_service)
            except Exception:
                if fresh:
                    raise
                continue  # judged on a remembered state: judge again on the current one
            game, codec, row = loaded.game, loaded.codec, loaded.row
            state = game.fold(loaded.state, events)
            status = "finished" if game.outcome(state) is not None else "active"
            stored = seal(
                game_id,
                loaded.version + 1,
                row.last_hash,
                # A command stamped with its time (the table's Timed) is recorded as stamped.
                new_events(
                    events, seat, body if judged is command else json_encoder.encode(judged), idempotency_key
                ),
                now,
                row.seed,
            )
            version = stored[-1].seq
            finished = status == "finished"
            answer = json_encoder.encode(
                MoveResult(
                    version=version,
                    status=status,
                    events=[
                        envelope(codec, s, seat, finished, e) for s, e in zip(stored, events, strict=True)
                    ],
                    to_act=(to_act := game.to_act(state)),
                )
            )
            idem = None
            if idempotency_key is not None:
                idem = (idempotency_key, IdempotentResponse(seat, request_hash, 200, answer))
            epoch = self.states.epoch
            try:
                await self.store.append(
                    game_id, loaded.version, stored, status=status, now=now, idempotency=idem, to_act=to_act
                )
            except VersionConflict as conflict:
                metrics.MOVE_RACES.inc()
                if if_match is not None:
                    raise VersionMismatch(conflict.current_version) from None
                continue
            except DuplicateIdempotencyKey:
                earlier = await self.store.idempotent_response(game_id, idempotency_key or "")
                if earlier is None:  # pragma: no cover - the row that collided must exist
                    raise IdempotencyConflict("retry the request") from None
                return await self._replayed(game_id, earlier, request_hash)
            blob = encode_snapshot(version, game.rules_version, state)
            self.states.remember_move(game_id, row, version, stored[-1].hash, status, now, blob, epoch, state)
            board = self.states.board
            if board is not None:
                board.post(game_id, version)  # this worker's own streams need not wait for Redis
            every = self.snapshot_every
            due = finished or version // every != loaded.version // every
            await self.cache.set_and_announce(game_id, blob if due else None, version)
            hooks = self.hooks
            hooks.changed(game_id)
            if finished:
                hooks.finished(game_id)
            if to_act:
                await hooks.moved(game_id, to_act, state)
            structlog.contextvars.bind_contextvars(version=version)
            metrics.MOVES.labels(game.kind).inc()
            metrics.MOVE_SECONDS.labels(game.kind).observe(time.perf_counter() - started)
            return Encoded(version, answer)
        raise TooMuchContention("the game changed too often while deciding; retry")


def judge(
    loaded: Loaded,
    seat: Seat,
    command: Any,
    if_match: int | None,
    now: datetime | None = None,
    by_service: bool = False,
) -> tuple[list[Event], Any]:
    """The command's events on *loaded*, and the command as judged (stamped with *now* when the
    table needs the time: its own commands, and every command under a clock) — or the refusal: the
    game must be under way, under the rules it was created with, at the version the caller decided
    on, the seat must still be played by its holder, and the rules must allow it."""
    game, row = loaded.game, loaded.row
    if row.status == "open":
        raise GameNotStarted("the game starts when every seat is taken")
    if row.status == "finished":
        raise GameEnded("the game has ended")
    if not game.judges(row.rules_version):
        raise RulesRetired(
            f"this game was created under {row.rules_version}; the service now judges {game.rules_version}"
        )
    if if_match is not None and if_match != loaded.version:
        raise VersionMismatch(loaded.version)
    kind = type(command)
    if kind not in game.command_types and not (by_service and kind in game.service_command_types):
        raise WrongGameKind(f"{tag_of(kind)} is not a command of {game.kind}")
    judged = command
    if game.timed_type is not None:
        table = table_of(loaded.state)
        if not by_service and seat in replaced_seats(table):
            raise SeatReplaced(f"seat {seat} has left the table: a bot plays it")
        if (
            now is not None
            and not isinstance(command, Timed)
            and (isinstance(command, TableCommand) or table.clocks)
        ):
            judged = game.timed_type(at_ms=unix_ms(now), command=command)
    try:
        return game.decide(loaded.state, seat, judged, Rng(row.seed, loaded.version)), judged
    except RuleViolation:
        raise
    except Exception:
        # A command no rule anticipated (out-of-range values) must still be refused; a crash on a
        # move the game itself offered is a bug and stays a 500.
        if command in game.legal_moves(loaded.state, seat):
            raise
        log.warning("decide_crashed_on_illegal_command", command=tag_of(kind))
        raise IllegalMove("this move is not among the legal moves") from None


def unix_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _replay(earlier: IdempotentResponse, request_hash: str) -> Encoded:
    """The stored answer to an Idempotency-Key, if this is the same request."""
    if earlier.request_hash != request_hash:
        raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
    return Encoded(_version_of.decode(earlier.response).version, earlier.response, earlier.status_code)

"""Bot seats: the service plays a seat with one of the title's bots (``domain.kernel.bots``).

A bot's turn is a job (``service.infra.jobs``), taken by any worker of any replica; it runs
:meth:`BotPlayers.play`, which, while a bot seat is to act:

1. loads the game, as a move does;
2. builds what that seat may see — the very document and legal moves ``GET /v1/games/{id}`` and
   ``GET …/legal-moves`` answer that seat (``reads.document``, ``reads.legal_moves``) — and hands
   the bot only the view and the moves: never the state, another seat's cards or the seed;
3. submits the bot's choice through the same path as a person's move (``Moves.submit``), with the
   version it decided at (``If-Match``) and an idempotency key of that version: a job run twice, or
   two workers racing, append the move once.

Who asks for a turn: a move whose answer puts a bot seat to act (``after_move``), a table change
that may (a game created or started with bot seats, a seat handed to a bot), and the job queue's
periodic sweep, which catches a turn whose request was lost with its worker.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Collection, Sequence
from typing import Any

import structlog

from domain.kernel import Command, RuleViolation, Seat, bots
from domain.kernel.table import (
    AnswerTakeback,
    ClaimTimeout,
    StartClocks,
    TableState,
    deadline_ms,
    replaced_seats,
    table_of,
)

from ..infra.jobs import JobQueue
from .clock import record_time
from .documents import SeatInfo
from .errors import ApplicationError, GameEnded, VersionMismatch
from .hooks import GameHooks
from .moves import Moves, unix_ms
from .reads import document, legal_moves
from .seats import Seats
from .states import Loaded, States

log = structlog.get_logger("yamen.bots")

MOVES_PER_TURN = 2_000
"""A bound on the moves one job makes (a game of bots only plays to its end in one job)."""

_driving: contextvars.ContextVar[str | None] = contextvars.ContextVar("yamen_bot_driving", default=None)


class BotPlayers:
    def __init__(
        self,
        states: States,
        seats: Seats,
        moves: Moves,
        *,
        hooks: GameHooks | None = None,
        queue: JobQueue | None = None,
    ) -> None:
        self.states = states
        self.seats = seats
        self.moves = moves
        if hooks is not None:
            hooks.on_moved(self.after_move)  # a move that puts a bot to act, or starts a clock
            hooks.on_table_changed(
                self.table_changed
            )  # bot seats created, the last claim, a seat handed over
        self.queue = queue
        """The job queue; without one (tests of the application alone) nobody plays the bot seats
        until :meth:`play` is called."""

    # --- who asks for a turn ------------------------------------------------------------------------
    async def after_move(self, game_id: str, to_act: Sequence[Seat], state: Any = None) -> None:
        """After a move: queue a bot turn if a bot (or a replaced seat's bot) is to act or must
        answer a take-back, and schedule the clock deadlines of the seats to act."""
        if _driving.get() == game_id:
            return  # the job that made this move goes on by itself (and schedules what it leaves)
        table = table_of(state) if state is not None else None
        played = await self.seats.bot_seats(game_id)
        zombies = replaced_seats(table) if table is not None else set()
        if any(seat in played or seat in zombies for seat in to_act) or (
            table is not None and _bot_must_answer(table, played, zombies)
        ):
            await self.request(game_id)
        if table is not None and table.clocks:
            await self.schedule_deadlines(game_id, table, to_act)

    async def schedule_deadlines(self, game_id: str, table: TableState, to_act: Sequence[Seat]) -> None:
        if self.queue is None:
            return
        for seat in to_act:
            due = deadline_ms(table, seat)
            if due is not None:
                try:
                    await self.queue.deadline(game_id, seat, table.clocks[seat].since_ms, due)
                except Exception as exc:  # noqa: BLE001 - the sweep schedules it again
                    log.warning("deadline_not_scheduled", game_id=game_id, seat=seat, error=str(exc))

    async def reschedule(self, game_id: str) -> None:
        """(The sweep.) Schedule the deadlines of the seats to act in a game with a clock."""
        loaded = await self.states.load(game_id)
        table = table_of(loaded.state)
        if loaded.row.status == "active" and table.clocks:
            await self.schedule_deadlines(game_id, table, loaded.game.to_act(loaded.state))

    async def table_changed(self, game_id: str) -> None:
        """A game started (or a seat was handed to a bot): start its clocks, play its bots."""
        loaded = await self.states.load(game_id)
        if loaded.row.status == "active" and loaded.game.timed_type is not None:
            table = table_of(loaded.state)
            if table.clocks and table.ended < 0 and all(c.since_ms < 0 for c in table.clocks):
                to_act = loaded.game.to_act(loaded.state)
                try:
                    await self._move(loaded, to_act[0] if to_act else 0, StartClocks(), "clocks-start")
                except (RuleViolation, ApplicationError) as refused:  # started meanwhile
                    log.info("clocks_not_started", game_id=game_id, why=str(refused))
                loaded = await self.states.load(game_id)
                table = table_of(loaded.state)
                await self.schedule_deadlines(game_id, table, loaded.game.to_act(loaded.state))
        await self.request(game_id)

    async def request(self, game_id: str) -> None:
        """Queue a bot turn in *game_id* (the job finds out whether a bot is to act)."""
        if self.queue is not None:
            try:
                await self.queue.bot_turn(game_id)
            except Exception as exc:  # noqa: BLE001 - the move is committed; the sweep re-queues the turn
                log.warning("bot_turn_not_queued", game_id=game_id, error=str(exc))

    # --- the jobs -------------------------------------------------------------------------------------
    async def play(self, game_id: str) -> int:
        """Play *game_id*'s bot seats (and the bots of replaced seats) while one is to act, and
        answer take-backs for them (they agree); returns the moves made."""
        token = _driving.set(game_id)
        made = 0
        loaded = None
        try:
            fresh = True
            for _ in range(MOVES_PER_TURN):
                loaded = await self.states.load(game_id)
                row = loaded.row
                if row.status != "active":
                    break
                table_seats = await (self.seats.fresh_table if fresh else self.seats.table)(game_id)
                fresh = False
                played = {info.seat: info.bot for info in table_seats if info.bot is not None}
                table = table_of(loaded.state)
                strongest = bots.levels(loaded.game)[-1]
                for seat in replaced_seats(table):
                    played.setdefault(seat, strongest)
                answer = _bot_must_answer(table, played, set())
                move: Command
                if answer is not None:
                    seat, move = answer, AnswerTakeback(accept=True)
                else:
                    due = [seat for seat in loaded.game.to_act(loaded.state) if seat in played]
                    if not due:
                        break
                    seat = due[0]
                    move = self._decide(loaded, seat, played[seat], table_seats)
                try:
                    await self._move(loaded, seat, move, f"bot-{loaded.version}-{seat}")
                except VersionMismatch:
                    continue  # somebody else moved first: decide again on the new state
                except GameEnded:
                    break
                except (RuleViolation, ApplicationError) as refused:
                    log.error("bot_move_refused", game_id=game_id, seat=seat, error=str(refused))
                    break
                made += 1
        finally:
            _driving.reset(token)
        if loaded is not None and made:
            # Moves made inside the job did not schedule the clocks of the seats they left to act.
            loaded = await self.states.load(game_id)
            table = table_of(loaded.state)
            if table.clocks:
                await self.schedule_deadlines(game_id, table, loaded.game.to_act(loaded.state))
            log.info("bot_turn", game_id=game_id, moves=made)
        return made

    async def _move(self, loaded: Loaded, seat: Seat, command: Command, key: str) -> None:
        """The service moves for *seat*: on the version it decided at, once (by *key*)."""
        await self.moves.submit(
            loaded.row.game_id, seat, command, if_match=loaded.version, idempotency_key=key, by_service=True
        )

    def _decide(self, loaded: Loaded, seat: Seat, level: str, table_seats: list[SeatInfo]) -> Command:
        """What a bot of *level* plays for *seat*: from the seat's own document and legal moves."""
        seen = document(loaded, seat, table_seats)
        legal = legal_moves(loaded, seat).moves
        rng = bots.bot_rng(loaded.row.game_id, loaded.version, seat)
        return bots.choose(loaded.game, level, seen.view, seat, legal, rng)

    async def deadline(self, game_id: str, seat: Seat, since_ms: int) -> None:
        """A clock's deadline job: if *seat* is still on the decision that began at *since_ms* and
        its time has run out, claim the timeout; then (``on_timeout: bot``) a bot decides for it."""
        for _ in range(MOVES_PER_TURN):
            loaded = await self.states.load(game_id)
            if loaded.row.status != "active":
                return
            table = table_of(loaded.state)
            if not table.clocks or table.clocks[seat].since_ms != since_ms:
                return  # the seat moved in time (a later deadline is scheduled by that move)
            due = deadline_ms(table, seat)
            if due is None:
                return
            now = unix_ms(record_time(self.moves.clock))
            if now < due:
                await asyncio.sleep(min(5.0, (due - now) / 1000))
                continue
            try:
                await self._move(loaded, seat, ClaimTimeout(), f"timeout-{seat}-{since_ms}")
            except VersionMismatch:
                continue
            except (RuleViolation, ApplicationError) as refused:
                log.info("timeout_not_claimed", game_id=game_id, seat=seat, why=str(refused))
                return
            log.info("timed_out", game_id=game_id, seat=seat)
            break
        else:
            return
        await self._decide_for(game_id, seat, since_ms)

    async def _decide_for(self, game_id: str, seat: Seat, since_ms: int) -> None:
        """The timed-out seat's decision, made by the strongest bot (or the game goes on without it
        if the seat resigned); a bot seat or a replaced seat is played by :meth:`play` instead."""
        loaded = await self.states.load(game_id)
        table = table_of(loaded.state)
        if loaded.row.status != "active" or seat not in loaded.game.to_act(loaded.state):
            return
        clock = table.options.clock
        if seat in replaced_seats(table) or clock is None or clock.on_timeout != "bot":
            await self.request(game_id)
            return
        table_seats = await self.seats.table(game_id)
        move = self._decide(loaded, seat, bots.levels(loaded.game)[-1], table_seats)
        try:
            await self._move(loaded, seat, move, f"timeout-move-{seat}-{since_ms}")
        except (RuleViolation, ApplicationError) as refused:
            log.info("timeout_move_refused", game_id=game_id, seat=seat, why=str(refused))


def _bot_must_answer(table: TableState, played: Collection[Seat], zombies: set[int]) -> int | None:
    """A seat played by a bot that has not yet answered the take-back asked for, if any."""
    if table.takeback_by < 0:
        return None
    for seat in sorted({*played, *zombies}):
        if seat != table.takeback_by and seat not in table.consents and seat not in replaced_seats(table):
            return seat
    return None

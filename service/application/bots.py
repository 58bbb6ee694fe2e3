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

import contextvars
from collections.abc import Sequence

import structlog

from domain.kernel import RuleViolation, Seat, bots

from .errors import ApplicationError, GameEnded, VersionMismatch
from .moves import Moves
from .reads import document, legal_moves
from .seats import Seats
from .states import States

log = structlog.get_logger("yamen.bots")

MOVES_PER_TURN = 2_000
"""A bound on the moves one job makes (a game of bots only plays to its end in one job)."""

_driving: contextvars.ContextVar[str | None] = contextvars.ContextVar("yamen_bot_driving", default=None)


class BotPlayers:
    def __init__(self, states: States, seats: Seats, moves: Moves) -> None:
        self.states = states
        self.seats = seats
        self.moves = moves
        self.queue = None
        """The job queue (``service.infra.jobs.JobQueue``) once the app has opened it; without one
        (tests of the application alone) nobody plays the bot seats until :meth:`play` is called."""

    async def after_move(self, game_id: str, to_act: Sequence[Seat]) -> None:
        """Ask for a bot turn if a bot seat is to act now (a move's answer said who is)."""
        if not to_act or _driving.get() == game_id:
            return  # the job that made this move goes on by itself
        played = await self.seats.bot_seats(game_id)
        if played and any(seat in played for seat in to_act):
            await self.request(game_id)

    async def request(self, game_id: str) -> None:
        """Queue a bot turn in *game_id* (the job finds out whether a bot is to act)."""
        if self.queue is not None:
            try:
                await self.queue.bot_turn(game_id)
            except Exception as exc:  # noqa: BLE001 - the move is committed; the sweep re-queues the turn
                log.warning("bot_turn_not_queued", game_id=game_id, error=str(exc))

    async def play(self, game_id: str) -> int:
        """Play *game_id*'s bot seats while one is to act; returns the moves made."""
        token = _driving.set(game_id)
        made = 0
        try:
            fresh = True
            for _ in range(MOVES_PER_TURN):
                loaded = await self.states.load(game_id)
                row = loaded.row
                if row.status != "active":
                    break
                table = await (self.seats.fresh_table if fresh else self.seats.table)(game_id)
                fresh = False
                played = {info.seat: info.bot for info in table if info.bot is not None}
                due = [seat for seat in loaded.game.to_act(loaded.state) if seat in played]
                if not due:
                    break
                seat = due[0]
                seen = document(loaded, seat, table)
                legal = legal_moves(loaded, seat).moves
                rng = bots.bot_rng(game_id, loaded.version, seat)
                move = bots.choose(loaded.game, played[seat], seen.view, seat, legal, rng)
                try:
                    await self.moves.submit(
                        game_id,
                        seat,
                        move,
                        if_match=loaded.version,
                        idempotency_key=f"bot-{loaded.version}-{seat}",
                    )
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
        if made:
            log.info("bot_turn", game_id=game_id, moves=made)
        return made

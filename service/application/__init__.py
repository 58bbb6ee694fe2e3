"""The application layer: what the service does, in words of games, seats and records.

Each module has one job — :mod:`.seats` (tables, seats and tokens), :mod:`.states` (loading and
remembering a game's state), :mod:`.moves` (judge, append, announce), :mod:`.reads` (documents,
legal moves, history, the live feed), :mod:`.audit` (records, verification, import),
:mod:`.bots` (the seats the service's bots play).  They
raise :mod:`.errors` (never HTTP statuses) and return typed :mod:`.documents`.
"""

from __future__ import annotations

from domain.kernel import Game

from ..infra.cache import SnapshotCache
from ..infra.notices import NoticeBoard
from ..infra.standby import Standby
from ..infra.store import EventStore, StoreUnavailable
from .audit import Audit
from .bots import BotPlayers
from .clock import Clock, utcnow
from .documents import Health
from .moves import SNAPSHOT_EVERY, Moves
from .reads import Reads
from .seats import Seats
from .states import States
from .titles import Titles


class Application:
    """The use cases, wired to one event store and one snapshot cache."""

    def __init__(
        self,
        games: dict[str, Game],
        store: EventStore,
        cache: SnapshotCache,
        *,
        clock: Clock = utcnow,
        snapshot_every: int = SNAPSHOT_EVERY,
    ):
        self.titles = Titles(games)
        self.store = store
        self.cache = cache
        self.states = States(self.titles, store, cache)
        self.seats = Seats(self.titles, store, cache, clock)
        self.reads = Reads(self.titles, self.states, self.seats, store)
        self.moves = Moves(self.states, store, cache, clock, snapshot_every)
        self.audit = Audit(self.titles, self.states, store, clock)
        self.bots = BotPlayers(self.states, self.seats, self.moves)
        self.moves.after_move = self.bots.after_move
        self.seats.on_table_change = self.bots.table_changed

    def attach_standby(self, standby: Standby) -> None:
        """Let spectators' reads use *standby* while it keeps up (see :mod:`service.infra.standby`)."""
        self.reads.standby = standby
        self.audit.standby = standby

    def attach_board(self, board: NoticeBoard) -> None:
        """Let reads trust remembered states while *board* is live (see :mod:`.states`)."""
        self.states.attach_board(board)
        self.seats.board = board
        board.on_table = self.seats.forget_table

    async def health(self) -> Health:
        """Ready when Postgres answers; Redis' state is reported (it is only a cache)."""
        try:
            await self.store.ping()
            postgres = "ok"
        except StoreUnavailable:
            postgres = "unavailable"
        return Health(
            status="ok" if postgres == "ok" else "unavailable",
            postgres=postgres,
            redis=await self.cache.status(),
        )


__all__ = ["Application"]

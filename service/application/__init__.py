"""The application layer: what the service does, in words of games, seats and records.

Each module has one job — :mod:`.seats` (tables, seats and tokens), :mod:`.states` (loading and
remembering a game's state), :mod:`.moves` (judge, append, announce), :mod:`.reads` (documents,
legal moves, history, the live feed), :mod:`.audit` (records, verification, import),
:mod:`.bots` (the seats the service's bots play), :mod:`.webhooks` (what apps' servers are
told about their games), :mod:`.ratings` (ratings and leaderboards, folded from finished games),
:mod:`.seeks` (seeks and the matcher that forms games from them).  They
raise :mod:`.errors` (never HTTP statuses) and return typed :mod:`.documents`.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.kernel import Game

from ..infra.accounts import Accounts
from ..infra.cache import SnapshotCache
from ..infra.notices import NoticeBoard
from ..infra.players_store import PlayerStore
from ..infra.push_store import PushStore
from ..infra.ratings_store import RatingsStore
from ..infra.seek_store import SeekStore
from ..infra.standby import Standby
from ..infra.store import EventStore, StoreUnavailable
from ..infra.webhook_store import WebhookStore
from .apps import AppDefaults, Apps
from .audit import Audit
from .bots import BotPlayers
from .clock import Clock, utcnow
from .documents import Health
from .identity import Identity
from .moves import SNAPSHOT_EVERY, Moves
from .players import ASSERTION_AUDIENCE, Players
from .push import Push, PushSettings
from .ratings import Ratings
from .reads import Reads
from .seats import Seats
from .seeks import Seeks
from .states import States
from .titles import Titles
from .webhooks import Webhooks, WebhookSettings


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
        app_defaults: AppDefaults | None = None,
        assertion_audience: str = ASSERTION_AUDIENCE,
        webhooks: WebhookSettings | None = None,
        push: PushSettings | None = None,
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
        self.accounts = Accounts(store)
        self.apps = Apps(self.accounts, clock, app_defaults)
        self.apps.announce = cache.announce_revoked
        self.seats.count_new_game = self.apps.count_new_game
        self.identity = Identity(self.seats, self.accounts, self.apps)
        self.players = Players(PlayerStore(store), self.accounts, self.apps, clock, assertion_audience)
        self.players.announce = cache.announce_revoked
        self.identity.accept_players(self.players)
        self.webhooks = Webhooks(self.states, WebhookStore(store), clock, webhooks)
        self.webhooks.announce = cache.announce_revoked
        # Every change to a game — a move, a claim, a seat handed over or back, a game created or
        # rematched — asks for its webhook pump (nothing for a game no app owns).
        self.moves.on_change = self.seats.on_change = self.webhooks.changed
        # ... and for its Web Push job ("your turn", "game finished"; nothing while push is off).
        self.push = Push(PushStore(store), clock, push)
        self.push.seat_of = self.seats.authenticate
        self.moves.on_change = self.seats.on_change = Listeners(self.webhooks.changed, self.push.changed)
        # A finished game asks for its rating; the finished webhook and the game's document wait
        # for it (a game asked to be rated shows its change, or why it ended unrated).
        self.ratings = Ratings(self.titles, self.states, RatingsStore(store), PlayerStore(store), clock)
        self.moves.on_finish = self.ratings.finished
        self.ratings.on_settled = self.webhooks.changed
        self.webhooks.ratings_of = self.reads.ratings_of = self.ratings.of_game
        # Seeks: the matcher forms games from them (seated and started); their long polls wake on
        # the notice board, and a formed game's webhook pump tells its app which seeks made it.
        self.seeks = Seeks(self.titles, SeekStore(store), self.seats, self.apps, clock)
        self.seeks.announce = cache.announce
        self.seeks.stopping = lambda: self.reads.stopping
        self.webhooks.seeks_of = self.seeks.matched_seeks

    def attach_standby(self, standby: Standby) -> None:
        """Let spectators' reads use *standby* while it keeps up (see :mod:`service.infra.standby`)."""
        self.reads.standby = standby
        self.audit.standby = standby

    def attach_board(self, board: NoticeBoard) -> None:
        """Let reads trust remembered states while *board* is live (see :mod:`.states`)."""
        self.states.attach_board(board)
        self.seats.board = board
        board.on_table = self.seats.forget_table
        self.apps.board = board
        self.seeks.board = board
        self.players.board = board
        board.on_revoked = self._heard_revoked

    def _heard_revoked(self, name: str) -> None:
        """A key, credential or app changed (``<name> revoked`` on the board): forget it."""
        self.identity.forget(name)
        self.webhooks.forget(name)

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


class Listeners:
    """Several listeners of one hook (``on_change``): each is called in turn."""

    def __init__(self, *listeners: Callable[[str], None]) -> None:
        self.listeners = listeners

    def __call__(self, game_id: str) -> None:
        for listener in self.listeners:
            listener(game_id)


__all__ = ["Application"]

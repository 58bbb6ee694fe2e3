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

from domain.kernel import Game

from ..infra.accounts import Accounts
from ..infra.cache import SnapshotCache
from ..infra.jobs import JobHandlers, JobQueue
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
from .hooks import GameHooks
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
    """The use cases, wired to one event store and one snapshot cache.

    Each is handed what it uses when it is built, in dependency order; what follows from a move or
    a change to a table reaches its listeners through one :class:`~.hooks.GameHooks`
    (:mod:`.hooks`), which each listener subscribes to in its own constructor.  The notice board
    and the standby, when there are any, and the job queue are made before the application and
    handed in; a process that takes jobs starts the queue's workers with :meth:`job_handlers`.
    Nothing sets another object's collaborators afterwards."""

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
        board: NoticeBoard | None = None,
        standby: Standby | None = None,
        queue: JobQueue | None = None,
    ):
        self.titles = titles = Titles(games)
        self.store = store
        self.cache = cache
        self.hooks = hooks = GameHooks()
        self.states = states = States(titles, store, cache, board)
        self.accounts = accounts = Accounts(store)
        self.apps = apps = Apps(accounts, clock, app_defaults, board=board, announce=cache.announce_revoked)
        self.players = players = Players(
            PlayerStore(store),
            accounts,
            apps,
            clock,
            assertion_audience,
            board=board,
            announce=cache.announce_revoked,
        )
        self.seats = seats = Seats(
            titles, store, cache, clock, hooks=hooks, board=board, count_new_game=apps.count_new_game
        )
        self.identity = Identity(seats, accounts, apps, players)
        self.moves = moves = Moves(states, store, cache, clock, snapshot_every, hooks=hooks)
        self.audit = Audit(titles, states, store, clock, standby=standby)
        # A finished game asks for its rating; the finished webhook and the game's document wait
        # for it (a game asked to be rated shows its change, or why it ended unrated).
        self.ratings = ratings = Ratings(
            titles, states, RatingsStore(store), PlayerStore(store), clock, hooks=hooks, queue=queue
        )
        self.reads = reads = Reads(titles, states, seats, store, standby=standby, ratings_of=ratings.of_game)
        # Seeks: the matcher forms games from them (seated and started); their long polls wake on
        # the notice board, and a formed game's webhook pump tells its app which seeks made it.
        self.seeks = seeks = Seeks(
            titles,
            SeekStore(store),
            seats,
            apps,
            clock,
            board=board,
            announce=cache.announce,
            stopping=lambda: reads.stopping,
            queue=queue,
        )
        # Listeners of every change to a game, in this order: the app's webhook pump, then its seats'
        # Web Push job ("your turn", "game finished"; nothing while push is off).
        self.webhooks = Webhooks(
            states,
            WebhookStore(store),
            clock,
            webhooks,
            hooks=hooks,
            announce=cache.announce_revoked,
            ratings_of=ratings.of_game,
            seeks_of=seeks.matched_seeks,
            queue=queue,
        )
        self.push = Push(PushStore(store), clock, push, hooks=hooks, seat_of=seats.authenticate, queue=queue)
        # A move or a table change that puts a bot seat to act queues its turn.
        self.bots = BotPlayers(states, seats, moves, hooks=hooks, queue=queue)
        if board is not None:
            board.on_revoked(self._heard_revoked)

    def job_handlers(self) -> JobHandlers:
        """What the job queue's tasks do: bot turns and clocks, webhook pumps and deliveries,
        ratings, the matcher, pushes (none while push is off), and what the sweep looks at."""
        return JobHandlers(
            play=self.bots.play,
            games_with_bots=self.store.games_with_bots,
            deadline=self.bots.deadline,
            clocked_games=self.store.games_with_clocks,
            reschedule=self.bots.reschedule,
            pump=self.webhooks.pump,
            deliver=self.webhooks.deliver,
            webhook_sweep=self.webhooks.sweep,
            rate=self.ratings.apply,
            ratings_sweep=self.ratings.sweep,
            match=self.seeks.match,
            seek_sweep=self.seeks.sweep,
            push=self.push.run if self.push.enabled else None,
            push_sweep=self.push.sweep if self.push.enabled else None,
        )

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

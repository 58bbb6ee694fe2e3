"""Tables and seats: creating a game, claiming its seats, and knowing a seat by its token.

A seat token is ``ymn.<seat>.<secret>``; only its SHA-256 is stored, and it is shown once.  A
claimed seat is never released, so a worker remembers full tables after the first lookup.

A seat's hash changes only when the player bound to it (``seats.player_id``: a claim or a create
by a player binds the seats it takes) has the token re-issued (:meth:`Seats.reissue`), and the old
token must stop working at once on every worker.  So a worker remembers the hash of a seat bound to
nobody for good, and that of a bound seat only while the notice board vouches for it: read in the
board's current epoch (a dropped subscription may have lost notices), less than
:data:`BOUND_TOKEN_SECONDS` ago, and no ``<game> seats`` notice since — a re-issue posts one after
its commit and one more Redis round trip, so every live board holds it before the player hears the
new token, and the board is drained before a remembered hash is trusted.  Without a live board, a
bound seat's hash is read from Postgres on every request (one read by primary key).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from domain.kernel import InvalidOptions as NoSuchLevel
from domain.kernel import Seat, bots, seed_commitment
from domain.kernel.table import table_options

from ..codec import json_encoder, new_events
from ..infra.cache import SnapshotCache, encode_snapshot
from ..infra.notices import NoticeBoard
from ..infra.store import EventStore, GameExists, GameRow
from ..record.chain import StoredEvent, seal
from .clock import Clock, record_time, utcnow
from .documents import GameCreated, Joined, SeatInfo, SeatToken, StreamTicket
from .errors import (
    GameNotFinished,
    GameNotFound,
    InvalidOptions,
    InvalidSeat,
    InvalidTicket,
    InvalidToken,
    NotTheCreator,
    NotYourSeat,
    SeatNotFound,
    SeatNotHandedOver,
    SeatTaken,
    TicketExpired,
    UnknownBotLevel,
)
from .hooks import GameHooks
from .titles import Titles

NOBODY = "nobody"
"""``games.creator`` of a game whose open seats nobody may fill with bots (the matcher's)."""


def creator_of(player_id: str | None, app_id: str | None, taken: list[int]) -> str:
    """``games.creator`` for a create by *player_id* or *app_id*'s key (else anonymous, taking the
    seats *taken*): who may later fill the game's open seats with bots."""
    if player_id is not None:
        return f"player:{player_id}"
    if app_id is not None:
        return f"app:{app_id}"
    return "seats:" + ",".join(map(str, taken)) if taken else NOBODY


TOKEN_HASHES = 400_000
"""Seat token hashes a worker remembers."""
FULL_TABLES = 100_000
"""Games whose full seat table a worker remembers."""
TABLE_SECONDS = 2.0
"""How long a worker trusts a remembered full table when no notice board vouches for it: a claimed
seat is never released, but it may be handed to a bot (or back) on another worker.  While the
board is live, a table is trusted until a ``<game> seats`` notice says it changed."""
BOUND_TOKEN_SECONDS = 1.0
"""The longest a worker trusts a remembered hash of a seat bound to a player, even while the board
vouches for it: the bound on a re-issue whose notice was lost (Redis failing just then)."""
TICKET_SECONDS = 300
"""How long a stream ticket may open (or reopen, on a browser's automatic reconnect) the stream."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(seat: Seat) -> str:
    return f"ymn.{seat}.{secrets.token_urlsafe(24)}"


def _ticket_mac(token_digest: str, game_id: str, seat: Seat, expiry: int) -> str:
    message = f"{game_id}.{seat}.{expiry}".encode()
    return hmac.new(token_digest.encode(), message, hashlib.sha256).hexdigest()[:32]


def rematch_id(game_id: str) -> str:
    """The id of *game_id*'s rematch: the same for every seat that asks, so all find the one game."""
    return "g_" + hashlib.sha256(f"rematch/{game_id}".encode()).hexdigest()[:20]


def new_game_id() -> str:
    return "g_" + secrets.token_hex(10)


@dataclass(frozen=True, slots=True)
class SeatedGame:
    """A game the matcher forms, prepared by :meth:`Seats.seated` and stored in its transaction."""

    row: GameRow
    hashes: list[str | None]
    events: list[StoredEvent]
    bots: dict[Seat, str]
    players: dict[Seat, str]
    to_act: list[Seat]
    state: Any


class Seats:
    def __init__(
        self,
        titles: Titles,
        store: EventStore,
        cache: SnapshotCache,
        clock: Clock = utcnow,
        *,
        hooks: GameHooks | None = None,
        board: NoticeBoard | None = None,
        count_new_game: Callable[[str], Awaitable[Callable[[], Awaitable[None]]]] | None = None,
    ) -> None:
        self.titles = titles
        self.store = store
        self.cache = cache
        self.clock = clock
        self._token_hashes: dict[tuple[str, int], str] = {}
        """(game, seat) -> the token hash of a seat bound to nobody (it never changes)."""
        self._bound_hashes: dict[str, dict[Seat, tuple[str, int, float]]] = {}
        """game -> seat -> (the token hash of a seat bound to a player, the board's epoch when it was
        read, when): trusted as the module docstring says."""
        self._held: dict[tuple[str, str], list[Seat]] = {}
        """(game, player) -> the seats bound to the player, once the game has no open seat: bindings
        are made by claims only and a claimed seat is never released, so it is final."""
        self._table_notices = 0
        """``<game> seats`` notices heard (and re-issues made) so far: a hash read while one arrived
        may be the old one, and is not remembered."""
        self.hooks = hooks if hooks is not None else GameHooks()
        """Told of every change to a table (changed) and of one that may put a bot seat to act
        (table_changed: a game created with bot seats, the last claim, a seat handed to a bot)."""
        self._full_tables: dict[str, tuple[float, int, list[SeatInfo]]] = {}
        """game -> (trusted until without a board, the board's epoch then, the table)."""
        self.board = board
        """The notice board (None: no Redis, or notices off): a changed table is forgotten when heard."""
        if board is not None:
            board.on_table(self.forget_table)
        self.count_new_game = count_new_game
        """Called with the owning app before one of its games is created (a create or a rematch):
        refuses past the app's limits, and returns the undo for a game not created after all
        (``Apps.count_new_game``)."""

    # --- a new table --------------------------------------------------------------------------
    async def create(
        self,
        kind: str,
        options: dict[str, Any],
        seed: str | None,
        take: Literal["all", "none"] | list[int],
        bot_seats: dict[str, str] | None = None,
        *,
        app_id: str | None = None,
        visibility: str = "public",
        player_id: str | None = None,
        rated: bool = False,
    ) -> GameCreated:
        """Set up a game and record its opening events; the creator takes *take*'s seats now (bound
        to *player_id*, when a player creates it) and the service's bots play *bot_seats* (seat ->
        level).  The game belongs to *app_id* (None: nobody's), within its limits, and *visibility*
        says who may see it.  A *rated* game is rated when it finishes (:mod:`.ratings`) — never if
        its creator took seats now."""
        game, codec = self.titles[kind]
        try:
            opts = codec.decode_options(options)
        except msgspec.ValidationError as exc:
            raise InvalidOptions(str(exc)) from None
        if opts.players not in game.player_counts:
            counts = ", ".join(map(str, game.player_counts))
            raise InvalidOptions(f"{game.title} is played by {counts} players")
        secret_seed = seed if seed is not None else secrets.token_hex(32)
        players = opts.players
        played_by_bots = self._bot_seats(game, bot_seats or {}, players)
        if isinstance(take, list):
            taken = sorted(set(take))
        elif take == "all":
            taken = [s for s in range(players) if s not in played_by_bots]
        else:
            taken = []
        if any(s < 0 or s >= players for s in taken):
            raise InvalidSeat(f"seats are numbered 0..{players - 1}")
        if overlap := sorted(set(taken) & set(played_by_bots)):
            raise InvalidSeat(f"seat {overlap[0]} is in both take_seats and bots")
        if table_options(opts).takebacks == "free" and not (
            players == 1 or (len(taken) == players and not played_by_bots)
        ):
            raise InvalidOptions(
                "free take-backs are for solo and hot-seat games (the creator takes every seat); "
                "use takebacks: consent"
            )
        game_id = new_game_id()
        tokens = {seat: new_token(seat) for seat in taken}
        status = "active" if len(tokens) + len(played_by_bots) == players else "open"
        row, stored, state = self._opening(
            game_id,
            kind,
            opts,
            json_encoder.encode(opts),
            secret_seed,
            status,
            app_id,
            visibility,
            rated=rated,
            # One app or player must not farm rating by playing seats it took itself (issue 30).
            unrated_reason="creator_took_seats" if taken else None,
            creator=creator_of(player_id, app_id, taken),
        )
        # A bot's seat is claimed with the hash of a token nobody is shown.
        hashes = [
            token_hash(tokens[s] if s in tokens else new_token(s))
            if s in tokens or s in played_by_bots
            else None
            for s in range(players)
        ]
        bound = dict.fromkeys(taken, player_id) if player_id is not None else {}
        await self._record_new(row, hashes, stored, played_by_bots, bound, game.to_act(state))
        self._changed(game_id)
        for seat, digest in enumerate(hashes):
            if digest is not None:  # its first move here needs no lookup
                self._remember_token(game_id, seat, digest, bound=seat in bound)
        await self.cache.set(game_id, encode_snapshot(row.version, game.rules_version, state))
        if status == "active" and (played_by_bots or table_options(opts).clock is not None):
            await self._table_changed(game_id)
        return _created(row, [SeatToken(seat=s, token=t) for s, t in sorted(tokens.items())])

    async def rematch(self, game_id: str) -> GameCreated:
        """The rematch of a finished game: the same title, options, seats and bots, a new secret
        seed.  Every seat's token of the finished game holds the same seat in the rematch, so each
        player just moves on to the new id; every seat asking gets the same rematch."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if row.status != "finished":
            raise GameNotFinished("the game is still being played")
        new_id = rematch_id(game_id)
        existing = await self.store.get_game(new_id)
        if existing is not None:
            self._changed(game_id)  # (again: the first asker's worker may have died before it did)
            return _created(existing)
        opts = self.titles[row.kind][1].decode_options_json(row.options)
        new_row, stored, state = self._opening(
            new_id,
            row.kind,
            opts,
            row.options,
            secrets.token_hex(32),
            "active",
            row.app_id,
            row.visibility,
            creator=await self.store.creator_of(game_id),
        )
        table = await self.store.seats(game_id)
        try:
            await self._record_new(
                new_row,
                [h for _, h, _ in table],
                stored,
                {s: b for s, _, b in table if b is not None},
                {s: p for s, p, _ in await self.store.bindings(game_id) if p is not None},
                self.titles[row.kind][0].to_act(state),
            )
        except GameExists:  # another seat asked at the same moment: theirs is the rematch
            existing = await self.store.get_game(new_id)
            assert existing is not None
            return _created(existing)
        await self.cache.set(new_id, encode_snapshot(new_row.version, new_row.rules_version, state))
        self._changed(new_id)
        self._changed(game_id)
        await self._table_changed(new_id)
        return _created(new_row)

    # --- a table formed by the matcher (service.application.seeks) -----------------------------
    def seated(
        self,
        kind: str,
        options: dict[str, Any],
        players: dict[Seat, str],
        bot_seats: dict[Seat, str],
        *,
        game_id: str,
        app_id: str | None,
        visibility: str,
        rated: bool = False,
    ) -> SeatedGame:
        """A new game with every seat taken — *players*' seats bound to them (their tokens are shown
        to nobody: a player acts with its own credential, or has a seat's token re-issued), the
        others played by the service's bots — ready to be stored by the caller inside its own
        transaction (``EventStore.insert_game``), then announced with :meth:`opened`.  Nobody took
        seats at create, so a *rated* game is rated when it finishes (:mod:`.ratings`)."""
        game, codec = self.titles[kind]
        try:
            opts = codec.decode_options(options)
        except msgspec.ValidationError as exc:
            raise InvalidOptions(str(exc)) from None
        if opts.players != len(players) + len(bot_seats) or opts.players not in game.player_counts:
            raise InvalidOptions(f"{game.title}: {opts.players} seats for {len(players) + len(bot_seats)}")
        levels = {seat: _level(game, level) for seat, level in bot_seats.items()}
        row, stored, state = self._opening(
            game_id,
            kind,
            opts,
            json_encoder.encode(opts),
            secrets.token_hex(32),
            "active",
            app_id,
            visibility,
            rated=rated,
            creator=NOBODY,
        )
        hashes: list[str | None] = [token_hash(new_token(seat)) for seat in range(opts.players)]
        return SeatedGame(row, hashes, stored, levels, dict(players), list(game.to_act(state)), state)

    async def opened(self, created: SeatedGame) -> None:
        """After the transaction that stored *created* committed: what :meth:`create` does after
        its own (the webhook pump, the snapshot, the clocks and the bots)."""
        row = created.row
        game = self.titles[row.kind][0]
        self._changed(row.game_id)
        await self.cache.set(row.game_id, encode_snapshot(row.version, game.rules_version, created.state))
        if created.bots or table_options(self.titles[row.kind][1].decode_options_json(row.options)).clock:
            await self._table_changed(row.game_id)

    async def _record_new(
        self,
        row: GameRow,
        hashes: list[str | None],
        stored: list[StoredEvent],
        bots: dict[int, str],
        players: dict[int, str],
        to_act: list[Seat],
    ) -> None:
        """Record a new game (its seats bound to *players*, who is *to_act* in its opening state),
        counted against its app's limits (:attr:`count_new_game`)."""
        undo = None
        if row.app_id is not None and self.count_new_game is not None:
            undo = await self.count_new_game(row.app_id)
        try:
            await self.store.create_game(row, hashes, stored, bots, players, to_act)
        except Exception:
            if undo is not None:
                await undo()
            raise

    def _opening(
        self,
        game_id: str,
        kind: str,
        opts: Any,
        options: bytes,
        secret_seed: str,
        status: str,
        app_id: str | None = None,
        visibility: str = "public",
        *,
        rated: bool = False,
        unrated_reason: str | None = None,
        creator: str | None = None,
    ) -> tuple[GameRow, list[StoredEvent], Any]:
        """A new game's row, its sealed opening events and the state they fold to (*rated*: asked to
        be rated when it finishes, :mod:`.ratings`)."""
        game = self.titles[kind][0]
        state, events = game.start(opts, secret_seed)  # InvalidOptions (a RuleViolation) refuses
        now = record_time(self.clock)
        commitment = seed_commitment(secret_seed)
        stored = seal(game_id, 1, commitment, new_events(events, None, None, None), now, secret_seed)
        row = GameRow(
            game_id=game_id,
            kind=kind,
            rules_version=game.rules_version,
            options=options,
            players=opts.players,
            seed=secret_seed,
            seed_commitment=commitment,
            status=status,
            version=len(stored),
            last_hash=stored[-1].hash if stored else commitment,
            imported=False,
            created_at=now,
            updated_at=now,
            app_id=app_id,
            visibility=visibility,
            rated=rated,
            unrated_reason=unrated_reason if rated else None,
            creator=creator,
        )
        return row, stored, state

    @staticmethod
    def _bot_seats(game: Any, requested: dict[str, str], players: int) -> dict[int, str]:
        out = {}
        for key, level in requested.items():
            if not (key.isascii() and key.isdecimal() and int(key) < players):
                raise InvalidSeat(f"bots names seat {key!r}; seats are numbered 0..{players - 1}")
            out[int(key)] = _level(game, level)
        return out

    async def join(self, game_id: str, seat: int, player_id: str | None = None) -> Joined:
        """Claim an open seat (bound to *player_id*, when a player claims it); the last claim starts
        the game."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise SeatNotFound(f"seats are numbered 0..{row.players - 1}")
        token = new_token(seat)
        digest = token_hash(token)
        status = await self.store.claim_seat(
            game_id, seat, digest, record_time(self.clock), player_id=player_id
        )
        if status is None:
            raise SeatTaken(f"seat {seat} is already taken")
        self._changed(game_id)
        self._remember_token(game_id, seat, digest, bound=player_id is not None)
        # A claim is no event, but the game's streams show the table: wake them (every worker's).
        await self.cache.announce(game_id, row.version)
        if status == "active":
            await self._table_changed(game_id)
        return Joined(game_id=game_id, seat=seat, token=token, status=status)

    async def table(self, game_id: str) -> list[SeatInfo]:
        """Which seats are claimed, and which a bot plays."""
        remembered = self._full_tables.get(game_id)
        now = time.monotonic()
        board = self.board
        if remembered is not None and (
            remembered[0] > now or (board is not None and board.live and remembered[1] == board.epoch)
        ):
            return remembered[2]
        infos = [
            SeatInfo(seat=s, claimed=h is not None, bot=b) for s, h, b in await self.store.seats(game_id)
        ]
        if infos and all(i.claimed for i in infos):
            # A claimed seat is never released, so a full table can be remembered (one query less per
            # read) — for a moment only, as a seat may be handed to a bot on another worker.
            if len(self._full_tables) >= FULL_TABLES:
                self._full_tables.clear()
            epoch = board.epoch if board is not None and board.live else -1
            self._full_tables[game_id] = (now + TABLE_SECONDS, epoch, infos)
        return infos

    async def bot_seats(self, game_id: str) -> dict[Seat, str]:
        """The seats a bot plays, and its level (at most :data:`TABLE_SECONDS` old)."""
        return {i.seat: i.bot for i in await self.table(game_id) if i.bot is not None}

    # --- bots ---------------------------------------------------------------------------------
    async def hand_to_bot(
        self, game_id: str, caller: Seat | None, seat: Seat, level: str, filler: str | None = None
    ) -> str:
        """A bot of *level* plays *seat* from now on: the caller's own seat (a person leaving the
        table, or letting the computer play for a while: :meth:`take_back` returns it), or an open
        seat, which only the game's creator may fill (:meth:`_may_fill`; anybody may join it; the
        last claim starts the game).  *filler*: who calls, as ``games.creator`` names a creator
        (``player:<id>``, ``app:<id>``; None: a seat token or nobody).  Returns the game's status."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise SeatNotFound(f"seats are numbered 0..{row.players - 1}")
        level = _level(self.titles[row.kind][0], level)
        if caller == seat:
            await self.store.set_bot(game_id, seat, level)
            status = row.status
        else:
            bindings = await self.store.bindings(game_id)
            if not any(s == seat and is_open for s, _, is_open in bindings):
                if caller is not None:
                    raise NotYourSeat(f"this token holds seat {caller}, not seat {seat}")
                raise SeatTaken(f"seat {seat} is taken: only its holder may hand it to a bot")
            await self._may_fill(game_id, caller, filler, bindings)
            claimed = await self.store.claim_seat(
                game_id, seat, token_hash(new_token(seat)), record_time(self.clock), bot=level
            )
            if claimed is None:
                raise SeatTaken(f"seat {seat} is taken: only its holder may hand it to a bot")
            status = claimed
        self._changed(game_id)
        self._full_tables.pop(game_id, None)
        await self.cache.announce_table(game_id)  # every worker forgets the table
        await self.cache.announce(game_id, row.version)  # the streams show the table
        if status == "active":
            await self._table_changed(game_id)
        return status

    async def _may_fill(
        self,
        game_id: str,
        caller: Seat | None,
        filler: str | None,
        bindings: list[tuple[int, str | None, bool]],
    ) -> None:
        """Refuses :class:`NotTheCreator` unless the caller created the game: its player (by its
        credential, or a token of a seat bound to it), its app's key, or a holder of a seat the
        anonymous create took.  A game from before creators were kept is anybody's to fill."""
        creator = await self.store.creator_of(game_id)
        if creator is None:
            return
        kind, _, who = creator.partition(":")
        if kind == "player":
            bound = next((player for s, player, _ in bindings if s == caller), None)
            allowed = filler == creator or (caller is not None and bound == who)
        elif kind == "app":
            allowed = filler == creator
        elif kind == "seats":
            allowed = caller is not None and str(caller) in who.split(",")
        else:
            allowed = False
        if not allowed:
            raise NotTheCreator(
                "only the game's creator fills its open seats with bots; anybody may join them"
            )

    async def _table_changed(self, game_id: str) -> None:
        await self.hooks.table_changed(game_id)

    def _changed(self, game_id: str) -> None:
        self.hooks.changed(game_id)

    async def take_back(self, game_id: str, caller: Seat, seat: Seat) -> None:
        """The holder of *seat* plays it again."""
        if caller != seat:
            raise NotYourSeat(f"this token holds seat {caller}, not seat {seat}")
        if all(info.bot is None for info in await self.fresh_table(game_id) if info.seat == seat):
            raise SeatNotHandedOver(f"seat {seat} is not played by a bot")
        await self.store.set_bot(game_id, seat, None)
        self._changed(game_id)
        self._full_tables.pop(game_id, None)
        await self.cache.announce_table(game_id)
        row = await self.store.get_game(game_id)
        if row is not None:
            await self.cache.announce(game_id, row.version)

    def forget_table(self, game_id: str) -> None:
        """Another worker changed the table (a ``<game> seats`` notice): a seat handed to a bot or
        back, or a token re-issued."""
        self._table_notices += 1
        self._full_tables.pop(game_id, None)
        self._bound_hashes.pop(game_id, None)

    async def fresh_table(self, game_id: str) -> list[SeatInfo]:
        """:meth:`table`, read from Postgres now."""
        self._full_tables.pop(game_id, None)
        return await self.table(game_id)

    # --- who is asking ------------------------------------------------------------------------
    def _remember_token(self, game_id: str, seat: Seat, digest: str, *, bound: bool = False) -> None:
        if not bound:
            if len(self._token_hashes) >= TOKEN_HASHES:
                self._token_hashes.clear()  # a bound, not an LRU: a forgotten hash is one lookup away
            self._token_hashes[(game_id, seat)] = digest
            return
        board = self.board
        if board is None or not board.live:
            return  # nothing vouches for it: read again next time
        if len(self._bound_hashes) >= FULL_TABLES:
            self._bound_hashes.clear()
        self._bound_hashes.setdefault(game_id, {})[seat] = (digest, board.epoch, time.monotonic())

    async def _seat_hash(self, game_id: str, seat: Seat) -> str | None:
        """The token hash of *seat* (None while it is open), remembered as the module docstring
        says."""
        digest = self._token_hashes.get((game_id, seat))
        if digest is not None:
            return digest
        board = self.board
        if board is not None and board.live:
            board.drain()  # a re-issue's notice that has arrived is heard before memory answers
            entry = self._bound_hashes.get(game_id, {}).get(seat)
            if (
                entry is not None
                and board.live
                and entry[1] == board.epoch
                and time.monotonic() - entry[2] < BOUND_TOKEN_SECONDS
            ):
                return entry[0]
        notices = self._table_notices
        digest, bound = await self.store.seat_token_hash(game_id, seat)
        if digest is not None and notices == self._table_notices:
            self._remember_token(game_id, seat, digest, bound=bound)
        return digest

    async def player_seats(self, game_id: str, player_id: str) -> list[Seat]:
        """The seats of *game_id* bound to *player_id* (a player acts as one of them)."""
        held = self._held.get((game_id, player_id))
        if held is not None:
            return held
        table = await self.store.bindings(game_id)
        held = [seat for seat, player, _ in table if player == player_id]
        if table and not any(open_ for _, _, open_ in table):
            if len(self._held) >= FULL_TABLES:
                self._held.clear()
            self._held[(game_id, player_id)] = held
        return held

    async def reissue(self, game_id: str, seat: Seat, player_id: str) -> Joined:
        """A new token for *seat*, which must be bound to *player_id* (else :class:`NotYourSeat`);
        the old token stops working at once, on every worker (see the module docstring)."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise SeatNotFound(f"seats are numbered 0..{row.players - 1}")
        token = new_token(seat)
        if not await self.store.reissue_token(game_id, seat, player_id, token_hash(token)):
            raise NotYourSeat(f"seat {seat} is not bound to this player")
        self.forget_table(game_id)
        await self.cache.announce_table(game_id)  # every worker forgets the old hash
        return Joined(game_id=game_id, seat=seat, token=token, status=row.status)

    # --- stream tickets ------------------------------------------------------------------------
    # ``EventSource`` cannot send an Authorization header, so a browser opens a seat's private
    # stream with a ticket in the URL instead: ``ymt.<seat>.<expiry>.<mac>``, where the MAC is an
    # HMAC-SHA256 of the game, seat and expiry keyed by the seat token's stored hash.  Any worker
    # can check it (no ticket table), it opens one game's stream as one seat until it expires, and
    # the seat token itself never appears in a URL or an access log.
    async def ticket(self, game_id: str, seat: Seat) -> StreamTicket:
        """A ticket for *seat*'s stream of *game_id* (the caller has just proved it holds the seat)."""
        digest = await self._seat_hash(game_id, seat)
        if digest is None:
            raise InvalidToken("this token does not hold a seat in this game")
        expiry = int(self.clock().timestamp()) + TICKET_SECONDS
        ticket = f"ymt.{seat}.{expiry}.{_ticket_mac(digest, game_id, seat, expiry)}"
        return StreamTicket(
            ticket=ticket,
            expires_in=TICKET_SECONDS,
            stream=f"/v1/games/{game_id}/events/stream?ticket={ticket}",
        )

    async def redeem(self, game_id: str, ticket: str) -> Seat:
        """The seat a stream *ticket* opens *game_id*'s stream as; :class:`InvalidTicket` or
        :class:`TicketExpired` otherwise."""
        parts = ticket.split(".")
        if (
            len(parts) != 4
            or parts[0] != "ymt"
            or not all(p.isascii() and p.isdecimal() for p in parts[1:3])
            or len(parts[1]) > 4
            or len(parts[2]) > 12
        ):
            raise InvalidTicket("expected '?ticket=ymt.<seat>.<expiry>.<mac>' from POST .../events/tickets")
        seat, expiry = int(parts[1]), int(parts[2])
        digest = await self._seat_hash(game_id, seat)
        if digest is None or not hmac.compare_digest(parts[3], _ticket_mac(digest, game_id, seat, expiry)):
            raise InvalidTicket("this ticket was not issued for this game")
        if expiry < self.clock().timestamp():
            raise TicketExpired("the ticket has expired: ask for a new one and reopen with ?after=")
        return seat

    async def authenticate(self, game_id: str, token: str) -> Seat:
        """The seat *token* holds in the game, or :class:`InvalidToken`."""
        parts = token.split(".")
        # isdecimal and isascii: "²" is a digit to str.isdigit() but not to int().
        if (
            len(parts) != 3
            or parts[0] != "ymn"
            or not (parts[1].isascii() and parts[1].isdecimal() and len(parts[1]) < 5)
        ):
            raise InvalidToken("expected 'Authorization: Bearer ymn.<seat>.<secret>'")
        seat = int(parts[1])
        expected = await self._seat_hash(game_id, seat)
        if expected is None or not hmac.compare_digest(expected, token_hash(token)):
            raise InvalidToken("this token does not hold a seat in this game")
        return seat


def _level(game: Any, level: str) -> str:
    try:
        bots.strategy(game, level)
    except NoSuchLevel as exc:
        raise UnknownBotLevel(str(exc)) from None
    return level


def _created(row: GameRow, tokens: list[SeatToken] | None = None) -> GameCreated:
    return GameCreated(
        game_id=row.game_id,
        kind=row.kind,
        status=row.status,
        version=row.version,
        players=row.players,
        seed_commitment=row.seed_commitment,
        tokens=tokens or [],
    )

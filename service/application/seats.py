"""Tables and seats: creating a game, claiming its seats, and knowing a seat by its token.

A seat token is ``ymn.<seat>.<secret>``; only its SHA-256 is stored, and it is shown once.  A
claimed seat is never released and its hash never changes, so a worker remembers hashes (and
full tables) after the first lookup.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from domain.kernel import InvalidOptions as NoSuchLevel
from domain.kernel import Seat, bots, seed_commitment
from domain.kernel.table import table_options

from ..codec import json_encoder, new_events
from ..infra.cache import SnapshotCache, encode_snapshot
from ..infra.store import EventStore, GameExists, GameRow
from ..record.chain import seal
from .clock import Clock, record_time, utcnow
from .documents import GameCreated, Joined, SeatInfo, SeatToken, StreamTicket
from .errors import (
    GameNotFinished,
    GameNotFound,
    InvalidOptions,
    InvalidSeat,
    InvalidTicket,
    InvalidToken,
    NotYourSeat,
    SeatNotFound,
    SeatNotHandedOver,
    SeatTaken,
    TicketExpired,
    UnknownBotLevel,
)
from .titles import Titles

TOKEN_HASHES = 400_000
"""Seat token hashes a worker remembers."""
FULL_TABLES = 100_000
"""Games whose full seat table a worker remembers."""
TABLE_SECONDS = 2.0
"""How long a worker trusts a remembered full table when no notice board vouches for it: a claimed
seat is never released, but it may be handed to a bot (or back) on another worker.  While the
board is live, a table is trusted until a ``<game> seats`` notice says it changed."""
TICKET_SECONDS = 300
"""How long a stream ticket may open (or reopen, on a browser's automatic reconnect) the stream."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(seat: Seat) -> str:
    return f"ymn.{seat}.{secrets.token_urlsafe(24)}"


def _ticket_mac(token_digest: str, game_id: str, seat: Seat, expiry: int) -> str:
    message = f"{game_id}.{seat}.{expiry}".encode()
    return hmac.new(token_digest.encode(), message, hashlib.sha256).hexdigest()[:32]


def new_game_id() -> str:
    return "g_" + secrets.token_hex(10)


class Seats:
    def __init__(
        self,
        titles: Titles,
        store: EventStore,
        cache: SnapshotCache,
        clock: Clock = utcnow,
    ) -> None:
        self.titles = titles
        self.store = store
        self.cache = cache
        self.clock = clock
        self._token_hashes: dict[tuple[str, int], str] = {}
        self.on_table_change: Callable[[str], Awaitable[None]] | None = None
        """Called with the game after a change that may put a bot seat to act (a game created with
        bot seats, the last claim, a seat handed to a bot): ``BotPlayers.request``."""
        self._full_tables: dict[str, tuple[float, int, list[SeatInfo]]] = {}
        """game -> (trusted until without a board, the board's epoch then, the table)."""
        self.board: Any = None
        """The notice board (``service.infra.notices.NoticeBoard``) once attached."""

    # --- a new table --------------------------------------------------------------------------
    async def create(
        self,
        kind: str,
        options: dict[str, Any],
        seed: str | None,
        take: str | list[int],
        bot_seats: dict[str, str] | None = None,
    ) -> GameCreated:
        """Set up a game and record its opening events; the creator takes *take*'s seats now and
        the service's bots play *bot_seats* (seat -> level)."""
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
        taken = (
            [s for s in range(players) if s not in played_by_bots]
            if take == "all"
            else ([] if take == "none" else sorted(set(take)))
        )
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
            game_id, kind, opts, json_encoder.encode(opts), secret_seed, status
        )
        # A bot's seat is claimed with the hash of a token nobody is shown.
        hashes = [
            token_hash(tokens[s] if s in tokens else new_token(s))
            if s in tokens or s in played_by_bots
            else None
            for s in range(players)
        ]
        await self.store.create_game(row, hashes, stored, played_by_bots)
        for seat, digest in enumerate(hashes):
            if digest is not None:  # its first move here needs no lookup
                self._remember_token(game_id, seat, digest)
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
        new_id = "g_" + hashlib.sha256(f"rematch/{game_id}".encode()).hexdigest()[:20]
        existing = await self.store.get_game(new_id)
        if existing is not None:
            return _created(existing)
        opts = self.titles[row.kind][1].decode_options_json(row.options)
        new_row, stored, state = self._opening(
            new_id, row.kind, opts, row.options, secrets.token_hex(32), "active"
        )
        table = await self.store.seats(game_id)
        try:
            await self.store.create_game(
                new_row, [h for _, h, _ in table], stored, {s: b for s, _, b in table if b is not None}
            )
        except GameExists:  # another seat asked at the same moment: theirs is the rematch
            existing = await self.store.get_game(new_id)
            assert existing is not None
            return _created(existing)
        await self.cache.set(new_id, encode_snapshot(new_row.version, new_row.rules_version, state))
        await self._table_changed(new_id)
        return _created(new_row)

    def _opening(
        self, game_id: str, kind: str, opts: Any, options: bytes, secret_seed: str, status: str
    ) -> tuple[GameRow, list, Any]:
        """A new game's row, its sealed opening events and the state they fold to."""
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

    async def join(self, game_id: str, seat: int) -> Joined:
        """Claim an open seat; the last claim starts the game."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise SeatNotFound(f"seats are numbered 0..{row.players - 1}")
        token = new_token(seat)
        digest = token_hash(token)
        status = await self.store.claim_seat(game_id, seat, digest, record_time(self.clock))
        if status is None:
            raise SeatTaken(f"seat {seat} is already taken")
        self._remember_token(game_id, seat, digest)
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
    async def hand_to_bot(self, game_id: str, caller: Seat | None, seat: Seat, level: str) -> str:
        """A bot of *level* plays *seat* from now on: an open seat (anybody may fill it, as anybody
        may join; the last claim starts the game), or the caller's own seat (a person leaving the
        table, or letting the computer play for a while: :meth:`take_back` returns it).  Returns the
        game's status."""
        row = await self.store.get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        if not 0 <= seat < row.players:
            raise SeatNotFound(f"seats are numbered 0..{row.players - 1}")
        level = _level(self.titles[row.kind][0], level)
        if caller is None:
            status = await self.store.claim_seat(
                game_id, seat, token_hash(new_token(seat)), record_time(self.clock), bot=level
            )
            if status is None:
                raise SeatTaken(f"seat {seat} is taken: only its holder may hand it to a bot")
        else:
            if caller != seat:
                raise NotYourSeat(f"this token holds seat {caller}, not seat {seat}")
            await self.store.set_bot(game_id, seat, level)
            status = row.status
        self._full_tables.pop(game_id, None)
        await self.cache.announce_table(game_id)  # every worker forgets the table
        await self.cache.announce(game_id, row.version)  # the streams show the table
        if status == "active":
            await self._table_changed(game_id)
        return status

    async def _table_changed(self, game_id: str) -> None:
        if self.on_table_change is not None:
            await self.on_table_change(game_id)

    async def take_back(self, game_id: str, caller: Seat, seat: Seat) -> None:
        """The holder of *seat* plays it again."""
        if caller != seat:
            raise NotYourSeat(f"this token holds seat {caller}, not seat {seat}")
        if all(info.bot is None for info in await self.fresh_table(game_id) if info.seat == seat):
            raise SeatNotHandedOver(f"seat {seat} is not played by a bot")
        await self.store.set_bot(game_id, seat, None)
        self._full_tables.pop(game_id, None)
        await self.cache.announce_table(game_id)
        row = await self.store.get_game(game_id)
        if row is not None:
            await self.cache.announce(game_id, row.version)

    def forget_table(self, game_id: str) -> None:
        """Another worker changed the table (a ``<game> seats`` notice)."""
        self._full_tables.pop(game_id, None)

    async def fresh_table(self, game_id: str) -> list[SeatInfo]:
        """:meth:`table`, read from Postgres now."""
        self._full_tables.pop(game_id, None)
        return await self.table(game_id)

    # --- who is asking ------------------------------------------------------------------------
    def _remember_token(self, game_id: str, seat: Seat, digest: str) -> None:
        if len(self._token_hashes) >= TOKEN_HASHES:
            self._token_hashes.clear()  # a bound, not an LRU: a forgotten hash is one lookup away
        self._token_hashes[(game_id, seat)] = digest

    # --- stream tickets ------------------------------------------------------------------------
    # ``EventSource`` cannot send an Authorization header, so a browser opens a seat's private
    # stream with a ticket in the URL instead: ``ymt.<seat>.<expiry>.<mac>``, where the MAC is an
    # HMAC-SHA256 of the game, seat and expiry keyed by the seat token's stored hash.  Any worker
    # can check it (no ticket table), it opens one game's stream as one seat until it expires, and
    # the seat token itself never appears in a URL or an access log.
    async def ticket(self, game_id: str, seat: Seat) -> StreamTicket:
        """A ticket for *seat*'s stream of *game_id* (the caller has just proved it holds the seat)."""
        digest = self._token_hashes.get((game_id, seat)) or await self.store.seat_token_hash(game_id, seat)
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
        digest = self._token_hashes.get((game_id, seat))
        if digest is None:
            digest = await self.store.seat_token_hash(game_id, seat)
            if digest is not None:
                self._remember_token(game_id, seat, digest)
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
        expected = self._token_hashes.get((game_id, seat))
        if expected is None:
            expected = await self.store.seat_token_hash(game_id, seat)
            if expected is not None:
                self._remember_token(game_id, seat, expected)
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

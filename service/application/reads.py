"""Reading a game: its document as a seat sees it, the seat's legal moves, the history, the live
feed of new events, time travel, the list of games and the catalogue.

A view or legal-moves read is answered from the worker's memory while the notice board vouches
for it (:mod:`service.application.states`), and its encoded answer is kept per version and
viewer; otherwise it loads from Redis and Postgres.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any, NamedTuple

import msgspec

from domain.kernel import Game, Seat, bots
from domain.kernel.table import EMPTY, deadline_ms, may_take_back, table_of

from ..codec import json_encoder, tag_of
from ..infra.standby import Standby
from ..infra.store import EventStore
from ..record.chain import timestamp
from .documents import (
    Catalogue,
    CatalogueEntry,
    Encoded,
    EventEnvelope,
    GameDocument,
    GameList,
    GameRatings,
    GameSummary,
    History,
    LegalMoves,
    ReplacedSeat,
    SeatClockInfo,
    SeatInfo,
    Table,
    TableInfo,
    envelope,
)
from .errors import InvalidCursor, NotRevealedYet, VersionNotReached
from .identity import PUBLIC_ONLY, Listing, visibility_of
from .narration import narrator
from .option_labels import option_labels
from .seats import Seats
from .states import Loaded, States, from_standby
from .titles import Titles

STREAM_POLL_SECONDS = 15.0
"""The event stream re-reads Postgres at least this often when no notice arrives."""
STREAM_BATCH = 500


class Batch(NamedTuple):
    """What the live feed sends next: new events, and the table when a claim changed it."""

    finished: bool
    events: list[EventEnvelope[Any]]
    table: Table | None = None


HEARTBEAT_SECONDS = 15.0
"""A stream with nothing new sends a heartbeat this often (proxies close silent connections)."""


def document(
    loaded: Loaded, viewer: Seat | None, seats: list[SeatInfo], ratings: GameRatings | None = None
) -> GameDocument[Any]:
    """The game as *viewer* (a seat, or None for a spectator) may see it (with its *ratings*, once
    a finished game asked to be rated is settled)."""
    game, state, row = loaded.game, loaded.state, loaded.row
    outcome = game.outcome(state)
    return GameDocument(
        game_id=row.game_id,
        kind=row.kind,
        title=game.title,
        rules_version=row.rules_version,
        status="finished" if outcome is not None else ("open" if row.status == "open" else "active"),
        version=loaded.version,
        players=row.players,
        seats=seats,
        viewer=viewer,
        to_act=[] if row.status == "open" else game.to_act(state),
        view=game.view(state, viewer),
        outcome=outcome,
        seed_commitment=row.seed_commitment,
        seed=row.seed if row.status == "finished" else None,
        created_at=timestamp(row.created_at),
        table=table_info(loaded.state, viewer) if game.timed_type is not None else None,
        ratings=ratings,
    )


def table_info(state: Any, viewer: Seat | None) -> TableInfo | None:
    """What the table shows everybody (and *viewer*: whether it may ask for a take-back now)."""
    t = table_of(state)
    if t is EMPTY:
        return None
    clock = t.options.clock
    return TableInfo(
        clock=msgspec.to_builtins(clock) if clock is not None else None,
        clocks=[
            SeatClockInfo(
                seat=seat,
                deadline_ms=deadline_ms(t, seat),
                remaining_ms=c.remaining_ms if clock is not None and clock.mode == "total" else None,
                timeouts=t.timeouts[seat] if seat < len(t.timeouts) else 0,
            )
            for seat, c in enumerate(t.clocks)
        ],
        takebacks=t.options.takebacks,
        zombie_after=t.options.zombie_after,
        replaced=[ReplacedSeat(seat=r.seat, at_ms=r.at_ms, reason=r.reason) for r in t.replaced],
        takeback_requested_by=t.takeback_by if t.takeback_by >= 0 else None,
        takeback_consents=list(t.consents),
        can_take_back=viewer is not None and may_take_back(t, viewer),
        conceded_by=t.ended if t.ended >= 0 else None,
    )


def legal_moves(loaded: Loaded, seat: Seat | None) -> LegalMoves[Any]:
    """Every command *seat* may send now (none for a spectator, or before or after the game)."""
    moves = (
        loaded.game.legal_moves(loaded.state, seat)
        if seat is not None and loaded.row.status == "active"
        else []
    )
    return LegalMoves(version=loaded.version, seat=seat, moves=moves)


class Reads:
    def __init__(
        self,
        titles: Titles,
        states: States,
        seats: Seats,
        store: EventStore,
        *,
        standby: Standby | None = None,
        ratings_of: Callable[[str], Awaitable[tuple[bool, GameRatings | None]]] | None = None,
    ) -> None:
        self.titles = titles
        self.states = states
        self.seats = seats
        self.store = store
        self.standby = standby
        """Where a spectator's reads may go (:mod:`service.infra.standby`)."""
        self.ratings_of = ratings_of
        """A finished game's ratings: (still being applied, the change) — ``Ratings.of_game``."""
        self.stopping = False
        """The server has been told to stop: live feeds end and long polls answer at once
        (:meth:`stop_following`)."""

    def stop_following(self) -> None:
        """End every live feed and long poll now, and answer new ones at once: the server is
        stopping and waits for them (:mod:`service.http.shutdown`)."""
        self.stopping = True
        board = self.states.board
        if board is not None:
            board.wake_all()

    # --- the game now -------------------------------------------------------------------------
    async def document(
        self, game_id: str, viewer: Seat | None, if_none_match: int | None, min_version: int | None = None
    ) -> Encoded:
        """The game as *viewer* may see it, encoded; no body when the caller's copy
        (*if_none_match*) is current.

        A caller who has seen a version — acknowledged by another replica, or the copy it holds —
        never reads an older one: a remembered state older than *min_version* or *if_none_match*
        is passed over for Postgres (where every acknowledged move is).  A spectator's read may
        come from the standby, when it has replayed at least that version."""
        floor = max(if_none_match or 0, min_version or 0)
        entry = await self.states.vouched(game_id)
        if entry is not None and entry.row.version >= floor:
            # A finished game's rating is applied after its last move, without a new version: while
            # it is pending the answer is neither remembered nor tagged (like an open game's).
            pending, ratings = await self._ratings(game_id, entry.row.status)
            if if_none_match == entry.row.version and not pending:
                return Encoded(entry.row.version, None)
            body = None if pending else entry.documents.get(viewer)
            if body is None:
                loaded = self.states.for_reading(entry)
                body = json_encoder.encode(document(loaded, viewer, await self.seats.table(game_id), ratings))
                if not pending:
                    entry.documents[viewer] = body
            return Encoded(None if pending else entry.row.version, body)
        on_standby = await from_standby(
            self.standby,
            viewer,
            lambda store: self.states.load(game_id, source=store),
            accept=lambda loaded: loaded.version >= floor and loaded.row.status != "open",
        )
        if on_standby is not None:
            pending, ratings = await self._ratings(game_id, on_standby.row.status)
            if if_none_match == on_standby.version and not pending:
                return Encoded(on_standby.version, None)
            table = await self.seats.table(game_id)
            body = json_encoder.encode(document(on_standby, viewer, table, ratings))
            return Encoded(None if pending else on_standby.version, body)
        if if_none_match is not None:
            row = await self.states.row(game_id)
            _reached(row.version, min_version)
            unchanged = row.version == if_none_match and row.status != "open"
            if unchanged and not (await self._ratings(game_id, row.status))[0]:
                return Encoded(row.version, None)
        loaded = await self.states.load(game_id)
        _reached(loaded.version, min_version)
        pending, ratings = await self._ratings(game_id, loaded.row.status)
        body = json_encoder.encode(document(loaded, viewer, await self.seats.table(game_id), ratings))
        # A claimed seat changes an open game without a new version, so its version is no entity
        # tag: an open game's document has none (a cached copy is always refetched in full).
        return Encoded(None if loaded.row.status == "open" or pending else loaded.version, body)

    async def _ratings(self, game_id: str, status: str) -> tuple[bool, GameRatings | None]:
        """(pending, ratings) of a finished game (see :attr:`ratings_of`); nothing for the others."""
        if status != "finished" or self.ratings_of is None:
            return False, None
        return await self.ratings_of(game_id)

    async def legal_moves(self, game_id: str, seat: Seat | None, min_version: int | None = None) -> Encoded:
        """Every command *seat* may send now, encoded, and the version they are for (never older
        than *min_version*, a version the caller has seen: see :meth:`document`)."""
        entry = await self.states.vouched(game_id)
        if entry is not None and entry.row.version >= (min_version or 0):
            body = entry.legal.get(seat)
            if body is None:
                body = json_encoder.encode(legal_moves(self.states.for_reading(entry), seat))
                entry.legal[seat] = body
            return Encoded(entry.row.version, body)
        loaded = await self.states.load(game_id, recall=True)
        _reached(loaded.version, min_version)
        return Encoded(loaded.version, json_encoder.encode(legal_moves(loaded, seat)))

    async def after_move(self, game_id: str, seat: Seat, answer: Encoded, include: frozenset[str]) -> Encoded:
        """A move's *answer* with what *include* names read right after it — the mover's legal
        moves, its document — so a client makes one request per move.  They are the answers of the
        reads themselves (from this worker's memory of the state the move just wrote), spliced
        into the stored answer, which an Idempotency-Key replays without them."""
        assert answer.body is not None and answer.body.endswith(b"}")
        parts = [answer.body[:-1]]
        if "legal_moves" in include:
            legal = await self.legal_moves(game_id, seat)
            parts += [b',"legal_moves":', legal.body or b"null"]
        if "document" in include:
            shown = await self.document(game_id, seat, None)
            parts += [b',"document":', shown.body or b"null"]
        parts.append(b"}")
        return Encoded(answer.version, b"".join(parts), answer.status)

    async def at(self, game_id: str, version: int, viewer: Seat | None, *, reveal: bool) -> GameDocument[Any]:
        """Time travel: the game right after event *version*, as *viewer* saw it; with *reveal*
        (only once the game has ended) the full state too.  A version is immutable, so a spectator
        reads it from the standby once the standby has it."""
        loaded = await from_standby(
            self.standby, viewer, lambda store: self.states.at(game_id, version, store)
        )
        if loaded is None:
            loaded = await self.states.at(game_id, version)
        if reveal and loaded.row.status != "finished":
            raise NotRevealedYet("hidden information is revealed when the game ends")
        shown = document(loaded, viewer, await self.seats.table(game_id))
        if reveal:
            shown.revealed_state = msgspec.to_builtins(loaded.state)
        return shown

    # --- what happened ------------------------------------------------------------------------
    async def history(
        self,
        game_id: str,
        viewer: Seat | None,
        after: int,
        limit: int,
        wait: float = 0,
        *,
        narrate: bool = False,
    ) -> History[Any]:
        """The events after *after* (at most *limit*), redacted for *viewer*.  With *wait* (a long
        poll), an answer that would be empty waits up to *wait* seconds for the next event, and
        comes back empty only if none arrives or the game has ended.  A spectator's history (not
        a long poll) may come from the standby: it then ends at the standby's version.  With
        *narrate*, each event is told in a line as well (:mod:`.narration`)."""
        if wait <= 0:
            shown = await from_standby(
                self.standby,
                viewer,
                lambda store: self._history(store, game_id, viewer, after, limit, narrate=narrate),
            )
            if shown is not None:
                return shown
        return await self._history(self.store, game_id, viewer, after, limit, wait, narrate=narrate)

    async def _history(
        self,
        store: EventStore,
        game_id: str,
        viewer: Seat | None,
        after: int,
        limit: int,
        wait: float = 0,
        *,
        narrate: bool = False,
    ) -> History[Any]:
        row = await self.states.row(game_id, store)
        _, codec = self.titles[row.kind]
        events = await store.events(game_id, after=after, limit=limit)
        if not events and wait > 0 and row.status != "finished":
            deadline = asyncio.get_running_loop().time() + wait
            while not events:
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    break
                await self._news(game_id, after, left)
                if self.stopping:
                    break  # answered now with what it has (nothing): the client asks the next server
                events = await self.store.events(game_id, after=after, limit=limit)
            row = await self.store.get_game(game_id) or row
        revealed = row.status == "finished"
        teller = None
        if narrate and events:
            game, _ = self.titles[row.kind]
            teller = await narrator(store, game_id, game, codec, row.options, events[0].seq - 1)
        return History(
            version=row.version,
            events=[envelope(codec, e, viewer, revealed, narrator=teller) for e in events],
            next_after=events[-1].seq if events and events[-1].seq < row.version else None,
        )

    async def follow(
        self,
        game_id: str,
        viewer: Seat | None,
        after: int,
        idle: float = HEARTBEAT_SECONDS,
        *,
        narrate: bool = False,
    ) -> AsyncIterator[Batch]:
        """Batches of new events as they are appended (for the SSE stream), with whether the game
        has finished; ends with the game.  The first batch comes at once (an unknown game is
        refused before a stream starts); after it, an empty batch means *idle* seconds passed
        with nothing new (time for a heartbeat).  While the game waits for players, a batch also
        carries the table when a seat is claimed (claims are not events).  With *narrate*, each
        event is told in a line as well (one narrator follows the game along the stream)."""
        row = await self.states.row(game_id)
        game, codec = self.titles[row.kind]
        teller = None
        clock = asyncio.get_running_loop().time
        first = True
        quiet_since = clock()
        table_seen: Table | None = None
        while True:
            # The row first: a game it shows finished has all its events in the read that follows
            # (read the other way round, the last move could commit in between, and the feed end
            # without its last events).
            row = await self.store.get_game(game_id) or row
            events = await self.store.events(game_id, after=after, limit=STREAM_BATCH)
            finished = row.status == "finished" and (not events or events[-1].seq >= row.version)
            table = None
            if row.status == "open" or (table_seen is not None and table_seen.status == "open"):
                now = Table(status=row.status, seats=await self.seats.table(game_id))
                if now != table_seen:
                    table = table_seen = now
            if events or table is not None:
                if narrate and events and teller is None:
                    teller = await narrator(self.store, game_id, game, codec, row.options, events[0].seq - 1)
                shown = [envelope(codec, e, viewer, finished, narrator=teller) for e in events]
                if events:
                    after = events[-1].seq
                yield Batch(finished, shown, table)
                first, quiet_since = False, clock()
                if len(events) == STREAM_BATCH:
                    continue  # more are waiting
                if finished:
                    return  # the last events of a finished game: nothing will follow
            elif finished:
                return
            elif first or clock() - quiet_since >= idle:
                yield Batch(False, [])
                first, quiet_since = False, clock()
            await self._news(game_id, after, max(0.01, idle - (clock() - quiet_since)))
            if self.stopping:
                return  # not finished: the stream tells the client to reconnect

    async def _news(self, game_id: str, after: int, timeout: float = STREAM_POLL_SECONDS) -> None:
        """Until the game may have moved past *after*: a notice (or a dropped board, or *timeout*)
        with the board; a quarter of a second without it; not at all once the server is stopping."""
        if self.stopping:
            return
        board = self.states.board
        if board is None or not board.live:
            await asyncio.sleep(min(timeout, 0.25))
            return
        board.drain()
        if board.announced.get(game_id, -1) > after:
            return
        await board.wait(game_id, min(timeout, STREAM_POLL_SECONDS))

    # --- games and titles ---------------------------------------------------------------------
    async def games(
        self,
        kind: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        seen: Listing = PUBLIC_ONLY,
    ) -> GameList:
        """Games by kind and status, newest first, *limit* at a time (keyset *cursor*): the public
        ones, and those the caller may see besides (*seen*: :meth:`Identity.listing`)."""
        rows = await self.store.list_games(
            kind,
            status,
            _decode_cursor(cursor),
            limit + 1,
            app_id=seen.app_id,
            whole_app=seen.whole_app,
            player_id=seen.player_id,
        )
        more = len(rows) > limit
        rows = rows[:limit]
        summaries = []
        for row in rows:
            open_seats: list[int] = []
            bot_seats: dict[str, str] = {}
            if row.status == "open":
                table = await self.store.seats(row.game_id)
                open_seats = [s for s, h, _ in table if h is None]
                bot_seats = {str(s): b for s, _, b in table if b is not None}
            summaries.append(
                GameSummary(
                    game_id=row.game_id,
                    kind=row.kind,
                    status=row.status,
                    players=row.players,
                    open_seats=open_seats,
                    version=row.version,
                    created_at=row.created_at.isoformat(),
                    options=msgspec.json.decode(row.options),
                    bots=bot_seats,
                    visibility=visibility_of(row.visibility),
                )
            )
        next_cursor = f"{rows[-1].created_at.isoformat()}~{rows[-1].game_id}" if more and rows else None
        return GameList(games=summaries, next_cursor=next_cursor)

    def catalogue(self) -> Catalogue:
        return Catalogue(
            games=[
                CatalogueEntry(
                    kind=g.kind,
                    title=g.title,
                    summary=g.summary,
                    rules_version=g.rules_version,
                    player_counts=list(g.player_counts),
                    options_schema=msgspec.json.schema(g.options_type),
                    variants=dict(g.variants),
                    bot_levels=list(bots.levels(g)),
                    moves=move_descriptions(g),
                    option_labels=option_labels(msgspec.json.schema(g.options_type)),
                )
                for g in self.titles
            ]
        )

    def components(self, kind: str) -> dict[str, Any]:
        """A title's component data for rendering (assumed values marked)."""
        game, _ = self.titles[kind]
        data: dict[str, Any] = msgspec.to_builtins(game.components())
        return data


def move_descriptions(game: Game) -> dict[str, str]:
    """What each command a seat of *game* may send does (its docstring), by its ``type``."""
    return {
        tag_of(t): inspect.cleandoc(doc) for t in game.command_types if (doc := t.__dict__.get("__doc__"))
    }


def _reached(version: int, min_version: int | None) -> None:
    """Refuse a read from Postgres (the primary, where every acknowledged move is) older than a
    version the caller says it has seen: answering the older one would hide that the caller's
    version is not this game's (or was lost with a failed primary)."""
    if min_version is not None and version < min_version:
        raise VersionNotReached(min_version, version)


def _decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    try:
        stamp, _, game_id = cursor.partition("~")
        if not game_id.isascii() or not game_id.replace("_", "").isalnum():
            raise ValueError(game_id)
        return datetime.fromisoformat(stamp), game_id
    except ValueError:
        raise InvalidCursor("the cursor is not one this API returned") from None

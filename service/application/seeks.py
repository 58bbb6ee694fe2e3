"""Seeks: a player asks for a game of a title, and the matcher forms games from compatible seeks.

A seek names the title (``kind``), the player counts it accepts, constraints on the title's options
(each key one of the title's options, with the values acceptable for it), rated or casual, and
optionally ``bots_after``: seconds after which the service's bots fill the seats nobody took.  A
player has at most one open seek per title.  Seeks are matched within a *pool*: the players of one
app (the game is the app's, counted against its limits, as visible as the app says), or the guests.

**The matcher** (:meth:`Seeks.match`) is a job, one at a time per pool and title
(``yamen.match``), asked for by every new seek, by itself at the moment a waiting seek's rating
window widens or its bots become due, and by the periodic sweep (which also expires old seeks).
Its decisions are :mod:`.matching`'s; the transaction is :mod:`service.infra.seek_store`'s: the
seekers' rows are locked with ``SKIP LOCKED`` (several matchers, on any worker or replica, never
hold the same player), the games are inserted and the seeks marked matched in the same
transaction — a crash leaves either everything or nothing — and every other open seek of a matched
player is withdrawn with it.  The game's id is derived from its seeks' ids.

**Telling the seekers**, after the commit: the seek's long poll (``GET /v1/seeks/{id}?wait=``) wakes
on the notice board (``<seek_id> 1``), the app's webhook endpoints get ``seek.matched`` from the
game's webhook pump (:mod:`.webhooks`), and the game is in the player's ``GET /v1/me/games``.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import structlog
from msgspec import Meta

from domain.kernel import RuleViolation, bots
from domain.kernel.table import table_options

from ..codec import json_encoder
from ..infra.notices import NoticeBoard
from ..infra.seek_store import SeekRow, SeekStore, SeekTaken
from ..record.chain import timestamp
from .apps import Apps
from .clock import Clock, record_time, utcnow
from .errors import ApplicationError, InvalidCursor, InvalidSeek, SeekClosed, SeekExists, SeekNotFound
from .identity import PlayerCaller
from .matching import Candidate, next_due, plan
from .rating_model import NEW_PLAYER, display
from .seats import SeatedGame, Seats
from .titles import Titles

if TYPE_CHECKING:
    from ..infra.jobs import JobQueue

log = structlog.get_logger("yamen.seeks")

GUESTS = "guests"
"""The pool of the guests (players no app vouches for)."""
SEEK_SECONDS = 3600
"""How long a seek stays open by default (``expires_in``)."""
MATCH_BATCH = 500
"""The oldest open seeks a matcher step looks at (their players' other seeks come along)."""
MAX_STEPS = 20
"""Steps one matcher job takes at most (then it makes way; the next seek or the sweep asks again)."""
POLL_SECONDS = 0.25
"""How often a long poll re-reads its seek when no notice board wakes it."""


def seek_game_id(seek_ids: list[str]) -> str:
    """The id of the game formed from *seek_ids*: derived from them, so the same seeks can only ever
    make one game (the games' primary key would refuse a second)."""
    return "g_" + hashlib.sha256(("seeks/" + ",".join(sorted(seek_ids))).encode()).hexdigest()[:20]


def new_seek_id() -> str:
    return "s_" + secrets.token_hex(10)


# --- what the API accepts and answers ---------------------------------------------------------------
Kind = Annotated[str, Meta(min_length=1, max_length=64, pattern="^[a-z0-9_-]+$")]
OptionKey = Annotated[str, Meta(min_length=1, max_length=64)]
Values = Annotated[list[Any], Meta(min_length=1, max_length=16)]


class SeekRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A seek: the game a player wants."""

    kind: Kind
    """The title (``/v1/catalogue``)."""
    players: Annotated[list[Annotated[int, Meta(ge=2, le=16)]], Meta(min_length=1, max_length=16)] | None = (
        None
    )
    """The player counts acceptable (each one the title is played by); omitted: every count of 2 or
    more the title has."""
    options: Annotated[dict[OptionKey, Values], Meta(max_length=16)] = {}
    """Constraints on the title's options: option key -> the values acceptable, in the order
    preferred (e.g. ``{"table": [{"clock": {"mode": "decision", "seconds": 60}}]}``). Keys are the
    title's options (its ``options_schema`` in the catalogue) other than ``players``; an option not
    named here takes any value another seeker asks for, else the title's default."""
    rated: bool = False
    """Rated or casual: a seek is only matched with seeks of the same kind."""
    bots_after: Annotated[int, Meta(ge=0, le=86_400)] | None = None
    """Seconds after which, with nobody to play, the service's bots fill the seats of a game of the
    smallest count acceptable (null: wait for people only)."""
    bot_level: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    """The bots' level (the catalogue's ``bot_levels``); omitted: the title's strongest."""
    expires_in: Annotated[int, Meta(ge=10, le=86_400)] = SEEK_SECONDS
    """Seconds the seek stays open unless matched or cancelled."""


class SeekLinks(msgspec.Struct, kw_only=True, omit_defaults=True):
    seek: str
    game: str | None = None
    """Once matched: the game (the player acts there with its own credential)."""
    seat_token: str | None = None
    """Once matched: ``POST`` here for a seat token of the player's seat (shown once), for a client
    that plays with seat tokens."""


class Seek(msgspec.Struct, kw_only=True):
    seek_id: str
    kind: str
    status: str
    """``open``, ``matched``, ``cancelled`` or ``expired``."""
    players: list[int]
    options: dict[str, list[Any]]
    rated: bool
    rating: float
    """The player's rating of the title when it sought (the matcher's window is around it)."""
    bots_after: int | None
    bot_level: str | None
    created_at: str
    expires_at: str
    closed_at: str | None = None
    closed_reason: str | None = None
    """Why a seek was cancelled: ``by_player``, or ``matched_elsewhere`` (another seek of the player was
    matched: a player is put in one game at a time by its seeks)."""
    game_id: str | None = None
    """Once matched: the game formed (it has started, with the seekers seated)."""
    seat: int | None = None
    """Once matched: the player's seat there."""
    links: SeekLinks


class SeekList(msgspec.Struct, kw_only=True):
    seeks: list[Seek]
    next_cursor: str | None = None
    """Pass as ``cursor`` for the next page; null on the last one."""


def _document(row: SeekRow) -> Seek:
    path = f"/v1/seeks/{row.seek_id}"
    game = f"/v1/games/{row.game_id}" if row.game_id else None
    return Seek(
        seek_id=row.seek_id,
        kind=row.kind,
        status=row.status,
        players=row.counts,
        options=row.constraints,
        rated=row.rated,
        rating=row.rating,
        bots_after=row.bots_after,
        bot_level=row.bot_level,
        created_at=timestamp(row.created_at),
        expires_at=timestamp(row.expires_at),
        closed_at=timestamp(row.closed_at) if row.closed_at else None,
        closed_reason=row.closed_reason,
        game_id=row.game_id,
        seat=row.seat,
        links=SeekLinks(
            seek=path,
            game=game,
            seat_token=f"{game}/seats/{row.seat}/token" if game and row.seat is not None else None,
        ),
    )


def _candidate(row: SeekRow, now: datetime) -> Candidate:
    return Candidate(
        seek_id=row.seek_id,
        player_id=row.player_id,
        counts=tuple(sorted(row.counts)),
        constraints={
            key: tuple(json_encoder.encode(v).decode() for v in values)
            for key, values in row.constraints.items()
        },
        rated=row.rated,
        rating=row.rating,
        waited=(now - row.created_at).total_seconds(),
        bots_after=row.bots_after,
        bot_level=row.bot_level,
    )


class Seeks:
    """Seeks and the matcher (see the module docstring)."""

    def __init__(
        self,
        titles: Titles,
        store: SeekStore,
        seats: Seats,
        apps: Apps,
        clock: Clock = utcnow,
        *,
        board: NoticeBoard | None = None,
        announce: Callable[[str, int], Awaitable[None]] | None = None,
        stopping: Callable[[], bool] = lambda: False,
        queue: JobQueue | None = None,
    ) -> None:
        self.titles = titles
        self.store = store
        self.seats = seats
        self.apps = apps
        self.clock = clock
        self.queue = queue
        """The job queue; without one the matcher runs only when called."""
        self.board = board
        """The notice board: long polls wait for its notices."""
        self.announce = announce
        """Posts ``<seek_id> 1`` to every worker (the snapshot cache's ``announce``)."""
        self.stopping = stopping
        """True once the server is stopping: long polls answer at once (``Reads.stopping``)."""

    # --- a player's seeks ---------------------------------------------------------------------------
    async def create(self, caller: PlayerCaller, request: SeekRequest) -> Seek:
        game, _ = self.titles[request.kind]
        counts = sorted(set(request.players or [c for c in game.player_counts if c >= 2]))
        if not counts or any(c not in game.player_counts or c < 2 for c in counts):
            playable = ", ".join(str(c) for c in game.player_counts if c >= 2)
            raise InvalidSeek(f"players: {game.title} is sought for {playable} players")
        constraints = _constraints(game, request.options)
        level = request.bot_level or bots.levels(game)[-1]
        try:
            bots.strategy(game, level)
        except RuleViolation:
            raise InvalidSeek(
                f"bot_level: {game.kind} has no bot level {level!r}; levels: {', '.join(bots.levels(game))}"
            ) from None
        rating = await self.store.rating(caller.player_id, request.kind)
        now = record_time(self.clock)
        row = SeekRow(
            seek_id=new_seek_id(),
            player_id=caller.player_id,
            app_id=caller.app_id,
            pool=caller.app_id or GUESTS,
            kind=request.kind,
            counts=counts,
            constraints=constraints,
            rated=request.rated,
            rating=rating if rating is not None else display(NEW_PLAYER),
            bots_after=request.bots_after,
            bot_level=level if request.bots_after is not None else None,
            created_at=now,
            expires_at=now + timedelta(seconds=request.expires_in),
            status="open",
        )
        try:
            await self.store.create(row)
        except SeekTaken:
            taken = await self.store.open_seek_of(caller.player_id, request.kind)
            raise SeekExists(
                f"this player has an open seek for {request.kind} already ({taken}): cancel it first",
            ) from None
        await self.request(row.pool, row.kind)
        return _document(row)

    async def get(self, caller: PlayerCaller, seek_id: str, wait: float = 0) -> Seek:
        """The player's seek; with *wait*, an open seek is held up to *wait* seconds until it is
        matched, cancelled or expires (a long poll)."""
        row = await self._own(caller, seek_id)
        if wait > 0 and row.status == "open":
            loop = asyncio.get_running_loop()
            deadline = loop.time() + wait
            while row.status == "open" and not self.stopping():
                left = deadline - loop.time()
                if left <= 0:
                    break
                await self._news(seek_id, left)
                row = await self._own(caller, seek_id)
        return _document(row)

    async def _news(self, seek_id: str, timeout: float) -> None:
        board = self.board
        if board is None or not board.live:
            await asyncio.sleep(min(timeout, POLL_SECONDS))
            return
        board.drain()
        await board.wait(seek_id, timeout)

    async def cancel(self, caller: PlayerCaller, seek_id: str) -> Seek:
        """Cancel the player's open seek (:class:`SeekClosed` once it was matched or has ended)."""
        row = await self.store.cancel(seek_id, caller.player_id, record_time(self.clock))
        if row is None:
            raise SeekNotFound(f"this player has no seek {seek_id}")
        if row.closed_reason != "by_player" or row.status != "cancelled":
            where = f": it is in game {row.game_id}" if row.game_id else ""
            raise SeekClosed(f"seek {seek_id} is {row.status}{where}")
        await self._tell([seek_id])
        return _document(row)

    async def mine(
        self, caller: PlayerCaller, status: str | None, cursor: str | None, limit: int
    ) -> SeekList:
        rows = await self.store.of_player(
            caller.player_id, status=status, before=_decode_cursor(cursor), limit=limit + 1
        )
        page = rows[:limit]
        more = len(rows) > limit
        return SeekList(
            seeks=[_document(r) for r in page],
            next_cursor=_cursor(page[-1]) if more and page else None,
        )

    async def _own(self, caller: PlayerCaller, seek_id: str) -> SeekRow:
        row = await self.store.get(seek_id)
        if row is None or row.player_id != caller.player_id:
            raise SeekNotFound(f"this player has no seek {seek_id}")
        return row

    async def matched_seeks(self, game_id: str) -> list[tuple[str, str, int]]:
        """(seek id, player id, seat) of the seeks *game_id* was formed from (the webhook pump)."""
        return [
            (r.seek_id, r.player_id, r.seat if r.seat is not None else -1)
            for r in await self.store.of_game(game_id)
        ]

    # --- the matcher ------------------------------------------------------------------------------
    async def request(self, pool: str, kind: str, delay: float | None = None) -> None:
        """Ask for the matcher of *pool* and *kind* (in *delay* seconds); a lost request is the sweep's."""
        if self.queue is None:
            return
        try:
            await self.queue.match(pool, kind, delay=delay)
        except Exception as exc:  # noqa: BLE001 - the sweep asks again
            log.warning("matcher_not_queued", pool=pool, kind=kind, error=str(exc))

    async def match(self, pool: str, kind: str) -> int:
        """(A job.) Form every game the pool's open seeks of *kind* allow now; returns the games formed.
        A step looks at the oldest :data:`MATCH_BATCH` seeks: while a full batch forms games, the
        next step looks at the seeks after them at once."""
        formed = 0
        for _ in range(MAX_STEPS):
            made, full = await self._step(pool, kind)
            formed += made
            if not (made and full):
                break
        else:
            await self.request(pool, kind)  # more to do: after the other pools' turn
        return formed

    async def _step(self, pool: str, kind: str) -> tuple[int, bool]:
        """One matcher transaction: (games formed, whether it looked at a full batch)."""
        now = record_time(self.clock)
        formed: list[SeatedGame] = []
        told: list[str] = []
        undo: list[Callable[[], Awaitable[None]]] = []
        app_id = None if pool == GUESTS else pool
        try:
            async with self.store.matching(pool, kind) as step:
                rows = await step.open_seeks(MATCH_BATCH)
                full = len(rows) >= MATCH_BATCH
                candidates = [_candidate(r, now) for r in rows]
                tables = plan(candidates)
                due = next_due(candidates, tables)
                visibility = await self._visibility(app_id) if tables else "public"
                for table in tables:
                    seats = list(range(table.players))
                    secrets.SystemRandom().shuffle(seats)
                    ids = [s.seek_id for s in table.seeks]
                    level = table.bot_level or bots.levels(self.titles[kind][0])[-1]
                    options: dict[str, Any] = {k: msgspec.json.decode(v) for k, v in table.options.items()}
                    options["players"] = table.players
                    try:
                        seated = self.seats.seated(
                            kind,
                            options,
                            {seat: s.player_id for seat, s in zip(seats, table.seeks, strict=False)},
                            dict.fromkeys(seats[len(table.seeks) :], level),
                            game_id=seek_game_id(ids),
                            app_id=app_id,
                            visibility=visibility,
                            rated=table.seeks[0].rated,
                        )
                        if app_id is not None and self.seats.count_new_game is not None:
                            undo.append(await self.seats.count_new_game(app_id))
                    except (RuleViolation, ApplicationError) as refused:
                        log.warning("seek_table_refused", pool=pool, kind=kind, seeks=ids, why=str(refused))
                        continue
                    row = seated.row
                    await step.create_game(
                        row, seated.hashes, seated.events, seated.bots, seated.players, seated.to_act
                    )
                    await step.matched(row.game_id, dict(zip(ids, seats, strict=False)), now)
                    formed.append(seated)
                    told += ids
                told += await step.withdraw_others(list(told), now)
        except BaseException:
            for undo_one in undo:
                try:
                    await undo_one()
                except Exception as exc:  # noqa: BLE001 - a count left too high is corrected tomorrow
                    log.warning("game_count_not_undone", app_id=app_id, error=str(exc))
            raise
        for seated in formed:
            try:
                await self.seats.opened(seated)
            except Exception as exc:  # noqa: BLE001 - the game is stored; the sweeps start its bots
                log.warning("matched_game_not_announced", game_id=seated.row.game_id, error=str(exc))
        await self._tell(told)
        if formed:
            log.info("seeks_matched", pool=pool, kind=kind, games=[s.row.game_id for s in formed])
        if due is not None and not full:
            await self.request(pool, kind, delay=due)
        return len(formed), full

    async def _visibility(self, app_id: str | None) -> str:
        if app_id is None:
            return "public"
        return (await self.apps.app_limits(app_id)).default_visibility

    async def _tell(self, seek_ids: list[str]) -> None:
        """Wake every worker's long polls of *seek_ids*."""
        if self.announce is None:
            return
        for seek_id in seek_ids:
            try:
                await self.announce(seek_id, 1)
            except Exception as exc:  # noqa: BLE001 - the long poll re-reads within its wait anyway
                log.warning("seek_notice_failed", seek_id=seek_id, error=str(exc))

    async def sweep(self) -> None:
        """(The periodic sweep.) Expire the seeks past their time and run the matcher of every pool
        with open seeks (a request lost with its worker, a window widened, bots due)."""
        expired = await self.store.expire(record_time(self.clock))
        await self._tell(expired)
        for pool, kind in await self.store.open_pools():
            await self.request(pool, kind)


def _constraints(game: Any, options: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """*options* checked against the title's options and written canonically (each value as the
    title's option type writes it back, duplicates dropped); :class:`InvalidSeek` otherwise."""
    fields = [f.name for f in msgspec.structs.fields(game.options_type) if f.name != "players"]
    out: dict[str, list[Any]] = {}
    for key, values in options.items():
        if key == "players":
            raise InvalidSeek("options: the player counts are the seek's own `players`, not an option")
        if key not in fields:
            raise InvalidSeek(
                f"options: {game.title} has no option {key!r}; its options: {', '.join(fields)}"
            )
        canonical: list[Any] = []
        for value in values:
            try:
                decoded = msgspec.convert({key: value}, game.options_type)
            except msgspec.ValidationError as exc:
                raise InvalidSeek(
                    f"options.{key}: {json_encoder.encode(value).decode()} is refused: {exc}"
                ) from None
            if key == "table" and table_options(decoded).takebacks == "free":
                raise InvalidSeek("options.table: free take-backs are for solo and hot-seat games, not seeks")
            written = msgspec.to_builtins(getattr(decoded, key))
            if written not in canonical:
                canonical.append(written)
        out[key] = canonical
    return out


def _cursor(row: SeekRow) -> str:
    """A keyset cursor with nothing to escape in a query string (microseconds, UTC written ``Z``)."""
    return f"{row.created_at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')}~{row.seek_id}"


def _decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    try:
        stamp, _, seek_id = cursor.partition("~")
        if not seek_id.startswith("s_") or not seek_id[2:].isalnum() or not seek_id.isascii():
            raise ValueError(seek_id)
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")), seek_id
    except ValueError:
        raise InvalidCursor("the cursor is not one this API returned") from None

"""Ratings and leaderboards: a projection of the finished rated games' records (``docs/ratings.md``).

**Which games are rated.**  A game asked to be rated at create (``"rated": true``, or a seek's game)
is rated when it finishes if every seat is then held by a distinct player or by a bot
(:func:`eligibility`); otherwise it ends unrated, and the reason is recorded.  A game whose creator
took seats at create is never rated (one app or player cannot farm rating by playing its own
seats), nor is an imported game, unless an operator binds its seats and asks for it
(``yamen ratings rate-import``).

**Applying.**  A game that finishes asks for the ``yamen.rate_game`` job (:meth:`Ratings.finished`);
the job queue's periodic sweep asks again for every rated game finished lately and never applied,
so a worker killed between the last move's commit and the request loses nothing.  The job folds the
game to its outcome, ranks the seats by it (players replaced by a bot rank as the outcome ranks
them) and applies the change in one transaction (:meth:`RatingsStore.settle`), at most once.

**Rebuild.**  :meth:`Ratings.rebuild` folds every rated game's recorded events again, in the
recorded application order, with the same arithmetic (:mod:`.rating_model`), and either writes the
result in place of the live tables or (``check``) compares it with them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import structlog

from domain.kernel.bots import levels as bot_levels

from ..infra.ratings_store import ChangeRow, GameToRate, RatingRow, RatingsStore
from ..record.chain import timestamp
from .clock import Clock, utcnow
from .documents import GameRatings, SeatRating
from .errors import (
    GameNotFound,
    InvalidCursor,
    InvalidSeat,
    NotOnLeaderboard,
    PlayerNotFound,
    UnknownBotLevel,
)
from .hooks import GameHooks
from .rating_model import NEW_PLAYER, PROVISIONAL_GAMES, Belief, SeatStanding, anchor, display, update
from .states import States
from .titles import Titles

if TYPE_CHECKING:
    from ..infra.jobs import JobQueue
    from ..infra.players_store import PlayerStore

log = structlog.get_logger("yamen.ratings")

SWEEP_WINDOW = timedelta(days=7)
"""The sweep looks at rated games finished this recently: one whose job was lost is found on the
next sweep, long before."""
SETTLED_GAMES = 50_000
"""Games whose settled ratings (or the fact that they were never rated) a worker remembers: they
never change once settled."""
NEIGHBOURS = 5


# --- what the API answers -------------------------------------------------------------------------
class TitleRating(msgspec.Struct, kw_only=True):
    kind: str
    rating: int
    """The displayed rating: ``1000 + 40 * (mu - 3 sigma)``, rounded (docs/ratings.md)."""
    mu: float
    sigma: float
    games: int
    """Rated games played in this title."""
    provisional: bool
    """Fewer than ``established_games`` rated games: not on the leaderboard yet."""


class RatingChange(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    seat: int
    rank: int
    """The player's place in the game's outcome."""
    rating_before: int
    rating_after: int
    delta: int
    mu: float
    """After the game."""
    sigma: float
    games: int
    """The player's rated games in the title, this one included."""
    provisional: bool
    applied_at: str
    game: str
    """The game (a path)."""


class PlayerRatings(msgspec.Struct, kw_only=True):
    player_id: str
    established_games: int
    """Rated games a title's rating needs to be established (before: provisional)."""
    ratings: list[TitleRating]
    """One per title the player has a rated game in."""
    history: list[RatingChange]
    """The player's rating changes, newest first (a page)."""
    next_cursor: str | None = None


class LeaderboardEntry(msgspec.Struct, kw_only=True):
    rank: int
    """1 for the best; players with the same rating are ordered by player id."""
    player_id: str
    display_name: str | None
    rating: int
    mu: float
    sigma: float
    games: int


class Leaderboard(msgspec.Struct, kw_only=True):
    kind: str
    established_games: int
    """Only players with at least this many rated games in the title are on the board."""
    entries: list[LeaderboardEntry]
    next_cursor: str | None = None


class AroundPlayer(msgspec.Struct, kw_only=True):
    kind: str
    established_games: int
    player: LeaderboardEntry
    """The player's own place."""
    entries: list[LeaderboardEntry]
    """The neighbours above, the player, and the neighbours below, best first."""


class RebuildReport(msgspec.Struct, kw_only=True):
    games: int
    """Rated games replayed."""
    ratings: int
    changes: int
    differences: list[str]
    """With ``check``: how the live tables differ from the rebuilt ones (empty: identical)."""
    written: bool


Neighbours = Annotated[int, msgspec.Meta(ge=0, le=50)]


# --- the rules ------------------------------------------------------------------------------------
def eligibility(game: GameToRate) -> str | None:
    """Why a finished game asked to be rated ends unrated; None when it is rated."""
    if game.unrated_reason is not None:
        return game.unrated_reason
    players = [player for _, player, _, _ in game.seats if player is not None]
    if any(player is None and bot is None for _, player, bot, _ in game.seats):
        return "seat_without_player"
    if len(set(players)) != len(players):
        return "player_holds_several_seats"
    if not players:
        return "no_players"
    return None


def changes_for(
    game_id: str,
    kind: str,
    seats: list[tuple[int, str | None, str | None]],
    ranks: dict[int, int],
    before: dict[str, tuple[float, float, int]],
    position: int,
    now: datetime,
) -> list[ChangeRow]:
    """Every seat's change in a rated game: *before* holds each player's (mu, sigma, games), a
    player with no games yet starting from the model's prior.  The one computation the live
    application and the rebuild share."""
    standings = []
    for seat, player, bot in seats:
        if player is not None:
            mu, sigma, games = before.get(player, (0.0, 0.0, 0))
            belief = NEW_PLAYER if games == 0 else Belief(mu, sigma)
            standings.append(SeatStanding(seat, ranks[seat], belief))
        else:
            standings.append(SeatStanding(seat, ranks[seat], anchor(bot or ""), anchor=True))
    after = update(standings)
    changes = []
    for (seat, player, bot), standing, new in zip(seats, standings, after, strict=True):
        games = before.get(player, (0.0, 0.0, 0))[2] + 1 if player is not None else 0
        changes.append(
            ChangeRow(
                game_id=game_id,
                seat=seat,
                player_id=player,
                bot=None if player is not None else bot,
                kind=kind,
                position=position,
                rank=standing.rank,
                mu_before=standing.belief.mu,
                sigma_before=standing.belief.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                rating_before=display(standing.belief),
                rating_after=display(new),
                games_after=games,
                applied_at=now,
            )
        )
    return changes


def _shown(value: float) -> int:
    return round(value)


def _seat_rating(change: ChangeRow) -> SeatRating:
    before, after = _shown(change.rating_before), _shown(change.rating_after)
    return SeatRating(
        seat=change.seat,
        player_id=change.player_id,
        bot=change.bot,
        rank=change.rank,
        rating_before=before,
        rating_after=after,
        delta=after - before,
        provisional=change.player_id is not None and change.games_after < PROVISIONAL_GAMES,
        games=change.games_after,
    )


def _entry(rank: int, row: RatingRow, name: str | None) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank,
        player_id=row.player_id,
        display_name=name,
        rating=_shown(row.rating),
        mu=row.mu,
        sigma=row.sigma,
        games=row.games,
    )


def _board_cursor(row: RatingRow, rank: int) -> str:
    return f"{row.rating!r}~{rank}~{row.player_id}"


def _decode_board_cursor(cursor: str | None) -> tuple[float, str, int] | None:
    if cursor is None:
        return None
    try:
        rating, rank, player_id = cursor.split("~", 2)
        if not (player_id.startswith("p_") and player_id[2:].isascii() and player_id[2:].isalnum()):
            raise ValueError(player_id)
        if not (rank.isascii() and rank.isdecimal() and len(rank) < 12):
            raise ValueError(rank)
        value = float(rating)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(rating)
        return value, player_id, int(rank)
    except ValueError:
        raise InvalidCursor("the cursor is not one this API returned") from None


def _decode_history_cursor(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    if not (cursor.isascii() and cursor.isdecimal() and 0 < len(cursor) < 19):
        raise InvalidCursor("the cursor is not one this API returned")
    return int(cursor)


class Ratings:
    """Applying rated games, the sweep, the reads and the rebuild (see the module docstring)."""

    def __init__(
        self,
        titles: Titles,
        states: States,
        store: RatingsStore,
        players: PlayerStore,
        clock: Clock = utcnow,
        *,
        hooks: GameHooks | None = None,
        queue: JobQueue | None = None,
    ) -> None:
        self.titles = titles
        self.states = states
        self.store = store
        self.players = players
        self.clock = clock
        self.queue = queue
        """The job queue; without one, nothing is applied but by hand."""
        self.hooks = hooks if hooks is not None else GameHooks()
        """Told of each game whose rating is settled (rated: its ``game.finished`` webhook waits for
        the change); asked for one by each finished game (finished)."""
        self.hooks.on_finished(self.finished)
        self._settled: OrderedDict[str, GameRatings | None] = OrderedDict()
        self._asking: set[asyncio.Task[None]] = set()

    # --- applying -----------------------------------------------------------------------------------
    def finished(self, game_id: str) -> None:
        """A game has just finished: ask for its rating job (in the background; a request lost with
        its worker is the sweep's to repeat).  An unrated game's job finds nothing to do."""
        if self.queue is None:
            return
        task = asyncio.get_running_loop().create_task(self._ask(game_id))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask(self, game_id: str) -> None:
        try:
            if self.queue is not None:
                await self.queue.rate_game(game_id)
        except Exception as exc:  # noqa: BLE001 - the sweep asks again
            log.warning("rating_not_queued", game_id=game_id, error=str(exc))

    async def close(self) -> None:
        for task in list(self._asking):
            task.cancel()

    async def apply(self, game_id: str) -> GameRatings | None:
        """(A job.) Settle a finished game asked to be rated: apply its change once, or record why
        it ended unrated.  Returns what it settled (None: nothing to do, or done before)."""
        game = await self.store.game(game_id)
        if game is None or not game.rated or game.settled or game.status != "finished":
            return None
        now = self.clock()
        reason = eligibility(game)
        if reason is not None:
            if not await self.store.settle_unrated(game_id, game.kind, reason, now):
                return None
            log.info("game_unrated", game_id=game_id, reason=reason)
            return self._settle(game_id, GameRatings(rated=False, reason=reason))
        ranks = await self._ranks(game_id)
        seats = [(seat, player, bot) for seat, player, bot, _ in game.seats]
        changes = await self.store.settle(
            game_id,
            game.kind,
            [player for _, player, _ in seats if player is not None],
            lambda before, position: changes_for(game_id, game.kind, seats, ranks, before, position, now),
            now,
        )
        if changes is None:
            return None
        log.info("game_rated", game_id=game_id, position=changes[0].position)
        return self._settle(game_id, GameRatings(rated=True, seats=[_seat_rating(c) for c in changes]))

    def _settle(self, game_id: str, ratings: GameRatings) -> GameRatings:
        self._remember(game_id, ratings)
        self.hooks.rated(game_id)
        return ratings

    async def _ranks(self, game_id: str, version: int | None = None) -> dict[int, int]:
        """The seats' places in the game's outcome, folded from its recorded events."""
        if version is None:
            version = (await self.states.row(game_id)).version
        loaded = await self.states.at(game_id, version)
        outcome = loaded.game.outcome(loaded.state)
        if outcome is None:
            raise RuntimeError(f"{game_id} is recorded finished but its events fold to no outcome")
        return {score.seat: score.rank for score in outcome.scores}

    async def sweep(self) -> None:
        """(The job queue's periodic sweep.)  Ask for the job of every rated game finished lately and
        never settled."""
        if self.queue is None:
            return
        for game_id in await self.store.unsettled(self.clock() - SWEEP_WINDOW):
            await self.queue.rate_game(game_id)

    async def rate_import(self, game_id: str, players: dict[int, str], bots: dict[int, str]) -> GameRatings:
        """(An operator.) Rate an imported finished game: its seats bound to *players* and *bots*."""
        if set(players) & set(bots):
            raise InvalidSeat("a seat is either a player's or a bot's")
        game = await self.store.game(game_id)
        if game is None:
            raise GameNotFound(f"no game {game_id}")
        seats = {seat for seat, *_ in game.seats}
        missing = sorted((set(players) | set(bots)) - seats)
        if missing:
            raise InvalidSeat(f"{game_id} has seats {sorted(seats)}, not {missing}")
        for player_id in players.values():
            if await self.players.player(player_id) is None:
                raise PlayerNotFound(f"no player {player_id}")
        known = bot_levels(self.titles[game.kind][0])
        for level in bots.values():
            if level not in known:
                raise UnknownBotLevel(f"{game.kind} has no bot {level!r} (its levels: {', '.join(known)})")
        if not await self.store.rate_import(game_id, players, bots):
            raise GameNotFound(f"{game_id} is no imported finished game waiting to be rated")
        settled = await self.apply(game_id)
        if settled is None:  # pragma: no cover - marked rated just now, unsettled
            raise GameNotFound(f"{game_id} could not be rated")
        return settled

    # --- the game's document ------------------------------------------------------------------------
    def _remember(self, game_id: str, ratings: GameRatings | None) -> None:
        self._settled[game_id] = ratings
        self._settled.move_to_end(game_id)
        if len(self._settled) > SETTLED_GAMES:
            self._settled.popitem(last=False)

    async def of_game(self, game_id: str) -> tuple[bool, GameRatings | None]:
        """(pending, ratings) of a finished game: pending while it was asked to be rated and is not
        settled yet; ratings None for a game never asked to be rated."""
        if game_id in self._settled:
            return False, self._settled[game_id]
        found = await self.store.changes_of_game(game_id)
        if found is not None:
            marker, changes = found
            ratings = GameRatings(
                rated=marker.rated, reason=marker.reason, seats=[_seat_rating(c) for c in changes]
            )
            self._remember(game_id, ratings)
            return False, ratings
        game = await self.store.game(game_id)
        if game is None or not game.rated:
            self._remember(game_id, None)
            return False, None
        return True, None

    # --- a player's ratings ---------------------------------------------------------------------------
    async def player(self, player_id: str, kind: str | None, cursor: str | None, limit: int) -> PlayerRatings:
        if kind is not None:
            self.titles[kind]  # UnknownKind
        before = _decode_history_cursor(cursor)
        if await self.players.player(player_id) is None:
            raise PlayerNotFound(f"no player {player_id}")
        ratings = await self.store.ratings_of(player_id, kind)
        changes = await self.store.history(player_id, kind, before, limit + 1)
        page = changes[:limit]
        return PlayerRatings(
            player_id=player_id,
            established_games=PROVISIONAL_GAMES,
            ratings=[
                TitleRating(
                    kind=r.kind,
                    rating=_shown(r.rating),
                    mu=r.mu,
                    sigma=r.sigma,
                    games=r.games,
                    provisional=r.games < PROVISIONAL_GAMES,
                )
                for r in ratings
            ],
            history=[
                RatingChange(
                    game_id=c.game_id,
                    kind=c.kind,
                    seat=c.seat,
                    rank=c.rank,
                    rating_before=_shown(c.rating_before),
                    rating_after=_shown(c.rating_after),
                    delta=_shown(c.rating_after) - _shown(c.rating_before),
                    mu=c.mu_after,
                    sigma=c.sigma_after,
                    games=c.games_after,
                    provisional=c.games_after < PROVISIONAL_GAMES,
                    applied_at=timestamp(c.applied_at),
                    game=f"/v1/games/{c.game_id}",
                )
                for c in page
            ],
            next_cursor=str(page[-1].position) if len(changes) > limit else None,
        )

    # --- leaderboards ---------------------------------------------------------------------------------
    async def board(self, kind: str, cursor: str | None, limit: int) -> Leaderboard:
        """The established players of *kind*, best first, a page at a time."""
        self.titles[kind]  # UnknownKind
        after = _decode_board_cursor(cursor)
        rows = await self.store.top(kind, PROVISIONAL_GAMES, after[:2] if after else None, limit + 1)
        first = after[2] + 1 if after is not None else 1
        entries = [_entry(first + i, row, name) for i, (row, name) in enumerate(rows[:limit])]
        last = rows[limit - 1][0] if len(rows) > limit else None
        return Leaderboard(
            kind=kind,
            established_games=PROVISIONAL_GAMES,
            entries=entries,
            next_cursor=_board_cursor(last, first + limit - 1) if last is not None else None,
        )

    async def around(self, kind: str, player_id: str, neighbours: int = NEIGHBOURS) -> AroundPlayer:
        """*player_id*'s place on the board of *kind* and its neighbours on either side."""
        self.titles[kind]  # UnknownKind
        mine = await self.store.ratings_of(player_id, kind)
        if not mine or mine[0].games < PROVISIONAL_GAMES:
            if await self.players.player(player_id) is None:
                raise PlayerNotFound(f"no player {player_id}")
            raise NotOnLeaderboard(
                f"{player_id} is not on the {kind} leaderboard: it takes {PROVISIONAL_GAMES} rated games"
            )
        me = mine[0]
        rank = 1 + await self.store.above(kind, PROVISIONAL_GAMES, me.rating, player_id)
        above = await self.store.before(kind, PROVISIONAL_GAMES, (me.rating, player_id), neighbours)
        below = await self.store.top(kind, PROVISIONAL_GAMES, (me.rating, player_id), neighbours)
        player = await self.players.player(player_id)
        own = _entry(rank, me, player.display_name if player else None)
        entries = [
            *(_entry(rank - 1 - i, row, name) for i, (row, name) in reversed(list(enumerate(above)))),
            own,
            *(_entry(rank + 1 + i, row, name) for i, (row, name) in enumerate(below)),
        ]
        return AroundPlayer(kind=kind, established_games=PROVISIONAL_GAMES, player=own, entries=entries)

    # --- the rebuild ----------------------------------------------------------------------------------
    async def rebuild(self, *, check: bool) -> RebuildReport:
        """Fold every rated game's record again, in the recorded application order, and write the
        result in place of the live tables — or, with *check*, compare it with them."""
        markers = await self.store.settled_in_order()
        beliefs: dict[tuple[str, str], tuple[float, float, int, datetime]] = {}
        changes: list[ChangeRow] = []
        for marker in markers:
            assert marker.position is not None  # a rated marker has one
            seats = await self.store.seats_of(marker.game_id)
            ranks = await self._ranks(marker.game_id)
            before = {
                player: beliefs[(player, marker.kind)][:3]
                for _, player, _ in seats
                if player is not None and (player, marker.kind) in beliefs
            }
            made = changes_for(
                marker.game_id, marker.kind, seats, ranks, before, marker.position, marker.applied_at
            )
            for change in made:
                if change.player_id is not None:
                    beliefs[(change.player_id, marker.kind)] = (
                        change.mu_after,
                        change.sigma_after,
                        change.games_after,
                        marker.applied_at,
                    )
            changes.extend(made)
        ratings = sorted(
            (
                RatingRow(
                    player_id=player,
                    kind=kind,
                    mu=mu,
                    sigma=sigma,
                    games=games,
                    updated_at=at,
                    rating=display(Belief(mu, sigma)),
                )
                for (player, kind), (mu, sigma, games, at) in beliefs.items()
            ),
            key=lambda r: (r.player_id, r.kind),
        )
        changes.sort(key=lambda c: (c.game_id, c.seat))
        report = RebuildReport(
            games=len(markers), ratings=len(ratings), changes=len(changes), differences=[], written=False
        )
        if check:
            live_ratings, live_changes = await self.store.live()
            report.differences = _differences("player_ratings", ratings, live_ratings) + _differences(
                "rating_changes", changes, live_changes
            )
            return report
        last = markers[-1].position if markers else None
        report.written = await self.store.replace(ratings, changes, last)
        return report


def _differences(table: str, rebuilt: list[Any], live: list[Any], limit: int = 20) -> list[str]:
    """Row by row, exactly (every float to the last bit, every timestamp to the microsecond)."""
    out = []
    rebuilt_rows = {_key(r): msgspec.to_builtins(r) for r in rebuilt}
    live_rows = {_key(r): msgspec.to_builtins(r) for r in live}
    for key in sorted(rebuilt_rows.keys() | live_rows.keys()):
        mine, theirs = rebuilt_rows.get(key), live_rows.get(key)
        if mine != theirs:
            out.append(f"{table} {key}: rebuilt {mine} live {theirs}")
            if len(out) >= limit:
                break
    return out


def _key(row: Any) -> tuple[str, ...]:
    if isinstance(row, RatingRow):
        return (row.player_id, row.kind)
    return (row.game_id, str(row.seat))

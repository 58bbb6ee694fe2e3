"""The ratings recorder: players' ratings per title, the rated games in the order they were applied,
every seat's change, and the leaderboard reads (``service/migrations/005_ratings.sql``).

Applying a game is one short transaction (:meth:`RatingsStore.settle`): the players' rating rows are
created if new and locked in ``player_id`` order (so two games sharing players, finished at once,
wait for each other instead of losing an update or deadlocking), then the game's marker is inserted
with the next application ``position`` — taken under those locks, so of two games sharing a player
the one applied first has the smaller position, which is the order a rebuild replays — and a marker
already there (the job ran before) rolls everything back.  Queries go through the event store's pool,
so nothing above this module imports psycopg.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import msgspec
from psycopg.rows import TupleRow

from .store import EventStore


class GameToRate(msgspec.Struct, frozen=True, kw_only=True):
    """What deciding a finished game's rating needs from its rows."""

    game_id: str
    kind: str
    status: str
    rated: bool
    unrated_reason: str | None
    imported: bool
    seats: list[tuple[int, str | None, str | None, bool]]
    """(seat, player_id, bot level, claimed) per seat."""
    settled: bool
    """The game's rating has been applied (or it was found unrated)."""


class RatingRow(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    kind: str
    mu: float
    sigma: float
    games: int
    updated_at: datetime
    rating: float


class ChangeRow(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    seat: int
    player_id: str | None
    bot: str | None
    kind: str
    position: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_before: float
    rating_after: float
    games_after: int
    applied_at: datetime


class SettledRow(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    kind: str
    rated: bool
    reason: str | None
    position: int | None
    applied_at: datetime


class AlreadySettled(Exception):
    """The game's marker was there: another run applied it."""


Compute = Callable[[dict[str, tuple[float, float, int]], int], list[ChangeRow]]
"""(the players' (mu, sigma, games) before, locked; the game's position) -> every seat's change."""

_BOARD = "FROM player_ratings r JOIN players p ON p.player_id = r.player_id"
_RATING = "r.player_id, r.kind, r.mu, r.sigma, r.games, r.updated_at, r.rating"
_CHANGE = (
    "c.game_id, c.seat, c.player_id, c.bot, c.kind, c.position, c.rank, c.mu_before, c.sigma_before,"
    " c.mu_after, c.sigma_after, c.rating_before, c.rating_after, c.games_after, c.applied_at"
)
_INSERT_CHANGE = (
    "INSERT INTO rating_changes (game_id, seat, player_id, bot, kind, position, rank, mu_before,"
    " sigma_before, mu_after, sigma_after, rating_before, rating_after, games_after, applied_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_INSERT_RATING = (
    "INSERT INTO player_ratings (player_id, kind, mu, sigma, games, updated_at, rating)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s)"
)


def rating_row(row: TupleRow, at: int = 0) -> RatingRow:
    r = row[at:]
    return RatingRow(player_id=r[0], kind=r[1], mu=r[2], sigma=r[3], games=r[4], updated_at=r[5], rating=r[6])


def change_row(r: TupleRow) -> ChangeRow:
    return ChangeRow(
        game_id=r[0],
        seat=r[1],
        player_id=r[2],
        bot=r[3],
        kind=r[4],
        position=r[5],
        rank=r[6],
        mu_before=r[7],
        sigma_before=r[8],
        mu_after=r[9],
        sigma_after=r[10],
        rating_before=r[11],
        rating_after=r[12],
        games_after=r[13],
        applied_at=r[14],
    )


def _change_params(c: ChangeRow) -> tuple[Any, ...]:
    return (
        c.game_id,
        c.seat,
        c.player_id,
        c.bot,
        c.kind,
        c.position,
        c.rank,
        c.mu_before,
        c.sigma_before,
        c.mu_after,
        c.sigma_after,
        c.rating_before,
        c.rating_after,
        c.games_after,
        c.applied_at,
    )


class RatingsStore:
    """Ratings on the event store's pool."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    # --- applying a game -----------------------------------------------------------------------
    async def game(self, game_id: str) -> GameToRate | None:
        """The game's rating facts in one read, or None if there is no such game."""
        rows = await self.store._read(
            "SELECT g.game_id, g.kind, g.status, g.rated, g.unrated_reason, g.imported,"
            " EXISTS (SELECT 1 FROM rated_games m WHERE m.game_id = g.game_id),"
            " s.seat, s.player_id, s.bot, s.token_hash IS NOT NULL"
            " FROM games g JOIN seats s ON s.game_id = g.game_id WHERE g.game_id = %s ORDER BY s.seat",
            (game_id,),
        )
        if not rows:
            return None
        first = rows[0]
        return GameToRate(
            game_id=first[0],
            kind=first[1],
            status=first[2],
            rated=first[3],
            unrated_reason=first[4],
            imported=first[5],
            settled=first[6],
            seats=[(r[7], r[8], r[9], r[10]) for r in rows],
        )

    async def settle_unrated(self, game_id: str, kind: str, reason: str, now: datetime) -> bool:
        """Mark a game asked to be rated as ended unrated (*reason*); False if it was settled."""
        async with self.store.connection() as conn:
            cur = await conn.execute(
                "INSERT INTO rated_games (game_id, kind, rated, reason, position, applied_at)"
                " VALUES (%s, %s, false, %s, NULL, %s) ON CONFLICT (game_id) DO NOTHING RETURNING 1",
                (game_id, kind, reason, now),
            )
            return await cur.fetchone() is not None

    async def settle(
        self, game_id: str, kind: str, players: Sequence[str], compute: Compute, now: datetime
    ) -> list[ChangeRow] | None:
        """Apply a rated game in one transaction (see the module docstring): *compute* turns the
        locked beliefs and the game's position into every seat's change.  None if it was settled."""
        ordered = sorted(set(players))
        try:
            async with self.store.connection() as conn, conn.transaction():
                await conn.execute(
                    "INSERT INTO player_ratings (player_id, kind, mu, sigma, games, updated_at, rating)"
                    " SELECT p, %s, 0, 0, 0, %s, 0 FROM unnest(%s::text[]) AS p ORDER BY p"
                    " ON CONFLICT (player_id, kind) DO NOTHING",
                    (kind, now, ordered),
                )
                cur = await conn.execute(
                    "SELECT r.player_id, r.mu, r.sigma, r.games FROM player_ratings r"
                    " WHERE r.kind = %s AND r.player_id = ANY(%s) ORDER BY r.player_id FOR UPDATE",
                    (kind, ordered),
                )
                before = {r[0]: (r[1], r[2], r[3]) for r in await cur.fetchall()}
                cur = await conn.execute(
                    "INSERT INTO rated_games (game_id, kind, rated, reason, position, applied_at)"
                    " VALUES (%s, %s, true, NULL, nextval('rating_order'), %s)"
                    " ON CONFLICT (game_id) DO NOTHING RETURNING position",
                    (game_id, kind, now),
                )
                marked = await cur.fetchone()
                if marked is None:
                    raise AlreadySettled(game_id)  # rolls back the rows made for new players
                changes = compute(before, marked[0])
                players_after = [c for c in changes if c.player_id is not None]
                await conn.execute(
                    "UPDATE player_ratings r SET mu = n.mu, sigma = n.sigma, games = n.games,"
                    " updated_at = %s, rating = n.rating FROM unnest(%s::text[], %s::float8[],"
                    " %s::float8[], %s::int[], %s::float8[]) AS n(player_id, mu, sigma, games, rating)"
                    " WHERE r.kind = %s AND r.player_id = n.player_id",
                    (
                        now,
                        [c.player_id for c in players_after],
                        [c.mu_after for c in players_after],
                        [c.sigma_after for c in players_after],
                        [c.games_after for c in players_after],
                        [c.rating_after for c in players_after],
                        kind,
                    ),
                )
                async with conn.cursor() as insert:
                    await insert.executemany(_INSERT_CHANGE, [_change_params(c) for c in changes])
        except AlreadySettled:
            return None
        return changes

    async def changes_of_game(self, game_id: str) -> tuple[SettledRow, list[ChangeRow]] | None:
        """A settled game's marker and its seats' changes; None while it is not settled."""
        rows = await self.store._read(
            f"SELECT m.game_id, m.kind, m.rated, m.reason, m.position, m.applied_at, {_CHANGE}"
            " FROM rated_games m LEFT JOIN rating_changes c ON c.game_id = m.game_id"
            " WHERE m.game_id = %s ORDER BY c.seat",
            (game_id,),
        )
        if not rows:
            return None
        r = rows[0]
        marker = SettledRow(game_id=r[0], kind=r[1], rated=r[2], reason=r[3], position=r[4], applied_at=r[5])
        return marker, [change_row(row[6:]) for row in rows if row[6] is not None]

    async def unsettled(self, since: datetime, limit: int = 1000) -> list[str]:
        """Rated games finished since *since* whose rating was never applied (the sweep's work)."""
        rows = await self.store._read(
            "SELECT g.game_id FROM games g WHERE g.rated AND g.finished_at >= %s"
            " AND NOT EXISTS (SELECT 1 FROM rated_games m WHERE m.game_id = g.game_id)"
            " ORDER BY g.finished_at LIMIT %s",
            (since, limit),
        )
        return [r[0] for r in rows]

    async def rate_import(self, game_id: str, players: dict[int, str], bots: dict[int, str]) -> bool:
        """(An operator.) Bind an imported finished game's seats to *players* and *bots* and ask for
        it to be rated; False if it is no imported finished game or has been settled."""
        async with self.store.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE games SET rated = true, unrated_reason = NULL WHERE game_id = %s AND imported"
                " AND status = 'finished' AND NOT EXISTS (SELECT 1 FROM rated_games m WHERE m.game_id = %s)"
                " RETURNING 1",
                (game_id, game_id),
            )
            if await cur.fetchone() is None:
                return False
            async with conn.cursor() as bind:
                await bind.executemany(
                    "UPDATE seats SET player_id = %s, bot = %s WHERE game_id = %s AND seat = %s",
                    [(players.get(s), bots.get(s), game_id, s) for s in sorted({*players, *bots})],
                )
        return True

    # --- reading --------------------------------------------------------------------------------
    async def ratings_of(self, player_id: str, kind: str | None = None) -> list[RatingRow]:
        rows = await self.store._read(
            f"SELECT {_RATING} FROM player_ratings r WHERE r.player_id = %s"
            " AND (%s::text IS NULL OR r.kind = %s) ORDER BY r.kind",
            (player_id, kind, kind),
        )
        return [rating_row(r) for r in rows]

    async def history(
        self, player_id: str, kind: str | None, before: int | None, limit: int
    ) -> list[ChangeRow]:
        """A player's changes, newest first, older than position *before*."""
        rows = await self.store._read(
            f"SELECT {_CHANGE} FROM rating_changes c WHERE c.player_id = %s"
            " AND (%s::text IS NULL OR c.kind = %s) AND (%s::bigint IS NULL OR c.position < %s)"
            " ORDER BY c.position DESC LIMIT %s",
            (player_id, kind, kind, before, before, limit),
        )
        return [change_row(r) for r in rows]

    async def top(
        self, kind: str, established: int, after: tuple[float, str] | None, limit: int
    ) -> list[tuple[RatingRow, str | None]]:
        """The board of *kind* (players with *established* games or more), best first, after the
        keyset *after* (rating, player_id); each with the player's display name."""
        # (rating <= x) bounds the index scan; the rest breaks the tie at x.
        keyset = "AND r.rating <= %s AND (r.rating < %s OR r.player_id > %s)" if after else ""
        params: list[Any] = [kind]
        if after is not None:
            params += [after[0], after[0], after[1]]
        rows = await self.store._read(
            f"SELECT {_RATING}, p.display_name {_BOARD}"
            f" WHERE r.kind = %s AND r.games >= {int(established)} {keyset}"
            " ORDER BY r.rating DESC, r.player_id LIMIT %s",
            [*params, limit],
        )
        return [(rating_row(r), r[7]) for r in rows]

    async def above(self, kind: str, established: int, rating: float, player_id: str) -> int:
        """How many players are ahead of (*rating*, *player_id*) on the board of *kind*.  (*established*
        is written into the statement: a partial index's predicate must be a constant the planner
        sees, also in the generic plan of a prepared statement.)"""
        row = await self.store._read(
            f"SELECT count(*) FROM player_ratings r WHERE r.kind = %s AND r.games >= {int(established)}"
            " AND r.rating >= %s AND (r.rating > %s OR r.player_id < %s)",
            (kind, rating, rating, player_id),
            one=True,
        )
        return int(row[0]) if row else 0

    async def before(
        self, kind: str, established: int, at: tuple[float, str], limit: int
    ) -> list[tuple[RatingRow, str | None]]:
        """The *limit* players just ahead of *at* on the board, nearest first."""
        rows = await self.store._read(
            f"SELECT {_RATING}, p.display_name {_BOARD}"
            f" WHERE r.kind = %s AND r.games >= {int(established)}"
            " AND r.rating >= %s AND (r.rating > %s OR r.player_id < %s)"
            " ORDER BY r.rating ASC, r.player_id DESC LIMIT %s",
            (kind, at[0], at[0], at[1], limit),
        )
        return [(rating_row(r), r[7]) for r in rows]

    # --- the rebuild ------------------------------------------------------------------------------
    async def settled_in_order(self) -> list[SettledRow]:
        """Every rated game's marker, in application order."""
        rows = await self.store._read(
            "SELECT m.game_id, m.kind, m.rated, m.reason, m.position, m.applied_at FROM rated_games m"
            " WHERE m.rated ORDER BY m.position",
            (),
        )
        return [
            SettledRow(game_id=r[0], kind=r[1], rated=r[2], reason=r[3], position=r[4], applied_at=r[5])
            for r in rows
        ]

    async def seats_of(self, game_id: str) -> list[tuple[int, str | None, str | None]]:
        rows = await self.store._read(
            "SELECT s.seat, s.player_id, s.bot FROM seats s WHERE s.game_id = %s ORDER BY s.seat", (game_id,)
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def live(self) -> tuple[list[RatingRow], list[ChangeRow]]:
        """Both projection tables as they are, in key order, read in one snapshot."""
        async with self.store.connection() as conn, conn.transaction():
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur = await conn.execute(f"SELECT {_RATING} FROM player_ratings r ORDER BY r.player_id, r.kind")
            ratings = [rating_row(r) for r in await cur.fetchall()]
            cur = await conn.execute(f"SELECT {_CHANGE} FROM rating_changes c ORDER BY c.game_id, c.seat")
            changes = [change_row(r) for r in await cur.fetchall()]
        return ratings, changes

    async def replace(
        self, ratings: Sequence[RatingRow], changes: Sequence[ChangeRow], replayed: int | None
    ) -> bool:
        """Write the rebuilt tables in place of the live ones, in one transaction — unless a game was
        applied since the rebuild read the order (*replayed*: the last position it replayed): then
        nothing is written (False), and the rebuild is run again."""
        async with self.store.connection() as conn, conn.transaction():
            await conn.execute("LOCK TABLE rated_games, player_ratings, rating_changes IN EXCLUSIVE MODE")
            cur = await conn.execute("SELECT max(position) FROM rated_games WHERE rated")
            last = await cur.fetchone()
            if (last[0] if last else None) != replayed:
                return False
            await conn.execute("DELETE FROM rating_changes")
            await conn.execute("DELETE FROM player_ratings")
            async with conn.cursor() as cur:
                await cur.executemany(
                    _INSERT_RATING,
                    [(r.player_id, r.kind, r.mu, r.sigma, r.games, r.updated_at, r.rating) for r in ratings],
                )
                await cur.executemany(_INSERT_CHANGE, [_change_params(c) for c in changes])
        return True

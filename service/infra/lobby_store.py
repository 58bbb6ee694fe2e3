"""The event store's lobby and seats: games created (with their seats and opening events),
found and listed, and the seats claimed, handed to bots and re-issued their tokens.

The games row a move moves on is the recorder's (:mod:`service.infra.recorder`); the lobby writes
it once, at create, and reads it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from ..record.chain import StoredEvent
from .datastore import Datastore
from .store_types import _GAME_COLUMNS, _INSERT_EVENT, GameExists, GameRow, _event_params, _game


class LobbyStore:
    """Games and their seats, on the datastore's connections."""

    def __init__(self, datastore: Datastore) -> None:
        self.datastore = datastore
        self._connection = datastore.connection
        self._read = datastore.read

    # --- games --------------------------------------------------------------------------------
    async def create_game(
        self,
        game: GameRow,
        token_hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str] | None = None,
        players: dict[int, str] | None = None,
        to_act: list[int] | None = None,
    ) -> None:
        """Record a new game, its seats (*bots*: the seats played by a bot, and its level; *players*:
        the seats bound to a player, and the player), who is *to_act* in its opening state, and its
        opening events in one transaction."""
        try:
            async with self._connection() as conn, conn.transaction():
                await self.insert_game(conn, game, token_hashes, events, bots or {}, players or {}, to_act)
        except psycopg.errors.UniqueViolation as exc:
            raise GameExists(game.game_id) from exc

    async def insert_game(
        self,
        conn: psycopg.AsyncConnection,
        game: GameRow,
        token_hashes: list[str | None],
        events: list[StoredEvent],
        bots: dict[int, str],
        players: dict[int, str],
        to_act: list[int] | None,
    ) -> None:
        """:meth:`create_game`'s statements on *conn*, inside the caller's transaction (the matcher
        creates a game in the transaction that marks its seeks matched: ``seek_store``)."""
        await conn.execute(
            "INSERT INTO games (game_id, kind, rules_version, options, players, seed, seed_commitment,"
            " status, version, last_hash, imported, created_at, updated_at, app_id, visibility, to_act,"
            " rated, unrated_reason, creator, finished_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game.game_id,
                game.kind,
                game.rules_version,
                game.options.decode(),
                game.players,
                game.seed,
                game.seed_commitment,
                game.status,
                game.version,
                game.last_hash,
                game.imported,
                game.created_at,
                game.updated_at,
                game.app_id,
                game.visibility,
                to_act,
                game.rated,
                game.unrated_reason,
                game.creator,
                game.updated_at if game.status == "finished" else None,  # an imported record
            ),
        )
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO seats (game_id, seat, token_hash, claimed_at, bot, player_id)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (
                        game.game_id,
                        seat,
                        h,
                        game.created_at if h else None,
                        bots.get(seat),
                        players.get(seat),
                    )
                    for seat, h in enumerate(token_hashes)
                ],
            )
            if events:
                await cur.executemany(_INSERT_EVENT, [_event_params(e) for e in events])

    async def get_game(self, game_id: str) -> GameRow | None:
        row = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.game_id = %s", (game_id,), one=True
        )
        return _game(row) if row else None

    async def list_games(
        self,
        kind: str | None,
        status: str | None,
        before: tuple[datetime, str] | None,
        limit: int,
        *,
        app_id: str | None = None,
        whole_app: bool = False,
        player_id: str | None = None,
    ) -> list[GameRow]:
        """Games newest first: the public ones, and those *app_id*'s players may see (``app``; all of
        its games for the app itself, *whole_app*), and those where *player_id* holds a seat."""
        seen = ["g.visibility = 'public'"]
        params: list[Any] = []
        if app_id is not None:
            seen.append("g.app_id = %s" if whole_app else "(g.app_id = %s AND g.visibility = 'app')")
            params.append(app_id)
        if player_id is not None:
            seen.append("EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.player_id = %s)")
            params.append(player_id)
        where: list[str] = [seen[0] if len(seen) == 1 else "(" + " OR ".join(seen) + ")"]
        if kind is not None:
            where.append("g.kind = %s")
            params.append(kind)
        if status is not None:
            where.append("g.status = %s")
            params.append(status)
        if before is not None:
            where.append("(g.created_at, g.game_id) < (%s, %s)")
            params.extend(before)
        params.append(limit)
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE {' AND '.join(where)}"
            " ORDER BY g.created_at DESC, g.game_id DESC LIMIT %s",
            params,
        )
        return [_game(r) for r in rows]

    # --- seats --------------------------------------------------------------------------------
    async def seats(self, game_id: str) -> list[tuple[int, str | None, str | None]]:
        """``(seat, token hash or None while open, bot level or None for a person)`` per seat."""
        rows = await self._read(
            "SELECT seat, token_hash, bot FROM seats WHERE game_id = %s ORDER BY seat", (game_id,)
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def set_bot(self, game_id: str, seat: int, level: str | None) -> None:
        """Hand a claimed seat to a bot of *level* (``None``: back to its person)."""
        async with self._connection() as conn:
            await conn.execute(
                "UPDATE seats SET bot = %s WHERE game_id = %s AND seat = %s AND token_hash IS NOT NULL",
                (level, game_id, seat),
            )

    async def games_with_clocks(self, limit: int = 1000) -> list[str]:
        """Games under way whose options set a clock (for the sweep that re-schedules deadlines)."""
        rows = await self._read(
            "SELECT g.game_id FROM games g WHERE g.status = 'active'"
            " AND (g.options::jsonb -> 'table') ? 'clock' ORDER BY g.updated_at LIMIT %s",
            (limit,),
        )
        return [r[0] for r in rows]

    async def games_with_bots(self, limit: int = 1000) -> list[str]:
        """Games under way with at least one bot seat, least recently moved first (for the sweep
        that re-queues a bot turn whose job was lost)."""
        rows = await self._read(
            "SELECT g.game_id FROM games g WHERE g.status = 'active'"
            " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.bot IS NOT NULL)"
            " ORDER BY g.updated_at LIMIT %s",
            (limit,),
        )
        return [r[0] for r in rows]

    async def seat_token_hash(self, game_id: str, seat: int) -> tuple[str | None, bool]:
        """The seat's token hash (None while it is open, or if there is no such seat) and whether
        the seat is bound to a player (whose token may be re-issued: :meth:`reissue_token`)."""
        row = await self._read(
            "SELECT token_hash, player_id IS NOT NULL FROM seats WHERE game_id = %s AND seat = %s",
            (game_id, seat),
            one=True,
        )
        return (row[0], row[1]) if row else (None, False)

    async def bindings(self, game_id: str) -> list[tuple[int, str | None, bool]]:
        """``(seat, the player it is bound to or None, whether it is open)`` per seat of the game."""
        rows = await self._read(
            "SELECT seat, player_id, token_hash IS NULL FROM seats WHERE game_id = %s ORDER BY seat",
            (game_id,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    async def reissue_token(self, game_id: str, seat: int, player_id: str, token_hash: str) -> bool:
        """The seat's token is now the one hashed *token_hash*, and the old one stops working; False
        unless the seat is bound to *player_id*."""
        async with self._connection() as conn:
            cur = await conn.execute(
                "UPDATE seats SET token_hash = %s WHERE game_id = %s AND seat = %s AND player_id = %s",
                (token_hash, game_id, seat, player_id),
            )
            return cur.rowcount == 1

    async def claim_seat(
        self,
        game_id: str,
        seat: int,
        token_hash: str,
        now: datetime,
        bot: str | None = None,
        player_id: str | None = None,
    ) -> str | None:
        """Claim an open seat (for a bot of level *bot*, if given; bound to *player_id*, if given);
        returns the game's status afterwards, or None if the seat was taken.

        The last claim flips the game from ``open`` to ``active`` in the same transaction.
        """
        async with self._connection() as conn, conn.transaction():
            cur = await conn.execute(
                "UPDATE seats SET token_hash = %s, claimed_at = %s, bot = %s, player_id = %s"
                " WHERE game_id = %s AND seat = %s AND token_hash IS NULL",
                (token_hash, now, bot, player_id, game_id, seat),
            )
            if cur.rowcount != 1:
                return None
            cur = await conn.execute(
                "UPDATE games SET status = 'active', updated_at = %s WHERE game_id = %s AND status = 'open'"
                " AND NOT EXISTS (SELECT 1 FROM seats WHERE game_id = %s AND token_hash IS NULL)"
                " RETURNING status",
                (now, game_id, game_id),
            )
            flipped = await cur.fetchone()
            if flipped:
                return "active"
            cur = await conn.execute("SELECT status FROM games WHERE game_id = %s", (game_id,))
            row = await cur.fetchone()
            return row[0] if row else None

    async def creator_of(self, game_id: str) -> str | None:
        """Who created the game (``games.creator``; None for a game from before it was kept)."""
        row = await self._read("SELECT creator FROM games WHERE game_id = %s", (game_id,), one=True)
        return row[0] if row else None

"""Matchers racing: two Application instances (two replicas: each its own Postgres pool) run the
matchers of the same pools at once, over and over, while seeks keep arriving — and every game is
formed once, every seek is matched at most once, no player is seated twice, in one game or in two
from seeks open at once (a player seeking two titles is matched in one; its other seek is withdrawn
in the same transaction), and nothing that could form a game is left open."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from service.application import Application
from service.application.identity import PlayerCaller
from service.application.seeks import GUESTS, SeekRequest
from service.infra.cache import MemorySnapshotCache
from service.infra.store import EventStore
from tests.conftest import test_games
from tests.servers import fresh_database

PLAYERS = 120
KINDS = ("bluff", "yangtze")


@pytest.fixture
async def replicas() -> AsyncIterator[tuple[Application, Application]]:
    with fresh_database("yamen_race_") as url:
        stores = [EventStore(url, max_size=6) for _ in range(2)]
        for store in stores:
            await store.open()
        await stores[0].migrate()
        yield tuple(Application(test_games(), store, MemorySnapshotCache()) for store in stores)  # type: ignore[misc]
        for store in stores:
            await store.close()


async def test_racing_matchers_form_every_game_once_and_never_seat_a_player_twice(replicas):
    one, two = replicas
    rng = random.Random(30)
    players = [(await one.players.guest()).player_id for _ in range(PLAYERS)]

    async def seek(index: int, player_id: str) -> None:
        app = (one, two)[index % 2]
        caller = PlayerCaller(player_id=player_id, app_id=None)
        if index % 3 == 0:  # a third of them seek two titles, both seeks made before any matching
            await app.seeks.create(caller, SeekRequest(kind="yangtze", players=[2, 3]))
        await app.seeks.create(caller, SeekRequest(kind="bluff", players=rng.choice([[2], [3], [2, 3], [4]])))

    async def match(rounds: int) -> int:
        formed = 0
        for _ in range(rounds):
            runs = [app.seeks.match(GUESTS, kind) for app in (one, two, one, two) for kind in KINDS]
            formed += sum(await asyncio.gather(*runs))
        return formed

    await asyncio.gather(*(seek(i, p) for i, p in enumerate(players) if i % 3 == 0))
    arrivals = [seek(i, p) for i, p in enumerate(players) if i % 3]
    racing = asyncio.gather(*(match(8) for _ in range(3)))
    for batch in range(0, len(arrivals), 10):  # seeks keep arriving while the matchers race
        await asyncio.gather(*arrivals[batch : batch + 10])
        await asyncio.sleep(0)
    formed = sum(await racing) + await match(2)

    async with one.store.connection() as conn:
        cur = await conn.execute(
            "SELECT seek_id, player_id, kind, status, closed_reason, game_id, seat, created_at, closed_at"
            " FROM seeks"
        )
        seeks = await cur.fetchall()
        cur = await conn.execute(
            "SELECT s.game_id, s.seat, s.player_id, s.bot FROM seats s"
            " WHERE s.game_id IN (SELECT game_id FROM seeks WHERE game_id IS NOT NULL)"
        )
        seats = await cur.fetchall()
    games = {s[5] for s in seeks if s[5] is not None}
    assert formed == len(games) > 0
    # Each matched seek holds its seat in its game, bound to its player; nobody else is seated there.
    held = {(g, seat): player for g, seat, player, _ in seats}
    matched = [s for s in seeks if s[3] == "matched"]
    assert all(held[(g, seat)] == player for _, player, _, _, _, g, seat, _, _ in matched)
    assert len(held) == len(matched)
    # No player in two games, nor twice in one (every player's seeks were open at once).
    per_player = Counter(player for _, _, player, _ in seats)
    assert max(per_player.values()) == 1
    # A matched player's other seek was withdrawn in the same transaction, never left open.
    closed_at = {s[1]: s[8] for s in matched}
    for _, player, _, status, reason, _, _, _, closed in seeks:
        if player in closed_at and status != "matched":
            assert (status, reason, closed) == ("cancelled", "matched_elsewhere", closed_at[player])
    # What is left open cannot form a game: no two open seeks of a title accept a common count.
    for kind in KINDS:
        still = [s for s in seeks if s[2] == kind and s[3] == "open"]
        if kind == "yangtze":
            assert len(still) <= 1, still
    open_bluff = Counter(s[1] for s in seeks if s[2] == "bluff" and s[3] == "open")
    assert all(n == 1 for n in open_bluff.values())

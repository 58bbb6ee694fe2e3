"""Snapshots every N versions: a move writes the cached snapshot only when its version crosses a
multiple of N (or the game ends), and a worker that did not make the moves still loads the exact
current state (the snapshot plus the events after it)."""

from __future__ import annotations

import msgspec

from domain.kernel import Rng
from service.application import Application
from service.infra.cache import MemorySnapshotCache, peek_snapshot
from tests.conftest import test_games


async def test_the_snapshot_lags_by_under_n_and_another_worker_loads_the_current_state(store):
    cache = MemorySnapshotCache()
    games = test_games()
    writer = Application(games, store, cache, snapshot_every=4)
    created = await writer.seats.create("yangtze", {"players": 2}, "snap-every", "all")
    game_id = created.game_id
    rng = Rng("chooser", 0)
    versions = []
    expected = created.version  # the snapshot the creation wrote
    lagged = False
    for _ in range(40):
        # This worker's memory of its last move (a load would refresh the cached snapshot).
        loaded = writer.states.recalled(game_id) or await writer.states.load(game_id)
        if loaded.row.status == "finished":
            break
        seat = loaded.game.to_act(loaded.state)[0]
        legal = loaded.game.legal_moves(loaded.state, seat)
        answer = await writer.moves.submit(
            game_id, seat, legal[rng.below(len(legal))], if_match=None, idempotency_key=None
        )
        if answer.version // 4 != loaded.version // 4:
            expected = answer.version
        versions.append(answer.version)
        snap = peek_snapshot(await cache.get(game_id))
        assert snap is not None and snap.version == expected
        lagged = lagged or snap.version != answer.version
    assert lagged, "every move wrote its snapshot"
    assert versions, "no move was made"
    reader = Application(games, store, cache)  # another worker: nothing remembered
    theirs = await reader.states.load(game_id)
    ours = await writer.states.load(game_id)
    assert theirs.version == ours.version == versions[-1]
    assert msgspec.json.encode(theirs.state) == msgspec.json.encode(ours.state)

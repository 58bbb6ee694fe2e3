"""Ratings are a projection: games finished together with a shared player lose no update, a job that
runs twice applies its game once, the sweep finds what no job applied, and ``yamen ratings rebuild``
folds the records again to exactly the live tables (and says so, or where they differ).

The app here takes no jobs (``jobs=False``), so the test applies ratings itself, at the moments it
chooses; a database of this module's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from functools import partial
from typing import Any

import psycopg
import pytest
from litestar.testing import AsyncTestClient
from openskill.models import PlackettLuce

import service.cli
from tests.conftest import make_app, test_games
from tests.http.helpers import bearer, play_to_end
from tests.http.players_support import ADMIN_TOKEN, new_app, new_player
from tests.servers import fresh_database

MODEL = PlackettLuce()


@pytest.fixture(scope="module")
def rebuild_db() -> Iterator[str]:
    with fresh_database("yamen_rebuild_") as url:
        yield url


@pytest.fixture(scope="module")
async def client(rebuild_db: str, redis_url: str) -> AsyncIterator[AsyncTestClient]:
    app = make_app(
        rebuild_db,
        redis_url,
        admin_token=ADMIN_TOKEN,
        rate_limit="off",
        jobs=False,
        webhook_allow_private=True,
    )
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


async def finished_rated_game(client: AsyncTestClient, key: str, seated: list[dict[str, Any]]) -> str:
    created = await client.post(
        "/v1/games",
        json={"kind": "bluff", "options": {"players": len(seated)}, "take_seats": "none", "rated": True},
        headers=bearer(key),
    )
    game_id = created.json()["game_id"]
    tokens = {}
    for seat, player in enumerate(seated):
        joined = await client.post(
            f"/v1/games/{game_id}/seats/{seat}", headers=bearer(player["credential"]["credential"])
        )
        tokens[seat] = joined.json()["token"]
    await play_to_end(client, game_id, tokens)
    return game_id


async def on_app(client: AsyncTestClient, call: Any, *args: Any) -> Any:
    """Run *call* on the app's own event loop (its pools and clients live there)."""
    return await asyncio.to_thread(client.blocking_portal.call, call, *args)


def one(url: str, sql: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(sql, params).fetchone()
        return row[0] if row else None


async def test_concurrent_finishes_rerun_jobs_sweep_and_rebuild(client, rebuild_db, monkeypatch, capsys):
    application = client.app.state.application
    _, key = await new_app(client, "rebuild")
    shared = await new_player(client, key, "shared")
    others = [await new_player(client, key, f"other-{i}") for i in range(6)]
    games = [await finished_rated_game(client, key, [shared, other]) for other in others]
    # A third player in two of them' stead: games with three seats share the player too.
    games.append(await finished_rated_game(client, key, [others[0], shared, others[1]]))
    # Nothing applied them yet (no job worker here): the sweep's query finds every one.
    from datetime import UTC, datetime, timedelta

    unsettled = await on_app(
        client, application.ratings.store.unsettled, datetime.now(UTC) - timedelta(hours=1)
    )
    assert set(unsettled) == set(games)
    await on_app(client, application.ratings.sweep)
    queued = one(
        rebuild_db,
        "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'yamen.rate_game' AND status = 'todo'",
    )
    assert queued == len(games)

    # Every game at once: the shared player's row is locked in turn, so no update is lost.
    settled = await asyncio.gather(*(on_app(client, application.ratings.apply, g) for g in games))
    assert all(s is not None and s.rated for s in settled)
    pid = shared["player_id"]
    assert one(rebuild_db, "SELECT games FROM player_ratings WHERE player_id = %s", (pid,)) == len(games)
    positions = one(rebuild_db, "SELECT array_agg(position ORDER BY position) FROM rated_games WHERE rated")
    assert len(set(positions)) == len(games)

    # The same beliefs, computed here in the recorded order with openskill alone.
    beliefs: dict[str, tuple[float, float]] = {}
    with psycopg.connect(rebuild_db, autocommit=True) as conn:
        order = conn.execute("SELECT game_id FROM rated_games WHERE rated ORDER BY position").fetchall()
        for (game_id,) in order:
            seats = conn.execute(
                "SELECT player_id, rank FROM rating_changes WHERE game_id = %s ORDER BY seat", (game_id,)
            ).fetchall()
            teams = [[MODEL.rating(*beliefs.get(p, (MODEL.mu, MODEL.sigma)))] for p, _ in seats]
            rated = MODEL.rate(teams, ranks=[float(r) for _, r in seats])
            for (player, _), team in zip(seats, rated, strict=True):
                beliefs[player] = (team[0].mu, team[0].sigma)
        rows = conn.execute("SELECT player_id, mu, sigma FROM player_ratings").fetchall()
        live = {p: (mu, sigma) for p, mu, sigma in rows}
    assert live == beliefs

    # A job run again (at least once delivery) applies nothing more.
    before = one(rebuild_db, "SELECT mu FROM player_ratings WHERE player_id = %s", (pid,))
    assert await asyncio.gather(*(on_app(client, application.ratings.apply, g) for g in games)) == [
        None
    ] * len(games)
    assert one(rebuild_db, "SELECT mu FROM player_ratings WHERE player_id = %s", (pid,)) == before
    assert one(rebuild_db, "SELECT count(*) FROM rating_changes WHERE player_id = %s", (pid,)) == len(games)

    # The rebuild folds the records again to exactly the live tables ...
    report = await on_app(client, partial(application.ratings.rebuild, check=True))
    assert (report.games, report.differences) == (len(games), [])
    monkeypatch.setenv("DATABASE_URL", rebuild_db)
    monkeypatch.setattr(service.cli, "_games", test_games)  # the fixture title's games are in this database
    assert await asyncio.to_thread(service.cli.main, ["ratings", "rebuild", "--check"]) == 0
    assert "the live tables equal the rebuilt ones" in capsys.readouterr().out

    # ... says where they differ (to the last bit of a float) ...
    with psycopg.connect(rebuild_db, autocommit=True) as conn:
        conn.execute("UPDATE player_ratings SET mu = mu + 1e-12 WHERE player_id = %s", (pid,))
    assert await asyncio.to_thread(service.cli.main, ["ratings", "rebuild", "--check"]) == 1
    assert f"player_ratings ('{pid}', 'bluff')" in capsys.readouterr().out

    # ... and writes them back.
    assert await asyncio.to_thread(service.cli.main, ["ratings", "rebuild"]) == 0
    assert one(rebuild_db, "SELECT mu FROM player_ratings WHERE player_id = %s", (pid,)) == before
    assert (await on_app(client, partial(application.ratings.rebuild, check=True))).differences == []


async def test_the_finished_webhook_waits_for_the_rating_and_carries_it(client, rebuild_db):
    application = client.app.state.application
    _, key = await new_app(client, "hooked")
    subscribed = await client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "event_types": ["game.finished"]},
        headers=bearer(key),
    )
    assert subscribed.status_code == 201, subscribed.text
    pair = [await new_player(client, key, f"hooked-{i}") for i in range(2)]
    game_id = await finished_rated_game(client, key, pair)
    await on_app(
        client, application.webhooks.pump, game_id
    )  # the rating is not applied yet: game.finished waits
    assert one(rebuild_db, "SELECT count(*) FROM webhook_deliveries WHERE game_id = %s", (game_id,)) == 0
    settled = await on_app(client, application.ratings.apply, game_id)
    await on_app(client, application.webhooks.pump, game_id)
    payload = one(
        rebuild_db,
        "SELECT payload FROM webhook_deliveries WHERE game_id = %s AND event_type = 'game.finished'",
        (game_id,),
    )
    import json

    ratings = json.loads(payload)["data"]["ratings"]
    assert ratings["rated"] is True
    assert [s["player_id"] for s in ratings["seats"]] == [p["player_id"] for p in pair]
    assert [s["rating_after"] for s in ratings["seats"]] == [s.rating_after for s in settled.seats]


async def test_an_imported_game_is_rated_only_when_the_operator_says_so(
    client, rebuild_db, monkeypatch, capsys
):
    """An imported record is never rated by itself; ``yamen ratings rate-import`` binds its seats to
    players (or bot anchors) and applies it, refusing in one line an unknown player, seat or bot
    level, and a game already settled."""
    _, key = await new_app(client, "importer")
    one_, two = await new_player(client, key, "imp-1"), await new_player(client, key, "imp-2")
    original = await finished_rated_game(client, key, [one_, two])
    record = await client.get(f"/v1/games/{original}/record")
    imported = await client.post(
        "/v1/games/import", content=record.content, headers={"Content-Type": "application/octet-stream"}
    )
    assert imported.status_code == 201, imported.text
    game_id = imported.json()["game_id"]
    assert one(rebuild_db, "SELECT rated FROM games WHERE game_id = %s", (game_id,)) is False
    monkeypatch.setenv("DATABASE_URL", rebuild_db)
    monkeypatch.setattr(service.cli, "_games", test_games)

    def rate(*args: str) -> int:
        return service.cli.main(["ratings", "rate-import", game_id, *args])

    for args, says in (
        (
            ("--player", "0=p_0000000000000000", "--player", f"1={two['player_id']}"),
            "no player p_0000000000000000",
        ),
        (("--player", f"0={one_['player_id']}", "--player", f"7={two['player_id']}"), "not [7]"),
        (("--player", f"0={one_['player_id']}", "--bot", "1=grandmaster"), "no bot 'grandmaster'"),
        (("--player", "zero"), "is not SEAT=NAME"),
    ):
        capsys.readouterr()  # the app's own log lines so far
        assert await asyncio.to_thread(rate, *args) == 1, args
        said = [line for line in capsys.readouterr().err.splitlines() if "rate-import" in line]
        assert len(said) == 1 and says in said[0], said
    assert one(rebuild_db, "SELECT count(*) FROM rated_games WHERE game_id = %s", (game_id,)) == 0
    bound = ("--player", f"0={one_['player_id']}", "--player", f"1={two['player_id']}")
    assert await asyncio.to_thread(rate, *bound) == 0, capsys.readouterr().err
    assert one(rebuild_db, "SELECT count(*) FROM rating_changes WHERE game_id = %s", (game_id,)) == 2
    assert await asyncio.to_thread(rate, *bound) == 1  # settled: once only
    assert "waiting to be rated" in capsys.readouterr().err

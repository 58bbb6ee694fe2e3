"""Sharding readiness: every statement the service sends on behalf of one game touches that game's
rows only, so the schema can be distributed by ``game_id`` (Citus; deploy/README.md).

The test records every SQL statement the real app sends to Postgres while a game is created,
joined, played (two-request and one-trip, with an Idempotency-Key and without), read, followed,
exported, verified, handed to a bot and rematched; then asks Postgres to plan each one with its
recorded parameters (``EXPLAIN``, nothing executed) and checks that every scan of a game table is
constrained by ``game_id``.  The few statements that span games by design are named, with why.
"""

from __future__ import annotations

import asyncio
import json
import re

import psycopg
import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer, create

GAME_TABLES = {"games", "seats", "events", "idempotency"}
OPERATOR = "one-game-per-statement-operator-token-0123"

ACROSS_GAMES = {
    "SELECT g.game_id FROM games g WHERE g.status = 'active' AND EXISTS": "the sweep: games with bots",
    "SELECT g.game_id FROM games g WHERE g.status = 'active' AND (g.options": "the sweep: games with clocks",
    "SELECT g.game_id FROM games g LEFT JOIN webhook_progress p": "the sweep: app games the webhook pump "
    "trails",
    "SELECT p.game_id FROM webhook_progress p WHERE NOT p.rematch_seen": "the sweep: app games finished "
    "lately whose rematch the webhook pump has not announced",
    "FROM games g WHERE g.visibility = 'public'": "the lobby (GET /v1/games): a listing of public games",
    "FROM games g WHERE (g.visibility = 'public' OR": "the lobby, as an app or a player sees it",
    "FROM games g WHERE g.app_id = %s AND g.status <> 'finished'": "an app's games not finished, counted "
    "against its concurrent-games limit when it creates one (bounded by the limit)",
    "hash) SELECT r.game_id, r.seq, r.type": "the group commit: the moves finishing together, of any games, "
    "in one statement (a sharded deployment runs with batched appends off, or batches per shard)",
    "array_agg(s.seat ORDER BY s.seat) FROM seats s JOIN games g": "a player's games across titles "
    "(GET /v1/me/games), found through its seats (the seats_of_player index)",
    "SELECT g.game_id FROM games g WHERE g.rated AND g.finished_at": "the sweep: rated games "
    "finished lately whose rating no job applied (docs/ratings.md)",
}
"""Statements that span games on purpose (matched by their start), and why."""


def _across(sql: str) -> str | None:
    flat = " ".join(sql.split())
    for start, why in ACROSS_GAMES.items():
        if start in flat:
            return why
    return None


@pytest.fixture
def recorded(monkeypatch):
    """Every (sql, params) sent through psycopg's async connections and cursors meanwhile."""
    sent: list[tuple[str, object]] = []

    def wrap(cls, name):
        original = getattr(cls, name)

        async def recording(self, query, params=None, *args, **kwargs):
            text = (
                query
                if isinstance(query, str)
                else query.as_string(None)
                if hasattr(query, "as_string")
                else str(query)
            )
            if name == "executemany":
                params = list(params)
                for p in params[:1]:
                    sent.append((text, p))
            else:
                sent.append((text, params))
            return await original(self, query, params, *args, **kwargs)

        monkeypatch.setattr(cls, name, recording)

    wrap(psycopg.AsyncConnection, "execute")
    wrap(psycopg.AsyncCursor, "execute")
    wrap(psycopg.AsyncCursor, "executemany")
    return sent


def _touches_game_tables(sql: str) -> bool:
    words = set(re.findall(r"[a-z_]+", sql.lower()))
    first = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    return bool(words & GAME_TABLES) and first in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")


def _plan_nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _plan_nodes(child)


async def _scenario(client) -> None:
    created = await create(client, "yangtze", {"players": 2}, seed="shards", take=[0])
    game_id = created["game_id"]
    tokens = {0: created["tokens"][0]["token"]}
    joined = (await client.post(f"/v1/games/{game_id}/seats/1")).json()
    tokens[1] = joined["token"]
    for n in range(12):
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        seat = doc["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        headers = {**bearer(tokens[seat]), **({"Idempotency-Key": f"k{n}"} if n % 3 == 0 else {})}
        path = f"/v1/games/{game_id}/moves" + ("?include=legal_moves" if n % 2 else "")
        answer = await client.post(path, json=legal["moves"][0], headers=headers)
        assert answer.status_code == 200, answer.text
    await client.get(f"/v1/games/{game_id}/events?after=0&limit=50")
    await client.get(f"/v1/games/{game_id}/events?after=1&wait=0")
    await client.get(f"/v1/games/{game_id}/states/5", headers=bearer(tokens[0]))
    await client.get(f"/v1/games/{game_id}/record", headers=bearer(tokens[0]))
    await client.get(f"/v1/games/{game_id}/verification")
    await client.post(f"/v1/games/{game_id}/events/tickets", headers=bearer(tokens[0]))
    await client.put(f"/v1/games/{game_id}/seats/1/bot", json={"level": "random"}, headers=bearer(tokens[1]))
    await client.delete(f"/v1/games/{game_id}/seats/1/bot", headers=bearer(tokens[1]))
    resigned = await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "table.Resign"}, headers=bearer(tokens[0])
    )
    assert resigned.status_code == 200, resigned.text
    rematch = await client.post(f"/v1/games/{game_id}/rematch", headers=bearer(tokens[1]))
    assert rematch.status_code == 201, rematch.text
    await client.get("/v1/games?limit=5")
    # An app's private game: created with its key (counted against its limits), watched and listed.
    made = await client.post("/v1/admin/apps", json={"name": "shards"}, headers=bearer(OPERATOR))
    key = made.json()["key"]["key"]
    owned = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "visibility": "private"},
        headers=bearer(key),
    )
    assert owned.status_code == 201, owned.text
    assert (await client.get(f"/v1/games/{owned.json()['game_id']}", headers=bearer(key))).status_code == 200
    assert (await client.get("/v1/games?limit=5", headers=bearer(key))).status_code == 200
    # Moves of two games at once (the group commit may put them in one statement).
    games = [await create(client, "yangtze", {"players": 2}, seed=f"shards-{n}") for n in range(2)]
    for _ in range(3):
        requests = []
        for other in games:
            doc = (await client.get(f"/v1/games/{other['game_id']}")).json()
            token = next(t["token"] for t in other["tokens"] if t["seat"] == doc["to_act"][0])
            legal = (
                await client.get(f"/v1/games/{other['game_id']}/legal-moves", headers=bearer(token))
            ).json()
            requests.append(
                client.post(
                    f"/v1/games/{other['game_id']}/moves", json=legal["moves"][0], headers=bearer(token)
                )
            )
        assert all(r.status_code == 200 for r in await asyncio.gather(*requests))
    # A player's game: created and claimed by players, played with their credentials, listed across
    # games, a seat's token re-issued.
    players = [(await client.post("/v1/guests")).json()["credential"]["credential"] for _ in range(2)]
    mine = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": [0]},
        headers=bearer(players[0]),
    )
    game_id = mine.json()["game_id"]
    assert (await client.post(f"/v1/games/{game_id}/seats/1", headers=bearer(players[1]))).status_code == 201
    seat = (await client.get(f"/v1/games/{game_id}")).json()["to_act"][0]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(players[seat]))).json()
    moved = await client.post(
        f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(players[seat])
    )
    assert moved.status_code == 200, moved.text
    for query in ("", "?to_act=true", "?status=active&limit=1"):
        assert (await client.get(f"/v1/me/games{query}", headers=bearer(players[0]))).status_code == 200
    reissued = await client.post(f"/v1/games/{game_id}/seats/0/token", headers=bearer(players[0]))
    assert reissued.status_code == 201, reissued.text
    assert (
        await client.get(f"/v1/games/{game_id}", headers=bearer(reissued.json()["token"]))
    ).status_code == 200


@pytest.mark.parametrize("batch_appends", [True, False], ids=["group-commit", "one-statement-per-command"])
async def test_every_statement_for_one_game_touches_that_game_only(
    database_url, redis_url, recorded, batch_appends
):
    app = make_app(database_url, redis_url, batch_appends=batch_appends, admin_token=OPERATOR)
    async with AsyncTestClient(app=app) as client:
        await _scenario(client)
    statements: dict[str, object] = {}
    for sql, params in recorded:
        if _touches_game_tables(sql):
            statements.setdefault(sql, params)
    assert len(statements) >= 10, list(statements)
    spanning, checked, unbounded = [], 0, []
    with psycopg.connect(database_url, autocommit=True) as conn:
        for sql, params in statements.items():
            why = _across(sql)
            if why is not None:
                spanning.append(why)
                continue
            with conn.transaction(force_rollback=True):
                plan = conn.execute("EXPLAIN (FORMAT JSON) " + sql, params).fetchone()[0][0]["Plan"]
            checked += 1
            for node in _plan_nodes(plan):
                relation = node.get("Relation Name")
                if relation not in GAME_TABLES or node.get("Node Type") == "ModifyTable":
                    continue
                conditions = " ".join(
                    str(node.get(key, "")) for key in ("Index Cond", "Filter", "Recheck Cond", "Join Filter")
                )
                if "game_id" not in conditions:
                    unbounded.append((relation, node.get("Node Type"), " ".join(sql.split())[:160]))
    assert not unbounded, json.dumps(unbounded, indent=1)
    assert checked >= 10
    if not batch_appends:
        assert not any("group commit" in why for why in spanning), "YAMEN_BATCH_APPENDS=0 batched moves"
    print(f"\n{checked} statements constrained by game_id; spanning games by design: {sorted(set(spanning))}")

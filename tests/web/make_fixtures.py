"""Writes the documents the board modules' unit tests draw (tests/web/fixtures/<kind>-<players>p.json).

Each file is what the web client holds for one seat of a real game part-way through: the game
document (with that seat's view), its legal moves when it is to act, the title's component data and
the narrated events (the page's feed).  Run it again after a change to a title's view:

    .venv/bin/python -m tests.web.make_fixtures

It plays seeded random moves on a real app (Postgres and Redis as for the test suite)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from litestar.testing import TestClient

from domain.registry import production_games
from tests.conftest import make_app

HERE = Path(__file__).parent / "fixtures"
MOVES = 40
"""Random moves played before the snapshot: past the opening, so most of a board is in use."""


def _fixture(client: TestClient, kind: str, players: int, seed: int) -> dict:
    created = client.post(
        "/v1/games", json={"kind": kind, "options": {"players": players}, "take_seats": "all"}
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in created.json()["tokens"]}
    rng = random.Random(seed)
    for _ in range(MOVES):
        doc = client.get(f"/v1/games/{game_id}").json()
        if not doc["to_act"]:
            break
        seat = rng.choice(doc["to_act"])
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth).json()
        moved = client.post(
            f"/v1/games/{game_id}/moves",
            json=rng.choice(legal["moves"]),
            headers={**auth, "If-Match": f'"{legal["version"]}"'},
        )
        assert moved.status_code == 200, moved.text
    doc = client.get(f"/v1/games/{game_id}").json()
    seat = doc["to_act"][0] if doc["to_act"] else 0
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    doc = client.get(f"/v1/games/{game_id}", headers=auth).json()
    legal = (
        client.get(f"/v1/games/{game_id}/legal-moves", headers=auth).json() if seat in doc["to_act"] else None
    )
    events = client.get(
        f"/v1/games/{game_id}/events",
        params={"after": 0, "limit": 1000, "include": "narration"},
        headers=auth,
    ).json()["events"]
    components = client.get(f"/v1/catalogue/{kind}/components").json()
    return {"seat": seat, "doc": doc, "legal": legal, "components": components, "events": events}


def main() -> None:
    database = os.environ.get("YAMEN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
    redis = os.environ.get("YAMEN_TEST_REDIS", "redis://127.0.0.1:6379/0")
    HERE.mkdir(exist_ok=True)
    with TestClient(app=make_app(database, redis)) as client:
        for kind, game in sorted(production_games().items()):
            for players in sorted({min(game.player_counts), max(game.player_counts)}):
                fixture = _fixture(client, kind, players, seed=players)
                path = HERE / f"{kind}-{players}p.json"
                path.write_text(json.dumps(fixture, sort_keys=True, separators=(",", ":")) + "\n")
                print(path, len(fixture["events"]), "events")


if __name__ == "__main__":
    main()

"""Small HTTP helpers for API tests."""

from __future__ import annotations

from typing import Any


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(
    client, kind: str, options: dict[str, Any] | None = None, *, seed: str | None = "api-test", take="all"
) -> dict:
    body: dict[str, Any] = {"kind": kind, "options": options or {}, "take_seats": take}
    if seed is not None:
        body["seed"] = seed
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def play_to_end(
    client, game_id: str, tokens: dict[int, str], *, choose=None, max_moves: int = 20_000
) -> dict:
    """Play a whole game over HTTP, each seat choosing among the legal moves it is given."""
    import random

    rng = random.Random(game_id)
    moves = 0
    while True:
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        if doc["status"] == "finished":
            return doc
        assert doc["to_act"], doc
        seat = doc["to_act"][rng.randrange(len(doc["to_act"]))]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        assert legal["moves"], f"seat {seat} must act but has no legal move"
        move = choose(legal["moves"]) if choose else legal["moves"][rng.randrange(len(legal["moves"]))]
        response = await client.post(
            f"/v1/games/{game_id}/moves",
            json=move,
            headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
        )
        assert response.status_code == 200, response.text
        moves += 1
        assert moves < max_moves

"""Ratings through the real app: players play rated games to the end, a real job worker applies the
change, and every number equals an independent ``openskill`` computation made here from the outcome.
A database of this module's own, so its job worker takes only its games' jobs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from litestar.testing import AsyncTestClient
from openskill.models import PlackettLuce

from tests.conftest import make_app
from tests.http.helpers import bearer, play_to_end
from tests.http.players_support import ADMIN_TOKEN, new_app, new_player
from tests.servers import fresh_database

MODEL = PlackettLuce()
"""The model with openskill's defaults, as docs/ratings.md says the service uses."""
ANCHOR_RANDOM = (18.0, 1.0)
"""The random bot's anchor (docs/ratings.md)."""


@pytest.fixture(scope="module")
def ratings_db() -> Iterator[str]:
    with fresh_database("yamen_ratings_") as url:
        yield url


@pytest.fixture(scope="module")
async def client(ratings_db: str, redis_url: str) -> AsyncIterator[AsyncTestClient]:
    app = make_app(ratings_db, redis_url, admin_token=ADMIN_TOKEN, rate_limit="off")
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def app_key(client: AsyncTestClient) -> str:
    return (await new_app(client, "ratings"))[1]


async def players(client: AsyncTestClient, key: str, n: int, prefix: str) -> list[dict[str, Any]]:
    made = [await new_player(client, key, f"{prefix}-{i}", display_name=f"{prefix} {i}") for i in range(n)]
    return [{"player_id": p["player_id"], "credential": p["credential"]["credential"]} for p in made]


async def rated_game(
    client: AsyncTestClient,
    key: str,
    seated: list[dict[str, Any] | None],
    *,
    bots: dict[int, str] | None = None,
    rounds: int = 1,
) -> tuple[str, dict[int, str]]:
    """A rated Bluff game: *seated*[s] claims seat s with its credential (None: left to *bots*)."""
    body = {
        "kind": "bluff",
        "options": {"players": len(seated), "rounds": rounds},
        "take_seats": "none",
        "rated": True,
        "bots": {str(s): level for s, level in (bots or {}).items()},
    }
    created = await client.post("/v1/games", json=body, headers=bearer(key))
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = {}
    for seat, player in enumerate(seated):
        if player is None:
            continue
        joined = await client.post(f"/v1/games/{game_id}/seats/{seat}", headers=bearer(player["credential"]))
        assert joined.status_code == 201, joined.text
        tokens[seat] = joined.json()["token"]
    return game_id, tokens


async def play_with_bots(client: AsyncTestClient, game_id: str, tokens: dict[int, str]) -> None:
    """Play the people's seats at random; the service's bots play theirs (a job each turn)."""
    import random

    rng = random.Random(game_id)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        if doc["status"] == "finished":
            return
        mine = [s for s in doc["to_act"] if s in tokens]
        if not mine:
            await asyncio.sleep(0.05)
            continue
        seat = rng.choice(mine)
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        if not legal["moves"]:
            continue
        await client.post(
            f"/v1/games/{game_id}/moves",
            json=rng.choice(legal["moves"]),
            headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
        )
    raise AssertionError("the game did not finish")


async def settled(client: AsyncTestClient, game_id: str) -> dict[str, Any]:
    """The finished game's document once its rating is applied (by the job worker)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = await client.get(f"/v1/games/{game_id}")
        doc = answer.json()
        if doc["status"] == "finished" and "ratings" in doc:
            assert answer.headers.get("etag") == f'"{doc["version"]}"'
            return doc
        if doc["status"] == "finished":
            assert "etag" not in answer.headers, "a pending rating's document must not be tagged"
        await asyncio.sleep(0.05)
    raise AssertionError(f"the rating of {game_id} was never applied")


def expected(
    beliefs: dict[str, tuple[float, float]],
    seats: list[tuple[str | None, tuple[float, float] | None]],
    ranks: list[int],
) -> list[tuple[float, float]]:
    """openskill's own answer: one team per seat, ranked by the outcome (a new player at the prior)."""
    teams = []
    for player, anchor in seats:
        mu, sigma = beliefs.get(player, (MODEL.mu, MODEL.sigma)) if player is not None else anchor  # type: ignore[misc]
        teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


def display(mu: float, sigma: float) -> int:
    return round(1000.0 + 40.0 * (mu - 3.0 * sigma))


async def test_rated_games_change_every_seat_as_openskill_does(client, app_key):
    trio = await players(client, app_key, 3, "trio")
    ids = [p["player_id"] for p in trio]
    beliefs: dict[str, tuple[float, float]] = {}
    for order in ([0, 1, 2], [2, 0, 1]):
        seated = [trio[i] for i in order]
        game_id, tokens = await rated_game(client, app_key, seated)
        await play_to_end(client, game_id, tokens)
        doc = await settled(client, game_id)
        ranks = [s["rank"] for s in sorted(doc["outcome"]["scores"], key=lambda s: s["seat"])]
        want = expected(beliefs, [(ids[i], None) for i in order], ranks)
        assert doc["ratings"]["rated"] is True
        for seat, (player, (mu, sigma)) in enumerate(zip([ids[i] for i in order], want, strict=True)):
            shown = doc["ratings"]["seats"][seat]
            before = beliefs.get(player, (MODEL.mu, MODEL.sigma))
            assert shown["player_id"] == player and shown["rank"] == ranks[seat]
            assert shown["rating_before"] == display(*before)
            assert shown["rating_after"] == display(mu, sigma)
            assert shown["delta"] == shown["rating_after"] - shown["rating_before"]
            assert shown["provisional"] is True
            beliefs[player] = (mu, sigma)
    for player in ids:
        answer = await client.get(f"/v1/players/{player}/ratings")
        assert answer.status_code == 200, answer.text
        mine = answer.json()
        (title,) = mine["ratings"]
        assert (title["kind"], title["games"], title["provisional"]) == ("bluff", 2, True)
        assert (title["mu"], title["sigma"]) == beliefs[player]  # exactly: the same floats
        assert [c["games"] for c in mine["history"]] == [2, 1]  # newest first
        assert (mine["history"][0]["mu"], mine["history"][0]["sigma"]) == beliefs[player]
    me = await client.get("/v1/me/ratings?limit=1", headers=bearer(trio[0]["credential"]))
    assert me.status_code == 200, me.text
    page = me.json()
    assert page["player_id"] == ids[0] and len(page["history"]) == 1 and page["next_cursor"]
    rest = (
        await client.get(
            f"/v1/me/ratings?cursor={page['next_cursor']}", headers=bearer(trio[0]["credential"])
        )
    ).json()
    assert [c["games"] for c in rest["history"]] == [1] and rest["next_cursor"] is None


async def test_a_bot_is_an_anchor_that_never_changes(client, app_key):
    (alone,) = await players(client, app_key, 1, "anchored")
    game_id, tokens = await rated_game(client, app_key, [alone, None], bots={1: "random"})
    await play_with_bots(client, game_id, tokens)
    doc = await settled(client, game_id)
    ranks = [s["rank"] for s in sorted(doc["outcome"]["scores"], key=lambda s: s["seat"])]
    (mu, sigma), _ = expected({}, [(alone["player_id"], None), (None, ANCHOR_RANDOM)], ranks)
    person, bot = doc["ratings"]["seats"]
    assert person["player_id"] == alone["player_id"] and person["rating_after"] == display(mu, sigma)
    assert bot["player_id"] is None and bot["bot"] == "random"
    assert bot["rating_before"] == bot["rating_after"] == display(*ANCHOR_RANDOM) and bot["delta"] == 0
    history = (await client.get(f"/v1/players/{alone['player_id']}/ratings")).json()
    assert (history["ratings"][0]["mu"], history["ratings"][0]["sigma"]) == (mu, sigma)


async def test_games_that_end_unrated_say_why(client, app_key):
    pair = await players(client, app_key, 2, "unrated")
    # The creator (a player) takes its seats at create: never rated.
    created = await client.post(
        "/v1/games",
        json={"kind": "bluff", "options": {"players": 2}, "take_seats": "all", "rated": True},
        headers=bearer(pair[0]["credential"]),
    )
    assert created.status_code == 201, created.text
    made = created.json()
    await play_to_end(client, made["game_id"], {t["seat"]: t["token"] for t in made["tokens"]})
    assert (await settled(client, made["game_id"]))["ratings"] == {
        "rated": False,
        "reason": "creator_took_seats",
    }
    # One player holds both seats.
    game_id, tokens = await rated_game(client, app_key, [pair[0], pair[0]])
    await play_to_end(client, game_id, tokens)
    assert (await settled(client, game_id))["ratings"]["reason"] == "player_holds_several_seats"
    # A seat claimed without a player.
    game_id, tokens = await rated_game(client, app_key, [pair[1], None])
    anonymous = await client.post(f"/v1/games/{game_id}/seats/1")
    tokens[1] = anonymous.json()["token"]
    await play_to_end(client, game_id, tokens)
    assert (await settled(client, game_id))["ratings"]["reason"] == "seat_without_player"
    # Not asked to be rated: no ratings at all, and nobody's rating moved.
    casual = await client.post(
        "/v1/games",
        json={"kind": "bluff", "options": {"players": 2}, "take_seats": "none"},
        headers=bearer(app_key),
    )
    casual_id = casual.json()["game_id"]
    casual_tokens = {}
    for seat, player in enumerate(pair):
        joined = await client.post(
            f"/v1/games/{casual_id}/seats/{seat}", headers=bearer(player["credential"])
        )
        casual_tokens[seat] = joined.json()["token"]
    doc = await play_to_end(client, casual_id, casual_tokens)
    assert "ratings" not in doc
    for player in pair:
        mine = (await client.get(f"/v1/players/{player['player_id']}/ratings")).json()
        assert mine["ratings"] == [] and mine["history"] == []


async def test_the_leaderboard_orders_pages_and_finds_a_player(client, app_key, ratings_db):
    now = datetime.now(UTC)
    board = await players(client, app_key, 25, "board")
    ids = [p["player_id"] for p in board]
    with psycopg.connect(ratings_db, autocommit=True) as conn:
        for i, player in enumerate(ids):
            # Generated ratings (the board is a read of this table): one provisional player, two equal.
            games = 3 if i == 0 else 12
            mu, sigma = 20.0 + (i % 20), 2.0
            conn.execute(
                "INSERT INTO player_ratings (player_id, kind, mu, sigma, games, updated_at, rating)"
                " VALUES (%s, 'yangtze', %s, %s, %s, %s, %s)",
                (player, mu, sigma, games, now, 1000.0 + 40.0 * (mu - 3.0 * sigma)),
            )
    established = [(1000.0 + 40.0 * (20.0 + (i % 20) - 6.0), pid) for i, pid in enumerate(ids) if i != 0]
    order = [pid for _, pid in sorted(established, key=lambda e: (-e[0], e[1]))]
    seen, cursor = [], None
    while True:
        url = "/v1/leaderboards/yangtze?limit=7" + (f"&cursor={cursor}" if cursor else "")
        page = (await client.get(url)).json()
        seen += page["entries"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [e["player_id"] for e in seen] == order
    assert [e["rank"] for e in seen] == list(range(1, len(order) + 1))
    assert ids[0] not in {e["player_id"] for e in seen}  # provisional: not on the board
    middle = order[10]
    around = (await client.get(f"/v1/leaderboards/yangtze/around/{middle}?neighbours=3")).json()
    assert around["player"]["rank"] == 11 and around["player"]["player_id"] == middle
    assert [e["player_id"] for e in around["entries"]] == order[7:14]
    assert [e["rank"] for e in around["entries"]] == list(range(8, 15))
    top = (await client.get(f"/v1/leaderboards/yangtze/around/{order[0]}?neighbours=2")).json()
    assert [e["rank"] for e in top["entries"]] == [1, 2, 3]
    refused = await client.get(f"/v1/leaderboards/yangtze/around/{ids[0]}")
    assert refused.status_code == 404 and refused.json()["code"] == "not_on_leaderboard"
    assert (await client.get("/v1/leaderboards/chess")).json()["code"] == "unknown_kind"
    bad = await client.get("/v1/leaderboards/yangtze?cursor=nonsense")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_cursor"
    unknown = await client.get("/v1/players/p_0123456789abcdef/ratings")
    assert unknown.status_code == 404 and unknown.json()["code"] == "player_not_found"

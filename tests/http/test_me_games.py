"""``GET /v1/me/games``: a player's games across titles, most recently changed first, filtered by
status and by "I am to act", paged by a keyset cursor — and a seat token recovered from the list."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer, play_to_end
from tests.http.players_support import ADMIN_TOKEN, new_app, new_guest, new_player


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


async def _mine(client, credential: dict, query: str = "") -> list[dict]:
    answer = await client.get(f"/v1/me/games{query}", headers=credential)
    assert answer.status_code == 200, answer.text
    return answer.json()["games"]


async def _create(client, credential: dict, kind: str, players: int = 2, take="all") -> dict:
    answer = await client.post(
        "/v1/games",
        json={"kind": kind, "options": {"players": players}, "take_seats": take},
        headers=credential,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


async def test_a_players_games_across_titles_and_a_seat_token_recovered(api):
    """The issue's promise: a player's credential lists its games across all three titles, and
    recovers a seat token (on another device, say, where none was kept)."""
    _, key = await new_app(api)
    phone = bearer((await new_player(api, key, "zhao"))["credential"]["credential"])
    made = {kind: await _create(api, phone, kind, take=[0]) for kind in ("yangtze", "pingyao", "jiangnan")}
    for kind, game in made.items():  # somebody takes each second seat: the games start
        assert (await api.post(f"/v1/games/{game['game_id']}/seats/1")).status_code == 201, kind
    laptop = bearer((await new_player(api, key, "zhao"))["credential"]["credential"])  # another device
    mine = await _mine(api, laptop)
    assert {g["kind"] for g in mine} == {"yangtze", "pingyao", "jiangnan"}
    assert all(g["seats"] == [0] and g["status"] == "active" for g in mine)
    game = mine[0]
    assert game["links"]["game"] == f"/v1/games/{game['game_id']}"
    assert game["links"]["legal_moves"] == f"/v1/games/{game['game_id']}/legal-moves"
    recovered = await api.post(f"/v1/games/{game['game_id']}/seats/0/token", headers=laptop)
    assert recovered.status_code == 201, recovered.text
    doc = await api.get(game["links"]["game"], headers=bearer(recovered.json()["token"]))
    assert doc.json()["viewer"] == 0


async def test_newest_activity_first_and_what_i_am_to_act_in(api):
    me, other = await new_guest(api), await new_guest(api)
    mine, theirs = bearer(me["credential"]["credential"]), bearer(other["credential"]["credential"])
    first = await _create(api, mine, "bluff", take=[0])
    second = await _create(api, mine, "bluff", take=[0])
    assert [g["game_id"] for g in await _mine(api, mine)] == [second["game_id"], first["game_id"]]
    assert all(g["status"] == "open" and g["to_act"] == [] for g in await _mine(api, mine))
    assert await _mine(api, mine, "?to_act=true") == []  # an open game waits for players, not for me
    for game in (first, second):
        assert (await api.post(f"/v1/games/{game['game_id']}/seats/1", headers=theirs)).status_code == 201
    # Whoever is to act in each: the list says which of my seats must act, and filters on it.
    acting = {}
    for game in (first, second):
        doc = (await api.get(f"/v1/games/{game['game_id']}")).json()
        acting[game["game_id"]] = doc["to_act"]
    listed = {g["game_id"]: g for g in await _mine(api, mine)}
    for game_id, to_act in acting.items():
        assert listed[game_id]["to_act"] == [s for s in to_act if s == 0]
    waiting = [g["game_id"] for g in await _mine(api, mine, "?to_act=true")]
    assert waiting == [g for g in listed if 0 in acting[g]]
    # A move in the older game makes it the most recently changed, and passes the turn on.
    older = first["game_id"]
    seat = acting[older][0]
    actor = mine if seat == 0 else theirs
    legal = (await api.get(f"/v1/games/{older}/legal-moves", headers=actor)).json()
    moved = await api.post(f"/v1/games/{older}/moves", json=legal["moves"][0], headers=actor)
    assert moved.status_code == 200, moved.text
    after = await _mine(api, mine)
    assert after[0]["game_id"] == older and after[0]["version"] == moved.json()["version"]
    now_to_act = moved.json()["to_act"]
    assert after[0]["to_act"] == [s for s in now_to_act if s == 0]
    assert (older in [g["game_id"] for g in await _mine(api, mine, "?to_act=true")]) is (0 in now_to_act)


async def test_filtered_by_status_and_paged(api):
    me = await new_guest(api)
    mine = bearer(me["credential"]["credential"])
    finished = await _create(api, mine, "bluff", players=2)
    tokens = {t["seat"]: t["token"] for t in finished["tokens"]}
    await play_to_end(api, finished["game_id"], tokens)
    active = [await _create(api, mine, "bluff") for _ in range(3)]
    waiting = await _create(api, mine, "bluff", take=[1])
    assert [g["game_id"] for g in await _mine(api, mine, "?status=finished")] == [finished["game_id"]]
    assert [g["game_id"] for g in await _mine(api, mine, "?status=open")] == [waiting["game_id"]]
    assert {g["game_id"] for g in await _mine(api, mine, "?status=active")} == {g["game_id"] for g in active}
    paged, cursor = [], None
    while True:
        query = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = (await api.get(f"/v1/me/games{query}", headers=mine)).json()
        assert len(page["games"]) <= 2
        paged += [g["game_id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    everything = [g["game_id"] for g in await _mine(api, mine, "?limit=100")]
    assert paged == everything and len(everything) == 5
    # A rematch is the player's too: its seats stay bound.
    rematch = await api.post(f"/v1/games/{finished['game_id']}/rematch", headers=bearer(tokens[0]))
    assert rematch.status_code == 201, rematch.text
    newest = (await _mine(api, mine))[0]
    assert newest["game_id"] == rematch.json()["game_id"] and newest["seats"] == [0, 1]


@pytest.mark.parametrize(
    "query", ["?cursor=nonsense", "?status=over", "?limit=0", "?limit=101", "?to_act=maybe"]
)
async def test_bad_parameters_are_a_400(api, query):
    me = await new_guest(api)
    answer = await api.get(f"/v1/me/games{query}", headers=bearer(me["credential"]["credential"]))
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] in ("invalid_cursor", "invalid_request")


async def test_only_a_player_has_games_of_its_own(api):
    _, key = await new_app(api)
    game = (await api.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}})).json()
    for headers in ({}, bearer(key), bearer(game["tokens"][0]["token"])):
        answer = await api.get("/v1/me/games", headers=headers)
        assert answer.status_code == 401, answer.text
        assert answer.json()["code"] == "player_required"


@pytest.mark.parametrize(
    ("batch_appends", "keyed"),
    [(True, False), (True, True), (False, False)],
    ids=["group commit", "idempotency key: one statement", "batched appends off"],
)
async def test_every_append_records_who_is_to_act(database_url, redis_url, store, batch_appends, keyed):
    """``games.to_act`` (what ``?to_act=true`` filters on) follows every move, whichever statement
    appended it."""
    async with AsyncTestClient(app=make_app(database_url, redis_url, batch_appends=batch_appends)) as client:
        game = (await client.post("/v1/games", json={"kind": "bluff", "options": {"players": 3}})).json()
        game_id, tokens = game["game_id"], {t["seat"]: t["token"] for t in game["tokens"]}

        async def recorded() -> list[int]:
            async with store.connection() as conn:
                cur = await conn.execute("SELECT to_act FROM games WHERE game_id = %s", (game_id,))
                return list((await cur.fetchone())[0])

        doc = (await client.get(f"/v1/games/{game_id}")).json()
        assert await recorded() == doc["to_act"]  # at create
        for n in range(6):
            if doc["status"] != "active":
                break
            seat = doc["to_act"][0]
            legal = (
                await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))
            ).json()
            headers = bearer(tokens[seat]) | ({"Idempotency-Key": f"{game_id}-{n}"} if keyed else {})
            moved = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=headers)
            assert moved.status_code == 200, moved.text
            doc = (await client.get(f"/v1/games/{game_id}")).json()
            assert await recorded() == doc["to_act"] == moved.json()["to_act"]

"""Only a game's creator fills its open seats with bots; anybody may still join them.

A stranger who found a game in the lobby used to be able to fill its open seats with bots, and so
start it without the friends its creator had sent the seat links to.  The creator is who made the
create request: its player (a credential or assertion, or a token of a seat bound to it), its app's
key, or — for an anonymous create — a holder of a seat the request took.  A game from before the
creator was kept stays anybody's to fill."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer, create
from tests.http.players_support import ADMIN_TOKEN, new_app, new_guest

RANDOM = {"level": "random"}


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


def _refused(answer) -> None:
    assert answer.status_code == 403, answer.text
    assert answer.json()["code"] == "not_the_creator"


async def test_an_anonymous_creator_fills_with_the_token_of_a_seat_it_took(api):
    created = await create(api, "yangtze", {"players": 3}, seed="fill-anon", take=[0])
    game_id = created["game_id"]
    _refused(await api.put(f"/v1/games/{game_id}/seats/2/bot", json=RANDOM))  # a stranger
    joined = await api.post(f"/v1/games/{game_id}/seats/1")
    assert joined.status_code == 201, joined.text  # anybody may still join
    _refused(
        await api.put(f"/v1/games/{game_id}/seats/2/bot", json=RANDOM, headers=bearer(joined.json()["token"]))
    )
    filled = await api.put(
        f"/v1/games/{game_id}/seats/2/bot", json=RANDOM, headers=bearer(created["tokens"][0]["token"])
    )
    assert filled.status_code == 200, filled.text
    assert filled.json()["status"] == "active"
    assert [s["bot"] for s in filled.json()["seats"]] == [None, None, "random"]


async def test_an_anonymous_create_that_took_no_seat_sets_its_bots_at_create(api):
    created = await create(api, "yangtze", {"players": 2}, seed="fill-nobody", take="none")
    game_id = created["game_id"]
    joined = await api.post(f"/v1/games/{game_id}/seats/0")
    assert joined.status_code == 201, joined.text
    for headers in ({}, bearer(joined.json()["token"])):
        _refused(await api.put(f"/v1/games/{game_id}/seats/1/bot", json=RANDOM, headers=headers))


async def test_a_player_creator_fills_with_its_credential_or_its_seats_token(api):
    guest = await new_guest(api)
    credential = guest["credential"]["credential"]
    made = await api.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 4}, "take_seats": [0]},
        headers=bearer(credential),
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    other = (await new_guest(api))["credential"]["credential"]
    _refused(await api.put(f"/v1/games/{game_id}/seats/1/bot", json=RANDOM, headers=bearer(other)))
    by_credential = await api.put(f"/v1/games/{game_id}/seats/1/bot", json=RANDOM, headers=bearer(credential))
    assert by_credential.status_code == 200, by_credential.text
    seat_token = (await api.post(f"/v1/games/{game_id}/seats/0/token", headers=bearer(credential))).json()
    by_token = await api.put(
        f"/v1/games/{game_id}/seats/2/bot", json=RANDOM, headers=bearer(seat_token["token"])
    )
    assert by_token.status_code == 200, by_token.text
    assert [s["bot"] for s in by_token.json()["seats"]] == [None, "random", "random", None]


async def test_an_apps_key_fills_the_apps_games(api):
    _, key = await new_app(api)
    _, other_key = await new_app(api)
    made = await api.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "none"},
        headers=bearer(key),
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    _refused(await api.put(f"/v1/games/{game_id}/seats/0/bot", json=RANDOM, headers=bearer(other_key)))
    filled = await api.put(f"/v1/games/{game_id}/seats/0/bot", json=RANDOM, headers=bearer(key))
    assert filled.status_code == 200, filled.text


async def test_a_game_from_before_creators_were_kept_is_anybodys_to_fill(api, database_url):
    import psycopg

    created = await create(api, "yangtze", {"players": 2}, seed="fill-legacy", take=[0])
    game_id = created["game_id"]
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("UPDATE games SET creator = NULL WHERE game_id = %s", (game_id,))
    filled = await api.put(f"/v1/games/{game_id}/seats/1/bot", json=RANDOM)
    assert filled.status_code == 200, filled.text

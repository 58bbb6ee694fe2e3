"""A player's seats: a claim or a create by a player binds the seats it takes; the player acts there
with its own credential (``?seat=`` when it holds several); the seat's token can be re-issued by
its player, and the old token stops working at once on every worker."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from service.application import seats as seats_module
from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.players_support import ADMIN_TOKEN, new_app, new_guest, new_player


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    async with AsyncTestClient(app=make_app(database_url, redis_url, admin_token=ADMIN_TOKEN)) as client:
        yield client


def credential_of(player: dict) -> dict[str, str]:
    return bearer(player["credential"]["credential"])


async def test_a_player_creating_a_game_holds_the_seats_it_takes(api):
    guest = await new_guest(api)
    me = credential_of(guest)
    made = await api.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 3}, "take_seats": [0, 2]}, headers=me
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    # It holds two seats: it names the one it acts as.
    vague = await api.get(f"/v1/games/{game_id}", headers=me)
    assert vague.status_code == 400 and vague.json()["code"] == "seat_required"
    for seat in (0, 2):
        doc = (await api.get(f"/v1/games/{game_id}?seat={seat}", headers=me)).json()
        assert doc["viewer"] == seat
    not_mine = await api.get(f"/v1/games/{game_id}?seat=1", headers=me)
    assert not_mine.status_code == 400 and not_mine.json()["code"] == "seat_required"
    # The open seat is claimed by somebody else; the game starts and the player moves as its seat.
    other = await new_guest(api)
    joined = await api.post(f"/v1/games/{game_id}/seats/1", headers=credential_of(other))
    assert joined.status_code == 201, joined.text
    doc = (await api.get(f"/v1/games/{game_id}", headers=credential_of(other))).json()
    assert doc["viewer"] == 1 and doc["status"] == "active"
    seat = doc["to_act"][0]
    actor = me if seat in (0, 2) else credential_of(other)
    query = f"?seat={seat}" if seat in (0, 2) else ""
    legal = (await api.get(f"/v1/games/{game_id}/legal-moves{query}", headers=actor)).json()
    assert legal["seat"] == seat
    moved = await api.post(f"/v1/games/{game_id}/moves{query}", json=legal["moves"][0], headers=actor)
    assert moved.status_code == 200, moved.text
    # The seat tokens shown at create still hold their seats too.
    token = made.json()["tokens"][0]["token"]
    assert (await api.get(f"/v1/games/{game_id}", headers=bearer(token))).json()["viewer"] == 0


async def test_a_player_holding_seats_claims_another_without_naming_one(api):
    guest = await new_guest(api)
    me = credential_of(guest)
    made = (
        await api.post(
            "/v1/games", json={"kind": "bluff", "options": {"players": 3}, "take_seats": [0, 1]}, headers=me
        )
    ).json()
    joined = await api.post(f"/v1/games/{made['game_id']}/seats/2", headers=me)
    assert joined.status_code == 201, joined.text
    assert joined.json()["status"] == "active"
    mine = (await api.get("/v1/me/games", headers=me)).json()["games"]
    assert mine[0]["game_id"] == made["game_id"] and mine[0]["seats"] == [0, 1, 2]


async def test_an_app_seats_its_players_in_a_private_game(api):
    _, key = await new_app(api)
    _, other_key = await new_app(api, "other")
    alice, bob = await new_player(api, key, "alice"), await new_player(api, key, "bob")
    stranger = await new_player(api, other_key, "mallory")
    made = await api.post(
        "/v1/games",
        json={"kind": "bluff", "options": {"players": 2}, "take_seats": "none", "visibility": "private"},
        headers=bearer(key),
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    # Nobody else may see the game, so nobody else may claim its seats.
    hidden = await api.post(f"/v1/games/{game_id}/seats/0", headers=credential_of(alice))
    assert hidden.status_code == 404 and hidden.json()["code"] == "game_not_found"
    # Another app's player is not this app's to seat; a player names nobody but itself.
    foreign = await api.post(
        f"/v1/games/{game_id}/seats/0", json={"player_id": stranger["player_id"]}, headers=bearer(key)
    )
    assert foreign.status_code == 404 and foreign.json()["code"] == "player_not_found"
    for seat, player in ((0, alice), (1, bob)):
        seated = await api.post(
            f"/v1/games/{game_id}/seats/{seat}", json={"player_id": player["player_id"]}, headers=bearer(key)
        )
        assert seated.status_code == 201, seated.text
    doc = await api.get(f"/v1/games/{game_id}", headers=credential_of(bob))
    assert doc.status_code == 200 and doc.json()["viewer"] == 1
    assert (await api.get(f"/v1/games/{game_id}", headers=credential_of(stranger))).status_code == 404


async def test_only_an_app_key_claims_a_seat_for_somebody(api):
    _, key = await new_app(api)
    alice, bob = await new_player(api, key, "alice"), await new_player(api, key, "bob")
    made = (
        await api.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}, "take_seats": "none"})
    ).json()
    answer = await api.post(
        f"/v1/games/{made['game_id']}/seats/0",
        json={"player_id": bob["player_id"]},
        headers=credential_of(alice),
    )
    assert answer.status_code == 401 and answer.json()["code"] == "app_key_required"


async def _reissue(client, game_id: str, seat: int, player: dict):
    return await client.post(f"/v1/games/{game_id}/seats/{seat}/token", headers=credential_of(player))


async def test_the_seats_player_has_its_token_reissued_and_the_old_one_stops(api):
    guest = await new_guest(api)
    made = (
        await api.post(
            "/v1/games",
            json={"kind": "bluff", "options": {"players": 2}, "take_seats": [0]},
            headers=credential_of(guest),
        )
    ).json()
    game_id, old = made["game_id"], made["tokens"][0]["token"]
    assert (await api.get(f"/v1/games/{game_id}", headers=bearer(old))).json()["viewer"] == 0
    old_ticket = (await api.post(f"/v1/games/{game_id}/events/tickets", headers=bearer(old))).json()["ticket"]
    reissued = await _reissue(api, game_id, 0, guest)
    assert reissued.status_code == 201, reissued.text
    assert reissued.headers["cache-control"] == "no-store"
    new = reissued.json()["token"]
    assert new != old and new.startswith("ymn.0.")
    assert (await api.get(f"/v1/games/{game_id}", headers=bearer(new))).json()["viewer"] == 0
    stale = await api.get(f"/v1/games/{game_id}", headers=bearer(old))
    assert stale.status_code == 401 and stale.json()["code"] == "invalid_token"
    # A stream ticket made with the old token is worthless too.
    stream = await api.get(f"/v1/games/{game_id}/events/stream?ticket={old_ticket}")
    assert stream.status_code == 401 and stream.json()["code"] == "invalid_ticket"


async def test_only_the_seats_player_may_reissue_its_token(api):
    owner, other = await new_guest(api), await new_guest(api)
    made = (
        await api.post(
            "/v1/games",
            json={"kind": "bluff", "options": {"players": 2}, "take_seats": [0]},
            headers=credential_of(owner),
        )
    ).json()
    game_id = made["game_id"]
    anonymous_claim = await api.post(f"/v1/games/{game_id}/seats/1")  # a bare claim: bound to nobody
    assert anonymous_claim.status_code == 201
    for seat in (0, 1):
        answer = await _reissue(api, game_id, seat, other)
        assert answer.status_code == 403 and answer.json()["code"] == "not_your_seat", answer.text
    assert (await _reissue(api, game_id, 1, owner)).json()["code"] == "not_your_seat"
    nobody = await api.post(f"/v1/games/{game_id}/seats/0/token")
    assert nobody.status_code == 401 and nobody.json()["code"] == "player_required"
    with_token = await api.post(
        f"/v1/games/{game_id}/seats/0/token", headers=bearer(made["tokens"][0]["token"])
    )
    assert with_token.status_code == 401 and with_token.json()["code"] == "player_required"
    no_seat = await _reissue(api, game_id, 5, owner)
    assert no_seat.status_code == 404 and no_seat.json()["code"] == "seat_not_found"


@pytest.mark.parametrize("boards", [True, False], ids=["with the notice board", "without Redis"])
async def test_a_reissued_token_stops_the_old_one_at_once_on_every_worker(
    database_url, redis_url, boards, monkeypatch
):
    # Longer than the test: the old token must stop because of the notice, not because time passed.
    monkeypatch.setattr(seats_module, "BOUND_TOKEN_SECONDS", 600.0)
    redis = redis_url if boards else None
    async with (
        AsyncTestClient(app=make_app(database_url, redis)) as a,
        AsyncTestClient(app=make_app(database_url, redis)) as b,
    ):
        guest = await new_guest(a)
        made = (
            await a.post(
                "/v1/games",
                json={"kind": "bluff", "options": {"players": 2}, "take_seats": "all"},
                headers=credential_of(guest),
            )
        ).json()
        game_id, old = made["game_id"], made["tokens"][1]["token"]
        for _ in range(3):  # b remembers the seat's hash while its board vouches for it
            assert (await b.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(old))).status_code == 200
        remembered = b.app.state.application.seats._bound_hashes.get(game_id, {})
        assert (1 in remembered) is boards
        for _ in range(5):
            reissued = await _reissue(a, game_id, 1, guest)
            assert reissued.status_code == 201, reissued.text
            new = reissued.json()["token"]
            stale = await b.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(old))
            assert stale.status_code == 401, stale.text
            assert (await b.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(new))).status_code == 200
            old = new


async def test_a_seat_bound_to_nobody_is_remembered_for_good(api):
    made = (await api.post("/v1/games", json={"kind": "bluff", "options": {"players": 2}})).json()
    seats = api.app.state.application.seats
    assert (made["game_id"], 0) in seats._token_hashes  # the hot path: no read, no board needed
    assert made["game_id"] not in seats._bound_hashes


async def test_which_seats_a_player_holds_is_remembered_only_once_no_seat_is_open(api):
    guest = await new_guest(api)
    me = credential_of(guest)
    made = (
        await api.post(
            "/v1/games", json={"kind": "bluff", "options": {"players": 3}, "take_seats": [0]}, headers=me
        )
    ).json()
    game_id = made["game_id"]
    seats = api.app.state.application.seats
    assert (await api.get(f"/v1/games/{game_id}", headers=me)).json()["viewer"] == 0
    assert (game_id, guest["player_id"]) not in seats._held  # a claim may still add a seat
    assert (await api.post(f"/v1/games/{game_id}/seats/1", headers=me)).status_code == 201
    vague = await api.get(f"/v1/games/{game_id}", headers=me)
    assert vague.status_code == 400 and vague.json()["code"] == "seat_required"
    assert (await api.post(f"/v1/games/{game_id}/seats/2")).status_code == 201  # full now
    assert (await api.get(f"/v1/games/{game_id}?seat=1", headers=me)).json()["viewer"] == 1
    assert seats._held[(game_id, guest["player_id"])] == [0, 1]

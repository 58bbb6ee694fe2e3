"""Seeks through the real API: a player seeks a game, the matcher seats compatible seekers in one
(started, bound to them), bots fill a seek after its wait, option constraints are honoured, bad
seeks are refused with 4xx, and a seek can be cancelled until it is matched (docs/matching.md).

Each test makes its own app, so its players form a pool of their own.  The matcher runs as a job
(every seek asks for it); a test follows a seek with a long poll until it is matched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.players_support import ADMIN_TOKEN, new_app, new_guest, new_player

WAIT = "?wait=20"
"""A long poll's bound: a matched seek answers at once, long before it."""


@pytest.fixture(scope="module")
async def api(database_url, redis_url):
    app = make_app(database_url, redis_url, admin_token=ADMIN_TOKEN, webhook_allow_private=True)
    async with AsyncTestClient(app=app) as client:
        yield client


async def _players(api, n: int) -> tuple[str, str, list[dict[str, str]]]:
    """A new app (a pool of its own), its key, and *n* of its players' credentials."""
    app_id, key = await new_app(api)
    players = [await new_player(api, key, f"seeker-{i}") for i in range(n)]
    return app_id, key, [bearer(p["credential"]["credential"]) for p in players]


async def _seek(api, who: dict[str, str], **body: Any) -> dict:
    answer = await api.post("/v1/seeks", json={"kind": "bluff", **body}, headers=who)
    assert answer.status_code == 201, answer.text
    seek = answer.json()
    assert answer.headers["location"] == f"/v1/seeks/{seek['seek_id']}"
    return seek


async def _follow(api, who: dict[str, str], seek: dict, query: str = WAIT) -> dict:
    answer = await api.get(f"/v1/seeks/{seek['seek_id']}{query}", headers=who)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_compatible_seekers_are_seated_in_one_started_game(api):
    _, _, (a, b) = await _players(api, 2)
    first = await _seek(api, a, players=[2], rated=True)
    assert first["status"] == "open" and first["players"] == [2] and first["rated"] is True
    second = await _seek(api, b, players=[2, 3], rated=True)
    mine, theirs = await _follow(api, a, first), await _follow(api, b, second)
    assert mine["status"] == theirs["status"] == "matched", (mine, theirs)
    assert mine["game_id"] == theirs["game_id"] is not None
    assert {mine["seat"], theirs["seat"]} == {0, 1}
    game = await api.get(f"/v1/games/{mine['game_id']}", headers=a)
    assert game.status_code == 200, game.text
    doc = game.json()
    assert doc["status"] == "active" and doc["players"] == 2 and doc["viewer"] == mine["seat"]
    assert all(s["claimed"] and s["bot"] is None for s in doc["seats"])
    listed = (await api.get("/v1/me/games", headers=b)).json()["games"]
    assert [(g["game_id"], g["seats"]) for g in listed] == [(mine["game_id"], [theirs["seat"]])]
    token = await api.post(mine["links"]["seat_token"], headers=a)
    assert token.status_code == 201, token.text
    assert (await api.get(mine["links"]["game"], headers=bearer(token.json()["token"]))).json()["viewer"] == (
        mine["seat"]
    )


async def test_rated_and_casual_seeks_are_not_matched_together(api):
    """The oldest seek is tried first: a casual seeker is paired with the next casual one, never with
    the older rated seek."""
    _, _, (a, b, c) = await _players(api, 3)
    rated = await _seek(api, a, players=[2], rated=True)
    casual = await _seek(api, b, players=[2])
    later = await _seek(api, c, players=[2])
    paired = await _follow(api, b, casual)
    assert paired["status"] == "matched" and (await _follow(api, c, later))["game_id"] == paired["game_id"]
    assert (await _follow(api, a, rated, ""))["status"] == "open"


async def _options(api, who: dict[str, str], game_id: str) -> dict:
    """The options of a game the player holds a seat in (the list shows them)."""
    listed = (await api.get("/v1/games?kind=bluff&status=active&limit=100", headers=who)).json()["games"]
    return next(g["options"] for g in listed if g["game_id"] == game_id)


async def test_option_constraints_are_honoured(api):
    _, _, (a, b, c) = await _players(api, 3)
    first = await _seek(api, a, players=[2], options={"rounds": [2]})
    apart = await _seek(api, b, players=[2], options={"rounds": [1]})
    third = await _seek(api, c, players=[2], options={"rounds": [1, 2]})
    # a and b share no value; a (the oldest) is paired with c, on the one value both accept.
    matched = await _follow(api, a, first)
    assert matched["status"] == "matched" and (await _follow(api, c, third))["game_id"] == matched["game_id"]
    assert (await _options(api, a, matched["game_id"]))["rounds"] == 2
    assert (await _follow(api, b, apart, ""))["status"] == "open"
    _, _, (d, e) = await _players(api, 2)
    one = await _seek(api, d, players=[2], options={"rounds": [1, 2]})
    two = await _seek(api, e, players=[2, 3])  # no constraint: the other's first choice
    assert (await _follow(api, e, two))["game_id"] == (matched := await _follow(api, d, one))["game_id"]
    assert (await _options(api, d, matched["game_id"]))["rounds"] == 1


async def test_bots_fill_a_seek_after_its_wait(api):
    _, _, (a,) = await _players(api, 1)
    seek = await _seek(api, a, players=[3, 2], bots_after=0, bot_level="random")
    assert seek["bots_after"] == 0 and seek["bot_level"] == "random"
    matched = await _follow(api, a, seek)
    assert matched["status"] == "matched", matched
    doc = (await api.get(f"/v1/games/{matched['game_id']}", headers=a)).json()
    assert doc["players"] == 2  # the smallest count acceptable
    assert doc["viewer"] == matched["seat"]
    bots = {s["seat"]: s["bot"] for s in doc["seats"] if s["bot"] is not None}
    assert bots == {1 - matched["seat"]: "random"}


async def test_a_players_other_seeks_are_withdrawn_when_one_is_matched(api):
    app_id, _, (a, b) = await _players(api, 2)
    elsewhere = await _seek(api, a, kind="yangtze", players=[4])
    seek = await _seek(api, a, players=[2])
    await _seek(api, b, players=[2])
    assert (await _follow(api, a, seek))["status"] == "matched"
    withdrawn = await _follow(api, a, elsewhere, "")
    assert withdrawn["status"] == "cancelled" and withdrawn["closed_reason"] == "matched_elsewhere"
    del app_id


async def test_one_open_seek_per_title(api):
    _, _, (a,) = await _players(api, 1)
    await _seek(api, a, players=[4])
    again = await api.post("/v1/seeks", json={"kind": "bluff", "players": [3]}, headers=a)
    assert again.status_code == 409 and again.json()["code"] == "seek_exists", again.text
    await _seek(api, a, kind="yangtze", players=[4])  # another title is another seek
    mine = (await api.get("/v1/me/seeks?status=open", headers=a)).json()["seeks"]
    assert sorted(s["kind"] for s in mine) == ["bluff", "yangtze"]


async def test_cancel_and_who_may_see_a_seek(api):
    _, _, (a, b) = await _players(api, 2)
    seek = await _seek(api, a, players=[4])
    assert (await api.get(f"/v1/seeks/{seek['seek_id']}", headers=b)).status_code == 404
    assert (await api.delete(f"/v1/seeks/{seek['seek_id']}", headers=b)).status_code == 404
    cancelled = await api.delete(f"/v1/seeks/{seek['seek_id']}", headers=a)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled" and cancelled.json()["closed_reason"] == "by_player"
    await _seek(api, a, players=[4])  # a cancelled seek leaves the title free
    assert (await api.get("/v1/seeks/s_0123456789abcdef0123", headers=a)).json()["code"] == "seek_not_found"


async def test_a_matched_seek_cannot_be_cancelled(api):
    _, _, (a, b) = await _players(api, 2)
    seek = await _seek(api, a, players=[2])
    await _seek(api, b, players=[2])
    assert (await _follow(api, a, seek))["status"] == "matched"
    refused = await api.delete(f"/v1/seeks/{seek['seek_id']}", headers=a)
    assert refused.status_code == 409 and refused.json()["code"] == "seek_closed", refused.text


async def test_guests_seek_in_their_own_pool(api):
    guest = bearer((await new_guest(api))["credential"]["credential"])
    seek = await _seek(api, guest, players=[4])
    assert (await api.get(f"/v1/seeks/{seek['seek_id']}", headers=guest)).json()["status"] == "open"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"kind": "bluff", "options": {"colour": ["red"]}}, 400, "invalid_seek"),
        ({"kind": "bluff", "options": {"players": [2]}}, 400, "invalid_seek"),
        ({"kind": "bluff", "options": {"rounds": ["two"]}}, 400, "invalid_seek"),
        ({"kind": "bluff", "options": {"table": [{"takebacks": "free"}]}}, 400, "invalid_seek"),
        ({"kind": "bluff", "options": {"table": [{"clock": {"mode": "hourglass"}}]}}, 400, "invalid_seek"),
        ({"kind": "bluff", "options": {"rounds": []}}, 400, None),
        ({"kind": "bluff", "players": [5]}, 400, "invalid_seek"),
        ({"kind": "bluff", "players": [1]}, 400, None),
        ({"kind": "yangtze", "bots_after": 5, "bot_level": "grandmaster"}, 400, "invalid_seek"),
        ({"kind": "bluff", "bots_after": -1}, 400, None),
        ({"kind": "bluff", "expires_in": 5}, 400, None),
        ({"kind": "bluff", "colour": "red"}, 400, None),
        ({"kind": "chess"}, 404, "unknown_kind"),
    ],
)
async def test_bad_seeks_are_refused(api, body, status, code):
    _, _, (a,) = await _players(api, 1)
    answer = await api.post("/v1/seeks", json=body, headers=a)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    if code is not None:
        assert answer.json()["code"] == code
    assert (await api.get("/v1/me/seeks", headers=a)).json()["seeks"] == []  # nothing written


async def test_only_players_seek(api):
    _, key, _ = await _players(api, 0)
    for headers in ({}, bearer(key)):
        answer = await api.post("/v1/seeks", json={"kind": "bluff"}, headers=headers)
        assert answer.status_code == 401 and answer.json()["code"] == "player_required", answer.text
    assert (await api.get("/v1/me/seeks")).status_code == 401
    bad = await api.get("/v1/me/seeks?cursor=nope", headers=(await _players(api, 1))[2][0])
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_cursor"


async def test_my_seeks_newest_first_in_pages(api):
    _, _, (a,) = await _players(api, 1)
    made = []
    for kind in ("bluff", "yangtze", "pingyao"):
        made.append((await _seek(api, a, kind=kind, players=[4]))["seek_id"])
    first = (await api.get("/v1/me/seeks?limit=2", headers=a)).json()
    rest = (await api.get(f"/v1/me/seeks?limit=2&cursor={first['next_cursor']}", headers=a)).json()
    assert [s["seek_id"] for s in first["seeks"] + rest["seeks"]] == made[::-1]
    assert rest["next_cursor"] is None


async def test_the_apps_webhook_hears_seek_matched(api):
    app_id, key, (a, b) = await _players(api, 2)
    endpoint = await api.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "event_types": ["game.created", "seek.matched"]},
        headers=bearer(key),
    )
    assert endpoint.status_code == 201, endpoint.text
    seek = await _seek(api, a, players=[2])
    other = await _seek(api, b, players=[2])
    matched = await _follow(api, a, seek)
    game_id = matched["game_id"]
    path = f"/v1/webhooks/{endpoint.json()['endpoint_id']}/deliveries?game_id={game_id}"
    for _ in range(200):  # the game's webhook pump is a job: until it has run
        deliveries = await api.get(path, headers=bearer(key))
        assert deliveries.status_code == 200, deliveries.text
        if len(deliveries.json()["deliveries"]) >= 2:
            break
        await asyncio.sleep(0.1)
    found = {d["event_type"]: d["payload"] for d in deliveries.json()["deliveries"]}
    assert set(found) == {"game.created", "seek.matched"}
    seeks = {s["seek_id"]: s["seat"] for s in found["seek.matched"]["data"]["seeks"]}
    assert seeks == {seek["seek_id"]: matched["seat"], other["seek_id"]: 1 - matched["seat"]}
    del app_id

"""Bot seats over HTTP: a seat created as a bot, or handed to one later, is played by the job
queue's worker through the same path as a person's move, from that seat's view only."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from domain.kernel import bots as kernel_bots

from .helpers import bearer, create


async def wait_for(client, game_id: str, predicate, timeout: float = 60.0) -> dict:
    """The game document once *predicate* holds (bots move in the background)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        if predicate(doc):
            return doc
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting; last: {doc['to_act']}"
        await asyncio.sleep(0.02)


async def play_person_against_bots(client, game_id: str, tokens: dict[int, str]) -> dict:
    """The persons play uniformly among their legal moves; the bots play by themselves."""
    import random

    rng = random.Random(game_id)
    people = set(tokens)
    while True:
        doc = await wait_for(
            client, game_id, lambda d: d["status"] == "finished" or bool(people & set(d["to_act"]))
        )
        if doc["status"] == "finished":
            return doc
        seat = sorted(people & set(doc["to_act"]))[0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        move = legal["moves"][rng.randrange(len(legal["moves"]))]
        answer = await client.post(
            f"/v1/games/{game_id}/moves",
            json=move,
            headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
        )
        assert answer.status_code in (200, 412), answer.text  # 412: a bot moved meanwhile


async def test_the_catalogue_lists_each_titles_bot_levels(client):
    entries = {e["kind"]: e for e in (await client.get("/v1/catalogue")).json()["games"]}
    for kind in ("yangtze", "pingyao", "jiangnan"):
        assert entries[kind]["bot_levels"][0] == "random"


@pytest.mark.parametrize("kind", ["yangtze", "pingyao", "jiangnan"])
async def test_one_person_and_three_bots_finish_a_four_player_game(client, kind):
    levels = (await client.get("/v1/catalogue")).json()["games"]
    levels = next(e["bot_levels"] for e in levels if e["kind"] == kind)
    bots = {str(seat): levels[seat % len(levels)] for seat in (1, 2, 3)}
    response = await client.post(
        "/v1/games", json={"kind": kind, "options": {"players": 4}, "seed": f"bots-{kind}", "bots": bots}
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["status"] == "active"
    assert [t["seat"] for t in created["tokens"]] == [0]
    game_id = created["game_id"]
    table = (await client.get(f"/v1/games/{game_id}")).json()["seats"]
    assert [s["bot"] for s in table] == [None, bots["1"], bots["2"], bots["3"]]
    done = await play_person_against_bots(client, game_id, {0: created["tokens"][0]["token"]})
    assert done["outcome"]["scores"]
    history = (await client.get(f"/v1/games/{game_id}/events?limit=1000")).json()
    assert {e["seat"] for e in history["events"] if e["seat"] is not None} >= {1, 2, 3}
    verification = (await client.get(f"/v1/games/{game_id}/verification")).json()
    assert verification["ok"] is True, verification


async def test_a_bot_is_handed_exactly_what_its_seat_would_see(client, monkeypatch):
    """The leak test for bots: every view a bot decided on is, byte for byte, what that seat's own
    GET of the game at that version shows, and its moves are that seat's legal moves."""
    decided_at: list[int] = []
    handed: list[tuple[int, int, object, list]] = []
    real_rng, real_choose = kernel_bots.bot_rng, kernel_bots.choose

    def rng_spy(game_id, version, seat):
        decided_at.append(version)
        return real_rng(game_id, version, seat)

    def choose_spy(game, level, view, seat, legal, rng):
        handed.append((decided_at[-1], seat, view, list(legal)))
        return real_choose(game, level, view, seat, legal, rng)

    monkeypatch.setattr(kernel_bots, "bot_rng", rng_spy)
    monkeypatch.setattr(kernel_bots, "choose", choose_spy)
    created = await create(client, "yangtze", {"players": 3}, seed="bots-see")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    for seat in (0, 1, 2):  # every holder hands its seat to a bot; the bots play to the end
        response = await client.put(
            f"/v1/games/{game_id}/seats/{seat}/bot", json={"level": "random"}, headers=bearer(tokens[seat])
        )
        assert response.status_code == 200, response.text
        assert response.json()["seats"][seat]["bot"] == "random"
    await wait_for(client, game_id, lambda d: d["status"] == "finished")
    assert len(handed) > 20
    for version, seat, view, legal in handed[::7]:
        shown = await client.get(f"/v1/games/{game_id}/states/{version}", headers=bearer(tokens[seat]))
        assert shown.status_code == 200, shown.text
        assert shown.json()["viewer"] == seat
        assert shown.json()["view"] == msgspec.to_builtins(view), f"seat {seat} at {version}"
        # A bot is offered the title's moves only, never the table's (resign, leave, take-backs).
        assert legal and all(type(move).__struct_config__.tag.startswith("yangtze.") for move in legal)


async def test_an_open_seat_filled_by_a_bot_starts_the_game(client):
    created = await create(client, "yangtze", {"players": 2}, seed="bots-open", take=[0])
    game_id = created["game_id"]
    assert created["status"] == "open"
    creator = bearer(created["tokens"][0]["token"])  # the create took seat 0: its holder is the creator
    response = await client.put(f"/v1/games/{game_id}/seats/1/bot", json={"level": "random"}, headers=creator)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "active"
    # The bot seat was claimed: nobody can join it now.
    assert (await client.post(f"/v1/games/{game_id}/seats/1")).status_code == 409
    done = await play_person_against_bots(client, game_id, {0: created["tokens"][0]["token"]})
    assert done["status"] == "finished"


async def test_a_person_takes_the_seat_back_and_plays_on(client):
    created = await create(client, "yangtze", {"players": 2}, seed="bots-back")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    start = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    handed = await client.put(
        f"/v1/games/{game_id}/seats/1/bot", json={"level": "random"}, headers=bearer(tokens[1])
    )
    assert handed.status_code == 200
    back = await client.delete(f"/v1/games/{game_id}/seats/1/bot", headers=bearer(tokens[1]))
    assert back.status_code == 200, back.text
    assert back.json()["seats"][1]["bot"] is None
    again = await client.delete(f"/v1/games/{game_id}/seats/1/bot", headers=bearer(tokens[1]))
    assert again.status_code == 409 and again.json()["code"] == "seat_not_bot"
    # Seat 1 is a person again: seat 0 plays until seat 1 is to act, and then nobody plays for it
    # (a bot turn still queued from the hand-over finds no bot seat), until its holder moves.
    settled = await wait_for(client, game_id, lambda d: bool(d["to_act"]))
    assert settled["version"] >= start
    for _ in range(50):
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        if 1 in doc["to_act"]:
            break
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[0]))).json()
        assert (
            await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[0]))
        ).status_code == 200
    else:
        raise AssertionError("seat 1 never came to act")
    await asyncio.sleep(1.0)
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == doc["version"]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[1]))).json()
    moved = await client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[1]))
    assert moved.status_code == 200, moved.text


async def test_bot_requests_that_make_no_sense_are_refused(client):
    created = await create(client, "yangtze", {"players": 2}, seed="bots-bad")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    cases = [
        (
            client.put(
                f"/v1/games/{game_id}/seats/0/bot", json={"level": "grandmaster"}, headers=bearer(tokens[0])
            ),
            422,
            "unknown_bot_level",
        ),
        (
            client.put(
                f"/v1/games/{game_id}/seats/1/bot", json={"level": "random"}, headers=bearer(tokens[0])
            ),
            403,
            "not_your_seat",
        ),
        (client.put(f"/v1/games/{game_id}/seats/1/bot", json={"level": "random"}), 409, "seat_taken"),
        (client.put(f"/v1/games/{game_id}/seats/5/bot", json={"level": "random"}), 404, "seat_not_found"),
        (client.delete(f"/v1/games/{game_id}/seats/0/bot"), 401, None),
        (
            client.post(
                "/v1/games", json={"kind": "yangtze", "options": {"players": 2}, "bots": {"2": "random"}}
            ),
            422,
            "invalid_seat",
        ),
        (client.post("/v1/games", json={"kind": "yangtze", "bots": {"1": "nope"}}), 422, "unknown_bot_level"),
        (
            client.post(
                "/v1/games",
                json={
                    "kind": "yangtze",
                    "options": {"players": 2},
                    "take_seats": [1],
                    "bots": {"1": "random"},
                },
            ),
            422,
            "invalid_seat",
        ),
    ]
    for request, status, code in cases:
        response = await request
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        if code is not None:
            assert response.json()["code"] == code


async def test_a_seat_handed_to_a_bot_on_one_worker_is_played_after_a_move_on_the_other(
    database_url, redis_url
):
    """Worker b remembers the full table (no bot); the seat is handed over on worker a; b's next
    move must see the bot at once (the ``<game> seats`` notice), not after a sweep."""
    from litestar.testing import AsyncTestClient

    from tests.conftest import make_app

    async with (
        AsyncTestClient(app=make_app(database_url, redis_url)) as a,
        AsyncTestClient(app=make_app(database_url, redis_url)) as b,
    ):
        created = await create(a, "yangtze", {"players": 2}, seed="bots-two-workers")
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        assert [s["bot"] for s in (await b.get(f"/v1/games/{game_id}")).json()["seats"]] == [None, None]
        handed = await a.put(
            f"/v1/games/{game_id}/seats/1/bot", json={"level": "heuristic"}, headers=bearer(tokens[1])
        )
        assert handed.status_code == 200, handed.text
        await wait_for(b, game_id, lambda d: d["seats"][1]["bot"] == "heuristic", timeout=5)
        # Seat 0 plays on worker b only; seat 1's bot answers every time.
        done = await play_person_against_bots(b, game_id, {0: tokens[0]})
        assert done["status"] == "finished"

"""The table over HTTP: a game's clock runs on the service's time and its deadlines fire from the
job queue; seats resign, leave and take moves back through ``POST …/moves``; a finished game
offers a rematch; the lobby shows each game's options."""

from __future__ import annotations

from .helpers import bearer, create
from .test_bots import play_person_against_bots, wait_for


async def move(client, game_id: str, token: str, command: dict, status: int = 200) -> dict:
    answer = await client.post(f"/v1/games/{game_id}/moves", json=command, headers=bearer(token))
    assert answer.status_code == status, answer.text
    return answer.json()


async def doc(client, game_id: str, token: str | None = None) -> dict:
    return (await client.get(f"/v1/games/{game_id}", headers=bearer(token) if token else {})).json()


async def events_of(client, game_id: str) -> list[dict]:
    return (await client.get(f"/v1/games/{game_id}/events?limit=1000")).json()["events"]


async def test_a_decision_clock_times_out_a_seat_lets_a_bot_decide_and_replaces_it_after_two(client):
    table = {"clock": {"mode": "decision", "seconds": 1}, "zombie_after": 2}
    created = await create(client, "yangtze", {"players": 2, "table": table}, seed="clock-http")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    started = await wait_for(
        client, game_id, lambda d: bool(d["table"]["clocks"][d["to_act"][0]]["deadline_ms"])
    )
    response = await client.get(f"/v1/games/{game_id}")
    server_time = int(response.headers["server-time-ms"])
    seat = started["to_act"][0]
    deadline = started["table"]["clocks"][seat]["deadline_ms"]
    assert 0 < deadline - server_time <= 1000
    assert started["table"]["clock"]["mode"] == "decision"
    # Nobody moves: the deadline job claims the timeout and a bot decides for the seat.
    timed_out = await wait_for(
        client, game_id, lambda d: d["table"]["clocks"][seat]["timeouts"] >= 1, timeout=20
    )
    assert timed_out["version"] > started["version"]
    types = [e["event"]["type"] for e in await events_of(client, game_id)]
    assert "table.TimedOut" in types and "table.ClockPunched" in types
    # Keep not moving: the seats time out again and again; each is replaced after two.
    done = await wait_for(client, game_id, lambda d: len(d["table"]["replaced"]) == 2, timeout=60)
    assert {r["reason"] for r in done["table"]["replaced"]} == {"timeouts"}
    refused = await move(client, game_id, tokens[seat], {"type": "table.Resign"}, status=409)
    assert refused["code"] == "seat_replaced"
    finished = await wait_for(client, game_id, lambda d: d["status"] == "finished", timeout=120)
    assert "replaced" in finished["outcome"]["details"]
    verification = (await client.get(f"/v1/games/{game_id}/verification")).json()
    assert verification["ok"] is True, verification


async def test_resigning_a_two_player_game_ends_it_for_the_other_seat(client):
    created = await create(client, "pingyao", {"players": 2}, seed="resign-http")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    answer = await move(client, game_id, tokens[1], {"type": "table.Resign"})
    assert answer["status"] == "finished"
    finished = await doc(client, game_id)
    assert finished["outcome"]["winners"] == [0]
    assert finished["table"]["conceded_by"] == 1
    assert finished["table"]["replaced"][0]["reason"] == "resigned"
    again = await move(client, game_id, tokens[0], {"type": "table.Resign"}, status=409)
    assert again["code"] == "game_over"
    assert (await client.get(f"/v1/games/{game_id}/verification")).json()["ok"] is True


async def test_leaving_hands_the_seat_to_a_bot_and_the_others_play_on(client):
    created = await create(client, "yangtze", {"players": 3}, seed="leave-http")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    await move(client, game_id, tokens[2], {"type": "table.Leave"})
    left = await doc(client, game_id)
    assert left["status"] == "active" and left["table"]["replaced"][0] == {
        "seat": 2,
        "at_ms": left["table"]["replaced"][0]["at_ms"],
        "reason": "left",
    }
    done = await play_person_against_bots(client, game_id, {0: tokens[0], 1: tokens[1]})
    ranks = {s["seat"]: s["rank"] for s in done["outcome"]["scores"]}
    assert ranks[2] == 3
    assert (await client.get(f"/v1/games/{game_id}/verification")).json()["ok"] is True


async def _undoable_move(client, game_id: str, tokens: dict[int, str]) -> tuple[int, dict]:
    """Play until the last move may be taken back; returns its seat and the view before it."""
    for _ in range(300):
        current = await doc(client, game_id)
        seat = current["to_act"][0]
        before = await doc(client, game_id, tokens[seat])
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        await move(client, game_id, tokens[seat], legal["moves"][-1])
        after = await doc(client, game_id, tokens[seat])
        if after["table"]["can_take_back"]:
            return seat, before
    raise AssertionError("no move could be taken back")


async def test_a_take_back_with_consent_restores_the_game_and_verifies(client):
    created = await create(client, "yangtze", {"players": 2, "table": {"takebacks": "consent"}}, seed="undo")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    seat, before = await _undoable_move(client, game_id, tokens)
    other = 1 - seat
    await move(client, game_id, tokens[seat], {"type": "table.RequestTakeback"})
    asked = await doc(client, game_id, tokens[other])
    assert asked["table"]["takeback_requested_by"] == seat
    await move(client, game_id, tokens[other], {"type": "table.AnswerTakeback", "accept": True})
    restored = await doc(client, game_id, tokens[seat])
    assert restored["view"] == before["view"] and restored["to_act"] == before["to_act"]
    assert restored["version"] > before["version"]  # the log only grows
    assert (await client.get(f"/v1/games/{game_id}/verification")).json()["ok"] is True


async def test_a_take_back_that_would_undo_revealed_information_is_refused_with_its_rule_code(client):
    created = await create(
        client, "yangtze", {"players": 2, "table": {"takebacks": "consent"}}, seed="reveal"
    )
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    for _ in range(300):
        seat = (await doc(client, game_id))["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        answer = await move(client, game_id, tokens[seat], legal["moves"][0])
        first = answer["events"][0]["event"]
        if first["type"] == "table.Checkpoint" and not first["undoable"]:
            break
    else:
        raise AssertionError("no revealing move")
    refused = await move(client, game_id, tokens[seat], {"type": "table.RequestTakeback"}, status=422)
    assert (refused["code"], refused["rule"]) == ("takeback_revealed", "Table: Take-backs")


async def test_every_take_back_refusal_names_its_rule(client):
    """Rule violations name their rule (docs/table.md's section, for the table's own rules)."""
    plain = await create(client, "yangtze", {"players": 2}, seed="no-undo")
    seat = (await doc(client, plain["game_id"]))["to_act"][0]
    token = {t["seat"]: t["token"] for t in plain["tokens"]}[seat]
    off = await move(client, plain["game_id"], token, {"type": "table.RequestTakeback"}, status=422)
    created = await create(client, "yangtze", {"players": 2, "table": {"takebacks": "consent"}}, seed="undo")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    seat = (await doc(client, game_id))["to_act"][0]
    not_asked = await move(
        client, game_id, tokens[seat], {"type": "table.AnswerTakeback", "accept": True}, 422
    )
    not_last = await move(client, game_id, tokens[seat], {"type": "table.RequestTakeback"}, status=422)
    codes = {answer["code"]: answer.get("rule") for answer in (off, not_asked, not_last)}
    assert codes == {
        "takebacks_off": "Table: Take-backs",
        "no_takeback_asked": "Table: Take-backs",
        "takeback_not_last": "Table: Take-backs",
    }


async def test_a_bot_opponent_consents_to_a_take_back(client):
    response = await client.post(
        "/v1/games",
        json={
            "kind": "yangtze",
            "options": {"players": 2, "table": {"takebacks": "consent"}},
            "seed": "undo-bot",
            "bots": {"1": "random"},
        },
    )
    created = response.json()
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    for _ in range(300):
        await wait_for(client, game_id, lambda d: 0 in d["to_act"])
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
        await move(client, game_id, token, legal["moves"][-1])
        mine = await doc(client, game_id, token)
        # Still seat 0's decision (a Yangtze turn is several): the bot cannot have moved since.
        if mine["table"]["can_take_back"] and mine["to_act"] == [0]:
            break
    else:
        raise AssertionError("no undoable move in the middle of seat 0's turn")
    await move(client, game_id, token, {"type": "table.RequestTakeback"})
    done = await wait_for(client, game_id, lambda d: d["table"]["takeback_requested_by"] is None, timeout=20)
    events = [e["event"] for e in await events_of(client, game_id)]
    assert [e["type"] for e in events[-2:]] == ["table.TakebackConsented", "table.TakenBack"]
    assert events[-2]["seat"] == 1 and events[-1]["seat"] == 0
    assert done["to_act"] == [0]


async def test_free_take_backs_are_for_solo_and_hot_seat_games_only(client):
    response = await client.post(
        "/v1/games",
        json={
            "kind": "yangtze",
            "options": {"players": 2, "table": {"takebacks": "free"}},
            "take_seats": [0],
        },
    )
    assert response.status_code == 422 and response.json()["code"] == "invalid_options"
    hot_seat = await create(client, "yangtze", {"players": 2, "table": {"takebacks": "free"}}, seed="free")
    assert hot_seat["status"] == "active"


async def test_a_seat_cannot_send_the_services_own_commands(client):
    created = await create(client, "yangtze", {"players": 2}, seed="service-only")
    token = created["tokens"][0]["token"]
    for command in (
        {"type": "table.ClaimTimeout"},
        {"type": "table.StartClocks"},
        {"type": "table.Timed", "at_ms": 0, "command": {"type": "table.Resign"}},
    ):
        answer = await client.post(
            f"/v1/games/{created['game_id']}/moves", json=command, headers=bearer(token)
        )
        assert answer.status_code in (400, 422), answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")


async def test_a_finished_game_offers_one_rematch_with_the_same_seats(client):
    response = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "seed": "rematch", "bots": {"1": "heuristic"}},
    )
    created = response.json()
    game_id, token = created["game_id"], created["tokens"][0]["token"]
    early = await client.post(f"/v1/games/{game_id}/rematch", headers=bearer(token))
    assert early.status_code == 409 and early.json()["code"] == "game_not_finished"
    await move(client, game_id, token, {"type": "table.Resign"})
    first = await client.post(f"/v1/games/{game_id}/rematch", headers=bearer(token))
    assert first.status_code == 201, first.text
    again = await client.post(f"/v1/games/{game_id}/rematch", headers=bearer(token))
    assert again.json()["game_id"] == first.json()["game_id"] != game_id
    new_id = first.json()["game_id"]
    rematch = await doc(client, new_id, token)
    assert rematch["status"] == "active" and rematch["viewer"] == 0  # the same token holds seat 0
    assert [s["bot"] for s in rematch["seats"]] == [None, "heuristic"]
    assert rematch["seed_commitment"] != (await doc(client, game_id))["seed_commitment"]
    stranger = await client.post(f"/v1/games/{game_id}/rematch")
    assert stranger.status_code == 401


async def test_the_lobby_lists_open_games_with_their_clock_and_bots(client):
    table = {"clock": {"mode": "correspondence", "days": 2}}
    response = await client.post(
        "/v1/games",
        json={
            "kind": "jiangnan",
            "options": {"players": 3, "table": table},
            "take_seats": [0],
            "bots": {"2": "heuristic"},
        },
    )
    assert response.status_code == 201, response.text
    game_id = response.json()["game_id"]
    listed = (await client.get("/v1/games?status=open&kind=jiangnan&limit=100")).json()["games"]
    mine = next(g for g in listed if g["game_id"] == game_id)
    assert mine["open_seats"] == [1]
    assert mine["options"]["table"]["clock"]["mode"] == "correspondence"
    assert mine["options"]["table"]["clock"]["days"] == 2
    assert mine["bots"] == {"2": "heuristic"}
    # The last seat is taken: the clocks start.
    joined = await client.post(f"/v1/games/{game_id}/seats/1")
    assert joined.status_code == 201
    started = await wait_for(client, game_id, lambda d: any(c["deadline_ms"] for c in d["table"]["clocks"]))
    assert started["status"] == "active"

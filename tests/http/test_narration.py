"""The narrated feed: ``include=narration`` on a game's history and its event stream gives each
event's line in the game's words, told from the event as the caller sees it (redacted as the event
is), and nothing changes for a caller who does not ask."""

from __future__ import annotations

import random

import httpx

from tests.http.helpers import bearer, create
from tests.http.test_stream import _read_events

KIND = "yangtze"


async def _play(client, game_id: str, tokens: dict[int, str], moves: int) -> int:
    """Plays up to *moves* random legal moves; answers the version reached."""
    rng = random.Random(game_id)
    version = 0
    for _ in range(moves):
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        version = doc["version"]
        if doc["status"] != "active":
            break
        seat = doc["to_act"][0]
        legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
        move = legal["moves"][rng.randrange(len(legal["moves"]))]
        answer = await client.post(
            f"/v1/games/{game_id}/moves",
            json=move,
            headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
    return version


async def _history(client, game_id: str, token: str | None = None, after: int = 0, narrate: bool = True):
    query = f"after={after}&limit=1000" + ("&include=narration" if narrate else "")
    answer = await client.get(f"/v1/games/{game_id}/events?{query}", headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.text
    return answer.json()["events"]


async def test_each_event_is_told_as_its_reader_sees_it(client):
    created = await create(client, KIND, {"players": 2}, seed="narration-1")
    game_id = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    await _play(client, game_id, tokens, 25)

    plain = await _history(client, game_id, narrate=False)
    assert plain and all("text" not in envelope for envelope in plain)

    readers = {
        "spectator": await _history(client, game_id),
        0: await _history(client, game_id, tokens[0]),
        1: await _history(client, game_id, tokens[1]),
    }
    for envelopes in readers.values():
        assert [e["seq"] for e in envelopes] == [e["seq"] for e in plain]
        assert all("text" in e for e in envelopes)
        assert all(e["text"] is None for e in envelopes if e["event"] is None)
        assert sum(1 for e in envelopes if e["text"]) > len(envelopes) // 2, "most events are narrated"

    redacted_seen = 0
    for index, spectator in enumerate(readers["spectator"]):
        seat0, seat1 = readers[0][index], readers[1][index]
        if spectator["event"] == seat0["event"] == seat1["event"]:
            # One event seen alike: one line for every reader.
            assert spectator["text"] == seat0["text"] == seat1["text"], spectator
            continue
        # Hidden from some: the owner's line names what was drawn, the others' lines do not.
        owner = seat0 if seat0["event"] != spectator["event"] else seat1
        if owner["event"]["type"] == "yangtze.StartingGoodsDrawn":
            redacted_seen += 1
            assert owner["text"] != spectator["text"]
            assert "goods behind the screen" in spectator["text"]
            for other in (seat0, seat1):
                if other is not owner:
                    assert other["text"] == spectator["text"]
    assert redacted_seen >= 2, "each seat's starting goods are drawn behind a screen"

    # A page starting mid-game is told from the table at that point: the same lines.
    middle = plain[len(plain) // 2]["seq"]
    later = await _history(client, game_id, tokens[0], after=middle)
    assert later == [e for e in readers[0] if e["seq"] > middle]


async def test_a_bad_include_is_refused(client):
    created = await create(client, KIND, {"players": 2}, seed="narration-2")
    answer = await client.get(f"/v1/games/{created['game_id']}/events?include=everything")
    assert answer.status_code == 400
    assert answer.headers["content-type"].startswith("application/problem+json")


async def test_the_stream_narrates_too(live_server):
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        created = await create(client, KIND, {"players": 2}, seed="narration-3")
        game_id = created["game_id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        version = await _play(client, game_id, tokens, 12)
        history = await _history(client, game_id, tokens[1])
        streamed = await _read_events(
            client,
            f"/v1/games/{game_id}/events/stream?include=narration",
            bearer(tokens[1]),
            until_seq=version,
        )
        assert streamed == history
        middle = version // 2
        tail = await _read_events(
            client,
            f"/v1/games/{game_id}/events/stream?include=narration&after={middle}",
            bearer(tokens[1]),
            until_seq=version,
        )
        assert tail == [e for e in history if e["seq"] > middle]
        plain = await _read_events(
            client, f"/v1/games/{game_id}/events/stream", bearer(tokens[1]), until_seq=version
        )
        assert all("text" not in e for e in plain)

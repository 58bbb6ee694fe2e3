"""Every registered game, played from the first move to the final scoring over HTTP with seat
tokens, each seat choosing among the legal moves it is given; the final scores are the domain's."""

from __future__ import annotations

import msgspec
import pytest

from domain.registry import production_games
from tests.http.helpers import create, play_to_end

CASES = [
    (kind, {"players": players})
    for kind, game in sorted(production_games().items())
    for players in game.player_counts
]
CASES += [
    ("jiangnan", {"players": 4, "chapter": 6}),
    ("jiangnan", {"players": 1, "difficulty": "inferno"}),
    ("pingyao", {"players": 1, "storyline": 5}),
    ("pingyao", {"players": 4, "crowdfunding": True}),
]


def _id(case) -> str:
    kind, options = case
    return kind + "-" + "-".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize(("kind", "options"), CASES, ids=[_id(c) for c in CASES])
async def test_full_game_over_http(client, kind, options):
    game = production_games()[kind]
    options["players"]
    created = await create(client, kind, options, seed=f"http-{_id((kind, options))}")
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    final = await play_to_end(client, created["game_id"], tokens)
    assert final["status"] == "finished" and final["to_act"] == []

    # The outcome the API reports is the one the domain computes from the stored events.
    history = (await client.get(f"/v1/games/{created['game_id']}/events", params={"limit": 1000})).json()
    events = list(history["events"])
    while history["next_after"] is not None:
        history = (
            await client.get(
                f"/v1/games/{created['game_id']}/events",
                params={"after": history["next_after"], "limit": 1000},
            )
        ).json()
        events.extend(history["events"])
    from domain.kernel import union_of

    decoder = msgspec.json.Decoder(union_of(game.event_types))
    state = game.fold(
        game.initial(msgspec.convert(options, game.options_type)),
        (decoder.decode(msgspec.json.encode(e["event"])) for e in events),
    )
    assert msgspec.to_builtins(game.outcome(state)) == final["outcome"]
    assert len(events) == final["version"]
    verification = (await client.get(f"/v1/games/{created['game_id']}/verification")).json()
    assert verification["ok"], verification

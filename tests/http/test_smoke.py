from tests.http.helpers import create, play_to_end


async def test_bluff_plays_to_the_end_over_http(client):
    created = await create(client, "bluff", {"players": 3, "rounds": 1})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    final = await play_to_end(client, created["game_id"], tokens)
    assert final["outcome"]["winners"]
    assert final["seed"] == "api-test"

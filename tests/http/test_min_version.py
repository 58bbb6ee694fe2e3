"""``min_version`` above the game's version is refused, not answered with an older version: a
client that demands a version it has seen is told the game has not reached it (409
``version_not_reached`` with ``current_version``)."""

from __future__ import annotations

from tests.http.helpers import bearer, create


async def test_a_version_the_game_has_not_reached_is_refused_with_the_current_one(client):
    created = await create(client, "bluff", {"players": 2})
    game_id, version, token = created["game_id"], created["version"], created["tokens"][0]["token"]
    await client.get(f"/v1/games/{game_id}")  # the worker now remembers the game at *version*
    for path, headers in (
        (f"/v1/games/{game_id}", {}),
        (f"/v1/games/{game_id}", bearer(token)),
        (f"/v1/games/{game_id}", {"If-None-Match": f'"{version}"'}),
        (f"/v1/games/{game_id}/legal-moves", bearer(token)),
    ):
        ahead = await client.get(path, params={"min_version": version + 3}, headers=headers)
        assert ahead.status_code == 409, (path, headers, ahead.text)
        problem = ahead.json()
        assert (problem["code"], problem["current_version"]) == ("version_not_reached", version)
        reached = await client.get(path, params={"min_version": version}, headers=headers)
        assert reached.status_code in (200, 304) and reached.headers["etag"] == f'"{version}"'

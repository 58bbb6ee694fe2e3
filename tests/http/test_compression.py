"""Answers are compressed — brotli when the client offers it, else gzip — except a live event
stream, which must reach the browser event by event."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from service.http.compression import compressible
from tests.http.helpers import bearer, create

BROWSER = "gzip, deflate, br, zstd"


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/v1/catalogue", "application/json"),
        ("/v1/catalogue/jiangnan/components", "application/json"),
        ("/play/assets/boards/jiangnan.js", "text/javascript"),
        ("/play/assets/app.css", "text/css"),
        ("/schema/openapi.json", "application/vnd.oai.openapi+json"),
    ],
)
async def test_json_scripts_and_styles_are_compressed(client, path, media):
    plain = await client.get(path, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.headers["content-type"].startswith(media)
    for offered, used in ((BROWSER, "br"), ("gzip", "gzip")):
        packed = await client.get(path, headers={"Accept-Encoding": offered})
        assert packed.headers["content-encoding"] == used, (path, offered)
        assert "Accept-Encoding" in packed.headers["vary"]
        assert packed.content == plain.content  # decoded by the client: the same bytes
        assert packed.num_bytes_downloaded < len(plain.content) / 2, (path, used, packed.num_bytes_downloaded)


def test_only_what_shrinks_and_never_a_stream():
    for media in ("application/json", "application/problem+json", "text/javascript; charset=utf-8"):
        assert compressible(media), media
    for media in ("text/css", "image/svg+xml", "text/html", "application/x-ndjson"):
        assert compressible(media), media
    for media in ("text/event-stream", "text/event-stream; charset=utf-8", "image/png", ""):
        assert not compressible(media), media


async def test_a_stream_is_sent_event_by_event_to_a_client_that_offers_compression(live_server):
    async with httpx.AsyncClient(
        base_url=live_server, timeout=10, headers={"Accept-Encoding": BROWSER}
    ) as api:
        created = await create(api, "bluff", {"players": 2})
        game_id, version = created["game_id"], created["version"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        url = f"/v1/games/{game_id}/events/stream?after={version}"
        async with api.stream("GET", url) as stream:
            assert stream.status_code == 200
            assert "content-encoding" not in stream.headers
            lines = stream.aiter_lines()
            assert (await asyncio.wait_for(anext(lines), 5)).startswith(":")  # the opening comment
            for _ in range(2):  # each move's event arrives while the stream stays open
                seat = (await api.get(f"/v1/games/{game_id}")).json()["to_act"][0]
                legal = (
                    await api.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))
                ).json()
                moved = await api.post(
                    f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=bearer(tokens[seat])
                )
                assert moved.status_code == 200, moved.text
                version = moved.json()["version"]

                async def next_event_id() -> int:
                    async for line in lines:
                        if line.startswith("id:"):
                            return int(line.removeprefix("id:"))
                    raise AssertionError("the stream ended")

                assert await asyncio.wait_for(next_event_id(), 5) >= version - len(moved.json()["events"]) + 1

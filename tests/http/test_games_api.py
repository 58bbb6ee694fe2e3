"""The HTTP contract, through the real ASGI app backed by real Postgres and Redis."""

from __future__ import annotations

import pytest

from tests.http.helpers import bearer, create

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["status"] == status and body["code"] == code
    assert body["type"].endswith("/" + code)
    return body


async def _game(client, players=3, **kw):
    created = await create(client, "bluff", {"players": players}, **kw)
    return created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}, created


async def test_catalogue_lists_kinds_with_option_schemas_and_components(client):
    catalogue = (await client.get("/v1/catalogue")).json()
    bluff = next(g for g in catalogue["games"] if g["kind"] == "bluff")
    assert bluff["player_counts"] == [2, 3, 4]
    assert "rounds" in bluff["options_schema"]["$defs"]["BluffOptions"]["properties"]
    assert (await client.get("/v1/catalogue/bluff/components")).json() == {"deck": list(range(1, 10))}
    assert_problem(await client.get("/v1/catalogue/nope/components"), 404, "unknown_kind")


async def test_create_validates_kind_options_and_seats(client):
    assert_problem(await client.post("/v1/games", json={"kind": "nope"}), 404, "unknown_kind")
    assert_problem(
        await client.post("/v1/games", json={"kind": "bluff", "options": {"players": 9}}),
        422,
        "invalid_options",
    )
    assert_problem(
        await client.post("/v1/games", json={"kind": "bluff", "options": {"colour": "red"}}),
        422,
        "invalid_options",
    )
    assert_problem(
        await client.post("/v1/games", json={"kind": "bluff", "take_seats": [5]}), 422, "invalid_seat"
    )
    assert_problem(await client.post("/v1/games", content=b"{not json"), 400, "invalid_request")
    assert_problem(await client.post("/v1/games", json={"kind": "bluff", "extra": 1}), 400, "invalid_request")


async def test_seed_is_committed_at_creation_and_secret_until_the_end(client):
    import hashlib

    game_id, tokens, created = await _game(client, seed="my-seed")
    assert created["seed_commitment"] == hashlib.sha256(b"my-seed").hexdigest()
    for headers in ({}, bearer(tokens[0])):
        doc = (await client.get(f"/v1/games/{game_id}", headers=headers)).json()
        assert doc["seed"] is None and "my-seed" not in str(doc)
        history = (await client.get(f"/v1/games/{game_id}/events", headers=headers)).text
        assert "my-seed" not in history


async def test_open_seats_are_claimed_and_the_game_starts_when_full(client):
    game_id, tokens, created = await _game(client, players=2, take=[0])
    assert created["status"] == "open" and [t["seat"] for t in created["tokens"]] == [0]
    listed = (await client.get("/v1/games", params={"kind": "bluff", "status": "open"})).json()
    assert any(g["game_id"] == game_id and g["open_seats"] == [1] for g in listed["games"])
    move = {"type": "bluff.Claim", "claim": "high"}
    assert_problem(
        await client.post(f"/v1/games/{game_id}/moves", json=move, headers=bearer(tokens[0])),
        409,
        "game_not_started",
    )
    joined = await client.post(f"/v1/games/{game_id}/seats/1")
    assert joined.status_code == 201 and joined.json()["status"] == "active"
    assert_problem(await client.post(f"/v1/games/{game_id}/seats/1"), 409, "seat_taken")
    assert_problem(await client.post(f"/v1/games/{game_id}/seats/7"), 404, "seat_not_found")
    assert (
        await client.post(f"/v1/games/{game_id}/moves", json=move, headers=bearer(tokens[0]))
    ).status_code == 200


async def test_hidden_card_is_seen_only_by_its_owner(client):
    game_id, tokens, _ = await _game(client)
    mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()
    theirs = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[1]))).json()
    spectator = (await client.get(f"/v1/games/{game_id}")).json()
    assert mine["view"]["card"] in range(1, 10)
    assert theirs["view"]["card"] is None and spectator["view"]["card"] is None
    card_events = lambda h: [e["event"] for e in h["events"] if e["event"]["type"] == "bluff.CardDrawn"]  # noqa: E731
    assert (
        card_events((await client.get(f"/v1/games/{game_id}/events", headers=bearer(tokens[0]))).json())[0][
            "card"
        ]
        == mine["view"]["card"]
    )
    assert (
        card_events((await client.get(f"/v1/games/{game_id}/events", headers=bearer(tokens[2]))).json())[0][
            "card"
        ]
        is None
    )
    assert card_events((await client.get(f"/v1/games/{game_id}/events")).json())[0]["card"] is None


async def test_etag_and_if_none_match(client):
    game_id, tokens, created = await _game(client)
    first = await client.get(f"/v1/games/{game_id}")
    assert first.headers["etag"] == f'"{created["version"]}"'
    assert (
        await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": first.headers["etag"]})
    ).status_code == 304
    await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "bluff.Claim", "claim": "low"}, headers=bearer(tokens[0])
    )
    assert (
        await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": first.headers["etag"]})
    ).status_code == 200
    assert_problem(
        await client.get(f"/v1/games/{game_id}", headers={"If-None-Match": "soon"}),
        400,
        "invalid_request",  # the header's documented pattern refuses it
    )


async def test_moves_are_judged(client):
    game_id, tokens, created = await _game(client)
    url = f"/v1/games/{game_id}/moves"
    claim = {"type": "bluff.Claim", "claim": "high"}
    assert_problem(await client.post(url, json=claim), 401, "token_required")
    assert_problem(await client.post(url, json=claim, headers=bearer("ymn.0.forged")), 401, "invalid_token")
    assert_problem(
        await client.post(url, json=claim, headers={"Authorization": "Basic abc"}), 401, "invalid_token"
    )
    assert_problem(await client.post(url, json=claim, headers=bearer(tokens[1])), 403, "not_your_turn")
    assert_problem(
        await client.post(url, json={"type": "bluff.Stake", "amount": 2}, headers=bearer(tokens[0])),
        422,
        "claim_first",
    )
    assert_problem(
        await client.post(url, json={"type": "bluff.Fly"}, headers=bearer(tokens[0])), 400, "invalid_request"
    )
    assert_problem(
        await client.post(url, json={"type": "bluff.Claim", "claim": "mid"}, headers=bearer(tokens[0])),
        400,
        "invalid_request",
    )
    assert_problem(await client.post(url, content=b"[", headers=bearer(tokens[0])), 400, "invalid_request")
    # No such game: 404 whatever the token, as for a private game the caller may not see (a 401
    # here would tell the two apart, and let ids be enumerated).
    assert_problem(
        await client.post("/v1/games/g_nope/moves", json=claim, headers=bearer(tokens[0])),
        404,
        "game_not_found",
    )
    # Nothing was written by any of those.
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == created["version"]
    ok = await client.post(url, json=claim, headers=bearer(tokens[0]))
    assert ok.status_code == 200
    body = ok.json()
    assert body["version"] == created["version"] + 1 and ok.headers["etag"] == f'"{body["version"]}"'
    assert [e["event"] for e in body["events"]] == [{"type": "bluff.Claimed", "seat": 0, "claim": "high"}]


async def test_if_match_with_a_stale_version_is_412_with_the_current_version(client):
    game_id, tokens, created = await _game(client)
    url = f"/v1/games/{game_id}/moves"
    v = created["version"]
    assert (
        await client.post(
            url,
            json={"type": "bluff.Claim", "claim": "high"},
            headers={**bearer(tokens[0]), "If-Match": f'"{v}"'},
        )
    ).status_code == 200
    problem = assert_problem(
        await client.post(
            url,
            json={"type": "bluff.Stake", "amount": 1},
            headers={**bearer(tokens[0]), "If-Match": f'"{v}"'},
        ),
        412,
        "version_mismatch",
    )
    assert problem["current_version"] == v + 1


async def test_idempotency_key_replays_the_original_answer(client):
    game_id, tokens, created = await _game(client)
    url = f"/v1/games/{game_id}/moves"
    headers = {**bearer(tokens[0]), "Idempotency-Key": "claim-once"}
    first = await client.post(url, json={"type": "bluff.Claim", "claim": "low"}, headers=headers)
    again = await client.post(url, json={"type": "bluff.Claim", "claim": "low"}, headers=headers)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == created["version"] + 1
    assert_problem(
        await client.post(url, json={"type": "bluff.Claim", "claim": "high"}, headers=headers),
        422,
        "idempotency_key_reused",
    )


async def test_history_paginates_and_time_travel_shows_past_states(client):
    game_id, tokens, created = await _game(client)
    url = f"/v1/games/{game_id}/moves"
    await client.post(url, json={"type": "bluff.Claim", "claim": "low"}, headers=bearer(tokens[0]))
    await client.post(url, json={"type": "bluff.Stake", "amount": 3}, headers=bearer(tokens[0]))
    page = (await client.get(f"/v1/games/{game_id}/events", params={"after": 0, "limit": 2})).json()
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["next_after"] == 2
    rest = (await client.get(f"/v1/games/{game_id}/events", params={"after": 2})).json()
    assert [e["seq"] for e in rest["events"]] == [3, 4] and rest["next_after"] is None
    past = (
        await client.get(f"/v1/games/{game_id}/states/{created['version'] + 1}", headers=bearer(tokens[0]))
    ).json()
    assert (
        past["version"] == created["version"] + 1
        and past["view"]["claim"] == "low"
        and past["view"]["stake"] is None
    )
    assert past["view"]["card"] is not None
    assert (await client.get(f"/v1/games/{game_id}/states/{created['version'] + 1}")).json()["view"][
        "card"
    ] is None
    assert_problem(await client.get(f"/v1/games/{game_id}/states/99"), 404, "version_not_found")


async def test_unknown_game_and_routes_are_problems(client):
    assert_problem(await client.get("/v1/games/g_missing"), 404, "game_not_found")
    assert_problem(await client.get("/v1/games/g_missing/events"), 404, "game_not_found")
    assert_problem(await client.get("/v1/nowhere"), 404, "not_found")
    assert_problem(await client.get("/v1/games", params={"cursor": "garbage"}), 400, "invalid_cursor")
    assert_problem(await client.get("/v1/games", params={"limit": 0}), 400, "invalid_request")


async def test_health(client):
    assert (await client.get("/healthz")).json() == {
        "status": "ok",
        "postgres": "unknown",
        "redis": "unknown",
    }
    assert (await client.get("/readyz")).json() == {"status": "ok", "postgres": "ok", "redis": "ok"}


@pytest.mark.parametrize("players", [2, 4])
async def test_a_full_game_over_http_ends_with_the_domain_outcome(client, players):
    from tests.http.helpers import play_to_end

    game_id, tokens, _ = await _game(client, players=players)
    final = await play_to_end(client, game_id, tokens)
    assert final["status"] == "finished" and final["to_act"] == []
    assert sorted(s["seat"] for s in final["outcome"]["scores"]) == list(range(players))
    assert_problem(
        await client.post(
            f"/v1/games/{game_id}/moves",
            json={"type": "bluff.Claim", "claim": "low"},
            headers=bearer(tokens[0]),
        ),
        409,
        "game_over",
    )
    # After the end everything is revealed, to everybody.
    history = (await client.get(f"/v1/games/{game_id}/events")).json()
    assert all(
        e["event"]["card"] is not None for e in history["events"] if e["event"]["type"] == "bluff.CardDrawn"
    )


async def test_full_reveal_of_past_states_only_after_the_end(client):
    from tests.http.helpers import play_to_end

    game_id, tokens, created = await _game(client, players=2)
    v = created["version"]
    assert_problem(
        await client.get(f"/v1/games/{game_id}/states/{v}", params={"reveal": "true"}),
        403,
        "not_revealed_yet",
    )
    await play_to_end(client, game_id, tokens)
    revealed = (await client.get(f"/v1/games/{game_id}/states/{v}", params={"reveal": "true"})).json()
    # The first card, drawn for seat 0 at setup, is visible to a spectator in the full reveal.
    assert revealed["revealed_state"]["card"] in range(1, 10)
    assert revealed["view"]["card"] is None  # the view stays as a spectator saw it then


async def test_a_game_keeps_the_rules_it_was_created_with(database_url, store):
    """A game created under an older rules version is not judged by newer rules."""
    from litestar.testing import AsyncTestClient

    from tests.conftest import make_app

    async with AsyncTestClient(app=make_app(database_url, None)) as client:
        game_id, tokens, _ = await _game(client)
        async with store.pool.connection() as conn:
            await conn.execute("UPDATE games SET rules_version = 'bluff-0' WHERE game_id = %s", (game_id,))
        problem = assert_problem(
            await client.post(
                f"/v1/games/{game_id}/moves",
                json={"type": "bluff.Claim", "claim": "low"},
                headers=bearer(tokens[0]),
            ),
            409,
            "rules_version_retired",
        )
        assert "bluff-0" in problem["detail"]
        # Reads still work: the record stays browsable.
        assert (await client.get(f"/v1/games/{game_id}")).status_code == 200


async def test_a_game_under_an_earlier_version_the_code_still_judges_plays_on(database_url, store):
    """A rules fix keeps the old version among the ones the game judges: games in progress finish
    under it, and their record verifies."""
    import dataclasses

    from litestar.testing import AsyncTestClient

    from tests.conftest import make_app, test_games
    from tests.http.helpers import play_to_end

    games = test_games()
    bluff = games["bluff"]
    games["bluff"] = dataclasses.replace(
        bluff,
        earlier_versions=("bluff-0",),
        setup_under=lambda options, rng, _version: bluff.setup(options, rng),
    )
    async with AsyncTestClient(app=make_app(database_url, None, games)) as client:
        game_id, tokens, _ = await _game(client)
        async with store.pool.connection() as conn:
            await conn.execute("UPDATE games SET rules_version = 'bluff-0' WHERE game_id = %s", (game_id,))
        await play_to_end(client, game_id, tokens)
        verification = (await client.get(f"/v1/games/{game_id}/verification")).json()
        assert verification["ok"], verification
        record = (await client.get(f"/v1/games/{game_id}/record")).text
        assert '"rules_version":"bluff-0"' in record.splitlines()[0]


async def test_metrics_count_requests_moves_and_snapshots(client):
    game_id, tokens, _ = await _game(client)
    await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "bluff.Claim", "claim": "low"}, headers=bearer(tokens[0])
    )
    await client.get(f"/v1/games/{game_id}")
    text = (await client.get("/metrics")).text
    assert "# TYPE yamen_http_requests_total counter" in text
    assert 'yamen_http_requests_total{method="POST",status="200"}' in text
    assert 'yamen_moves_total{kind="bluff"}' in text
    assert 'yamen_snapshots_total{result="hit"}' in text


async def test_hostile_tokens_and_values_are_refused_never_crash(client):
    game_id, _, _ = await _game(client)
    # "²" and "١" are digits to str.isdigit() but not to int(); a huge seat overflows Postgres' integer.
    tokens = [
        "ymn.².x".encode("latin-1"),
        "ymn.١.x".encode(),
        b"ymn.0",
        b"ymn..x",
        b"ymn." + b"9" * 20 + b".x",
        b"ymn.0.x.y",
    ]
    for token in tokens:
        response = await client.get(f"/v1/games/{game_id}", headers={"Authorization": b"Bearer " + token})
        assert_problem(response, 401, "invalid_token")
        assert response.headers["www-authenticate"] == "Bearer"
    assert_problem(
        await client.get(f"/v1/games/{game_id}", headers={"Authorization": "Basic dXNlcjpwYXNz"}),
        401,
        "invalid_token",
    )
    # Postgres refuses NUL in text: a clear 422, nothing written.
    response = await client.post("/v1/games", json={"kind": "bluff", "seed": "a\u0000b"})
    assert_problem(response, 422, "unstorable_value")
    assert_problem(await client.get("/v1/games/g_%00"), 400, "invalid_request")  # not an id


async def test_postgres_unavailable_is_503_with_retry_after(database_url):
    """Whatever the request, a store that cannot be reached answers 503 problem+json with
    Retry-After, never 500."""
    from litestar.testing import AsyncTestClient

    from service.http.app import create_app
    from service.infra.store import EventStore
    from service.settings import Settings
    from tests.conftest import test_games

    own = EventStore(database_url, min_size=1, max_size=1, timeout=0.5)
    await own.open()
    settings = Settings(
        database_url=database_url, redis_url=None, log_format="json", auto_migrate=False, pool_size=1
    )
    app = create_app(test_games(), settings=settings, store=own)
    async with AsyncTestClient(app=app) as client:
        game_id, _tokens, _ = await _game(client)
        await own.close()
        requests = [
            client.get(f"/v1/games/{game_id}"),
            client.get(f"/v1/games/{game_id}/events"),
            client.get("/v1/games"),
            client.post("/v1/games", json={"kind": "bluff"}),
            client.post(f"/v1/games/{game_id}/seats/0"),
            client.get(f"/v1/games/{game_id}/verification"),
        ]
        for request in requests:
            response = await request
            assert_problem(response, 503, "store_unavailable")
            assert response.headers["retry-after"] == "1"
        ready = assert_problem(await client.get("/readyz"), 503, "not_ready")
        assert ready["postgres"] == "unavailable"


async def test_metrics_are_prometheus_text_with_latency_histograms(client):
    from prometheus_client.parser import text_string_to_metric_families

    game_id, tokens, _ = await _game(client)
    await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "bluff.Claim", "claim": "low"}, headers=bearer(tokens[0])
    )
    await client.get(f"/v1/games/{game_id}")
    response = await client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(response.text)}
    assert families["yamen_http_request_seconds"].type == "histogram"
    routes = {s.labels.get("route") for s in families["yamen_http_request_seconds"].samples}
    assert "/v1/games/{game_id}" in routes and not any(
        r and game_id in r for r in routes
    )  # templates, not paths
    moves = [s for s in families["yamen_move_seconds"].samples if s.name == "yamen_move_seconds_count"]
    assert any(s.labels == {"kind": "bluff"} and s.value >= 1 for s in moves)

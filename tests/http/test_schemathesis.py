"""Property-based conformance: schemathesis drives every operation of the in-process app (backed by
real Postgres and Redis) — no 5xx, every response as documented.  The default lane runs a small
fixed budget per operation; the slow lane (``-m slow``) the full one."""

from __future__ import annotations

import zlib

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar.testing import TestClient
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import PG_ADMIN, REDIS_URL, make_app, test_games


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value):
    # Game records are text; schemathesis sends arbitrary strings (none of them valid records).
    return value.encode() if isinstance(value, str) else str(value).encode()


_app_for_schema = make_app(PG_ADMIN, REDIS_URL, test_games())
schema = schemathesis.openapi.from_dict(_app_for_schema.state.openapi_document(_app_for_schema))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def http(database_url, redis_url):
    with TestClient(app=make_app(database_url, redis_url)) as client:
        games = []
        for kind, players in (("bluff", 2), ("yangtze", 2), ("pingyao", 3), ("jiangnan", 3)):
            created = client.post(
                "/v1/games", json={"kind": kind, "options": {"players": players}, "seed": "st"}
            ).json()
            games.append((created["game_id"], created["tokens"][0]["token"]))
        client.known_games = games  # type: ignore[attr-defined]
        yield client


DEFAULT_BUDGET = 40
FULL_BUDGET = 600
"""Examples per operation in the slow lane."""


QUIET = {"deadline": None, "derandomize": True, "suppress_health_check": list(HealthCheck)}


@schema.parametrize()
@settings(max_examples=DEFAULT_BUDGET, **QUIET)
def test_every_operation_conforms(case, http):
    _call_and_validate(case, http)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=FULL_BUDGET, **QUIET)
def test_every_operation_conforms_at_full_budget(case, http):
    _call_and_validate(case, http)


def _call_and_validate(case, http) -> None:
    headers = {}
    if "game_id" in (case.path_parameters or {}):
        # Most examples hit a real game of each kind (with its seat 0 token), so the success
        # paths and every game's command decoding are exercised, not only 404s.
        pick = zlib.crc32(case.path_parameters["game_id"].encode()) % (len(http.known_games) + 1)
        if pick < len(http.known_games):
            case.path_parameters["game_id"], token = http.known_games[pick]
            headers["Authorization"] = f"Bearer {token}"
    kwargs = case.as_transport_kwargs(base_url="http://testserver.local")
    kwargs["headers"] = {**headers, **(kwargs.get("headers") or {})}
    if "data" in kwargs:
        kwargs["content"] = kwargs.pop("data")
    response = http.request(
        **{k: v for k, v in kwargs.items() if k in ("method", "url", "headers", "params", "json", "content")}
    )
    case.validate_response(response, checks=CHECKS)

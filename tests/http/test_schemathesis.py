"""Property-based conformance: schemathesis drives every operation of the in-process app (backed by
real Postgres and Redis) with valid inputs (positive mode) and invalid ones (negative mode: wrong
types, missing or out-of-range values, malformed headers and bodies, undeclared methods).

Every answer must be documented (status, content type, headers, schema) and never a 5xx; every
refusal is problem+json with its status and a stable code, one its operation declares for that
status; a valid request is never refused as
malformed (400) and an invalid one never accepted.  The default lane runs a small fuzzing budget
per operation; the slow lane (``-m slow``) adds the coverage phase (deterministic boundary and
missing-value cases, undeclared methods) and the full budgets.  Multi-step flows (create, read,
list moves, move, history, record) are in ``test_schemathesis_stateful``.
"""

from __future__ import annotations

import copy
import re
import zlib
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar.testing import TestClient
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from tests.conftest import make_app, test_games
from tests.servers import PG_ADMIN, REDIS_URL

BASE_URL = "http://testserver.local"
PROBLEM = "application/problem+json"
TYPE_BASE = "https://yamen.dev/problems/"
OPAQUE_400 = {"invalid_cursor", "invalid_seek"}
"""400 codes a schema cannot foresee: a cursor is any string to the document, but only ones this
API returned are accepted; a seek's option keys, values and player counts are each title's own."""


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value):
    # Game records are text; schemathesis sends arbitrary strings (none of them valid records).
    return value.encode() if isinstance(value, str) else str(value).encode()


_app_for_schema = make_app(PG_ADMIN, REDIS_URL, test_games())
SERVED: dict[str, Any] = _app_for_schema.state.openapi_document(_app_for_schema)


def _fuzzable(served: dict[str, Any]) -> dict[str, Any]:
    """The served document less what cannot be fuzzed through a buffering test client: the event
    stream (an active game's stream never ends; ``test_stream`` and ``test_browser_access`` test it
    on a real server), and with the long poll's ``wait`` capped at a second (a fuzzed 60 s poll
    would only measure patience)."""
    document = copy.deepcopy(served)
    for path in [p for p in document["paths"] if p.endswith("/events/stream")]:
        del document["paths"][path]
    for item in document["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("name") == "wait":
                    parameter["schema"]["maximum"] = 1
    return document


DOCUMENT = _fuzzable(SERVED)
"""What schemathesis drives: the served document (see :func:`_fuzzable`)."""


def load_schema(mode: str, *, coverage: bool):
    """The app's document as schemathesis sees it, generating *mode* inputs ("positive",
    "negative"); *coverage* adds the coverage phase (boundary values, missing parameters,
    undeclared methods), which runs its full deterministic set whatever the budget."""
    config = SchemathesisConfig.from_dict(
        {"generation": {"mode": mode}, "phases": {"coverage": {"enabled": coverage}}}
    )
    return schemathesis.openapi.from_dict(copy.deepcopy(DOCUMENT), config=config)


def problem_details(ctx, response, case) -> None:
    """Every refusal is RFC 9457 problem+json naming its own status and a stable code, with the
    headers its status calls for (Allow on 405, WWW-Authenticate on 401, Retry-After on 503)."""
    status = response.status_code
    if status < 400:
        return
    media = (response.headers.get("content-type") or [""])[0].split(";")[0].strip()
    assert media == PROBLEM, f"a {status} answer is {media or 'untyped'}, not {PROBLEM}"
    body = response.json()
    assert isinstance(body, dict), body
    code = body.get("code")
    assert body.get("status") == status, f"problem says status {body.get('status')}, the answer is {status}"
    assert isinstance(code, str) and code, f"problem without a code: {body}"
    assert body.get("type") == TYPE_BASE + code, f"problem type {body.get('type')!r} is not its code's"
    assert isinstance(body.get("title"), str) and body["title"], body
    required_header = {405: "allow", 401: "www-authenticate", 503: "retry-after"}.get(status)
    if required_header is not None:
        assert response.headers.get(required_header), f"a {status} answer without {required_header.title()}"


def declared_code(ctx, response, case) -> None:
    """A refusal's code is one its operation declares for that status: the response's description
    lists them (`code`: meaning), or says a rule forbids the move (any of the games' rule codes)."""
    status = response.status_code
    declared = case.operation.definition.raw.get("responses", {}).get(str(status))
    if status < 400 or declared is None:  # an undeclared status is status_code_conformance's to report
        return
    code = response.json().get("code")
    description = declared.get("description", "")
    if status == 422 and "a rule forbids the move" in description:
        return
    assert f"`{code}`" in description, (
        f"{case.operation.label} answered {status} `{code}`, which it does not declare: {description}"
    )


def not_refused_as_malformed(ctx, response, case) -> None:
    """A request the document says is valid is never refused as malformed (400): whatever the
    service rejects by its shape, the document must say (a pattern, ``additionalProperties``)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return
    code = response.json().get("code")
    assert code in OPAQUE_400, (
        f"a schema-valid request was refused as malformed ({code}): the document does not say what "
        f"the service requires — {response.json().get('detail')} {response.json().get('errors') or ''}"
    )


CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    problem_details,
    declared_code,
    unsupported_method,
    # `allow_header_conformance` is left out: Litestar's automatic OPTIONS answer forgets methods
    # when a controller has two handlers on one path (OPTIONS /v1/games says `Allow: OPTIONS, POST`).
]
POSITIVE_CHECKS = [*CONFORMANCE, not_refused_as_malformed]
NEGATIVE_CHECKS = [*CONFORMANCE, negative_data_rejection]

WITHOUT_INPUTS = [
    operation["operationId"]
    for item in DOCUMENT["paths"].values()
    for operation in item.values()
    if not operation.get("parameters") and "requestBody" not in operation
]
"""Operations with nothing to get wrong but the method (the coverage phase tries other methods)."""

positive_fast = load_schema("positive", coverage=False)
negative_fast = load_schema("negative", coverage=False).exclude(operation_id=WITHOUT_INPUTS)
positive = load_schema("positive", coverage=True)
negative = load_schema("negative", coverage=True)
"""(For the operations without inputs the coverage phase's undeclared methods are all there is to
send: pytest reports them skipped once those ran.)"""


HOSTILE_IDS = ["g_\x00"]
"""Game ids no game can have that generated paths never contain (Postgres refuses NUL in text)."""


@pytest.fixture(scope="module")
def http(database_url, redis_url):
    """The app, and games for the examples to hit (each with its seat 0 token): one running game
    of every kind, a finished one, one whose seats are all open, and :data:`HOSTILE_IDS`."""
    with TestClient(app=make_app(database_url, redis_url)) as client:
        games = []
        for kind, players in (("bluff", 2), ("yangtze", 2), ("pingyao", 3), ("jiangnan", 3)):
            created = create(client, kind, players)
            games.append((created["game_id"], created["tokens"][0]["token"]))
        finished = create(client, "bluff", 2)
        play_to_end(client, finished)
        games.append((finished["game_id"], finished["tokens"][0]["token"]))
        open_game = create(client, "yangtze", 2, take_seats="none")
        games.append((open_game["game_id"], None))
        games += [(game_id, None) for game_id in HOSTILE_IDS]
        client.known_games = games  # type: ignore[attr-defined]
        yield client


def create(client, kind: str, players: int, **extra) -> dict:
    response = client.post(
        "/v1/games", json={"kind": kind, "options": {"players": players}, "seed": "st", **extra}
    )
    assert response.status_code == 201, response.text
    return response.json()


def play_to_end(client, created: dict) -> None:
    game_id, tokens = created["game_id"], {t["seat"]: t["token"] for t in created["tokens"]}
    for _ in range(1000):
        game = client.get(f"/v1/games/{game_id}").json()
        if game["status"] == "finished":
            return
        auth = {"Authorization": f"Bearer {tokens[game['to_act'][0]]}"}
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth).json()
        assert (
            client.post(f"/v1/games/{game_id}/moves", json=legal["moves"][0], headers=auth).status_code == 200
        )
    raise AssertionError("the game did not end")


DEFAULT_BUDGET = 25
DEFAULT_NEGATIVE_BUDGET = 10
FULL_BUDGET = 500
"""Examples per operation in the slow lane (positive mode), on top of the coverage phase."""
FULL_NEGATIVE_BUDGET = 250

QUIET = {"deadline": None, "derandomize": True, "suppress_health_check": list(HealthCheck)}


@positive_fast.parametrize()
@settings(max_examples=DEFAULT_BUDGET, **QUIET)
def test_valid_requests_conform(case, http):
    send_and_check(case, http, POSITIVE_CHECKS)


@negative_fast.parametrize()
@settings(max_examples=DEFAULT_NEGATIVE_BUDGET, **QUIET)
def test_invalid_requests_are_refused_as_documented(case, http):
    send_and_check(case, http, NEGATIVE_CHECKS)


@pytest.mark.slow
@positive.parametrize()
@settings(max_examples=FULL_BUDGET, **QUIET)
def test_valid_requests_conform_at_full_budget(case, http):
    send_and_check(case, http, POSITIVE_CHECKS)


@pytest.mark.slow
@negative.parametrize()
@settings(max_examples=FULL_NEGATIVE_BUDGET, **QUIET)
def test_invalid_requests_are_refused_as_documented_at_full_budget(case, http):
    send_and_check(case, http, NEGATIVE_CHECKS)


def send_and_check(case, http, checks) -> None:
    headers = {}
    meta = case.meta
    path_is_valid = meta is None or not meta.is_negative_at(ParameterLocation.PATH)
    if "game_id" in (case.path_parameters or {}) and path_is_valid:
        # Most examples hit a real game (running, finished or open, with its seat 0 token), so the
        # success paths and every game's command decoding are exercised, not only 404s; the rest
        # keep the generated id.  An invalid path stays as generated: that is what is tested.
        known = http.known_games
        pick = zlib.crc32(str(case.path_parameters["game_id"]).encode()) % (len(known) + 1)
        if pick < len(known):
            case.path_parameters["game_id"], token = known[pick]
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
    case.validate_response(send(case, http, headers=headers), checks=checks)


def send(case, http, *, headers: dict[str, str] | None = None):
    """Send *case* through the in-process client; generated headers win over *headers*."""
    kwargs = case.as_transport_kwargs(base_url=BASE_URL)
    # Control characters in a path are sent percent-encoded, as any client sends them.
    kwargs["url"] = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"%{ord(m.group()):02X}", kwargs["url"])
    kwargs["headers"] = {**(headers or {}), **(kwargs.get("headers") or {})}
    if "data" in kwargs:
        kwargs["content"] = kwargs.pop("data")
    return http.request(
        **{k: v for k, v in kwargs.items() if k in ("method", "url", "headers", "params", "json", "content")}
    )

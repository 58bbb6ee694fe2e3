"""Stateful property tests: multi-step flows through the in-process app (real Postgres and Redis),
every answer checked by schemathesis against the OpenAPI document (status documented, content
type, headers, schema; refusals as problem+json) and never a 5xx.

* ``test_linked_workflows`` (slow lane): schemathesis' own state machine, following OpenAPI links
  from one answer to the next request: create -> read / legal moves / history / record / time
  travel / join, legal moves -> submit one of them with the same seat's token and If-Match, move
  -> next moves / read / history, read -> revalidate with its ETag.  The document declares no
  links yet, so :data:`LINKS` adds them to the test's copy; the inputs around the linked values
  are generated (positive, and 10% negative).
* ``test_game_sessions`` (slow lane; a few short sessions in the default lane): a model-based
  machine that creates games of every kind with options drawn from the catalogue, seats players,
  plays them (to the end, often) with the seats' tokens and legal moves, and checks the protocol
  on the way: ETag and If-None-Match, If-Match (412 with the current version), Idempotency-Key
  replays, turn order and tokens, history paging, time travel and reveal, the record and the
  server's verification, importing a finished record (and refusing altered ones), the game list.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest
import schemathesis
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.errors import FlakyStrategyDefinition
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)
from litestar.testing import TestClient
from schemathesis.config import SchemathesisConfig
from schemathesis.core import NOT_SET
from schemathesis.core.failures import FailureGroup
from schemathesis.core.transport import Response

from tests.conftest import make_app
from tests.http.test_schemathesis import CONFORMANCE, DOCUMENT, QUIET, load_schema, send

# --- the links the document should declare ---------------------------------------------------------------
GET = "getGame"
JOIN = "joinSeat"
LEGAL = "getLegalMoves"
MOVE = "submitMove"
EVENTS = "listEvents"
RECORD = "getRecord"
STATE = "getStateAt"
VERIFY = "getVerification"
AS_SEAT = {"Read": GET, "LegalMoves": LEGAL, "History": EVENTS, "Record": RECORD}


def _as_seat(game_id: str, authorization: str, *names: str) -> dict[str, dict]:
    seat = {"path.game_id": game_id, "header.Authorization": authorization}
    return {name: {"operationId": AS_SEAT[name], "parameters": seat} for name in names or AS_SEAT}


def _state(game_id: str, version: str, authorization: str | None = None) -> dict:
    parameters = {"path.game_id": game_id, "path.version": version}
    if authorization is not None:
        parameters["header.Authorization"] = authorization
    return {"operationId": STATE, "parameters": parameters}


NEW_GAME = "$response.body#/game_id"
SAME_GAME, SAME_SEAT = "$request.path.game_id", "$request.header.Authorization"
LINKS: dict[tuple[str, str, str], dict[str, dict]] = {
    # A new game: read it, its history and record as seat 0, list the moves of seats 0 and 1,
    # claim a seat, verify it, travel to its version.
    ("/v1/games", "post", "201"): {
        **_as_seat(NEW_GAME, "Bearer {$response.body#/tokens/0/token}"),
        "LegalMovesOfSeat1": _as_seat(NEW_GAME, "Bearer {$response.body#/tokens/1/token}", "LegalMoves")[
            "LegalMoves"
        ],
        "Join": {"operationId": JOIN, "parameters": {"path.game_id": NEW_GAME}},
        "Verification": {"operationId": VERIFY, "parameters": {"path.game_id": NEW_GAME}},
        "StateAtVersion": _state(NEW_GAME, "$response.body#/version"),
    },
    # A claimed seat: act as it.
    ("/v1/games/{game_id}/seats/{seat}", "post", "201"): _as_seat(
        "$response.body#/game_id", "Bearer {$response.body#/token}", "Read", "LegalMoves"
    ),
    # Legal moves: submit one of them, as the same seat, at the version they are legal at.
    ("/v1/games/{game_id}/legal-moves", "get", "200"): {
        f"SubmitMove{i}": {
            "operationId": MOVE,
            "parameters": {
                "path.game_id": SAME_GAME,
                "header.Authorization": SAME_SEAT,
                "header.If-Match": "$response.header.ETag",
            },
            "requestBody": f"$response.body#/moves/{i}",
            # schemathesis: send the legal move as it is, not merged into a generated command
            "x-schemathesis": {"merge_body": False},
        }
        for i in range(3)
    },
    # After a move: the next moves, the game, its history, the state at the new version.
    ("/v1/games/{game_id}/moves", "post", "200"): {
        **_as_seat(SAME_GAME, SAME_SEAT, "Read", "LegalMoves", "History"),
        "StateAfterMove": _state(SAME_GAME, "$response.body#/version", SAME_SEAT),
    },
    # A read: revalidate it with its ETag (304), list the moves, travel to its version.
    ("/v1/games/{game_id}", "get", "200"): {
        "Revalidate": {
            "operationId": GET,
            "parameters": {
                "path.game_id": SAME_GAME,
                "header.Authorization": SAME_SEAT,
                "header.If-None-Match": "$response.header.ETag",
            },
        },
        **_as_seat(SAME_GAME, SAME_SEAT, "LegalMoves"),
        "StateAtVersion": _state(SAME_GAME, "$response.body#/version", SAME_SEAT),
    },
}


def linked_document() -> dict[str, Any]:
    """The app's document plus :data:`LINKS` (links it declares itself are kept), shaped so that
    generated creations and moves can succeed: ``kind`` is a hosted kind, ``options`` names the
    player count only (each kind's options are in the catalogue), ``seed`` is given (a secret one
    would make a replayed scenario differ), and request bodies carry no unknown fields (the
    service refuses them; the document should say so)."""
    document = copy.deepcopy(DOCUMENT)
    for (path, method, status), links in LINKS.items():
        declared = document["paths"][path][method]["responses"][status].setdefault("links", {})
        for name, link in links.items():
            declared.setdefault(name, link)
    schemas = document["components"]["schemas"]
    # The create request is a union by kind; each title's member keeps its own player counts.
    for ref in schemas["CreateGame"]["discriminator"]["mapping"].values():
        create = schemas[ref.rsplit("/", 1)[-1]]["properties"]
        options = schemas[create["options"]["$ref"].rsplit("/", 1)[-1]]
        create["seed"] = {"type": "string", "maxLength": 16}
        create["options"] = {
            "type": "object",
            "properties": {"players": options["properties"]["players"]},
            "additionalProperties": False,
        }
    commands = [ref.rsplit("/", 1)[-1] for ref in schemas["Command"]["discriminator"]["mapping"].values()]
    for name in commands:
        schemas[name].setdefault("additionalProperties", False)
    return document


@pytest.fixture(scope="module")
def http(database_url, redis_url):
    with TestClient(app=make_app(database_url, redis_url)) as client:
        yield client


LINKED_SCENARIOS = 150
LINKED_STEPS = 12


@pytest.mark.slow
def test_linked_workflows(http):
    from schemathesis.engine.errors import is_inconsistent_replay
    from schemathesis.generation.stateful import run_state_machine_as_test as run_workflows

    schema = schemathesis.openapi.from_dict(
        linked_document(),
        config=SchemathesisConfig.from_dict({"phases": {"stateful": {"max-steps": LINKED_STEPS}}}),
    ).exclude(operation_id="listGames")  # its answer depends on every earlier scenario
    scenarios = 0

    class Workflows(schema.as_state_machine()):  # type: ignore[misc]
        def call(self, case, **kwargs):
            return Response.from_any(send(case, http))

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CONFORMANCE, recorder=self.recorder)

        def teardown(self):
            nonlocal scenarios
            scenarios += 1
            super().teardown()

    for _ in range(5):
        try:
            run_workflows(
                Workflows,
                settings=settings(
                    max_examples=LINKED_SCENARIOS - scenarios,
                    stateful_step_count=LINKED_STEPS,
                    # No shrinking: replaying a scenario against the grown database is not the
                    # same scenario (schemathesis prints the failing one's steps).
                    phases=[Phase.generate],
                    **QUIET,
                ),
            )
            return
        except (FlakyStrategyDefinition, AssertionError) as exc:
            # schemathesis flips some coins outside hypothesis (whether to use a linked value),
            # so hypothesis may find a scenario drawn differently the second time; schemathesis'
            # own runner then starts the suite again, and so does this test.
            if not isinstance(exc, FlakyStrategyDefinition) and not is_inconsistent_replay(exc):
                raise
            if scenarios >= LINKED_SCENARIOS:
                return
    raise AssertionError(
        f"only {scenarios} of {LINKED_SCENARIOS} scenarios ran: the generation kept diverging"
    )


# --- a model of the games, played through the API --------------------------------------------------------
CHECKED = load_schema("positive", coverage=False)
"""The document the model-based machine's requests are built from and its answers checked against."""
GAME = "/v1/games/{game_id}"


def exchange(
    http,
    method: str,
    path: str,
    *,
    params: dict[str, Any] | None = None,
    headers: dict[str, str | None] | None = None,
    query: dict[str, Any] | None = None,
    body: Any = NOT_SET,
    expect: int | set[int] | None = None,
    code: str | None = None,
):
    """Send one request of the document's operation *method* *path* (absent values left out),
    check the answer against the document, and its status against *expect* (and *code*)."""
    case = CHECKED[path][method].Case(
        path_parameters=params,
        headers={k: v for k, v in (headers or {}).items() if v is not None},
        query={k: v for k, v in (query or {}).items() if v is not None},
        body=body,
    )
    response = send(case, http)
    where = f"{method} {path} {params or ''} {query or ''} -> {response.status_code} {response.text[:300]}"
    try:
        case.validate_response(response, checks=CONFORMANCE)
    except FailureGroup as failures:
        if len(response.request.content) < 4000:
            raise
        # schemathesis' report repeats the whole request (a record can weigh megabytes)
        titles = "; ".join(f"{f.title}: {f.message}" for f in failures.exceptions)
        raise AssertionError(f"{where}\n{titles}\nbody: {response.request.content[:2000]!r}...") from None
    if expect is not None:
        assert response.status_code in ({expect} if isinstance(expect, int) else expect), where
    if code is not None:
        assert response.json()["code"] == code, where
    return response


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass
class Table:
    """What the model knows of one game."""

    game_id: str
    kind: str
    players: int
    tokens: dict[int, str]
    status: str
    version: int
    keyed: list[tuple[str, int, dict, str]] = field(default_factory=list)
    """Moves sent with an Idempotency-Key: (key, seat, command, the answer's body)."""

    @property
    def callers(self) -> list[tuple[int | None, str | None]]:
        """(seat, token) of a spectator and of every seat taken."""
        return [(None, None), *sorted(self.tokens.items())]


class GameSessions(RuleBasedStateMachine):
    """Create games of every kind, seat players, take turns with legal moves (to the end, often),
    and read everything a client can read, checking each answer as documented and the protocol's
    promises."""

    http: ClassVar[Any] = None
    catalogue: ClassVar[dict[str, dict]] = {}
    """Each kind's player counts and options schema properties."""
    commands: ClassVar[dict[str, dict]] = {}
    """A well-formed command of each kind."""
    runs: ClassVar[tuple[int, ...]] = (1000, 40, 10)
    """How many moves ``play_on`` makes (1000: to the end)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.finished_records: list[str] = []

    def call(self, method: str, suffix: str, table: Table, *, token: str | None = None, **kwargs):
        """:func:`exchange` on the game's resource *suffix* (``""``, ``"/moves"`` ...) as *token*."""
        params = {"game_id": table.game_id, **kwargs.pop("params", {})}
        headers = {**bearer(token), **kwargs.pop("headers", {})}
        return exchange(self.http, method, GAME + suffix, params=params, headers=headers, **kwargs)

    def active(self) -> list[Table]:
        return [t for t in self.tables if t.status == "active"]

    # -- creating and seating ---------------------------------------------------------------------------
    @initialize(data=st.data())
    def first_game(self, data):
        self.create_game(data)

    @rule(data=st.data())
    def create_game(self, data):
        kind = data.draw(st.sampled_from(sorted(self.catalogue)), label="kind")
        entry = self.catalogue[kind]
        options = {"players": data.draw(st.sampled_from(entry["player_counts"]), label="players")}
        for name, schema in entry["options"].items():
            values = option_values(schema)
            if name != "players" and values and data.draw(st.integers(0, 3), label=f"with {name}") == 3:
                options[name] = data.draw(st.sampled_from(values), label=name)
        seats = list(range(options["players"]))
        take = data.draw(st.sampled_from(["all", "all", "none", "some"]), label="take_seats")
        if take == "some":
            take = data.draw(st.lists(st.sampled_from(seats), unique=True), label="seats")
        # Always a seed: with a secret one the game, and so the rest of the scenario, would differ
        # each time hypothesis replays it.
        seed = data.draw(st.sampled_from(["s1", "s2", "s3"]), label="seed")
        response = exchange(
            self.http,
            "POST",
            "/v1/games",
            body={"kind": kind, "options": options, "seed": seed, "take_seats": take},
            expect={201, 422},
        )
        if response.status_code == 422:
            assert response.json()["code"] == "invalid_options", response.text
            return
        created = response.json()
        taken = seats if take == "all" else [] if take == "none" else take
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        assert sorted(tokens) == sorted(taken), created
        assert (created["kind"], created["players"]) == (kind, options["players"]), created
        assert created["status"] == ("active" if len(taken) == len(seats) else "open"), created
        self.tables.append(
            Table(created["game_id"], kind, options["players"], tokens, created["status"], created["version"])
        )

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def join(self, data):
        """An open seat is claimed once (the game starts with the last); others are refused."""
        table = data.draw(st.sampled_from(self.tables), label="game")
        seat = data.draw(st.integers(0, table.players), label="seat")
        response = self.call("POST", "/seats/{seat}", table, params={"seat": seat}, expect={201, 404, 409})
        if seat >= table.players:
            assert (response.status_code, response.json()["code"]) == (404, "seat_not_found"), response.text
        elif seat in table.tokens:
            assert (response.status_code, response.json()["code"]) == (409, "seat_taken"), response.text
        else:
            assert response.status_code == 201, response.text
            joined = response.json()
            table.tokens[seat] = joined["token"]
            if len(table.tokens) == table.players:
                table.status = "active"
            assert joined["status"] == table.status, (joined, table)
            table.version = self.read(table)["version"]

    # -- playing ------------------------------------------------------------------------------------------
    def read(self, table: Table, token: str | None = None) -> dict:
        response = self.call("GET", "", table, token=token, expect=200)
        game = response.json()
        if game["status"] == "open":  # a claim changes an open game without a version: no tag
            assert "etag" not in response.headers, response.headers
        else:
            assert response.headers["etag"] == f'"{game["version"]}"', response.headers
        return game

    def legal_moves(self, table: Table, seat: int) -> list[dict]:
        legal = self.call("GET", "/legal-moves", table, token=table.tokens[seat], expect=200).json()
        assert (legal["seat"], legal["version"]) == (seat, table.version), legal
        return legal["moves"]

    def turn(self, table: Table, rng: random.Random, *, if_match: str | None = None, key: str | None = None):
        """One move: a seat to act lists its legal moves and sends one of them."""
        game = self.read(table)
        assert (game["version"], game["status"]) == (table.version, table.status), (game, table)
        assert game["to_act"], f"an active game with nobody to act: {game}"
        seat = rng.choice(game["to_act"])
        moves = self.legal_moves(table, seat)
        assert moves, f"seat {seat} must act but has no legal move"
        move = rng.choice(moves)
        token = table.tokens[seat]
        headers = {"If-Match": if_match, "Idempotency-Key": key}
        response = self.call("POST", "/moves", table, token=token, headers=headers, body=move, expect=200)
        result = response.json()
        assert response.headers["etag"] == f'"{result["version"]}"', response.headers
        seqs = [e["seq"] for e in result["events"]]
        assert seqs and seqs == list(range(table.version + 1, result["version"] + 1)), result
        table.version, table.status = result["version"], result["status"]
        if key is not None:
            table.keyed.append((key, seat, move, response.text))
        if table.status == "finished":
            self.audit(table)

    @precondition(lambda self: self.active())
    @rule(data=st.data())
    def move(self, data):
        """One move, pinned with If-Match (current, weak, ``*``, or stale: 412), perhaps keyed."""
        table = data.draw(st.sampled_from(self.active()), label="game")
        rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
        pin = data.draw(st.sampled_from(["none", "current", "weak", "star", "stale"]), label="If-Match")
        key = data.draw(st.sampled_from([None, None, f"k{len(table.keyed)}"]), label="Idempotency-Key")
        if pin == "stale" and table.version > 1:
            seat = rng.choice(self.read(table)["to_act"])
            refused = self.call(
                "POST",
                "/moves",
                table,
                token=table.tokens[seat],
                headers={"If-Match": f'"{table.version - 1}"'},
                body=rng.choice(self.legal_moves(table, seat)),
                expect=412,
                code="version_mismatch",
            )
            assert refused.json()["current_version"] == table.version, refused.text
            return
        if_match = {"current": f'"{table.version}"', "weak": f'W/"{table.version}"', "star": "*"}.get(pin)
        self.turn(table, rng, if_match=if_match, key=key)

    @precondition(lambda self: self.active())
    @rule(data=st.data())
    def play_on(self, data):
        """Many moves in a row (often to the end of the game)."""
        table = data.draw(st.sampled_from(self.active()), label="game")
        rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
        for _ in range(data.draw(st.sampled_from(self.runs), label="moves")):
            if table.status != "active":
                break
            self.turn(table, rng)

    @precondition(lambda self: any(t.keyed for t in self.tables))
    @rule(data=st.data())
    def retry_keyed_move(self, data):
        """A retried Idempotency-Key gets the first answer, byte for byte, and is applied once; the
        same key with another command is refused."""
        table = data.draw(st.sampled_from([t for t in self.tables if t.keyed]), label="game")
        key, seat, move, answer = data.draw(st.sampled_from(table.keyed), label="keyed move")
        token, headers = table.tokens[seat], {"Idempotency-Key": key}
        if data.draw(st.booleans(), label="same request"):
            retry = self.call("POST", "/moves", table, token=token, headers=headers, body=move, expect=200)
            assert retry.text == answer, (retry.text, answer)
        elif self.commands[table.kind] != move:
            other = self.commands[table.kind]
            self.call(
                "POST", "/moves", table, token=token, headers=headers, body=other, expect=422,
                code="idempotency_key_reused",
            )  # fmt: skip
        assert self.read(table)["version"] == table.version

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def out_of_turn(self, data):
        """A seat that is not to act, a spectator, another game's token: refused, nothing changes."""
        table = data.draw(st.sampled_from(self.tables), label="game")
        game = self.read(table)
        idle = [s for s in table.tokens if s not in game["to_act"]]
        others = [t for t in self.tables if t is not table and t.tokens]
        who = data.draw(
            st.sampled_from(["spectator"] + ["idle seat"] * bool(idle) + ["foreign token"] * bool(others)),
            label="who",
        )
        move = self.commands[table.kind]  # a command of the game's kind, or better:
        acting = [s for s in game["to_act"] if s in table.tokens]
        if acting:  # one the seat to act may send
            move = (self.legal_moves(table, acting[0]) or [move])[0]
        if who == "spectator":
            token, expected = None, (401, "token_required")
        elif who == "idle seat":
            token = table.tokens[data.draw(st.sampled_from(idle), label="seat")]
            expected = {
                "active": (403, "not_your_turn"),
                "open": (409, "game_not_started"),
                "finished": (409, "game_over"),
            }[table.status]
        else:
            other = data.draw(st.sampled_from(others), label="other game")
            token, expected = next(iter(other.tokens.values())), (401, "invalid_token")
        response = self.call("POST", "/moves", table, token=token, body=move)
        assert (response.status_code, response.json()["code"]) == expected, response.text
        assert self.read(table)["version"] == table.version

    # -- reading ------------------------------------------------------------------------------------------
    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def revalidate(self, data):
        """ETag is the version; If-None-Match with it (strong or weak) is a 304, any other a 200."""
        table = data.draw(st.sampled_from(self.tables), label="game")
        seat, token = data.draw(st.sampled_from(table.callers), label="as")
        now, later = table.version, table.version + 1
        tag = data.draw(st.sampled_from([f'"{now}"', f'W/"{now}"', f'"{later}"', "*", '"0"']), label="tag")
        response = self.call("GET", "", table, token=token, headers={"If-None-Match": tag})
        # An open game is never "not modified" (a claim changes it without a new version).
        fresh = tag.removeprefix("W/") == f'"{now}"' and table.status != "open"
        assert response.status_code == (304 if fresh else 200), (tag, response.status_code, table)
        if table.status == "open":
            assert "etag" not in response.headers, response.headers
        else:
            assert response.headers["etag"] == f'"{now}"', response.headers
        if not fresh:
            game = response.json()
            assert (game["version"], game["viewer"], game["status"]) == (now, seat, table.status), game

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def history(self, data):
        """The history pages through every event after any point once, in order."""
        table = data.draw(st.sampled_from(self.tables), label="game")
        _, token = data.draw(st.sampled_from(table.callers), label="as")
        start = after = data.draw(st.integers(0, table.version + 1), label="after")
        limit = data.draw(st.sampled_from([1, 7, 100, 1000]), label="limit")
        seqs: list[int] = []
        for _ in range(table.version + 2):
            query = {"after": after, "limit": limit}
            page = self.call("GET", "/events", table, token=token, query=query, expect=200).json()
            assert len(page["events"]) <= limit and page["version"] == table.version, page
            seqs += [e["seq"] for e in page["events"]]
            if page["next_after"] is None:
                break
            assert page["next_after"] > after, page
            after = page["next_after"]
        assert seqs == list(range(start + 1, table.version + 1)), (start, seqs)

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def time_travel(self, data):
        """Every version from 1 is there; the full state only after the end."""
        table = data.draw(st.sampled_from(self.tables), label="game")
        _, token = data.draw(st.sampled_from(table.callers), label="as")
        version = data.draw(st.integers(1, table.version + 1), label="version")
        reveal = data.draw(st.booleans(), label="reveal")
        response = self.call(
            "GET", "/states/{version}", table, token=token, params={"version": version},
            query={"reveal": str(reveal).lower()},
        )  # fmt: skip
        answer = (response.status_code, response.json().get("code"))
        if version > table.version:
            assert answer == (404, "version_not_found"), response.text
        elif reveal and table.status != "finished":
            assert answer == (403, "not_revealed_yet"), response.text
        else:
            assert response.status_code == 200, response.text
            assert response.json()["version"] == version and response.headers["etag"] == f'"{version}"'

    @precondition(lambda self: self.tables)
    @rule(data=st.data())
    def record_and_verification(self, data):
        table = data.draw(st.sampled_from(self.tables), label="game")
        _, token = data.draw(st.sampled_from(table.callers), label="as")
        self.audit(table, token)

    def audit(self, table: Table, token: str | None = None) -> None:
        """The record is a header, one line per event and (once finished) a footer; the server's
        verification passes.  A finished game's record imports (once) as a new game."""
        record = self.call("GET", "/record", table, token=token, expect=200).text
        finished = table.status == "finished"
        lines = [json.loads(line)["record"] for line in record.splitlines()]
        assert lines == ["header"] + ["event"] * table.version + ["footer"] * finished, lines
        verification = self.call("GET", "/verification", table, expect=200).json()
        assert verification["ok"], verification
        if finished and record not in self.finished_records:
            self.finished_records.append(record)
            self.import_as_exported(record)

    def import_as_exported(self, record: str) -> None:
        """A finished game's record, as exported, imports as a new finished game that verifies."""
        imported = exchange(self.http, "POST", "/v1/games/import", body=record, expect=201).json()
        assert imported["verification"]["ok"], imported
        copy_ = Table(imported["game_id"], imported["kind"], 0, {}, "finished", imported["version"])
        assert self.read(copy_)["status"] == "finished"
        assert self.call("GET", "/verification", copy_, expect=200).json()["ok"]

    @precondition(lambda self: self.finished_records)
    @rule(data=st.data())
    def import_altered_record(self, data):
        """A finished game's record altered in any way that matters is refused (422): never
        imported, never a crash."""
        which = data.draw(st.integers(0, len(self.finished_records) - 1), label="record #")
        record = self.finished_records[which]  # (not drawn itself: a failure would print it whole)
        lines = record.splitlines(keepends=True)
        events = [i for i, line in enumerate(lines) if json.loads(line)["record"] == "event"]
        i = data.draw(st.sampled_from(events), label="line")
        alteration = data.draw(st.sampled_from(ALTERATIONS), label="alteration")
        if alteration == "drop an event":
            del lines[i]
        elif alteration == "repeat an event":
            lines.insert(i, lines[i])
        elif alteration == "swap two events":
            j = events[(events.index(i) + 1) % len(events)]
            lines[i], lines[j] = lines[j], lines[i]
        elif alteration == "edit a payload":
            lines[i] = alter_json(lines[i], "payload", data)
        elif alteration == "edit the seed":
            lines[0] = alter_json(lines[0], "seed", data)
        elif alteration == "edit the options":
            lines[0] = alter_json(lines[0], "options", data)
        elif alteration == "edit the outcome":
            lines[-1] = alter_json(lines[-1], "outcome", data)
        elif alteration == "drop the footer":
            lines.pop()
        elif alteration == "retype in the options":
            lines[0] = alter_json(lines[0], "options", data, retype=True)
        elif alteration.startswith("retype"):
            at = {"header": 0, "payload": i, "footer": -1}[alteration.rsplit(" ", 1)[-1]]
            lines[at] = alter_json(lines[at], "payload" if at == i else None, data, retype=True)
        else:
            text = "".join(lines)
            lines = [text[: data.draw(st.integers(0, len(text) - 1), label="cut at")]]
        body = "".join(lines)
        if body != record:  # (swapping the only event with itself changes nothing)
            response = exchange(self.http, "POST", "/v1/games/import", body=body)
            assert response.status_code == 422, (
                f"a record with {alteration} was answered {response.text[:500]}"
            )

    @rule(data=st.data())
    def list_games(self, data):
        """The game list pages through games once each, filtered as asked."""
        kind = data.draw(st.sampled_from([None, *sorted(self.catalogue)]), label="kind")
        status = data.draw(st.sampled_from([None, "open", "active", "finished"]), label="status")
        limit = data.draw(st.integers(1, 5), label="limit")
        seen: list[str] = []
        cursor = None
        for _ in range(4):
            query = {"kind": kind, "status": status, "limit": limit, "cursor": cursor}
            page = exchange(self.http, "GET", "/v1/games", query=query, expect=200).json()
            assert len(page["games"]) <= limit, page
            for summary in page["games"]:
                assert kind in (None, summary["kind"]) and status in (None, summary["status"]), summary
                seen.append(summary["game_id"])
            cursor = page.get("next_cursor")
            if cursor is None:
                break
        assert len(seen) == len(set(seen)), f"a game listed twice: {seen}"


ALTERATIONS = [
    "retype in the options",  # the header keeps them raw: only the game decodes them
    "retype in the header",
    "retype in a payload",
    "retype in the footer",
    "drop an event",
    "repeat an event",
    "swap two events",
    "edit a payload",
    "edit the seed",
    "edit the options",
    "edit the outcome",
    "drop the footer",
    "truncate",
]


def alter_json(line: str, key: str | None, data, *, retype: bool = False) -> str:
    """*line* with one value under *key* (any top-level key if None) changed: a number
    incremented, a string extended, a boolean flipped, anything else replaced; or, to *retype*,
    a value at any depth replaced by one of another JSON type."""
    value = json.loads(line)
    if key is None:
        key = data.draw(st.sampled_from(sorted(k for k in value if k != "record")), label="field")
    node, name = value, key
    while isinstance(node[name], (dict, list)) and node[name]:
        if retype and data.draw(st.booleans(), label="replace it whole"):
            break
        inner = node[name]
        keys = list(inner) if isinstance(inner, dict) else list(range(len(inner)))
        node, name = inner, data.draw(st.sampled_from(keys), label=f"in {name}")
    leaf = node[name]
    if retype:
        others = [v for v in RETYPED if type(v) is not type(leaf)]
        node[name] = data.draw(st.sampled_from(others), label="retyped")
    elif isinstance(leaf, bool):
        node[name] = not leaf
    elif isinstance(leaf, (int, float)):
        node[name] = leaf + 1
    elif isinstance(leaf, str):
        node[name] = leaf + "x"
    else:
        node[name] = "altered"
    return json.dumps(value) + "\n"


RETYPED: list[Any] = [None, "x", -1, 2**70, 0.5, True, [], {}, {"unknown": 1}]


def option_values(schema: dict[str, Any]) -> list[Any]:
    """A few values of one option in a kind's options schema (from the catalogue), its default
    first: its enum members, the integers of its range, both booleans, null when allowed."""
    values: list[Any] = [schema["default"]] if "default" in schema else []
    for branch in (schema, *schema.get("anyOf", ())):
        values += branch.get("enum", [])
        kind = branch.get("type")
        if kind == "boolean":
            values += [False, True]
        elif kind == "integer":
            low = branch.get("minimum", 0)
            values += range(low, branch.get("maximum", low + 2) + 1)
        elif kind == "null":
            values.append(None)
    return list({(type(v), v): v for v in values}.values())


def well_formed(tag: str, schema: dict[str, Any]) -> dict | None:
    """The simplest command *schema* describes (its required scalar fields), if it is simple."""
    command: dict[str, Any] = {"type": tag}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if name == "type":
            continue
        if "enum" in prop:
            command[name] = prop["enum"][0]
        elif prop.get("type") in ("boolean", "integer", "string"):
            command[name] = {"boolean": True, "integer": 0, "string": "x"}[prop["type"]]
        else:
            return None
    return command


SESSIONS = 80
SESSION_STEPS = 40


@pytest.fixture(scope="module")
def sessions(http):
    GameSessions.http = http
    for entry in http.get("/v1/catalogue").json()["games"]:
        GameSessions.catalogue[entry["kind"]] = {
            "player_counts": entry["player_counts"],
            "options": next(iter(entry["options_schema"]["$defs"].values())).get("properties", {}),
        }
    schemas = DOCUMENT["components"]["schemas"]
    for tag, ref in sorted(schemas["Command"]["discriminator"]["mapping"].items()):
        command = well_formed(tag, schemas[ref.rsplit("/", 1)[-1]])
        if command is not None:
            GameSessions.commands.setdefault(tag.split(".")[0], command)
    return GameSessions


def test_a_few_short_game_sessions(sessions):
    class ShortSessions(sessions):  # type: ignore[misc, valid-type]
        runs = (10, 3)

    run_state_machine_as_test(
        ShortSessions, settings=settings(max_examples=3, stateful_step_count=8, **QUIET)
    )


NO_SHRINKING = [Phase.explicit, Phase.generate]
"""Shrinking a failed session replays its games again and again for up to five minutes; the
failing session is reported as it ran (each step with its draws) and replays deterministically."""


@pytest.mark.slow
def test_game_sessions(sessions):
    run_state_machine_as_test(
        sessions,
        settings=settings(
            max_examples=SESSIONS, stateful_step_count=SESSION_STEPS, phases=NO_SHRINKING, **QUIET
        ),
    )

"""openapi-python-client, the most common Python generator, accepts the whole served document (no
endpoint or schema skipped, a function for every operation), and the client it generates plays a
complete game of every title against a real ``yamen serve`` using only its own functions and models."""

from __future__ import annotations

import importlib
import io
import json
import os
import pathlib
import random
import re
import subprocess
import sys
from http import HTTPStatus

import pytest

from .conftest import operation_ids

pytestmark = pytest.mark.slow

PACKAGE = "yamen_generated_client"
MAX_MOVES = 5000
"""No random game here takes a tenth of this; more means the game does not end."""


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _operations(document: dict) -> dict[str, str]:
    """operationId -> the module the generator writes its functions to (``api/<tag>/<snake_case id>``)."""
    return {
        operation[
            "operationId"
        ]: f"{PACKAGE}.api.{_snake(operation['tags'][0])}.{_snake(operation['operationId'])}"
        for item in document["paths"].values()
        for operation in item.values()
    }


@pytest.fixture(scope="module")
def generated(served_document, tmp_path_factory):
    """The generator's output (stdout and stderr); the generated package is importable meanwhile."""
    work = tmp_path_factory.mktemp("python-client")
    (work / "openapi.json").write_bytes(served_document)
    venv_bin = pathlib.Path(sys.executable).parent
    run = subprocess.run(
        [
            str(venv_bin / "openapi-python-client"),
            "generate",
            "--path",
            "openapi.json",
            "--meta",
            "none",
            "--output-path",
            PACKAGE,
        ],
        cwd=work,
        env={**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"},  # its ruff hooks
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    sys.path.insert(0, str(work))
    try:
        yield run.stdout + run.stderr
    finally:
        sys.path.remove(str(work))


def test_the_generator_takes_every_operation_and_schema(generated, served_document):
    assert "warning" not in generated.lower() and "unable to" not in generated.lower(), generated
    document = json.loads(served_document)
    modules = _operations(document)
    assert sorted(modules) == sorted(operation_ids(document)), "every operation has an operationId"
    missing = []
    for operation_id, module in modules.items():
        try:
            functions = importlib.import_module(module)
        except ModuleNotFoundError:
            missing.append(operation_id)
            continue
        if not all(hasattr(functions, f) for f in ("sync", "sync_detailed", "asyncio", "asyncio_detailed")):
            missing.append(operation_id)
    assert not missing, f"operations without a generated function: {missing}"
    models = importlib.import_module(f"{PACKAGE}.models")
    for name in document["components"]["schemas"]:
        if name not in ("Command", "Event", "View", "CreateGame"):  # unions: inlined where used
            assert hasattr(models, name), f"schema {name} has no generated model"


def _ok(answer, status: HTTPStatus, model: type):
    assert answer.status_code == status and isinstance(answer.parsed, model), (
        answer.status_code,
        answer.content[:2000],
    )
    return answer.parsed


def creation(models, kind: str, **fields):
    """The create request of *kind*'s own model (``CreateYangtzeGame``…: the document's
    ``CreateGame`` is a union by kind, each member with that title's options)."""
    return getattr(models, f"Create{kind.capitalize()}Game").from_dict({"kind": kind, **fields})


class Player:
    """Plays and audits games through the generated package only: its functions, models and types."""

    def __init__(self, document: dict, base_url: str) -> None:
        package = importlib.import_module(PACKAGE)
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.types = importlib.import_module(f"{PACKAGE}.types")
        self.client = package.Client(base_url=base_url, raise_on_unexpected_status=True, timeout=60.0)
        self.modules = _operations(document)

    def call(self, operation_id: str, *args, **kwargs):
        """The generated ``sync_detailed`` of an operation, by its operationId."""
        module = importlib.import_module(self.modules[operation_id])
        return module.sync_detailed(*args, client=self.client, **kwargs)

    def create(
        self, kind: str, players: int, seed: str, options: dict | None = None
    ) -> tuple[str, dict[int, str]]:
        """Seats left open and then claimed one by one (joinSeat) when there are two or more."""
        models = self.models
        body = creation(
            models,
            kind,
            options={**(options or {}), "players": players},
            seed=seed,
            take_seats="none" if players > 1 else "all",
        )
        created = _ok(self.call("createGame", body=body), HTTPStatus.CREATED, models.GameCreated)
        tokens = {token.seat: token.token for token in created.tokens}
        for seat in range(players):
            if seat not in tokens:
                joined = _ok(self.call("joinSeat", created.game_id, seat), HTTPStatus.CREATED, models.Joined)
                tokens[seat] = joined.token
        assert sorted(tokens) == list(range(players))
        return created.game_id, tokens

    def play(
        self, kind: str, players: int, seed: str, options: dict | None = None, *, audit: bool = True
    ) -> str:
        """A complete game: each turn a seeded-random legal move of a seat that is to act."""
        models, rng = self.models, random.Random(seed)
        game_id, tokens = self.create(kind, players, seed, options)
        prefix = kind.capitalize()
        for moves in range(MAX_MOVES):
            game = _ok(self.call("getGame", game_id), HTTPStatus.OK, models.GameDocument)
            assert type(game.view).__name__ == f"{prefix}View"
            if game.status == "finished":
                break
            seat = rng.choice(game.to_act)
            bearer = f"Bearer {tokens[seat]}"
            answer = self.call("getLegalMoves", game_id, authorization=bearer)
            legal = _ok(answer, HTTPStatus.OK, models.LegalMoves)
            assert answer.headers["etag"] == f'"{legal.version}"' and legal.seat == seat
            assert legal.moves and all(type(m).__name__.startswith(prefix) for m in legal.moves), legal.moves
            result = _ok(
                self.call(
                    "submitMove",
                    game_id,
                    body=rng.choice(legal.moves),
                    authorization=bearer,
                    if_match=answer.headers["etag"],
                    idempotency_key=f"{game_id}-{moves}",
                ),
                HTTPStatus.OK,
                models.MoveResult,
            )
            assert result.version > legal.version and result.events
        else:
            raise AssertionError(f"{kind} with {players} players did not end within {MAX_MOVES} moves")
        assert isinstance(game.outcome, models.Outcome)
        if audit:
            self.audit(game_id, game.version, tokens[0], prefix)
        return game_id

    def audit(self, game_id: str, version: int, token: str, prefix: str) -> None:
        """History, time travel, record, verification, the stream and the listing of a finished game."""
        models = self.models
        events, after = [], 0
        while after is not None:
            page = _ok(
                self.call("listEvents", game_id, after=after, limit=100), HTTPStatus.OK, models.History
            )
            events += page.events
            after = page.next_after
        assert [e.seq for e in events] == list(range(1, version + 1))
        assert all(type(e.event).__name__.startswith(prefix) for e in events), "events decode into its models"

        middle = _ok(
            self.call("getStateAt", game_id, version // 2, reveal=True), HTTPStatus.OK, models.GameDocument
        )
        assert middle.version == version // 2

        record = _ok(self.call("getRecord", game_id), HTTPStatus.OK, self.types.File)
        assert len(record.payload.read().splitlines()) == version + 2, (
            "a header, one line per event, a footer"
        )

        verification = _ok(self.call("getVerification", game_id), HTTPStatus.OK, models.Verification)
        checks = {check.name: check.status for check in verification.checks}
        assert verification.ok and {"chain", "fold", "replay"} <= set(checks), checks
        assert set(checks.values()) == {"passed"}, checks

        ticket = _ok(
            self.call("createStreamTicket", game_id, authorization=f"Bearer {token}"),
            HTTPStatus.CREATED,
            models.StreamTicket,
        )
        stream = self.call("streamEvents", game_id, ticket=ticket.ticket)
        assert stream.status_code == HTTPStatus.OK
        text = stream.content.decode()
        assert text.count("event: event") == version and "event: end" in text

        listed = _ok(
            self.call("listGames", kind=prefix.lower(), status="finished", limit=100),
            HTTPStatus.OK,
            models.GameList,
        )
        assert game_id in {g.game_id for g in listed.games}

    def reimport(self, game_id: str) -> None:
        """A finished game's record, imported back: stored under a new id, and it verifies."""
        record = _ok(self.call("getRecord", game_id), HTTPStatus.OK, self.types.File)
        body = self.types.File(payload=io.BytesIO(record.payload.read()))
        imported = _ok(self.call("importRecord", body=body), HTTPStatus.CREATED, self.models.Imported)
        assert imported.imported_from == game_id and imported.game_id != game_id and imported.verification.ok


def test_the_generated_client_plays_every_title(generated, served_document, live_url):
    player = Player(json.loads(served_document), live_url)
    models = player.models
    assert _ok(player.call("healthz"), HTTPStatus.OK, models.Health).status == "ok"
    assert _ok(player.call("readyz"), HTTPStatus.OK, models.Health).postgres == "ok"
    catalogue = _ok(player.call("getCatalogue"), HTTPStatus.OK, models.Catalogue)
    assert {"yangtze", "pingyao", "jiangnan"} <= {entry.kind for entry in catalogue.games}
    finished = []
    for entry in catalogue.games:
        components = _ok(
            player.call("getComponents", entry.kind), HTTPStatus.OK, models.GetComponentsResponse200
        )
        assert components.additional_properties, entry.kind
        counts = set(entry.player_counts)
        for players in sorted({min(counts), max(counts), 2} & counts):  # the solo modes included
            finished.append(player.play(entry.kind, players, seed=f"{entry.kind}-{players}"))
    player.reimport(finished[0])


def configurations() -> list[tuple[str, dict]]:
    """Every configuration a stranger's client would try, one option at a time, read from each
    title's option schema: every player count, every value of every enum, boolean and bounded
    integer option (at the fewest players that allow it), and two free maps."""
    import msgspec

    from domain.registry import production_games

    found: list[tuple[str, dict]] = []
    for kind, game in sorted(production_games().items()):
        schema = msgspec.json.schema(game.options_type)
        props = schema["$defs"][schema["$ref"].split("/")[-1]]["properties"]
        found += [(kind, {"players": p}) for p in game.player_counts]
        for name, spec in props.items():
            if name == "players":
                continue
            kinds = [spec, *spec.get("anyOf", [])]
            values: list = []
            for option in kinds:
                if "enum" in option:
                    values += option["enum"]
                elif option.get("type") == "boolean":
                    values += [True, False]
                elif option.get("type") == "integer" and "minimum" in option and "maximum" in option:
                    values += list(range(option["minimum"], option["maximum"] + 1))
                elif option.get("type") == "string" and "pattern" in option and name == "map":
                    values += ["B1-B2-B3", "A3-B2-A1"]
            found += [(kind, {name: value}) for value in values]
    return found


def test_the_generated_client_plays_every_configuration(generated, served_document, live_url):
    """Each configuration is played to the end through the generated client (its models decode
    every view, command and event of it) at the fewest players and at two, where the service accepts
    it; one it refuses is refused as a 422 ``invalid_options`` problem, never a 5xx, and every
    configuration is accepted at one of them at least."""
    from domain.registry import production_games

    player = Player(json.loads(served_document), live_url)
    played, never = 0, []
    for n, (kind, options) in enumerate(configurations()):
        counts = production_games()[kind].player_counts
        wanted = [options["players"]] if "players" in options else sorted({min(counts), 2} & set(counts))
        body = {k: v for k, v in options.items() if k != "players"}
        accepted = 0
        for players in wanted:
            probe = player.call(
                "createGame",
                body=creation(player.models, kind, options={**body, "players": players}, seed="probe"),
            )
            if probe.status_code == HTTPStatus.CREATED:
                player.play(kind, players, f"every-{n}-{players}", body, audit=False)
                accepted += 1
            else:
                assert probe.status_code == HTTPStatus.UNPROCESSABLE_ENTITY, (kind, options, probe.content)
                assert json.loads(probe.content)["code"] == "invalid_options", probe.content
        played += accepted
        if not accepted:
            never.append((kind, options))
    assert not never, f"accepted at no player count: {never}"
    assert played >= len(configurations())


def test_the_generated_client_plays_against_bots_at_a_timed_table(generated, served_document, live_url):
    """The table through the generated client only: a game created with a bot seat and a clock and
    take-backs, a seat handed to a bot and taken back, a take-back asked for, a resignation, a
    rematch — every call and every table event decoding into its generated model."""
    import time

    player = Player(json.loads(served_document), live_url)
    models = player.models
    options = {
        "players": 3,
        "table": {"clock": {"mode": "total", "seconds": 600, "increment": 5}, "takebacks": "consent"},
    }
    body = creation(models, "yangtze", options=options, seed="client-table", bots={"2": "heuristic"})
    created = _ok(player.call("createGame", body=body), HTTPStatus.CREATED, models.GameCreated)
    game_id = created.game_id
    tokens = {t.seat: t.token for t in created.tokens}
    assert sorted(tokens) == [0, 1]
    game = _ok(player.call("getGame", game_id), HTTPStatus.OK, models.GameDocument)
    assert [s.bot for s in game.seats][2] == "heuristic"
    assert isinstance(game.table, models.TableInfo) and game.table.clock is not None
    handed = _ok(
        player.call(
            "handSeatToBot",
            game_id,
            1,
            body=models.HandToBot(level="random"),
            authorization=f"Bearer {tokens[1]}",
        ),
        HTTPStatus.OK,
        models.Table,
    )
    assert handed.seats[1].bot == "random"
    back = _ok(
        player.call("takeSeatBack", game_id, 1, authorization=f"Bearer {tokens[1]}"),
        HTTPStatus.OK,
        models.Table,
    )
    assert back.seats[1].bot is None
    rng = random.Random(7)
    asked = False
    for _ in range(MAX_MOVES):
        game = _ok(player.call("getGame", game_id), HTTPStatus.OK, models.GameDocument)
        if game.status == "finished":
            break
        people = [s for s in game.to_act if s in tokens]
        if not people:
            time.sleep(0.05)  # the bot's turn
            continue
        seat = people[0]
        bearer = f"Bearer {tokens[seat]}"
        mine = _ok(player.call("getGame", game_id, authorization=bearer), HTTPStatus.OK, models.GameDocument)
        if mine.table.takeback_requested_by is not None and mine.table.takeback_requested_by != seat:
            command = models.TableAnswerTakeback.from_dict({"type": "table.AnswerTakeback", "accept": True})
        elif mine.table.can_take_back and not asked:
            command, asked = models.TableRequestTakeback.from_dict({"type": "table.RequestTakeback"}), True
        elif game.version > 120:
            command = models.TableResign.from_dict({"type": "table.Resign"})
        else:
            legal = _ok(
                player.call("getLegalMoves", game_id, authorization=bearer), HTTPStatus.OK, models.LegalMoves
            )
            command = rng.choice(legal.moves)
        answer = player.call("submitMove", game_id, body=command, authorization=bearer)
        assert answer.status_code in (HTTPStatus.OK, HTTPStatus.UNPROCESSABLE_ENTITY, HTTPStatus.CONFLICT), (
            answer.content
        )
    assert game.status == "finished" and isinstance(game.outcome, models.Outcome)
    history = _ok(player.call("listEvents", game_id, limit=1000), HTTPStatus.OK, models.History)
    kinds = {type(e.event).__name__ for e in history.events}
    assert {"TableArranged", "TableClockPunched", "TableCheckpoint"} <= kinds, kinds
    verification = _ok(player.call("getVerification", game_id), HTTPStatus.OK, models.Verification)
    assert verification.ok and {c.name for c in verification.checks} >= {"replay", "stamps"}
    rematch = _ok(
        player.call("rematch", game_id, authorization=f"Bearer {tokens[0]}"),
        HTTPStatus.CREATED,
        models.GameCreated,
    )
    assert rematch.game_id != game_id and rematch.status == "active"
    listed = _ok(player.call("listGames", kind="yangtze", limit=100), HTTPStatus.OK, models.GameList)
    assert rematch.game_id in {g.game_id for g in listed.games}


def test_the_generated_client_runs_an_apps_day(generated, served_document, live_url):
    """A front end's day through the generated package, with its security schemes (an
    ``AuthenticatedClient`` per credential): the operator makes two apps, the first subscribes a
    webhook, registers two users, signs an assertion for one (HS256, PyJWT), creates a private game
    and seats them; they play it to the end with their own credentials, find it in ``/v1/me/games``
    (to act, then finished), recover a seat token; the other app cannot see the game; every
    delivery arrives signed (verified with ``standardwebhooks``), in order, and the delivery log
    shows them."""
    import time

    import jwt

    from tests.http.test_webhooks import Receiver

    from .conftest import ADMIN_TOKEN

    package = importlib.import_module(PACKAGE)
    player = Player(json.loads(served_document), live_url)
    models = player.models

    def as_(token: str):
        return package.AuthenticatedClient(
            base_url=live_url, token=token, raise_on_unexpected_status=True, timeout=60.0
        )

    def by(operation_id: str, client, *args, **kwargs):
        module = importlib.import_module(player.modules[operation_id])
        return module.sync_detailed(*args, client=client, **kwargs)

    admin = as_(ADMIN_TOKEN)
    made = _ok(
        by("adminCreateApp", admin, body=models.CreateApp(name="Client Tea House")),
        HTTPStatus.CREATED,
        models.AppCreated,
    )
    app_id, app = made.app.app_id, as_(made.key.key)
    other = as_(
        _ok(
            by("adminCreateApp", admin, body=models.CreateApp(name="Another House")),
            HTTPStatus.CREATED,
            models.AppCreated,
        ).key.key
    )

    receiver = Receiver()
    try:
        types = [
            models.SubscribeWebhookEventTypesItem(t) for t in ("game.created", "game.turn", "game.finished")
        ]
        endpoint = _ok(
            by("subscribeWebhook", app, body=models.SubscribeWebhook(url=receiver.url, event_types=types)),
            HTTPStatus.CREATED,
            models.WebhookEndpointCreated,
        )
        receiver.secrets.append(endpoint.secret)

        first = _ok(
            by("registerPlayer", app, body=models.RegisterPlayer(external_id="user-1", credential=True)),
            HTTPStatus.CREATED,
            models.PlayerInfo,
        )
        second = _ok(
            by("registerPlayer", app, body=models.RegisterPlayer(external_id="user-2", display_name="Li")),
            HTTPStatus.CREATED,
            models.PlayerInfo,
        )
        signing = _ok(
            by(
                "adminAddSigningKey",
                admin,
                app_id,
                body=models.AddSigningKey(alg=models.AddSigningKeyAlg("HS256")),
            ),
            HTTPStatus.CREATED,
            models.NewSigningKey,
        )
        now = int(time.time())
        assertion = jwt.encode(
            {"iss": app_id, "sub": "user-2", "aud": "yamen", "iat": now, "exp": now + 900},
            signing.secret,
            algorithm="HS256",
            headers={"kid": signing.kid},
        )
        seats = {0: as_(first.credential.credential), 1: as_(assertion)}
        me = _ok(by("getMe", seats[1]), HTTPStatus.OK, models.PlayerInfo)
        assert me.player_id == second.player_id and me.app_id == app_id

        body = creation(
            models,
            "yangtze",
            options={"players": 2},
            seed="an-apps-day",
            take_seats="none",
            visibility="private",
        )
        created = _ok(by("createGame", app, body=body), HTTPStatus.CREATED, models.GameCreated)
        game_id = created.game_id
        for seat, registered in ((0, first), (1, second)):
            joined = by("joinSeat", app, game_id, seat, body=models.JoinSeat(player_id=registered.player_id))
            _ok(joined, HTTPStatus.CREATED, models.Joined)
        assert by("getGame", other, game_id).status_code == HTTPStatus.NOT_FOUND, "another app's private game"
        assert game_id not in {
            g.game_id for g in _ok(by("listGames", other, limit=100), HTTPStatus.OK, models.GameList).games
        }

        rng, seen_to_act = random.Random("an-apps-day"), False
        for moves in range(MAX_MOVES):
            game = _ok(by("getGame", app, game_id), HTTPStatus.OK, models.GameDocument)
            if game.status == "finished":
                break
            seat = rng.choice(game.to_act)
            if not seen_to_act:
                mine = _ok(by("listMyGames", seats[seat], to_act=True), HTTPStatus.OK, models.MyGames)
                assert [g.game_id for g in mine.games] == [game_id] and seat in mine.games[0].to_act
                seen_to_act = True
            answer = by("getLegalMoves", seats[seat], game_id)
            legal = _ok(answer, HTTPStatus.OK, models.LegalMoves)
            assert legal.seat == seat
            moved = by(
                "submitMove",
                seats[seat],
                game_id,
                body=rng.choice(legal.moves),
                if_match=answer.headers["etag"],
                idempotency_key=f"{game_id}-{moves}",
            )
            _ok(moved, HTTPStatus.OK, models.MoveResult)
        else:
            raise AssertionError(f"the app's game did not end within {MAX_MOVES} moves")
        status = models.ListMyGamesStatus("finished")
        for seat in seats.values():
            finished = _ok(by("listMyGames", seat, status=status), HTTPStatus.OK, models.MyGames)
            assert game_id in {g.game_id for g in finished.games}

        token = _ok(by("reissueSeatToken", seats[0], game_id, 0), HTTPStatus.CREATED, models.Joined)
        viewed = _ok(by("getGame", as_(token.token), game_id), HTTPStatus.OK, models.GameDocument)
        assert viewed.viewer == 0

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            kinds = [r["body"]["type"] for r in receiver.accepted(game_id)]
            if "game.finished" in kinds:
                break
            time.sleep(0.2)
        got = receiver.accepted(game_id)
        types = [r["body"]["type"] for r in got]
        assert types[0] == "game.created" and types[-1] == "game.finished", types
        assert all(r["verified_with"] == [endpoint.secret] for r in got), "every delivery signed"
        versions = [r["body"]["data"]["version"] for r in got]
        assert versions == sorted(versions), "in order"
        log = _ok(
            by("listWebhookDeliveries", app, endpoint.endpoint_id, game_id=game_id, limit=100),
            HTTPStatus.OK,
            models.WebhookDeliveryList,
        )
        delivered = {
            d.delivery_id for d in log.deliveries if d.status == models.WebhookDeliveryStatus("succeeded")
        }
        assert {r["id"] for r in got} <= delivered, (sorted(delivered), [r["id"] for r in got])
    finally:
        receiver.close()


def test_the_generated_client_seeks_rated_games_and_reads_the_leaderboard(
    generated, served_document, live_url
):
    """Two of an app's players seek rated Yangtze games through the generated package: the matcher
    seats them together (the long poll answers), one resigns, each game's document shows both
    seats' rating changes, and after ten games (past the provisional ones) both are on the
    title's leaderboard, in order, and around each other."""
    import time

    from .conftest import ADMIN_TOKEN

    package = importlib.import_module(PACKAGE)
    player = Player(json.loads(served_document), live_url)
    models = player.models

    def as_(token: str):
        return package.AuthenticatedClient(
            base_url=live_url, token=token, raise_on_unexpected_status=True, timeout=90.0
        )

    def by(operation_id: str, client, *args, **kwargs):
        module = importlib.import_module(player.modules[operation_id])
        return module.sync_detailed(*args, client=client, **kwargs)

    made = _ok(
        by("adminCreateApp", as_(ADMIN_TOKEN), body=models.CreateApp(name="Ladder House")),
        HTTPStatus.CREATED,
        models.AppCreated,
    )
    app = as_(made.key.key)
    registered = [
        _ok(
            by(
                "registerPlayer",
                app,
                body=models.RegisterPlayer(external_id=name, display_name=name, credential=True),
            ),
            HTTPStatus.CREATED,
            models.PlayerInfo,
        )
        for name in ("ladder-a", "ladder-b")
    ]
    players = [as_(p.credential.credential) for p in registered]
    games = []
    for round_ in range(10):
        seeks = [
            _ok(
                by("createSeek", who, body=models.SeekRequest(kind="yangtze", players=[2], rated=True)),
                HTTPStatus.CREATED,
                models.Seek,
            )
            for who in players
        ]
        matched = [
            _ok(by("getSeek", who, seek.seek_id, wait=30), HTTPStatus.OK, models.Seek)
            for who, seek in zip(players, seeks, strict=True)
        ]
        assert [m.status for m in matched] == ["matched", "matched"], matched
        assert matched[0].game_id == matched[1].game_id and {m.seat for m in matched} == {0, 1}
        game_id = matched[0].game_id
        loser = players[round_ % 2]
        resigned = by(
            "submitMove", loser, game_id, body=models.TableResign.from_dict({"type": "table.Resign"})
        )
        _ok(resigned, HTTPStatus.OK, models.MoveResult)
        games.append(game_id)

    deadline = time.monotonic() + 60
    while True:
        game = _ok(by("getGame", app, games[0]), HTTPStatus.OK, models.GameDocument)
        mine = _ok(by("getMyRatings", players[0]), HTTPStatus.OK, models.PlayerRatings)
        if isinstance(game.ratings, models.GameRatings) and len(mine.history) == 10:
            break
        assert time.monotonic() < deadline, "the ratings were not applied within 60 s"
        time.sleep(0.2)
    assert game.ratings.rated and len(game.ratings.seats) == 2
    winner, loser_ = sorted(game.ratings.seats, key=lambda s: s.rank)
    assert winner.delta > 0 > loser_.delta and winner.provisional

    board = _ok(by("getLeaderboard", app, "yangtze", limit=100), HTTPStatus.OK, models.Leaderboard)
    ours = [e for e in board.entries if e.player_id in {p.player_id for p in registered}]
    assert len(ours) == 2 and ours[0].rating >= ours[1].rating and ours[0].rank < ours[1].rank
    around = _ok(
        by("getLeaderboardAround", app, "yangtze", registered[0].player_id),
        HTTPStatus.OK,
        models.AroundPlayer,
    )
    assert around.player.player_id == registered[0].player_id
    assert {e.player_id for e in around.entries} >= {p.player_id for p in registered}

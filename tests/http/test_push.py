"""Web Push through the real app: a real job worker, a real Postgres (a database of this module's
own, so no other test's worker takes its jobs) and a local push service — a small HTTP server that,
like a browser's push service and the browser together, checks the VAPID JWT (ES256, RFC 8292)
against the service's public key and **decrypts** each payload (RFC 8291, aes128gcm) with the
subscription's own private key and auth secret (``http_ece``), as the browser would."""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import http_ece
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from litestar.testing import AsyncTestClient

from service.application.push import generate_key_pair
from tests.conftest import make_app
from tests.http.helpers import bearer, play_to_end
from tests.http.players_support import new_guest
from tests.servers import fresh_database

SUBJECT = "mailto:push-tests@example.org"
PRIVATE_KEY, PUBLIC_KEY = generate_key_pair()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """One browser's subscription: its P-256 key pair and auth secret, as PushManager makes them."""

    def __init__(self, service: PushService, name: str) -> None:
        self.name = name
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = f"{service.url}/push/{name}"
        self.received: list[dict[str, Any]] = []
        """Every push that verified and decrypted: the payload, and the request's headers."""
        self.answer = 201
        """What the push service answers for this browser (410: the browser unsubscribed)."""
        self.answers: list[int] = []
        """Statuses to answer first, in order (then ``answer``)."""
        service.browsers[name] = self

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def payloads(self, title: str | None = None) -> list[dict[str, Any]]:
        return [r["payload"] for r in self.received if title is None or r["payload"]["title"] == title]


class PushService:
    """A push service on 127.0.0.1: checks VAPID, decrypts with the browser's keys, answers."""

    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.refused: list[str] = []
        """Why requests were refused (a bad JWT, a payload that does not decrypt): must stay empty."""
        self.lock = threading.Lock()
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                name = self.path.rsplit("/", 1)[-1]
                status = service.receive(name, headers, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def receive(self, name: str, headers: dict[str, str], body: bytes) -> int:
        browser = self.browsers.get(name)
        if browser is None:
            return 404
        try:
            payload = self.verify_and_decrypt(browser, headers, body)
        except Exception as exc:  # noqa: BLE001 - recorded, and the test fails on it
            with self.lock:
                self.refused.append(f"{type(exc).__name__}: {exc}")
            return 400
        with self.lock:
            status = browser.answers.pop(0) if browser.answers else browser.answer
            if 200 <= status < 300:
                browser.received.append({"payload": payload, "headers": headers, "at": time.monotonic()})
        return status

    def verify_and_decrypt(self, browser: Browser, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        # RFC 8292: Authorization: vapid t=<JWT>, k=<the application server's public key>.
        scheme, _, params = headers["authorization"].partition(" ")
        assert scheme.lower() == "vapid", scheme
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        assert fields["k"] == PUBLIC_KEY, "signed with another key than GET /v1/push/key gives"
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(fields["k"]))
        claims = jwt.decode(fields["t"], public, algorithms=["ES256"], audience=self.url)
        assert claims["sub"] == SUBJECT and claims["exp"] > time.time()
        assert int(headers["ttl"]) > 0
        # RFC 8291: aes128gcm, the sender's ephemeral key in the body's header.
        assert headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm")
        payload: dict[str, Any] = json.loads(plain)
        payload["_urgency"] = headers.get("urgency")
        return payload

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def push_service() -> Iterator[PushService]:
    found = PushService()
    yield found
    found.close()
    assert not found.refused, found.refused


@pytest.fixture(scope="module")
def push_db() -> Iterator[str]:
    with fresh_database("yamen_push_") as url:
        yield url


@pytest.fixture(scope="module")
async def client(push_db: str, redis_url: str) -> AsyncIterator[AsyncTestClient]:
    app = make_app(
        push_db,
        redis_url,
        vapid_private_key=PRIVATE_KEY,
        vapid_subject=SUBJECT,
        push_backoff=(0.3, 0.3),
        webhook_allow_private=True,
        rate_limit="off",
    )
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


async def until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


async def subscribe(client: AsyncTestClient, browser: Browser, token: str, game_id: str | None = None) -> str:
    body = browser.subscription()
    if game_id is not None:
        body["game_id"] = game_id
    made = await client.post("/v1/push/subscriptions", json=body, headers=bearer(token))
    assert made.status_code == 201, made.text
    assert made.headers["location"] == f"/v1/push/subscriptions/{made.json()['subscription_id']}"
    return str(made.json()["subscription_id"])


async def seated_game(client: AsyncTestClient, guest: str) -> tuple[str, dict[int, str]]:
    """A two-seat game: seat 0 claimed by the guest player, seat 1 by a bare seat token."""
    made = await client.post(
        "/v1/games", json={"kind": "bluff", "options": {"players": 2}, "take_seats": "none", "seed": "push"}
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    mine = await client.post(f"/v1/games/{game_id}/seats/0", headers=bearer(guest))
    assert mine.status_code == 201, mine.text
    other = await client.post(f"/v1/games/{game_id}/seats/1")
    assert other.status_code == 201, other.text
    return game_id, {0: mine.json()["token"], 1: other.json()["token"]}


# --- the API ----------------------------------------------------------------------------------------
async def test_the_key_and_a_players_subscriptions(client, push_service):
    key = await client.get("/v1/push/key")
    assert key.status_code == 200 and key.json() == {"public_key": PUBLIC_KEY, "subject": SUBJECT}
    guest = (await new_guest(client))["credential"]["credential"]
    stranger = (await new_guest(client))["credential"]["credential"]
    browser = Browser(push_service, "api")
    subscription_id = await subscribe(client, browser, guest)
    again = await subscribe(client, browser, guest)  # the same browser again: the same subscription
    assert again == subscription_id
    read = await client.get(f"/v1/push/subscriptions/{subscription_id}", headers=bearer(guest))
    assert read.status_code == 200, read.text
    assert read.json()["owner"] == "player" and read.json()["endpoint"] == browser.endpoint
    assert read.json()["failures"] == 0 and read.json()["last_success_at"] is None
    # Another player's, or nobody's: as if it did not exist.
    other = await client.get(f"/v1/push/subscriptions/{subscription_id}", headers=bearer(stranger))
    assert other.status_code == 404 and other.json()["code"] == "push_subscription_not_found"
    anonymous = await client.post("/v1/push/subscriptions", json=browser.subscription())
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "push_owner_required"
    gone = await client.delete(f"/v1/push/subscriptions/{subscription_id}", headers=bearer(guest))
    assert gone.status_code == 204, gone.text
    assert (
        await client.get(f"/v1/push/subscriptions/{subscription_id}", headers=bearer(guest))
    ).status_code == 404


async def test_what_is_not_a_browsers_subscription_is_refused(client, push_service):
    guest = (await new_guest(client))["credential"]["credential"]
    browser = Browser(push_service, "bad")
    good = browser.subscription()
    bad_point = {**good, "keys": {**good["keys"], "p256dh": b64url(b"\x04" + b"\x01" * 64)}}
    short_auth = {**good, "keys": {**good["keys"], "auth": b64url(b"short")}}
    no_scheme = {**good, "endpoint": "ftp://127.0.0.1/push/bad"}
    with_game = {**good, "game_id": "g_nope"}
    for body in (bad_point, short_auth, no_scheme, with_game):
        answer = await client.post("/v1/push/subscriptions", json=body, headers=bearer(guest))
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "invalid_push_subscription", answer.text
    game_id, tokens = await seated_game(client, guest)
    no_game = await client.post("/v1/push/subscriptions", json=good, headers=bearer(tokens[1]))
    assert no_game.status_code == 400 and no_game.json()["code"] == "invalid_push_subscription"
    wrong = await client.post(
        "/v1/push/subscriptions", json={**good, "game_id": game_id}, headers=bearer(tokens[1] + "x")
    )
    assert wrong.status_code == 401, wrong.text


# --- delivery ---------------------------------------------------------------------------------------
async def test_your_turn_and_game_finished_reach_the_seats_decrypted(client, push_service):
    guest = (await new_guest(client))["credential"]["credential"]
    watcher = (await new_guest(client))["credential"]["credential"]
    game_id, tokens = await seated_game(client, guest)
    player_browser = Browser(push_service, "player")  # the guest player's phone: seat 0
    seat_browser = Browser(push_service, "seat")  # a bare seat token's: seat 1
    watcher_browser = Browser(push_service, "watcher")  # a player holding no seat in the game
    await subscribe(client, player_browser, guest)
    seat_subscription = await subscribe(client, seat_browser, tokens[1], game_id)
    await subscribe(client, watcher_browser, watcher)
    # The seat's own subscription is the seat token's business only.
    read = await client.get(f"/v1/push/subscriptions/{seat_subscription}", headers=bearer(tokens[1]))
    assert read.status_code == 200 and read.json()["owner"] == "seat" and read.json()["seat"] == 1
    assert (
        await client.get(f"/v1/push/subscriptions/{seat_subscription}", headers=bearer(tokens[0]))
    ).status_code == 404

    # One move: whoever is to act then hears "your turn" (the other seat, or the same one again).
    doc = (await client.get(f"/v1/games/{game_id}")).json()
    seat = doc["to_act"][0]
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))).json()
    moved = await client.post(
        f"/v1/games/{game_id}/moves",
        json=legal["moves"][0],
        headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
    )
    assert moved.status_code == 200, moved.text
    to_act = (await client.get(f"/v1/games/{game_id}")).json()["to_act"]
    browsers = {0: player_browser, 1: seat_browser}
    for acting in to_act:
        await until(lambda a=acting: browsers[a].payloads("Your turn"), 20, f"seat {acting}'s turn")
    for idle in set(browsers) - set(to_act):
        assert not browsers[idle].payloads(), "a seat not to act hears nothing"

    await play_to_end(client, game_id, tokens)
    for browser in browsers.values():
        await until(lambda b=browser: b.payloads("Game finished"), 20, f"{browser.name}'s game finished")
    await asyncio.sleep(1.0)  # anything late or repeated would arrive by now
    # Turns are derived per job run (a burst of moves is one run), so how many each seat heard
    # varies; each one heard was its turn (checked below), and "game finished" comes once.
    for seat, browser in browsers.items():
        assert len(browser.payloads("Game finished")) == 1, "each notification once"
        for payload in browser.payloads():
            urgency = payload.pop("_urgency")
            assert set(payload) == {"title", "body", "url", "tag"}, payload
            assert payload["url"] == f"/play/#/game/{game_id}/seat/{seat}"
            assert payload["tag"] == f"yamen-{game_id}"
            assert urgency == ("high" if payload["title"] == "Your turn" else "normal")
            text = json.dumps(payload)
            assert not any(token in text for token in tokens.values()), "no token in a payload"
            assert "seed" not in text and "view" not in text and "hand" not in text
    assert not watcher_browser.received, "a player without a seat in the game hears nothing of it"
    seen = await client.get(f"/v1/push/subscriptions/{seat_subscription}", headers=bearer(tokens[1]))
    assert seen.json()["last_success_at"] is not None


async def test_a_gone_subscription_is_pruned_and_a_failing_push_retried(client, push_service):
    guest = (await new_guest(client))["credential"]["credential"]
    game_id, tokens = await seated_game(client, guest)
    flaky = Browser(push_service, "flaky")  # seat 0's player: the push service fails once, then takes it
    flaky.answers = [503]
    gone = Browser(push_service, "gone")  # seat 1's browser unsubscribed: 410 Gone
    gone.answer = 410
    await subscribe(client, flaky, guest)
    gone_id = await subscribe(client, gone, tokens[1], game_id)
    await play_to_end(client, game_id, tokens)
    await until(lambda: flaky.payloads("Game finished"), 20, "the retried push")

    async def pruned() -> bool:
        answer = await client.get(f"/v1/push/subscriptions/{gone_id}", headers=bearer(tokens[1]))
        return answer.status_code == 404

    await until(pruned, 20, "the gone subscription's removal")
    assert not gone.received


async def test_push_off_without_a_vapid_key(database_url, redis_url):
    app = make_app(database_url, redis_url, rate_limit="off", jobs=False)
    async with AsyncTestClient(app=app) as off:
        answer = await off.get("/v1/push/key")
        assert answer.status_code == 404 and answer.json()["code"] == "push_off"
        guest = (await new_guest(off))["credential"]["credential"]
        browser_body = {"endpoint": "https://push.example/x", "keys": {"p256dh": "AA", "auth": "AA"}}
        refused = await off.post("/v1/push/subscriptions", json=browser_body, headers=bearer(guest))
        assert refused.status_code == 404 and refused.json()["code"] == "push_off"


@pytest.mark.slow
async def test_the_sweep_takes_up_a_change_whose_job_was_lost(client, push_service):
    """A change whose job was never queued (its worker killed between the commit and the request)
    is found by the job queue's sweep (every 15 s), from the cursor it trails."""
    application = client.app.state.application
    guest = (await new_guest(client))["credential"]["credential"]
    game_id, tokens = await seated_game(client, guest)
    browser = Browser(push_service, "swept")
    await subscribe(client, browser, tokens[1], game_id)
    await subscribe(client, Browser(push_service, "swept-player"), guest)
    queue = application.push.queue
    application.push.queue = None  # the change's request for a job is lost
    try:
        await play_to_end(client, game_id, tokens)
    finally:
        application.push.queue = queue
    await until(lambda: browser.payloads("Game finished"), 40, "the sweep's push")
    assert len(browser.payloads("Game finished")) == 1


def test_yamen_vapid_generate_prints_a_usable_key_pair(capsys):
    from service.application.push import load_vapid, public_key_of
    from service.cli import main

    assert main(["vapid", "generate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    private = lines[0].removeprefix("YAMEN_VAPID_PRIVATE_KEY=")
    public = lines[1].rsplit(" ", 1)[-1]
    assert public_key_of(load_vapid(private)) == public
    assert len(unb64url(public)) == 65 and len(unb64url(private)) == 32


def test_the_vapid_settings_are_checked_at_start():
    from service.application.push import Push, PushSettings, load_vapid
    from service.infra.push_store import PushStore
    from service.settings import vapid_subject

    with pytest.raises(ValueError, match="YAMEN_VAPID_PRIVATE_KEY"):
        load_vapid("not a key")
    with pytest.raises(ValueError, match="together"):
        Push(PushStore(None), settings=PushSettings(private_key=PRIVATE_KEY))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="YAMEN_VAPID_SUBJECT"):
        vapid_subject("ops@example.org")
    assert vapid_subject(" mailto:ops@example.org ") == "mailto:ops@example.org"
    assert vapid_subject("") is None
    pem = load_vapid(PRIVATE_KEY).private_pem().decode()
    assert (
        Push(PushStore(None), settings=PushSettings(private_key=pem, subject=SUBJECT)).public_key
        == PUBLIC_KEY
    )  # type: ignore[arg-type]

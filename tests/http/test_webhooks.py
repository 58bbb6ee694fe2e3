"""Webhooks through the real app: a real job worker, a real Postgres (a database of this module's
own, so no other test's worker takes its jobs) and a real receiver — a small HTTP server that
verifies every delivery's signature with ``standardwebhooks.Webhook(secret).verify`` and refuses
(401) what does not verify, as an app's server would."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import itertools
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest
from litestar.testing import AsyncTestClient
from standardwebhooks import Webhook, WebhookVerificationError

from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.servers import fresh_database

ADMIN = "webhook-tests-admin-token-of-32-characters-or-more"
EVERY_TYPE = [
    "game.created",
    "game.started",
    "game.turn",
    "game.finished",
    "seat.replaced",
    "seat.timed_out",
    "game.rematch_offered",
]
BACKOFF = (0.3, 0.6, 1.0)
"""The compressed schedule: four attempts over about two seconds."""


class Receiver:
    """An app's server: POSTs to ``/hook`` are verified with the secrets it knows and kept.

    ``answer`` is the status it gives a verified delivery (503: it is "down"); ``hang`` makes it
    hold every request this many seconds before answering."""

    def __init__(self) -> None:
        self.secrets: list[str] = []
        self.received: list[dict[str, Any]] = []
        """Every request: headers, body, whether it verified and with which secrets."""
        self.answer = 204
        self.hang = 0.0
        self.waiting = 0
        """Requests held now (arrived, not answered yet)."""
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                verified_with = []
                for secret in list(receiver.secrets):
                    with contextlib.suppress(WebhookVerificationError):
                        Webhook(secret).verify(body, headers)
                        verified_with.append(secret)
                if receiver.hang:
                    with receiver.lock:
                        receiver.waiting += 1
                    time.sleep(receiver.hang)
                    with receiver.lock:
                        receiver.waiting -= 1
                status = receiver.answer if verified_with else 401
                with receiver.lock:
                    receiver.received.append(
                        {
                            "id": headers.get("webhook-id"),
                            "headers": headers,
                            "body": json.loads(body),
                            "verified_with": verified_with,
                            "status": status,
                            "at": time.monotonic(),
                        }
                    )
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def accepted(self, game_id: str | None = None) -> list[dict[str, Any]]:
        """The deliveries it answered 2xx (of one game, if given), in arrival order."""
        with self.lock:
            return [
                r
                for r in self.received
                if 200 <= r["status"] < 300 and (game_id is None or r["body"]["data"]["game_id"] == game_id)
            ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


@pytest.fixture(scope="module")
def webhook_db() -> Iterator[str]:
    with fresh_database("yamen_webhooks_") as url:
        yield url


@pytest.fixture(scope="module")
async def client(webhook_db: str, redis_url: str) -> AsyncIterator[AsyncTestClient]:
    app = make_app(
        webhook_db,
        redis_url,
        admin_token=ADMIN,
        webhook_allow_private=True,
        webhook_backoff=BACKOFF,
        rate_limit="off",
    )
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


async def new_app(client: AsyncTestClient, name: str = "front end") -> str:
    """A new app's key."""
    made = await client.post("/v1/admin/apps", json={"name": name}, headers=bearer(ADMIN))
    assert made.status_code == 201, made.text
    return made.json()["key"]["key"]


async def subscribe(
    client: AsyncTestClient, key: str, receiver: Receiver, types: list[str] | None = None
) -> dict[str, Any]:
    made = await client.post(
        "/v1/webhooks", json={"url": receiver.url, "event_types": types or EVERY_TYPE}, headers=bearer(key)
    )
    assert made.status_code == 201, made.text
    endpoint = made.json()
    assert endpoint["secret"].startswith("whsec_")
    receiver.secrets.append(endpoint["secret"])
    return endpoint


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


async def first_legal_move(client: AsyncTestClient, game_id: str, token: str) -> tuple[dict, int]:
    legal = (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(token))).json()
    return legal["moves"][0], legal["version"]


async def play_some(client: AsyncTestClient, game_id: str, tokens: dict[int, str], moves: int) -> int:
    """Make *moves* moves (each by whoever is to act, its first legal move); the game's version."""
    version = 0
    for _ in range(moves):
        doc = (await client.get(f"/v1/games/{game_id}")).json()
        seat = doc["to_act"][0]
        move, version = await first_legal_move(client, game_id, tokens[seat])
        answer = await client.post(
            f"/v1/games/{game_id}/moves",
            json=move,
            headers={**bearer(tokens[seat]), "If-Match": f'"{version}"'},
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
    return version


def types_of(deliveries: list[dict[str, Any]]) -> list[str]:
    return [d["body"]["type"] for d in deliveries]


def positions(deliveries: list[dict[str, Any]]) -> list[int]:
    return [int(d["id"].split("_")[1]) for d in deliveries]


# --- every event type, signed -----------------------------------------------------------------------
async def test_every_notification_arrives_signed_in_order_with_public_facts_only(client, receiver):
    key = await new_app(client)
    await subscribe(client, key, receiver)
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "none", "seed": "hooks-1"},
        headers=bearer(key),
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    tokens = {}
    for seat in (0, 1):
        joined = await client.post(f"/v1/games/{game_id}/seats/{seat}")
        assert joined.status_code == 201, joined.text
        tokens[seat] = joined.json()["token"]
    # The first turn is announced before anybody moves (turns are derived per pump run: a game that
    # ended before its pump ran would have none to announce).
    await until(lambda: "game.turn" in types_of(receiver.accepted(game_id)), 30, "the first turn")
    await play_some(client, game_id, tokens, 2)
    # Seat 0 resigns: in two-player play that ends the game, the other seat winning.
    doc = (await client.get(f"/v1/games/{game_id}")).json()
    resigned = await client.post(
        f"/v1/games/{game_id}/moves", json={"type": "table.Resign"}, headers=bearer(tokens[0])
    )
    assert resigned.status_code == 200, resigned.text
    rematch = await client.post(f"/v1/games/{game_id}/rematch", headers=bearer(tokens[1]))
    assert rematch.status_code == 201, rematch.text
    rematch_id = rematch.json()["game_id"]

    def arrived():
        return any(d["body"]["type"] == "game.rematch_offered" for d in receiver.accepted(game_id))

    await until(arrived, 30, "the game's last notification")
    await asyncio.sleep(0.5)
    got = receiver.accepted(game_id)
    # Turns are announced per pump run (moves made together are announced together), so count them
    # apart from the rest, whose order and number the record fixes.
    turns = [d for d in got if d["body"]["type"] == "game.turn"]
    others = [d for d in got if d["body"]["type"] != "game.turn"]
    assert types_of(others) == [
        "game.created",
        "game.started",
        "seat.replaced",
        "game.finished",
        "game.rematch_offered",
    ]
    assert 1 <= len(turns) <= 3
    assert positions(got) == list(range(1, len(got) + 1)), "delivered in the order derived, none missing"
    assert len({d["id"] for d in got}) == len(got)
    for delivery in got:
        assert delivery["verified_with"] == receiver.secrets
        assert delivery["headers"]["webhook-signature"].startswith("v1,")
        facts = delivery["body"]["data"]
        assert facts["game_id"] == game_id and facts["kind"] == "yangtze"
        assert facts["links"]["game"] == f"/v1/games/{game_id}"
        text = json.dumps(delivery["body"])
        assert not any(token in text for token in tokens.values())
        assert "view" not in facts and "seed" not in text
    last_turn = turns[-1]["body"]["data"]
    assert last_turn["to_act"] and last_turn["version"] > 1
    replaced = others[2]["body"]["data"]
    assert (replaced["seat"], replaced["reason"]) == (0, "resigned")
    finished = others[3]["body"]["data"]
    assert finished["status"] == "finished" and finished["outcome"]["winners"] == [1]
    assert finished["version"] == doc["version"] + 2  # the resignation's two events
    assert others[4]["body"]["data"]["rematch_game_id"] == rematch_id
    # The rematch is the app's game too: it is announced on its own.
    fresh = await until(lambda: receiver.accepted(rematch_id), 30, "the rematch's notifications")
    assert types_of(fresh)[:2] == ["game.created", "game.started"]


async def test_a_timeout_and_a_seat_handed_to_a_bot_are_announced(client, receiver):
    key = await new_app(client)
    await subscribe(client, key, receiver, ["game.created", "seat.timed_out", "seat.replaced"])
    options = {"players": 2, "table": {"clock": {"mode": "decision", "seconds": 1}, "zombie_after": 1}}
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": options, "take_seats": "all", "seed": "hooks-2"},
        headers=bearer(key),
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    # Nobody moves: the seat to act times out and, after one timeout, a bot plays it on.
    got = await until(
        lambda: len(receiver.accepted(game_id)) >= 3 and receiver.accepted(game_id), 30, "the timeout"
    )
    assert types_of(got[:3]) == ["game.created", "seat.timed_out", "seat.replaced"]
    assert got[0]["body"]["data"]["bot_seats"] == []
    timed_out, replaced = got[1]["body"]["data"], got[2]["body"]["data"]
    assert timed_out["seat"] == replaced["seat"] and replaced["reason"] == "timeouts"
    assert replaced["version"] > timed_out["version"] > 1

    # A person hands their own seat to a bot.  (The seats bots play when the pump first sees a game
    # are game.created's bot_seats, so the hand-over waits for that to be announced.)
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "hooks-3"},
        headers=bearer(key),
    )
    handed_id = made.json()["game_id"]
    token = {t["seat"]: t["token"] for t in made.json()["tokens"]}[1]
    await until(lambda: receiver.accepted(handed_id), 30, "the game's creation")
    handed = await client.put(
        f"/v1/games/{handed_id}/seats/1/bot", json={"level": "random"}, headers=bearer(token)
    )
    assert handed.status_code == 200, handed.text
    got = await until(lambda: receiver.accepted(handed_id)[1:], 30, "the hand-over")
    assert types_of(got)[0] == "seat.replaced"
    assert (got[0]["body"]["data"]["seat"], got[0]["body"]["data"]["reason"]) == (1, "handed_to_bot")


# --- a receiver that is down -------------------------------------------------------------------------
async def test_a_receiver_down_for_a_while_gets_everything_afterwards_in_order(client, receiver):
    """A receiver down (503) while three games are played, on the schedule compressed to 0.3, 0.6
    and 1.0 s (a worker takes a retry when it next looks for jobs, within 2 s): 2.5 s down here
    stands for ten minutes under the real schedule (5 s, 5 min, 30 min: attempts at 0, 5 s and 5 min
    fail, the one at 35 min arrives).  Afterwards every delivery arrives, in order per game, none
    lost, and nothing else came but refused attempts of the same deliveries."""
    key = await new_app(client)
    endpoint = await subscribe(client, key, receiver)
    receiver.answer = 503
    games = {}
    for n in range(3):
        made = await client.post(
            "/v1/games",
            json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": f"down-{n}"},
            headers=bearer(key),
        )
        body = made.json()
        games[body["game_id"]] = {t["seat"]: t["token"] for t in body["tokens"]}
    for game_id, tokens in games.items():
        await play_some(client, game_id, tokens, 3)
    await asyncio.sleep(2.5)
    receiver.answer = 204
    url = client.app.state.application.store.url

    def all_delivered() -> bool:
        with psycopg.connect(url) as conn:
            behind = conn.execute(
                "SELECT count(*) FROM games g LEFT JOIN webhook_progress p ON p.game_id = g.game_id"
                " WHERE g.game_id = ANY(%s) AND (p.seq IS NULL OR p.seq < g.version)",
                (list(games),),
            ).fetchone()[0]
            undelivered = conn.execute(
                "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = %s AND status <> 'succeeded'",
                (endpoint["endpoint_id"],),
            ).fetchone()[0]
        return behind == 0 and undelivered == 0

    await until(all_delivered, 30, "every delivery")
    with psycopg.connect(url) as conn:
        derived = conn.execute(
            "SELECT game_id, message_id, position FROM webhook_deliveries WHERE endpoint_id = %s"
            " ORDER BY game_id, position",
            (endpoint["endpoint_id"],),
        ).fetchall()
    for game_id in games:
        accepted = receiver.accepted(game_id)
        expected = [m for g, m, _ in derived if g == game_id]
        # Every delivery derived arrived, once each, in order; what else came were the refused
        # attempts of the same deliveries (the same webhook-id), never another.
        assert [d["id"] for d in accepted] == expected
        tried = [r for r in receiver.received if r["body"]["data"]["game_id"] == game_id]
        assert {r["id"] for r in tried} == set(expected)
        assert any(r["status"] == 503 for r in tried), "the receiver was down for these"
        assert all(r["verified_with"] for r in tried)
        # In order: no delivery was attempted before the one before it had succeeded.
        for earlier, later in itertools.pairwise(accepted):
            assert all(r["at"] >= earlier["at"] for r in tried if r["id"] == later["id"])


# --- disabled, enabled, redelivered ------------------------------------------------------------------
async def test_an_endpoint_that_keeps_failing_is_disabled_with_its_reason_and_resumes_when_enabled(
    client, receiver
):
    key = await new_app(client)
    endpoint = await subscribe(client, key, receiver, ["game.created", "game.turn"])
    receiver.answer = 500
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "disabled"},
        headers=bearer(key),
    )
    game_id = made.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in made.json()["tokens"]}
    path = f"/v1/webhooks/{endpoint['endpoint_id']}"

    async def disabled():
        found = (await client.get(path, headers=bearer(key))).json()
        return found if not found["enabled"] else None

    found = await until(disabled, 30, "the endpoint to be disabled")
    assert found["disabled_at"] is not None
    assert "failed 4 attempts in a row" in found["disabled_reason"]
    assert "HTTP 500" in found["disabled_reason"]
    log = (await client.get(f"{path}/deliveries", headers=bearer(key))).json()["deliveries"]
    given_up = [d for d in log if d["status"] == "failed"]
    assert len(given_up) == 1 and given_up[0]["event_type"] == "game.created"
    attempts = given_up[0]["attempts"]
    assert [a["attempt"] for a in attempts] == [1, 2, 3, 4]
    assert all(a["status_code"] == 500 and a["error"] == "HTTP 500" for a in attempts)
    assert attempts[0]["response_excerpt"] == "ok"
    stamps = [a["attempted_at"] for a in attempts]
    assert stamps == sorted(stamps)

    # While it is disabled, the game goes on and its notifications wait.
    await play_some(client, game_id, tokens, 2)
    await asyncio.sleep(1.0)
    before = len(receiver.received)
    assert not receiver.accepted(game_id)
    receiver.answer = 204
    enabled = await client.patch(path, json={"enabled": True}, headers=bearer(key))
    assert enabled.status_code == 200, enabled.text
    assert enabled.json()["enabled"] and enabled.json()["disabled_reason"] is None

    # The backlog resumes: everything after the delivery given up, in order.
    async def backlog():
        pending = await client.get(f"{path}/deliveries?status=pending&game_id={game_id}", headers=bearer(key))
        return receiver.accepted(game_id) if not pending.json()["deliveries"] else None

    got = await until(backlog, 30, "the backlog")
    assert types_of(got)[0] == "game.turn" and len(receiver.received) > before
    assert positions(got) == sorted(positions(got))

    # Redelivery: the delivery given up goes again now, with the same webhook-id.
    redone = await client.post(
        f"{path}/deliveries/{given_up[0]['delivery_id']}/redeliver", headers=bearer(key)
    )
    assert redone.status_code == 202, redone.text
    assert redone.json()["delivery_id"] == given_up[0]["delivery_id"]
    replay = await until(
        lambda: [d for d in receiver.accepted(game_id) if d["id"] == given_up[0]["delivery_id"]],
        30,
        "the redelivery",
    )
    assert replay[0]["body"] == given_up[0]["payload"]
    after = await client.get(f"{path}/deliveries?status=succeeded&game_id={game_id}", headers=bearer(key))
    redelivered = [d for d in after.json()["deliveries"] if d["delivery_id"] == given_up[0]["delivery_id"]]
    assert [a["status_code"] for a in redelivered[0]["attempts"]] == [500, 500, 500, 500, 204]


async def test_the_delivery_log_pages_and_filters(client, receiver):
    key = await new_app(client)
    endpoint = await subscribe(client, key, receiver, ["game.created", "game.started"])
    ids = []
    for n in range(3):
        made = await client.post(
            "/v1/games",
            json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": f"log-{n}"},
            headers=bearer(key),
        )
        ids.append(made.json()["game_id"])
    path = f"/v1/webhooks/{endpoint['endpoint_id']}/deliveries"
    await until(lambda: len(receiver.accepted()) >= 6, 30, "six deliveries")
    seen, cursor = [], None
    while True:
        page = await client.get(
            path, params={"limit": 4, **({"cursor": cursor} if cursor else {})}, headers=bearer(key)
        )
        assert page.status_code == 200, page.text
        seen += page.json()["deliveries"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 6 and len({d["delivery_id"] for d in seen}) == 6
    stamps = [d["created_at"] for d in seen]
    assert stamps == sorted(stamps, reverse=True)
    one = (await client.get(path, params={"game_id": ids[1]}, headers=bearer(key))).json()["deliveries"]
    assert {d["game_id"] for d in one} == {ids[1]} and len(one) == 2
    assert (await client.get(path, params={"status": "failed"}, headers=bearer(key))).json()[
        "deliveries"
    ] == []
    bad = await client.get(path, params={"cursor": "nonsense"}, headers=bearer(key))
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_cursor"
    missing = await client.post(f"{path}/msg_1_g_nope/redeliver", headers=bearer(key))
    assert missing.status_code == 404 and missing.json()["code"] == "delivery_not_found"


# --- secrets ----------------------------------------------------------------------------------------
async def test_a_rotated_secret_signs_beside_the_old_one_until_the_overlap_ends(client, receiver):
    key = await new_app(client)
    endpoint = await subscribe(client, key, receiver, ["game.created"])
    old = receiver.secrets[0]
    path = f"/v1/webhooks/{endpoint['endpoint_id']}"
    rotated = await client.post(f"{path}/secrets", json={"overlap_seconds": 2}, headers=bearer(key))
    assert rotated.status_code == 201, rotated.text
    assert rotated.headers["cache-control"] == "no-store"
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != old
    assert rotated.json()["previous_secrets_expire_at"] is not None
    receiver.secrets.append(new)

    async def created_game(seed: str) -> str:
        made = await client.post(
            "/v1/games",
            json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": seed},
            headers=bearer(key),
        )
        return made.json()["game_id"]

    during = await created_game("rotate-during")
    got = await until(lambda: receiver.accepted(during), 30, "a delivery during the overlap")
    # Two signatures, and a receiver holding either secret alone verifies the delivery.
    assert len(got[0]["headers"]["webhook-signature"].split(" ")) == 2
    assert got[0]["verified_with"] == [old, new]
    await asyncio.sleep(2.5)
    after = await created_game("rotate-after")
    got = await until(lambda: receiver.accepted(after), 30, "a delivery after the overlap")
    assert len(got[0]["headers"]["webhook-signature"].split(" ")) == 1
    assert got[0]["verified_with"] == [new]


# --- who may ----------------------------------------------------------------------------------------
async def test_another_apps_key_cannot_see_or_touch_an_endpoint(client, receiver):
    mine = await new_app(client, "mine")
    theirs = await new_app(client, "theirs")
    endpoint = await subscribe(client, mine, receiver, ["game.created"])
    path = f"/v1/webhooks/{endpoint['endpoint_id']}"
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "not-theirs"},
        headers=bearer(mine),
    )
    delivered = await until(lambda: receiver.accepted(made.json()["game_id"]), 30, "a delivery")
    delivery = f"{path}/deliveries/{delivered[0]['id']}/redeliver"
    for method, url, body in (
        ("GET", path, None),
        ("PATCH", path, {"enabled": False}),
        ("DELETE", path, None),
        ("POST", f"{path}/secrets", {}),
        ("GET", f"{path}/deliveries", None),
        ("POST", delivery, None),
    ):
        answer = await client.request(method, url, json=body, headers=bearer(theirs))
        assert answer.status_code == 404, (method, url, answer.text)
        assert answer.json()["code"] == "webhook_not_found"
    assert (await client.get("/v1/webhooks", headers=bearer(theirs))).json() == {"endpoints": []}
    listed = (await client.get("/v1/webhooks", headers=bearer(mine))).json()["endpoints"]
    assert [e["endpoint_id"] for e in listed] == [endpoint["endpoint_id"]]
    assert "secret" not in listed[0]
    # Without an app key: 401, whoever asks.
    seat_token = made.json()["tokens"][0]["token"]
    for headers in ({}, bearer(seat_token)):
        answer = await client.get("/v1/webhooks", headers=headers)
        assert answer.status_code == 401 and answer.json()["code"] == "app_key_required"
    # Still there, untouched, for its own app.
    assert (await client.get(path, headers=bearer(mine))).json()["enabled"] is True


async def test_subscriptions_are_validated_changed_and_deleted(client, receiver):
    key = await new_app(client)
    for body in (
        {"url": receiver.url, "event_types": []},
        {"url": receiver.url, "event_types": ["game.exploded"]},
        {"url": receiver.url},
        {"url": receiver.url, "event_types": ["game.created"], "secret": "mine"},
    ):
        refused = await client.post("/v1/webhooks", json=body, headers=bearer(key))
        assert refused.status_code == 400, (body, refused.text)
    endpoint = await subscribe(client, key, receiver, ["game.created"])
    path = f"/v1/webhooks/{endpoint['endpoint_id']}"
    changed = await client.patch(
        path, json={"event_types": ["game.finished", "game.turn"], "description": "prod"}, headers=bearer(key)
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["event_types"] == ["game.finished", "game.turn"]
    assert changed.json()["description"] == "prod"
    paused = await client.patch(path, json={"enabled": False}, headers=bearer(key))
    assert paused.json()["enabled"] is False and paused.json()["disabled_reason"] is None
    refused = await client.patch(path, json={"url": "ftp://example.com/hook"}, headers=bearer(key))
    assert refused.status_code == 400 and refused.json()["code"] == "webhook_url_refused"
    gone = await client.delete(path, headers=bearer(key))
    assert gone.status_code == 204
    assert (await client.get(path, headers=bearer(key))).status_code == 404


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:9/hook", "loopback"),
        ("http://10.1.2.3/hook", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]:8080/hook", "loopback"),
        ("http://[::ffff:127.0.0.1]/hook", "loopback"),
        ("http://localhost:8080/hook", "loopback"),
        ("http://0.0.0.0/hook", "unspecified"),
        ("http://224.0.0.1/hook", "multicast"),
        ("ftp://example.com/hook", "http"),
        ("http://user:pw@example.com/hook", "credentials"),
    ],
)
async def test_server_side_request_forgery_is_refused_at_subscription(webhook_db, redis_url, url, why):
    app = make_app(webhook_db, redis_url, admin_token=ADMIN, jobs=False, rate_limit="off")
    async with AsyncTestClient(app=app) as strict:
        key = await new_app(strict)
        refused = await strict.post(
            "/v1/webhooks", json={"url": url, "event_types": ["game.created"]}, headers=bearer(key)
        )
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "webhook_url_refused"
    assert why in refused.json()["detail"]


# --- nothing lost ----------------------------------------------------------------------------------------
async def test_notifications_whose_pump_was_never_asked_for_are_found_by_the_sweep(redis_url, receiver):
    """A worker killed between a change's commit and queueing its pump: the periodic sweep of a
    worker started later finds the game's cursor behind its version and status, and the
    notifications go out all the same."""
    settings = {"admin_token": ADMIN, "webhook_allow_private": True, "webhook_backoff": BACKOFF}
    with fresh_database("yamen_webhooks_lost_") as db:
        async with AsyncTestClient(
            app=make_app(db, redis_url, jobs=False, rate_limit="off", **settings)
        ) as quiet:
            key = await new_app(quiet)
            await subscribe(quiet, key, receiver)
            made = await quiet.post(
                "/v1/games",
                json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "none", "seed": "lost"},
                headers=bearer(key),
            )
            game_id = made.json()["game_id"]
            tokens = {}
            for seat in (0, 1):
                tokens[seat] = (await quiet.post(f"/v1/games/{game_id}/seats/{seat}")).json()["token"]
            version = await play_some(quiet, game_id, tokens, 3)
            await asyncio.sleep(0.3)  # the background requests for the pump are in
        with psycopg.connect(db, autocommit=True) as conn:
            lost = conn.execute(
                "DELETE FROM procrastinate_jobs WHERE task_name = 'yamen.webhook_pump'"
                " AND args->>'game_id' = %s",
                (game_id,),
            ).rowcount
            assert conn.execute("SELECT count(*) FROM webhook_deliveries").fetchone()[0] == 0
        assert lost == 1  # one waiting pump stood for every change
        async with AsyncTestClient(app=make_app(db, redis_url, rate_limit="off", **settings)):

            def caught_up():
                got = receiver.accepted(game_id)
                return got if got and got[-1]["body"]["type"] == "game.turn" else None

            got = await until(caught_up, 40, "the sweep to catch up")
            await asyncio.sleep(0.5)
            got = receiver.accepted(game_id)
    assert types_of(got) == ["game.created", "game.started", "game.turn"]
    assert positions(got) == [1, 2, 3]
    assert got[-1]["body"]["data"]["version"] == version


async def test_a_rematch_whose_pump_was_never_asked_for_is_found_by_the_sweep(redis_url, receiver):
    """The finished game's end was announced; its rematch's request for the pump died with its
    worker.  The sweep looks for the rematch of every app game finished lately (by the rematch id
    the finished game's id decides) and announces it."""
    settings = {"admin_token": ADMIN, "webhook_allow_private": True, "webhook_backoff": BACKOFF}
    with fresh_database("yamen_webhooks_rematch_") as db:
        async with AsyncTestClient(app=make_app(db, redis_url, rate_limit="off", **settings)) as first:
            key = await new_app(first)
            await subscribe(first, key, receiver, ["game.finished", "game.rematch_offered"])
            made = await first.post(
                "/v1/games",
                json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "again"},
                headers=bearer(key),
            )
            game_id = made.json()["game_id"]
            token = made.json()["tokens"][0]["token"]
            resigned = await first.post(
                f"/v1/games/{game_id}/moves", json={"type": "table.Resign"}, headers=bearer(token)
            )
            assert resigned.status_code == 200, resigned.text
            await until(lambda: receiver.accepted(game_id), 30, "the end")
        async with AsyncTestClient(
            app=make_app(db, redis_url, jobs=False, rate_limit="off", **settings)
        ) as quiet:
            rematch = await quiet.post(f"/v1/games/{game_id}/rematch", headers=bearer(token))
            assert rematch.status_code == 201, rematch.text
            await asyncio.sleep(0.3)
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("DELETE FROM procrastinate_jobs WHERE task_name = 'yamen.webhook_pump'")
        async with AsyncTestClient(app=make_app(db, redis_url, rate_limit="off", **settings)):
            got = await until(lambda: receiver.accepted(game_id)[1:], 40, "the sweep to find the rematch")
    assert types_of(receiver.accepted(game_id)) == ["game.finished", "game.rematch_offered"]
    assert got[0]["body"]["data"]["rematch_game_id"] == rematch.json()["game_id"]


async def test_the_delivery_log_forgets_finished_deliveries_after_its_retention(client, receiver, webhook_db):
    """The sweep deletes deliveries that succeeded (or were given up) longer ago than the retention
    (``YAMEN_WEBHOOK_RETENTION_DAYS``, 30 by default), with their attempts; newer ones, and pending
    ones however old, stay."""
    key = await new_app(client, "retention")
    endpoint = await subscribe(client, key, receiver, ["game.created", "game.started", "game.turn"])
    made = await client.post(
        "/v1/games",
        json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "retention"},
        headers=bearer(key),
    )
    game_id = made.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in made.json()["tokens"]}
    await play_some(client, game_id, tokens, 2)
    await until(lambda: len(receiver.accepted(game_id)) >= 4, 30, "four deliveries")
    endpoint_id = endpoint["endpoint_id"]
    with psycopg.connect(webhook_db, autocommit=True) as conn:

        def positions_kept() -> list[int]:
            rows = conn.execute(
                "SELECT position FROM webhook_deliveries WHERE endpoint_id = %s ORDER BY position",
                (endpoint_id,),
            )
            return [r[0] for r in rows]

        await until(lambda: len(positions_kept()) >= 4, 10, "the deliveries logged")
        kept = positions_kept()
        # Positions 1 and 2 finished 31 days ago; 3 is pending (a retry due later) and as old.
        conn.execute(
            "UPDATE webhook_deliveries SET finished_at = now() - interval '31 days'"
            " WHERE endpoint_id = %s AND position IN (1, 2)",
            (endpoint_id,),
        )
        conn.execute(
            "UPDATE webhook_deliveries SET status = 'pending', finished_at = NULL,"
            " created_at = now() - interval '40 days', next_attempt_at = now() + interval '1 hour'"
            " WHERE endpoint_id = %s AND position = 3",
            (endpoint_id,),
        )
        attempts_before = conn.execute(
            "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = %s AND position IN (1, 2)",
            (endpoint_id,),
        ).fetchone()[0]
        assert attempts_before >= 2
        await client.app.state.application.webhooks.sweep()
        assert positions_kept() == [p for p in kept if p not in (1, 2)]
        assert 3 in positions_kept()
        orphans = conn.execute(
            "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = %s AND position IN (1, 2)",
            (endpoint_id,),
        ).fetchone()[0]
        assert orphans == 0
    log = await client.get(f"/v1/webhooks/{endpoint_id}/deliveries", headers=bearer(key))
    assert {d["delivery_id"] for d in log.json()["deliveries"]} == {
        f"msg_{p}_{game_id}" for p in kept if p not in (1, 2)
    }


async def test_a_subscription_on_one_worker_is_followed_at_once_on_another(webhook_db, redis_url, receiver):
    """Worker b has just read that the app has no endpoint (a change of one of its games); the app
    subscribes through worker a, then moves through b: b heard the subscription's notice and pumps
    at once — the notifications do not wait for the sweep."""
    settings = {"admin_token": ADMIN, "webhook_allow_private": True, "webhook_backoff": BACKOFF}
    async with (
        AsyncTestClient(app=make_app(webhook_db, redis_url, rate_limit="off", **settings)) as a,
        AsyncTestClient(app=make_app(webhook_db, redis_url, rate_limit="off", **settings)) as b,
    ):
        for worker in (a, b):
            board = worker.app.state.application.apps.board
            await until(lambda board=board: board is not None and board.live, 5, "the notice board")
        key = await new_app(b, "two workers")
        made = await b.post(
            "/v1/games",
            json={"kind": "yangtze", "options": {"players": 2}, "take_seats": "all", "seed": "two-workers"},
            headers=bearer(key),
        )
        game_id = made.json()["game_id"]
        tokens = {t["seat"]: t["token"] for t in made.json()["tokens"]}
        await asyncio.sleep(0.3)  # b's change asked whether the app has endpoints: none
        assert [known for known, _ in b.app.state.application.webhooks._subscribed.values()] == [False]
        await subscribe(a, key, receiver, ["game.turn"])
        await asyncio.sleep(0.1)  # the notice travels
        await play_some(b, game_id, tokens, 1)
        got = await until(lambda: receiver.accepted(game_id), 5, "the turn, well before the sweep")
    assert set(types_of(got)) == {"game.turn"}

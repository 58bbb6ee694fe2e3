"""Slow lane: webhooks with real ``yamen serve`` processes.  A replica that dies before the pump of
its changes was ever queued loses no notification (another replica's periodic sweep finds the
games the pump trails), and receivers that hang for the whole timeout hold no worker that plays
bots nor any request: moves answer as fast as before while every webhook worker waits."""

from __future__ import annotations

import json
import os
import signal
import statistics
import time
import urllib.request

import psycopg
import pytest

from tests.http.test_webhooks import Receiver
from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow

ADMIN = "survive-admin-token-of-at-least-32-characters"
SETTINGS = {
    "YAMEN_ADMIN_TOKEN": ADMIN,
    "YAMEN_WEBHOOK_ALLOW_PRIVATE": "1",
    "YAMEN_WEBHOOK_BACKOFF": "0.5,1,2",
}


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read()
        return json.loads(text) if text else {}


def until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def app_key(base: str) -> str:
    return call(base, "POST", "/v1/admin/apps", {"name": "survivor"}, ADMIN)["key"]["key"]


def move(base: str, game_id: str, token: str) -> float:
    """One move by *token*'s seat (its first legal move); the seconds the move took to answer."""
    legal = call(base, "GET", f"/v1/games/{game_id}/legal-moves", token=token)
    started = time.perf_counter()
    call(base, "POST", f"/v1/games/{game_id}/moves", legal["moves"][0], token)
    return time.perf_counter() - started


def play(base: str, game_id: str, tokens: dict[int, str], moves: int) -> list[float]:
    took = []
    for _ in range(moves):
        seat = call(base, "GET", f"/v1/games/{game_id}")["to_act"][0]
        took.append(move(base, game_id, tokens[seat]))
    return took


def test_a_replica_dying_before_its_pumps_were_queued_loses_no_notification():
    receiver = Receiver()
    try:
        with fresh_database("yamen_webhooks_survive_") as db:
            started: list = []
            # A replica that takes no jobs: its pumps wait in Postgres.  It is killed, and the pumps it
            # queued are deleted: as if it had died between each commit and its request for the pump.
            with yamen_serve(db, env={**SETTINGS, "YAMEN_JOBS": "0"}, started=started) as doomed:
                key = app_key(doomed)
                endpoint = call(
                    doomed,
                    "POST",
                    "/v1/webhooks",
                    {"url": receiver.url, "event_types": ["game.turn", "game.created"]},
                    key,
                )
                receiver.secrets.append(endpoint["secret"])
                games = {}
                for n in range(3):
                    made = call(
                        doomed,
                        "POST",
                        "/v1/games",
                        {"kind": "yangtze", "options": {"players": 2}, "seed": f"survive-{n}"},
                        key,
                    )
                    games[made["game_id"]] = {t["seat"]: t["token"] for t in made["tokens"]}
                for game_id, tokens in games.items():
                    play(doomed, game_id, tokens, 4)
                versions = {g: call(doomed, "GET", f"/v1/games/{g}")["version"] for g in games}
                time.sleep(0.5)
                os.killpg(started[0].pid, signal.SIGKILL)
            with psycopg.connect(db, autocommit=True) as conn:
                lost = conn.execute(
                    "DELETE FROM procrastinate_jobs WHERE task_name = 'yamen.webhook_pump'"
                ).rowcount
                assert conn.execute("SELECT count(*) FROM webhook_deliveries").fetchone()[0] == 0
            assert lost == len(games)
            # Another replica's periodic sweep (every 15 s) finds every game the pump trails.
            with yamen_serve(db, env=SETTINGS):

                def caught_up():
                    return all(
                        (got := receiver.accepted(g)) and got[-1]["body"]["data"]["version"] == v
                        for g, v in versions.items()
                    )

                until(caught_up, 60, "the sweep to catch up")
        for game_id in games:
            got = receiver.accepted(game_id)
            assert [d["body"]["type"] for d in got] == ["game.created", "game.turn"]
            assert all(d["verified_with"] for d in got)
    finally:
        receiver.close()


def test_hanging_receivers_hold_no_bot_worker_and_slow_no_move():
    receiver = Receiver()
    receiver.hang = 25.0
    try:
        with (
            fresh_database("yamen_webhooks_hang_") as db,
            yamen_serve(db, env={**SETTINGS, "YAMEN_WEBHOOK_CONCURRENCY": "2"}) as base,
        ):
            # Before any webhook: how long moves take here.
            anonymous = call(
                base, "POST", "/v1/games", {"kind": "yangtze", "options": {"players": 2}, "seed": "calm"}
            )
            calm = play(base, anonymous["game_id"], {t["seat"]: t["token"] for t in anonymous["tokens"]}, 20)
            key = app_key(base)
            endpoint = call(
                base, "POST", "/v1/webhooks", {"url": receiver.url, "event_types": ["game.turn"]}, key
            )
            receiver.secrets.append(endpoint["secret"])
            games = []
            for n in range(4):
                made = call(
                    base,
                    "POST",
                    "/v1/games",
                    {"kind": "yangtze", "options": {"players": 2}, "seed": f"hang-{n}"},
                    key,
                )
                games.append((made["game_id"], {t["seat"]: t["token"] for t in made["tokens"]}))
            # Every webhook worker is now held by a receiver that does not answer.
            until(lambda: receiver.waiting >= 2, 20, "hanging deliveries")
            stormy = []
            for game_id, tokens in games:
                stormy += play(base, game_id, tokens, 5)
            # A game of bots, the app's too (so it has webhooks of its own), is played to its end meanwhile.
            bots = call(
                base,
                "POST",
                "/v1/games",
                {
                    "kind": "yangtze",
                    "options": {"players": 2},
                    "seed": "bots-while-hanging",
                    "take_seats": "none",
                    "bots": {"0": "random", "1": "random"},
                },
                key,
            )
            until(
                lambda: call(base, "GET", f"/v1/games/{bots['game_id']}")["status"] == "finished",
                60,
                "the bots' game to finish while receivers hang",
            )
            assert statistics.median(stormy) < 2 * statistics.median(calm) + 0.02, (calm, stormy)
            # Each hanging attempt was cut at 10 s and logged as such.
            log = until(
                lambda: [
                    a
                    for d in call(base, "GET", f"{endpoint['deliveries']}?limit=100", token=key)["deliveries"]
                    for a in d["attempts"]
                ],
                40,
                "attempts in the delivery log",
            )
            assert all(a["error"] == "no answer within 10 s" and a["status_code"] is None for a in log), log
            assert all(9_900 <= a["duration_ms"] < 12_000 for a in log), log
    finally:
        receiver.hang = 0
        receiver.close()

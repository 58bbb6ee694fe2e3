"""Slow lane: a clock's deadline is a job scheduled in Postgres at the deadline, so it fires after
a restart — once, with two replicas racing for it — and only if the seat has not moved."""

from __future__ import annotations

import time

import psycopg
import pytest

from tests.infra.test_bot_turns_survive import _call, _until
from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow


def test_a_deadline_set_before_a_restart_fires_after_it_exactly_once_with_two_replicas():
    with fresh_database("yamen_deadlines_") as db:
        # 1. The game starts (and its clocks with it) on a replica that runs no job worker.
        with yamen_serve(db, env={"YAMEN_JOBS": "0"}) as lone:
            created = _call(
                lone,
                "POST",
                "/v1/games",
                {
                    "kind": "yangtze",
                    "options": {"players": 2, "table": {"clock": {"mode": "decision", "seconds": 3}}},
                    "seed": "deadline-survives",
                },
            )
            game_id = created["game_id"]
            doc = _call(lone, "GET", f"/v1/games/{game_id}")
            seat = doc["to_act"][0]
            deadline = doc["table"]["clocks"][seat]["deadline_ms"]
            assert deadline is not None
            with psycopg.connect(db) as conn:
                scheduled = conn.execute(
                    "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'yamen.deadline'"
                    " AND status = 'todo' AND scheduled_at IS NOT NULL AND args->>'game_id' = %s",
                    (game_id,),
                ).fetchone()[0]
            assert scheduled == 1
        # 2. Nobody serves the game when the deadline passes.
        time.sleep(max(0.0, deadline / 1000 - time.time()) + 1.0)
        # 3. Two replicas start; one of them fires the deadline: the seat times out once.
        with yamen_serve(db) as first, yamen_serve(db) as second:
            _until(
                lambda: (
                    (d := _call(second, "GET", f"/v1/games/{game_id}"))["table"]["clocks"][seat]["timeouts"]
                    >= 1
                    and d
                ),
                60,
                "the timeout",
            )
            time.sleep(1.0)  # time for a second firing, if there were one
            events = _call(first, "GET", f"/v1/games/{game_id}/events?limit=1000")["events"]
            assert _call(first, "GET", f"/v1/games/{game_id}/verification")["ok"] is True
    timed_out = [e for e in events if e["event"]["type"] == "table.TimedOut"]
    assert timed_out, "the deadline did not fire"
    assert timed_out[0]["event"]["seat"] == seat and timed_out[0]["event"]["at_ms"] >= deadline
    # Exactly once per decision: between two timeouts of a seat, that seat's clock was punched (it
    # moved, by its bot), i.e. no decision timed out twice.
    last_timeout: dict[int, int] = {}
    for e in events:
        body = e["event"]
        if body["type"] == "table.ClockPunched" and body["seat"] in last_timeout:
            del last_timeout[body["seat"]]
        if body["type"] == "table.TimedOut":
            assert body["seat"] not in last_timeout, f"seat {body['seat']} timed out twice in one decision"
            last_timeout[body["seat"]] = e["seq"]

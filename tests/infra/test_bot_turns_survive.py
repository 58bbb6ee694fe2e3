"""Slow lane: a bot turn is work in Postgres, not in a process.  Queued while no worker runs jobs,
it is played after a restart; with two replicas racing and one killed mid-game, every bot move is
appended exactly once, at the version it was decided at, and the game finishes and verifies."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request

import psycopg
import pytest

from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow


def _call(base: str, method: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def test_a_bot_turn_queued_before_a_restart_is_played_after_it_exactly_once():
    with fresh_database("yamen_bot_turns_") as db:
        # 1. One replica running no job worker: the turn is queued in Postgres and nobody plays it.
        with yamen_serve(db, env={"YAMEN_JOBS": "0"}) as lone:
            created = _call(
                lone,
                "POST",
                "/v1/games",
                {
                    "kind": "jiangnan",
                    "options": {"players": 4},
                    "seed": "bot-turns-survive",
                    "take_seats": "none",
                    "bots": {"0": "heuristic", "1": "random", "2": "heuristic", "3": "random"},
                },
            )
            game_id, start = created["game_id"], created["version"]
            time.sleep(1.5)
            assert _call(lone, "GET", f"/v1/games/{game_id}")["version"] == start
            with psycopg.connect(db) as conn:
                queued = conn.execute(
                    "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'yamen.bot_turn'"
                    " AND status = 'todo' AND args->>'game_id' = %s",
                    (game_id,),
                ).fetchone()[0]
            assert queued == 1
        # 2. A replica with a job worker takes the turn, and is killed (SIGKILL) mid-game: its job is
        #    left 'doing' by a dead worker.
        killed = []
        with yamen_serve(db, started=killed) as doomed:
            _until(
                lambda: _call(doomed, "GET", f"/v1/games/{game_id}")["version"] > start + 5, 60, "bot moves"
            )
            os.killpg(killed[0].pid, signal.SIGKILL)
        # 3. Two replicas start and race for the work; the dead worker's job is found and retried.
        with yamen_serve(db) as first, yamen_serve(db) as second:
            killed_at = _call(first, "GET", f"/v1/games/{game_id}")["version"]
            assert _call(first, "GET", f"/v1/games/{game_id}")["status"] == "active"
            done = _until(
                lambda: (d := _call(second, "GET", f"/v1/games/{game_id}"))["status"] == "finished" and d,
                180,
                "the game to finish on the new replicas",
            )
            assert done["version"] > killed_at
            assert _call(first, "GET", f"/v1/games/{game_id}/verification")["ok"] is True
        # 4. Exactly once: every command was a bot's, appended right after the version it decided at.
        with psycopg.connect(db) as conn:
            groups = conn.execute(
                "SELECT idempotency_key, min(seq), count(*) FROM events"
                " WHERE game_id = %s AND seat IS NOT NULL GROUP BY idempotency_key, seat ORDER BY min(seq)",
                (game_id,),
            ).fetchall()
            seqs = [
                r[0]
                for r in conn.execute("SELECT seq FROM events WHERE game_id = %s ORDER BY seq", (game_id,))
            ]
        assert seqs == list(range(1, len(seqs) + 1))
        assert groups and all(key is not None and key.startswith("bot-") for key, _, _ in groups)
        keys = [key for key, _, _ in groups]
        assert len(keys) == len(set(keys))
        for key, first_seq, _ in groups:
            decided_at = int(key.split("-")[1])
            assert first_seq == decided_at + 1, key


def test_bots_play_on_after_postgres_restarts_under_them():
    """A Postgres restart (or failover) ends Procrastinate's worker in every process (its listener
    and heartbeat lose their connections); the service runs it again, so a bots' game goes on."""
    from tests.faults.processes import Postgres, RunDir

    run = RunDir()
    postgres = Postgres(run).init()
    postgres.start()
    try:
        db = postgres.create_database("yamen")
        with yamen_serve(db, redis_url=None) as base:
            created = _call(
                base,
                "POST",
                "/v1/games",
                {
                    "kind": "yangtze",
                    "options": {"players": 3},
                    "seed": "bots-through-a-restart",
                    "take_seats": "none",
                    "bots": {"0": "random", "1": "random", "2": "random"},
                },
            )
            game_id = created["game_id"]
            _until(
                lambda: _call(base, "GET", f"/v1/games/{game_id}")["version"] > created["version"] + 3,
                60,
                "bots",
            )
            postgres.stop_immediate()
            postgres.start()

            def version() -> int | None:
                try:
                    return _call(base, "GET", f"/v1/games/{game_id}")["version"]
                except OSError:  # 503 while the pools reconnect
                    return None

            after_restart = _until(version, 30, "the service to read the game again")
            _until(
                lambda: (v := version()) is not None and v > after_restart + 3,
                60,
                "bot moves after the restart",
            )
            done = _until(
                lambda: (d := _call(base, "GET", f"/v1/games/{game_id}"))["status"] == "finished" and d,
                240,
                "the end",
            )
            assert _call(base, "GET", f"/v1/games/{game_id}/verification")["ok"], done["version"]
    finally:
        postgres.stop()
        postgres.remove()

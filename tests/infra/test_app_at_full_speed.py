"""Slow lane: an app's backend creates and plays a thousand games for its players at full speed,
against ``yamen serve`` with the production defaults (the per-address limit on), and is never
refused 429, while an anonymous caller from the same address is held to the per-address limit.
The rate it reached is printed (a figure, not an assertion)."""

from __future__ import annotations

import collections
import concurrent.futures
import threading
import time

import httpx
import pytest

from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow

ADMIN = "full-speed-admin-token-of-at-least-32-chars"
GAMES = 1000
THREADS = 8


def _ok(answer: httpx.Response, status: int = 200) -> dict:
    assert answer.status_code == status, (answer.status_code, answer.text[:500])
    return answer.json() if answer.content else {}


def test_an_app_plays_a_thousand_games_without_a_429_while_anonymous_callers_are_limited():
    with (
        fresh_database("yamen_full_speed_") as db,
        yamen_serve(db, rate_limit=None, env={"YAMEN_ADMIN_TOKEN": ADMIN}) as base,
    ):
        with httpx.Client(base_url=base, timeout=30) as http:
            made = _ok(
                http.post(
                    "/v1/admin/apps",
                    json={"name": "Busy House"},
                    headers={"Authorization": f"Bearer {ADMIN}"},
                ),
                201,
            )
            key = {"Authorization": f"Bearer {made['key']['key']}"}
            players = [
                _ok(
                    http.post("/v1/players", json={"external_id": f"u{n}", "credential": True}, headers=key),
                    201,
                )
                for n in (1, 2)
            ]
        credentials = [{"Authorization": f"Bearer {p['credential']['credential']}"} for p in players]
        statuses: collections.Counter[int] = collections.Counter()
        counting = threading.Lock()

        def one_game(n: int) -> int:
            requests = 0
            with httpx.Client(base_url=base, timeout=30) as http:

                def call(method: str, path: str, headers: dict, **kwargs) -> httpx.Response:
                    nonlocal requests
                    requests += 1
                    answer = http.request(method, path, headers=headers, **kwargs)
                    with counting:
                        statuses[answer.status_code] += 1
                    return answer

                body = {
                    "kind": "yangtze",
                    "options": {"players": 2},
                    "take_seats": "none",
                    "seed": f"busy-{n}",
                }
                game_id = _ok(call("POST", "/v1/games", key, json=body), 201)["game_id"]
                for seat, player in enumerate(players):
                    _ok(
                        call(
                            "POST",
                            f"/v1/games/{game_id}/seats/{seat}",
                            key,
                            json={"player_id": player["player_id"]},
                        ),
                        201,
                    )
                seat = 0
                for _ in range(3):
                    game = _ok(call("GET", f"/v1/games/{game_id}", key))
                    seat = game["to_act"][0]
                    legal = _ok(call("GET", f"/v1/games/{game_id}/legal-moves", credentials[seat]))
                    moved = call(
                        "POST",
                        f"/v1/games/{game_id}/moves",
                        {**credentials[seat], "If-Match": f'"{legal["version"]}"'},
                        json=legal["moves"][0],
                    )
                    _ok(moved)
                _ok(
                    call(
                        "POST", f"/v1/games/{game_id}/moves", credentials[seat], json={"type": "table.Resign"}
                    )
                )
            return requests

        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
            sent = sum(pool.map(one_game, range(GAMES)))
        seconds = time.perf_counter() - started
        print(
            f"\nan app's {GAMES} games: {sent} requests in {seconds:.1f} s"
            f" ({sent / seconds:.0f} a second), {statuses}"
        )
        assert statuses[429] == 0 and set(statuses) <= {200, 201}, statuses
        assert sent > 1200 * 5, "far beyond the per-address limit"

        with httpx.Client(base_url=base, timeout=30) as http:
            # The address's window (60 s, started by its first request) may end while these are
            # sent — the app's games took nearly a minute — so up to two windows' worth may pass:
            # past 2,400 in a row, one is refused whatever the timing.
            answers = []
            while len(answers) < 2600 and 429 not in answers:
                answers.append(http.get("/v1/catalogue").status_code)
            assert 429 in answers, "an anonymous caller from the same address is still limited"
            assert http.get("/v1/catalogue", headers=key).status_code == 200
            mine = _ok(http.get("/v1/me/games?status=finished&limit=100", headers=credentials[0]))
            assert len(mine["games"]) == 100 and mine.get("next_cursor")

"""``docs/integrators.md`` runs as written: every block between ``<!-- integrators:NAME -->`` and
``<!-- /integrators:NAME -->`` markers, in the page's order, in one bash script (a later block uses
what an earlier one made), against a fresh ``yamen serve`` with an operator token and Redis.

Slow lane: the blocks need ``curl`` and ``jq``, which ``bash scripts/test --slow`` installs."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "integrators.md"
BLOCK = re.compile(r"<!-- integrators:([a-z-]+) -->\n```bash\n(.*?)```\n<!-- /integrators:\1 -->", re.S)
OPERATOR = "integrators-doc-operator-token-0123456789"


def blocks() -> list[tuple[str, str]]:
    found = [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text())]
    assert found and found[0][0] == "apps", "docs/integrators.md has no <!-- integrators:apps --> block"
    return found


def test_the_integrators_page_runs_as_written(redis_url):
    env = {"YAMEN_ADMIN_TOKEN": OPERATOR, "YAMEN_WEBHOOK_ALLOW_PRIVATE": "1"}
    # A database of its own: on the shared one, another test's service takes this one's webhook
    # jobs (any job worker on a database takes its jobs) and, with private addresses refused
    # there, fails them against the receiver on 127.0.0.1 (then backs off past the page's wait).
    with (
        fresh_database("yamen_integrators_doc_") as database_url,
        yamen_serve(database_url, redis_url=redis_url, env=env) as api,
        tempfile.TemporaryDirectory() as folder,
    ):
        script = pathlib.Path(folder) / "integrators.sh"
        script.write_text("\n".join(f"# --- {name}\n{text}" for name, text in blocks()))
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", str(script)],
            cwd=folder,
            # PYTHON: the webhooks block's receiver verifies with standardwebhooks, installed here.
            env={**os.environ, "API": api, "YAMEN_ADMIN_TOKEN": OPERATOR, "PYTHON": sys.executable},
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    # The apps block: the app's limits, its private game hidden from anybody else, the old key
    # refused the moment it is revoked and the rotated one working.
    assert {"requests_per_minute": 600, "games_per_day": 100000, "concurrent_games": 10000} in [
        line.get("limits") for line in lines
    ]
    assert "404" in result.stdout.split()
    assert {"status": 401, "code": "invalid_app_key"} in lines
    assert any(line.get("status") == "revoked" and set(line) == {"key_id", "status"} for line in lines)
    # The webhooks block: the game's notifications arrived verified, and the redelivery came back
    # with the same webhook-id, as a replay.
    types = [line["type"] for line in lines if set(line) == {"type", "game_id", "version", "to_act"}]
    assert types[:3] == ["game.created", "game.started", "game.turn"], types
    assert any(line.get("replay") is True and line["id"].startswith("msg_1_") for line in lines)
    # The players blocks: a credential revoked is refused, an assertion signed with openssl is the
    # player its app vouches for (and one for another audience is refused with its code), the app
    # seats its players in a private game where each moves with its own credential, a seat's token
    # re-issued holds the seat, and the player's games say where it is to act.
    assert {"status": 401, "code": "assertion_wrong_audience"} in lines
    assert any(line.get("external_id") == "user-43" and line.get("app_id") for line in lines)
    assert {"seat": 1, "status": "active"} in lines
    assert {"viewer": 0, "status": "active"} in lines
    assert any(
        set(line) == {"game_id", "kind", "status", "version", "seats", "to_act", "links"} for line in lines
    )

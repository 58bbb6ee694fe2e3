"""A TypeScript client of the realtime socket (``tests/contract/ws-ts``: ``ws`` under ``tsc
--strict``) plays a complete game of every title over sockets against a real ``yamen serve`` with
two workers: each seat on its own socket, a spectator's socket receiving every event once (slow
lane)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

from tests.servers import fresh_database, yamen_serve

pytestmark = pytest.mark.slow

PROJECT = pathlib.Path(__file__).resolve().parent / "ws-ts"


def _run(*command: str, timeout: float = 300) -> subprocess.CompletedProcess:
    run = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"{' '.join(command)}:\n{run.stdout}\n{run.stderr}"
    return run


def test_the_typescript_socket_client_plays_every_title():
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are required (Node 20 or later)"
    _run(npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
    shutil.rmtree(PROJECT / "dist", ignore_errors=True)
    _run(str(PROJECT / "node_modules" / ".bin" / "tsc"), "--project", "tsconfig.json")
    with fresh_database("yamen_wsts_") as url, yamen_serve(url, env={"YAMEN_WORKERS": "2"}) as base:
        run = _run(node, str(PROJECT / "dist" / "play.js"), base, timeout=600)
    played = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert {game["kind"] for game in played} == {"jiangnan", "pingyao", "yangtze"}
    assert all(game["moves"] > 0 for game in played)

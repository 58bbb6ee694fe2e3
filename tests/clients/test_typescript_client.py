"""A TypeScript client generated from the served document (openapi-typescript types, openapi-fetch
calls) compiles under ``tsc --strict``, has every operation, plays a complete game of every title
against a real ``yamen serve`` (``tests/clients/ts/play.ts``) and runs an app's day there
(``tests/clients/ts/app.ts``)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

from .conftest import operation_ids

pytestmark = pytest.mark.slow

PROJECT = pathlib.Path(__file__).resolve().parent / "ts"
GENERATED = PROJECT / "generated"
BIN = PROJECT / "node_modules" / ".bin"
TSC_OPTIONS = [
    "--strict",
    "--noEmit",
    "--module",
    "NodeNext",
    "--moduleResolution",
    "NodeNext",
    "--types",
    "node",
]


def _run(*command: str, timeout: float = 300) -> subprocess.CompletedProcess:
    run = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"{' '.join(command)}:\n{run.stdout}\n{run.stderr}"
    return run


def _operations_file(ids: list[str]) -> str:
    """A TypeScript module that names each operation's generated type: it compiles only if every
    operationId is one of the generated ``operations``."""
    listed = "".join(f'    operations["{operation_id}"],\n' for operation_id in ids)
    return f'import type {{ operations }} from "./schema.js";\n\nexport type EveryOperation = [\n{listed}];\n'


@pytest.fixture(scope="module")
def compiled(served_document):
    """``npm ci``, the types generated from the served document, and ``play.ts`` compiled."""
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are required (Node 20 or later)"
    _run(npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
    shutil.rmtree(GENERATED, ignore_errors=True)
    shutil.rmtree(PROJECT / "dist", ignore_errors=True)
    GENERATED.mkdir()
    (GENERATED / "openapi.json").write_bytes(served_document)
    # Members with a default stay optional (openapi-typescript's default makes them required, request
    # bodies included: a CreateApp of just a name would not type-check).
    _run(
        str(BIN / "openapi-typescript"),
        "generated/openapi.json",
        "--default-non-nullable",
        "false",
        "--output",
        "generated/schema.d.ts",
    )
    ids = operation_ids(json.loads(served_document))
    (GENERATED / "operations.ts").write_text(_operations_file(ids))
    _run(str(BIN / "tsc"), "--project", "tsconfig.json", "--strict")
    return node, ids


def test_the_generated_types_have_every_operation(compiled, tmp_path):
    _, ids = compiled
    schema = (GENERATED / "schema.d.ts").read_text()
    assert all(f"    {operation_id}: {{" in schema for operation_id in ids)
    # The check itself fails on an operation the types lack.
    probe = tmp_path / "probe.ts"
    probe.write_text(
        _operations_file([*ids, "noSuchOperation"]).replace("./schema.js", str(GENERATED / "schema.js"))
    )
    run = subprocess.run(
        [str(BIN / "tsc"), *TSC_OPTIONS, str(probe)], cwd=PROJECT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode != 0 and "noSuchOperation" in run.stdout, run.stdout + run.stderr


def test_the_typescript_client_plays_every_title(compiled, live_url):
    node, _ = compiled
    run = _run(node, str(PROJECT / "dist" / "play.js"), live_url, timeout=600)
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    played = {(line["kind"], line["players"]) for line in lines if line.get("verified")}
    assert {kind for kind, _ in played} >= {"yangtze", "pingyao", "jiangnan"}, run.stdout
    assert {("pingyao", 1), ("jiangnan", 1), ("yangtze", 2), ("yangtze", 4)} <= played, run.stdout
    assert lines[-1].get("imported") in {line.get("game_id") for line in lines}, run.stdout


def test_the_typescript_client_runs_an_apps_day(compiled, live_url):
    """``tests/clients/ts/app.ts``: an app's key, its players (a credential, an HS256 assertion
    signed with ``jose``), a private game they play to the end, ``/v1/me/games``, a re-issued seat
    token, webhooks verified with the ``standardwebhooks`` npm package; then rated games formed by
    seeks, their rating changes and the leaderboard."""
    import os

    from .conftest import ADMIN_TOKEN

    node, _ = compiled
    run = subprocess.run(
        [node, str(PROJECT / "dist" / "app.js"), live_url],
        cwd=PROJECT,
        env={**os.environ, "YAMEN_ADMIN_TOKEN": ADMIN_TOKEN},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    last = json.loads(run.stdout.splitlines()[-1])
    assert last["verified"] and last["deliveries"] >= 3, run.stdout
    assert len(last["ladder"]) == 2 and last["ladder"][0] >= last["ladder"][1], run.stdout

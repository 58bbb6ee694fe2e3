"""``yamen apps``: an operator makes an app and manages its keys from a shell, against DATABASE_URL
(like ``yamen migrate``); a revocation reaches a running app at once through REDIS_URL's notice
board; every refusal is one line on stderr and a non-zero exit."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from litestar.testing import AsyncTestClient

from service import cli
from tests.conftest import make_app
from tests.http.helpers import bearer
from tests.http.test_games_api import assert_problem
from tests.servers import fresh_database

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def env(monkeypatch, database_url, redis_url):
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.delenv("REDIS_CLUSTER_NODES", raising=False)


async def _yamen(capsys, *args: str) -> tuple[int, str, str]:
    """``yamen apps …`` in this process (its own event loop, in a thread): exit status, stdout, stderr."""
    code = await asyncio.to_thread(cli.main, ["apps", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_an_operator_makes_an_app_and_manages_its_keys(env, capsys, database_url, redis_url, tmp_path):
    async with AsyncTestClient(app=make_app(database_url, redis_url)) as client:
        code, out, err = await _yamen(
            capsys,
            "create",
            "Tea House",
            "--requests-per-minute",
            "900",
            "--games-per-day",
            "50",
            "--visibility",
            "app",
        )
        assert code == 0, err
        app_id = re.search(r"^app_id: (app_[0-9a-f]{16})$", out, re.M).group(1)
        key = re.search(r"^key: (ymk_[0-9a-f]{12}\.\S+)$", out, re.M).group(1)
        answer = await client.get("/v1/games", headers=bearer(key))
        assert answer.status_code == 200 and answer.headers["ratelimit-limit"] == "900"

        code, out, _ = await _yamen(capsys, "list")
        assert code == 0 and app_id in out and "'Tea House'" in out and "900 requests/minute" in out
        code, out, _ = await _yamen(capsys, "list", "--json")
        listed = {a["app_id"]: a for a in json.loads(out)["apps"]}
        assert (
            listed[app_id]["limits"]["games_per_day"] == 50 and listed[app_id]["default_visibility"] == "app"
        )
        assert key not in out

        code, out, _ = await _yamen(capsys, "keys", "create", app_id)
        second = re.search(r"^key: (ymk_\S+)$", out, re.M).group(1)
        code, out, _ = await _yamen(capsys, "keys", "rotate", app_id, key[4:16], "--overlap", "3600")
        assert code == 0 and f"the old key {key[4:16]} works until" in out
        third = re.search(r"^key: (ymk_\S+)$", out, re.M).group(1)
        for held in (key, second, third):
            assert (await client.get("/v1/games", headers=bearer(held))).status_code == 200

        # Revoked from the shell: the running app, which remembers the key, refuses it at once.
        code, out, _ = await _yamen(capsys, "keys", "revoke", app_id, second[4:16])
        assert code == 0 and f"key {second[4:16]}: revoked" in out
        assert_problem(await client.get("/v1/games", headers=bearer(second)), 401, "invalid_app_key")
        code, out, _ = await _yamen(capsys, "update", app_id, "--disable")
        assert code == 0 and "disabled since" in out
        assert_problem(await client.get("/v1/games", headers=bearer(third)), 403, "app_disabled")
        code, out, _ = await _yamen(capsys, "update", app_id, "--enable", "--concurrent-games", "7")
        assert code == 0 and "7 concurrent games" in out
        assert (await client.get("/v1/games", headers=bearer(third))).status_code == 200

        code, out, _ = await _yamen(capsys, "signing-key", "create", app_id, "--alg", "HS256")
        assert code == 0 and re.search(r"^kid: sk_[0-9a-f]{12}$", out, re.M)
        assert len(re.search(r"^secret: (\S+)$", out, re.M).group(1)) >= 60
        pem = tmp_path / "app.pem"
        public = ed25519.Ed25519PrivateKey.generate().public_key()
        pem.write_bytes(
            public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        )
        code, out, _ = await _yamen(
            capsys, "signing-key", "create", app_id, "--alg", "EdDSA", "--public-key", str(pem)
        )
        assert code == 0 and "alg: EdDSA" in out and "secret" not in out
        kid = re.search(r"^kid: (sk_\S+)$", out, re.M).group(1)
        code, out, _ = await _yamen(capsys, "show", app_id)
        assert code == 0 and f"signing key {kid}: EdDSA" in out and f"key {key[4:16]}: expiring" in out
        code, out, _ = await _yamen(capsys, "signing-key", "revoke", app_id, kid)
        assert code == 0 and f"signing key {kid}: revoked" in out


async def test_refusals_are_one_line_and_a_non_zero_exit(env, capsys, tmp_path):
    cases = [
        (["show", "app_00000000000000ff"], 1, "no app app_00000000000000ff"),
        (["keys", "revoke", "app_00000000000000ff", "0123456789ab"], 1, "has no key"),
        (["create", ""], 1, "name"),
        (
            [
                "signing-key",
                "create",
                "app_00000000000000ff",
                "--alg",
                "EdDSA",
                "--public-key",
                str(tmp_path / "none.pem"),
            ],
            1,
            "none.pem",
        ),
    ]
    for args, status, said in cases:
        code, out, err = await _yamen(capsys, *args)
        assert code == status and not out, (args, code, out, err)
        assert err.count("\n") == 1 and said in err and err.startswith("yamen apps "), (args, err)
    with pytest.raises(SystemExit) as refused:  # argparse's own: a usage line, exit 2
        cli.main(["apps", "create", "x", "--games-per-day", "-3"])
    assert refused.value.code == 2


async def test_without_a_database_or_its_migrations(capsys, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    code, _, err = await _yamen(capsys, "list")
    assert code == cli.EXIT_UNAVAILABLE and err == "yamen apps list: DATABASE_URL is not set\n"
    with fresh_database("yamen_apps_cli_") as url:  # never migrated
        monkeypatch.setenv("DATABASE_URL", url)
        code, _, err = await _yamen(capsys, "create", "too early")
        assert code == cli.EXIT_UNAVAILABLE and "run `yamen migrate` first" in err and err.count("\n") == 1


def test_the_installed_command(database_url, redis_url):
    """What an operator runs: the ``yamen`` script, its output and its exit status."""
    environment = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    made = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / "yamen"), "apps", "create", "from a shell", "--json"],
        env=environment, capture_output=True, text=True, check=False, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["key"]["key"].startswith("ymk_")
    refused = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / "yamen"), "apps", "show", "app_0000000000000000"],
        env=environment, capture_output=True, text=True, check=False, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr

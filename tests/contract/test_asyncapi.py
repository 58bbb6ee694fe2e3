"""The realtime channel's AsyncAPI document: committed, in sync with the message types, served, and
valid to the AsyncAPI initiative's own parser (``@asyncapi/parser`` from npm, slow lane)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import yaml

from service.http.asyncapi import COMMITTED, production_document, render_yaml
from tests.http.ws_client import running

PROJECT = pathlib.Path(__file__).resolve().parent / "asyncapi"


def test_the_committed_document_is_the_generated_one():
    assert COMMITTED.exists(), "run `python -m service.http.asyncapi` to write asyncapi/asyncapi.yaml"
    assert COMMITTED.read_text() == render_yaml(production_document()), (
        "the realtime messages changed: run `python -m service.http.asyncapi` and commit the result"
    )


def test_every_message_type_and_close_code_is_documented():
    document = yaml.safe_load(COMMITTED.read_text())
    messages = document["components"]["messages"]
    for name in ("hello", "subscribe", "unsubscribe", "move", "ping", "pong"):
        assert name in messages
    for name in ("welcome", "subscribed", "events", "table", "end", "move_result", "problem"):
        assert name in messages
    for code in (1001, 1009, 4001, 4008, 4009, 4029):
        assert f"`{code}`" in document["info"]["description"]
    # The games' types are the OpenAPI document's own.
    assert document["components"]["schemas"]["Move"]["properties"]["command"]["$ref"].endswith("/Command")


async def test_the_served_document_is_the_committed_one(database_url, redis_url):
    from domain.registry import production_games
    from tests.conftest import make_app

    app = make_app(database_url, redis_url, production_games())
    async with running(app) as client:
        served = (await client.get("/v1/asyncapi.json")).json()
    assert served == yaml.safe_load(COMMITTED.read_text())


@pytest.mark.slow
def test_asyncapi_parser_validates_the_document():
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are required (Node 20 or later)"
    for command in (
        [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
        [node, "validate.mjs", str(COMMITTED)],
    ):
        run = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{' '.join(command)}:\n{run.stdout}\n{run.stderr}"
    assert "valid: AsyncAPI 3." in run.stdout

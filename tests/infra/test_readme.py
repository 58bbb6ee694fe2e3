"""The README's walkthrough runs as written: this test extracts the block between
``<!-- walkthrough -->`` markers and runs it with bash, unchanged, against a fresh ``yamen serve``
(default settings, rate limit included), from a folder holding the checkout's ``.venv``.

Slow lane: the walkthrough needs ``curl`` and ``jq``, which a fresh machine may lack and
``bash scripts/test --slow`` installs."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

from tests.servers import yamen_serve

pytestmark = pytest.mark.slow

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"<!-- walkthrough -->\n```bash\n(.*?)```\n<!-- /walkthrough -->", re.S)


def walkthrough() -> str:
    match = BLOCK.search(README.read_text())
    assert match, "README.md has no <!-- walkthrough --> block"
    return match.group(1)


def test_the_readme_walkthrough_runs_as_written(database_url):
    # As a reader runs it: the default rate limit, no REDIS_URL (the in-process cache).
    with (
        yamen_serve(database_url, redis_url=None, rate_limit=None) as api,
        tempfile.TemporaryDirectory() as folder,
    ):
        # The walkthrough calls .venv/bin/yamen, as a reader who installed into .venv would.
        os.symlink(pathlib.Path(sys.executable).parents[1], pathlib.Path(folder) / ".venv")
        script = pathlib.Path(folder) / "walkthrough.sh"
        script.write_text(walkthrough())
        result = subprocess.run(
            ["bash", "-e", str(script)],
            cwd=folder,
            env={**os.environ, "API": api},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    out = result.stdout
    assert '"kind":"yangtze"' in out
    assert "VERIFIED" in out and "NOT VERIFIED" not in out
    assert '"status":"finished"' in out  # the stream's end event
    assert '"ok":true' in out  # the import verified

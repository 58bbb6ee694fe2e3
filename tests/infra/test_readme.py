"""The README's walkthrough runs as written: this test extracts the block between
``<!-- walkthrough -->`` markers and runs it with bash, unchanged, against a fresh ``yamen serve``
(default settings, rate limit included), from a folder holding the checkout's ``.venv``."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile

from tests.infra.test_serve import _free_port, _serve, _stop, _wait_ready

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"<!-- walkthrough -->\n```bash\n(.*?)```\n<!-- /walkthrough -->", re.S)


def walkthrough() -> str:
    match = BLOCK.search(README.read_text())
    assert match, "README.md has no <!-- walkthrough --> block"
    return match.group(1)


def test_the_readme_walkthrough_runs_as_written(database_url):
    port = _free_port()
    server = _serve(port, database_url, access_log=False)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", server)
        with tempfile.TemporaryDirectory() as folder:
            # The walkthrough calls .venv/bin/yamen, as a reader who installed into .venv would.
            os.symlink(pathlib.Path(sys.executable).parents[1], pathlib.Path(folder) / ".venv")
            script = pathlib.Path(folder) / "walkthrough.sh"
            script.write_text(walkthrough())
            result = subprocess.run(
                ["bash", "-e", str(script)],
                cwd=folder,
                env={**os.environ, "API": f"http://127.0.0.1:{port}"},
                capture_output=True,
                text=True,
                timeout=300,
            )
    finally:
        log = _stop(server)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n--- server ---\n{log[-3000:]}"
    out = result.stdout
    assert '"kind":"yangtze"' in out
    assert "VERIFIED" in out and "NOT VERIFIED" not in out
    assert '"status":"finished"' in out  # the stream's end event
    assert '"ok":true' in out  # the import verified

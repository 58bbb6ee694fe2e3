"""``bash scripts/test``: the default lane needs Python alone; the slow lane installs the Debian
programs it drives when they are missing (as root, with apt-get), as CI's ``.ci/run`` used to do
for every lane.

The script runs for real (bash, its own argument handling and checks) in a copy of the checkout
whose ``.venv/bin/python`` and ``apt-get`` only record what they are asked, on a PATH holding
nothing else: every program is missing, whatever this machine has installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SLOW_LANE_PACKAGES = "chromium jq curl nodejs npm haproxy postgresql-15-auto-failover pg-auto-failover-cli"


def _run(
    tmp_path: Path,
    *args: str,
    uid: int = 0,
    failing: tuple[str, ...] = (),
    status: int = 0,
    node: bool = False,
) -> tuple[list[str], str]:
    """``bash scripts/test <args>`` as user *uid*: the commands it ran, and its stderr.  The programs
    named in *failing* exit 1; the script must exit with *status*.  *node*: node, npm and npx are
    there too (recording what they are asked)."""
    checkout, stubs, calls = tmp_path / "checkout", tmp_path / "bin", tmp_path / "calls"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "test", checkout / "scripts" / "test")
    venv_bin = checkout / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "activate").write_text(f'PATH="{venv_bin}:$PATH"\n')
    stubs.mkdir()
    recorders = {
        venv_bin / "python": "python",
        venv_bin / "ruff": "ruff",
        venv_bin / "mypy": "mypy",
        stubs / "apt-get": "apt-get",
        **({stubs / "node": "node", stubs / "npm": "npm", stubs / "npx": "npx"} if node else {}),
    }
    for path, name in recorders.items():
        fail = "exit 1\n" if name in failing else ""
        path.write_text(f'#!/bin/sh\necho "{name} $*" >> {calls}\n{fail}')
    (stubs / "id").write_text(f'#!/bin/sh\n[ "$1" = -u ] && echo {uid}\n')
    for path in (*recorders, stubs / "id"):
        path.chmod(0o755)
    os.symlink(shutil.which("dirname"), stubs / "dirname")
    done = subprocess.run(
        [shutil.which("bash"), str(checkout / "scripts" / "test"), *args],
        env={"PATH": str(stubs), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == status, done.stdout + done.stderr
    return [line.rstrip() for line in calls.read_text().splitlines()], done.stderr


def test_the_default_lane_installs_nothing_but_pip_packages(tmp_path):
    ran, _ = _run(tmp_path, "-q")
    assert ran == [
        "python -m pip install --quiet --upgrade pip",
        "python -m pip install --quiet -e .[test,embedded]",
        "python -m pytest -m not slow -n 2 --durations=10 -q",  # whole: on two workers
    ]
    ran, _ = _run(tmp_path / "paths", "-q", "tests/http")
    assert ran[2:] == ["python -m pytest -m not slow -q tests/http"]  # some paths: on one


def test_the_slow_lane_installs_the_debian_programs_it_drives(tmp_path):
    ran, _ = _run(tmp_path, "--slow", "-q", "tests/topology")
    assert ran[2:] == [
        f"apt-get install -y -q {SLOW_LANE_PACKAGES}",
        "python -m pytest -m slow -q tests/topology",
    ]


def test_both_lanes_install_them_too(tmp_path):
    ran, _ = _run(tmp_path, "--all", "tests/browser")
    assert f"apt-get install -y -q {SLOW_LANE_PACKAGES}" in ran
    assert ran[-1] == "python -m pytest -m slow or not slow tests/browser"


def test_without_root_the_slow_lane_says_what_it_needs(tmp_path):
    ran, err = _run(tmp_path, "--slow", "tests/topology", uid=1000)
    assert not any(line.startswith("apt-get") for line in ran)
    assert f"the slow lane needs Debian's {SLOW_LANE_PACKAGES}" in err
    assert ran[-1] == "python -m pytest -m slow tests/topology"


LINT = [
    "ruff check .",
    "ruff format --check .",
    "mypy",
    "npm ci --no-audit --no-fund --silent",
    "npx --no-install biome ci service/web tests/web",
    "node --test tests/web/",
]
"""The lint lane: Python's checks, then the web client's (Biome, installed by npm, and its unit
tests)."""


def test_the_lint_runs_ruff_the_type_checker_then_biome_and_the_js_unit_tests(tmp_path):
    ran, _ = _run(tmp_path, "--lint", node=True)
    assert ran[2:] == LINT


def test_the_lint_fails_when_any_check_fails_and_still_runs_every_check(tmp_path):
    for failing in ("ruff", "mypy", "npx", "node"):
        ran, _ = _run(tmp_path / failing, "--lint", failing=(failing,), status=1, node=True)
        assert ran[2:] == LINT


def test_the_lint_without_node_says_what_it_needs(tmp_path):
    ran, err = _run(tmp_path, "--lint", status=1)
    assert ran[2:] == LINT[:3]
    assert "need node and npm" in err

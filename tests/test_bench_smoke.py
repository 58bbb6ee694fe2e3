"""The benchmark's --quick mode end to end: real server, real Postgres and Redis, tiny counts.

No timing is asserted (CI machines vary); only that every figure was measured without errors and
the table and JSON were produced.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from tests.servers import PG_ADMIN, REDIS_URL

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_bench_quick(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "quick.json"
    env = {**os.environ, "YAMEN_BENCH_PG": PG_ADMIN, "YAMEN_BENCH_REDIS": REDIS_URL}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--output", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "| moves/s (POST, durably committed) |" in proc.stdout
    assert "Targets (ratios measured in this run)" in proc.stdout
    results = json.loads(out.read_text())
    summary = results["summary"]
    (server,) = summary["servers"].values()
    assert server["move_errors"] == 0 and server["read_errors"] == 0
    for figure in ("echo_rps", "moves_per_s", "get_rps", "get304_rps"):
        assert server[figure] > 0, figure
    assert server["memory"]["max_worker_hwm_mib"] > 0
    assert summary["ceiling"]["appends_per_s"] > 0
    assert set(summary["growth"]) == {"10", "100"}
    assert {d["kind"] for d in results["domain"]} == {"yangtze", "pingyao", "jiangnan"}
    assert all(f["snapshot_final_bytes"] > 0 for f in results["fold"])
    # The dedicated database was dropped.
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        names = [
            r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'yamen_bench_%'")
        ]
    assert not [n for n in names if n in out.read_text()]

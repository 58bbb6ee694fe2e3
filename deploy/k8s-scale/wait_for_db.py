"""Init-container check for the scale-out overlay: hold a pod until the database is ready for it.

    python wait_for_db.py primary   until DATABASE_URL opens a read-write session (the primary is
                                    up: the migrate Job starts then)
    python wait_for_db.py schema    until every migration this image ships is applied (an API pod
                                    starts only after the migrate Job of its release: migrate,
                                    then roll out)

It runs in the yamen image (psycopg and the service package are there) and reads what
``yamen migrate`` records: the ``schema_migrations`` table, one row per ``service/migrations/*.sql``
file plus the job queue's schema version. ``yamen migrate`` has no check mode of its own, so this
file, shipped to the pods as a ConfigMap, is that check; tests/test_deploy.py keeps it in step with
the migrator.
"""

from __future__ import annotations

import importlib.resources
import os
import sys
import time

import psycopg

POLL_SECONDS = 2.0
REPORT_EVERY = 15  # polls between two progress lines


def expected_versions() -> set[str]:
    """The versions ``yamen migrate`` of this image records once it has run."""
    from service.infra.jobs import SCHEMA_VERSION

    files = importlib.resources.files("service.migrations").iterdir()
    return {f.name.removesuffix(".sql") for f in files if f.name.endswith(".sql")} | {SCHEMA_VERSION}


def missing(expected: set[str], applied: set[str]) -> list[str]:
    """What this image needs that is not applied yet (a newer schema is fine: expand, then contract)."""
    return sorted(expected - applied)


def _connect(url: str) -> psycopg.Connection:
    return psycopg.connect(url, connect_timeout=5, autocommit=True)


def primary_ready(url: str) -> str | None:
    """None once *url* opens a session on a primary; else why not."""
    try:
        with _connect(url) as conn:
            (in_recovery,) = conn.execute("SELECT pg_is_in_recovery()").fetchone()
    except psycopg.Error as exc:  # not reachable, not accepting connections yet, ...: not yet
        return f"{type(exc).__name__}: {exc}".strip()
    return "connected to a standby" if in_recovery else None


def schema_ready(url: str, expected: set[str]) -> str | None:
    """None once every expected migration is applied; else what is missing."""
    try:
        with _connect(url) as conn:
            try:
                rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
            except psycopg.errors.UndefinedTable:
                rows = []
    except psycopg.Error as exc:
        return f"{type(exc).__name__}: {exc}".strip()
    todo = missing(expected, {version for (version,) in rows})
    return f"not applied yet: {', '.join(todo)}" if todo else None


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("primary", "schema"):
        print("usage: wait_for_db.py primary|schema", file=sys.stderr)
        return 2
    url = os.environ.get("DATABASE_URL")
    if not url:
        print("wait_for_db: DATABASE_URL is not set", file=sys.stderr)
        return 2
    if argv[0] == "primary":
        check = primary_ready
    else:
        expected = expected_versions()

        def check(url: str) -> str | None:
            return schema_ready(url, expected)

    polls = 0
    while (why := check(url)) is not None:
        if polls % REPORT_EVERY == 0:
            print(f"wait_for_db {argv[0]}: waiting ({why})", file=sys.stderr, flush=True)
        polls += 1
        time.sleep(POLL_SECONDS)
    print(f"wait_for_db {argv[0]}: ready", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

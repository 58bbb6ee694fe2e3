"""The benchmark's surroundings, shared by ``python -m bench`` and ``python -m bench.ws``: a fresh
database (migrated) and its removal, and what the machine is and how busy it is."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import platform
import secrets
import sys
from typing import Any

import psycopg


def db_url(admin: str, name: str) -> str:
    base, _, _ = admin.rpartition("/")
    return f"{base}/{name}"


def create_db(admin: str) -> tuple[str, str]:
    name = f"yamen_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = db_url(admin, name)

    async def migrate() -> None:
        from service.infra.store import EventStore

        store = EventStore(url, min_size=1, max_size=1)
        await store.open()
        try:
            await store.migrate()
        finally:
            await store.close()

    asyncio.run(migrate())
    return name, url


def drop_db(admin: str, name: str, redis_url: str) -> None:
    url = db_url(admin, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            ids = [r[0] for r in conn.execute("SELECT game_id FROM games").fetchall()]
        import redis

        client = redis.Redis.from_url(redis_url)
        for i in range(0, len(ids), 1000):
            client.delete(*[f"yamen:snapshot:{g}" for g in ids[i : i + 1000]])
        client.close()
    except Exception as exc:  # noqa: BLE001 - cleanup is best effort
        print(f"bench: could not clear snapshots: {exc}", file=sys.stderr)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def describe_machine(admin: str, redis_url: str) -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        mem = int(pathlib.Path("/proc/meminfo").read_text().split()[1]) // 1024
    versions = {}
    from importlib.metadata import PackageNotFoundError, version

    for pkg in (
        "granian",
        "uvicorn",
        "uvloop",
        "httptools",
        "litestar",
        "msgspec",
        "psycopg",
        "psycopg-pool",
        "redis",
        "structlog",
    ):
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = None
    with psycopg.connect(admin, autocommit=True) as conn:
        pg = conn.execute("SHOW server_version").fetchone()[0]
        sync = conn.execute("SHOW synchronous_commit").fetchone()[0]
        fsync = conn.execute("SHOW fsync").fetchone()[0]
    try:
        import redis

        client = redis.Redis.from_url(redis_url)
        rv = client.info("server")["redis_version"]
        client.close()
    except Exception:  # noqa: BLE001 - the version is only reported
        rv = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_mib": mem,
        "os": platform.platform(),
        "python": platform.python_version(),
        "postgres": pg,
        "postgres_fsync": fsync,
        "postgres_synchronous_commit": sync,
        "redis": rv,
        "packages": versions,
        "note": "load generator, server, Postgres and Redis share these cores",
    }


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle (every process on the machine), from /proc/stat."""
    try:
        fields = [int(x) for x in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

"""Settings from the environment (twelve-factor); nothing else reads os.environ."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_RATE_LIMIT = "1200/minute"
"""Per seat token, else per client address: 20 requests a second, sustained over a minute."""


@dataclass(frozen=True)
class Settings:
    database_url: str | None
    """Postgres URL; unset means `yamen serve` starts an embedded Postgres."""
    redis_url: str | None
    """Redis URL; unset (and no ``REDIS_CLUSTER_NODES``) means an in-process snapshot cache."""
    log_format: str
    """``json``, ``console`` or ``auto`` (console on a tty, JSON otherwise)."""
    auto_migrate: bool
    """Apply migrations at start-up (dev and tests); production runs ``yamen migrate``."""
    pool_size: int
    bench_echo: bool = False
    """Serve ``POST /bench/echo`` (the benchmark's framework ceiling); off in production."""
    access_log: bool = True
    notices: bool = True
    """Answer reads from the worker's memory while the Redis notice board vouches for it
    (:mod:`service.infra.notices`); off means every read asks Redis and Postgres."""
    rate_limit: str | None = None
    """Requests one caller (seat token, else client address) may send, e.g. ``"1200/minute"``;
    None or ``"off"``: no limit (see :mod:`service.http.limits`)."""
    body_timeout: float = 10.0
    """Seconds a request body may stall between two chunks before the request is answered 408."""
    pg_timeout: float = 1.0
    """Seconds to wait for a pooled Postgres connection before answering 503."""
    snapshot_every: int = 8
    """A move writes the snapshot to the cache every this many versions (the notice goes out on
    every move); see :data:`service.application.moves.SNAPSHOT_EVERY`."""
    batch_appends: bool = True
    """Group commit: appends of different games reaching the store together share one statement
    (``YAMEN_BATCH_APPENDS=0``: one statement per command, e.g. on a Postgres sharded by game)."""
    jobs: bool = True
    """Take jobs (bot turns) in this process; ``YAMEN_JOBS=0`` only queues them, for a process
    that takes them."""
    redis_cluster_nodes: tuple[tuple[str, int], ...] = ()
    """``REDIS_CLUSTER_NODES=host:port,host:port``: seed nodes of a Redis Cluster, used instead of
    ``REDIS_URL`` (snapshots under hash-tagged keys, notices on a sharded channel; see
    ``docs/scaling.md``)."""
    redis_password: str | None = None
    """``REDIS_PASSWORD``: the cluster's password (with ``REDIS_CLUSTER_NODES``)."""
    standby_url: str | None = None
    """``YAMEN_STANDBY_URL``: a Postgres standby (libpq URL, e.g. several hosts with
    ``target_session_attrs=standby``) for spectator views, histories and records; a seat's own
    reads and every write stay on ``DATABASE_URL``."""
    standby_max_lag_ms: int = 1000
    """``YAMEN_STANDBY_MAX_LAG_MS``: a standby whose replay lags more than this is not read."""
    trusted_proxies: str = ""
    """``YAMEN_TRUSTED_PROXIES``: addresses or networks of the load balancers in front (e.g.
    ``10.0.0.0/8``); a request from one is counted against the client address it forwarded in
    ``X-Forwarded-For``.  Empty: the peer's address counts."""
    cors_origins: tuple[str, ...] = ("*",)
    """Origins whose pages may call the API from a browser (``YAMEN_CORS_ORIGINS``, comma-separated:
    ``https://a.example,https://b.example``; ``*`` for any; empty or ``off`` for none).  Any is
    safe by default: the API authenticates with bearer tokens, never cookies."""

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            redis_url=os.environ.get("REDIS_URL") or None,
            log_format=os.environ.get("YAMEN_LOG_FORMAT", "auto"),
            auto_migrate=os.environ.get("YAMEN_AUTO_MIGRATE", "1") not in ("0", "false", "no"),
            pool_size=int(os.environ.get("YAMEN_POOL_SIZE", "16")),
            bench_echo=os.environ.get("YAMEN_BENCH_ECHO", "0") in ("1", "true", "yes"),
            access_log=os.environ.get("YAMEN_ACCESS_LOG", "1") not in ("0", "false", "no"),
            notices=os.environ.get("YAMEN_NOTICES", "1") not in ("0", "false", "no"),
            rate_limit=os.environ.get("YAMEN_RATE_LIMIT", DEFAULT_RATE_LIMIT),
            pg_timeout=float(os.environ.get("YAMEN_PG_TIMEOUT", "1.0")),
            body_timeout=float(os.environ.get("YAMEN_BODY_TIMEOUT", "10")),
            jobs=os.environ.get("YAMEN_JOBS", "1") not in ("0", "false", "no"),
            batch_appends=os.environ.get("YAMEN_BATCH_APPENDS", "1") not in ("0", "false", "no"),
            snapshot_every=int(os.environ.get("YAMEN_SNAPSHOT_EVERY", "8")),
            cors_origins=parse_origins(os.environ.get("YAMEN_CORS_ORIGINS", "*")),
            redis_cluster_nodes=parse_nodes(os.environ.get("REDIS_CLUSTER_NODES", "")),
            redis_password=os.environ.get("REDIS_PASSWORD") or None,
            standby_url=os.environ.get("YAMEN_STANDBY_URL") or None,
            trusted_proxies=os.environ.get("YAMEN_TRUSTED_PROXIES", ""),
            standby_max_lag_ms=int(os.environ.get("YAMEN_STANDBY_MAX_LAG_MS", "1000")),
        )


def parse_origins(text: str) -> tuple[str, ...]:
    """``"https://a.example, https://b.example"`` -> both; ``"*"`` -> any; ``""``/``"off"`` -> none."""
    if text.strip().lower() in ("", "off", "none", "0", "false", "no"):
        return ()
    origins = tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ValueError(f"YAMEN_CORS_ORIGINS: {origin!r} is not an origin such as https://play.example")
    return origins


def parse_nodes(text: str) -> tuple[tuple[str, int], ...]:
    """``"10.0.0.1:6379, redis-2:6379"`` -> ((host, port), ...); empty -> ()."""
    nodes = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"REDIS_CLUSTER_NODES: {item!r} is not host:port")
        nodes.append((host.strip("[]"), int(port)))
    return tuple(nodes)

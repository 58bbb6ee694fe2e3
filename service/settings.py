"""Settings from the environment (twelve-factor); nothing else reads os.environ."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

DEFAULT_WEBHOOK_BACKOFF = "5,300,1800,7200,18000,36000,36000"
"""Seconds before each retry of a failed webhook delivery: the Standard Webhooks reference
schedule, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (27.6 h, eight attempts in all)."""
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
    redis_cluster_tls: str = ""
    """``REDIS_CLUSTER_TLS``: TLS to the cluster's nodes (with ``REDIS_CLUSTER_NODES``): ``1`` for
    redis-py's defaults, or the ``ssl_*`` parameters of a ``rediss://`` URL, e.g.
    ``ssl_ca_certs=/etc/redis/ca.pem`` (see :func:`service.infra.cache.cluster_tls`).  One Redis
    takes TLS from its ``rediss://`` ``REDIS_URL``."""
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
    webhook_backoff: tuple[float, ...] = tuple(float(s) for s in DEFAULT_WEBHOOK_BACKOFF.split(","))
    """``YAMEN_WEBHOOK_BACKOFF``: seconds before each retry of a failed webhook delivery,
    comma-separated (:data:`DEFAULT_WEBHOOK_BACKOFF`); after the last, the delivery is given up and
    its endpoint disabled.  Tests compress it."""
    webhook_allow_private: bool = False
    """``YAMEN_WEBHOOK_ALLOW_PRIVATE=1``: webhook URLs may lead to loopback and private addresses
    (tests; a service whose apps' servers share its private network).  Off, they are refused."""
    webhook_concurrency: int = 8
    """``YAMEN_WEBHOOK_CONCURRENCY``: webhook deliveries one process sends at once (each bounded by
    10 s), on job workers of their own: receivers that hang never hold a bot's turn or a request."""
    webhook_retention_days: int = 30
    """``YAMEN_WEBHOOK_RETENTION_DAYS``: days the delivery log keeps a delivery (and its attempts)
    after it succeeded or was given up; the job queue's sweep deletes older ones.  Pending
    deliveries are kept however old."""
    cors_origins: tuple[str, ...] = ("*",)
    """Origins whose pages may call the API from a browser (``YAMEN_CORS_ORIGINS``, comma-separated:
    ``https://a.example,https://b.example``; ``*`` for any; empty or ``off`` for none).  Any is
    safe by default: the API authenticates with bearer tokens, never cookies."""

    admin_token: str | None = None
    """``YAMEN_ADMIN_TOKEN``: the operator's credential for ``/v1/admin/*`` (``Authorization: Bearer
    <token>``, compared in constant time); unset, the admin API answers 404 as if it did not exist.
    At least 32 characters."""
    app_requests_per_minute: int = 60_000
    """``YAMEN_APP_REQUESTS_PER_MINUTE``: a new app's requests a minute unless its creator sets them."""
    app_games_per_day: int = 100_000
    """``YAMEN_APP_GAMES_PER_DAY``: a new app's games per UTC day unless its creator sets them."""
    app_concurrent_games: int = 10_000
    """``YAMEN_APP_CONCURRENT_GAMES``: a new app's games not finished at once unless its creator sets them."""
    vapid_private_key: str | None = None
    """``YAMEN_VAPID_PRIVATE_KEY``: the VAPID key Web Push is signed with (PEM, or base64url of the
    raw 32-byte P-256 key; ``yamen vapid generate`` makes one).  Unset: push is off."""
    vapid_subject: str | None = None
    """``YAMEN_VAPID_SUBJECT``: whom push services may contact, ``mailto:…`` or ``https://…``
    (required with the key)."""
    push_backoff: tuple[float, ...] = (10.0, 60.0, 300.0, 1800.0)
    """``YAMEN_PUSH_BACKOFF``: seconds before each retry of a failed push, comma-separated; after
    the last, the notification is dropped."""
    assertion_audience: str = "yamen"
    """``YAMEN_ASSERTION_AUDIENCE``: the ``aud`` claim a player assertion must carry (a service behind
    several names, or several services trusting one app, tell their assertions apart by it)."""
    ws_heartbeat_seconds: float = 15.0
    """``YAMEN_WS_HEARTBEAT_SECONDS``: the realtime socket (``/v1/ws``) pings this often and closes
    a client silent for twice as long (4009; ``docs/realtime.md``)."""
    ws_max_message_bytes: int = 65_536
    """``YAMEN_WS_MAX_MESSAGE_BYTES``: a larger client message closes its socket (1009)."""
    ws_messages_per_second: float = 200.0
    """``YAMEN_WS_MESSAGES_PER_SECOND``: one socket's sustained rate of messages (twice as many in a
    burst); beyond it the socket is closed (4029)."""
    ws_send_queue: int = 256
    """``YAMEN_WS_SEND_QUEUE``: messages waiting for a slow client; one more closes its socket (4008)."""

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            database_url=os.environ.get("DATABASE_URL") or None,
            redis_url=os.environ.get("REDIS_URL") or None,
            log_format=os.environ.get("YAMEN_LOG_FORMAT", "auto"),
            auto_migrate=os.environ.get("YAMEN_AUTO_MIGRATE", "1") not in ("0", "false", "no"),
            pool_size=_number("YAMEN_POOL_SIZE", "16", int),
            bench_echo=os.environ.get("YAMEN_BENCH_ECHO", "0") in ("1", "true", "yes"),
            access_log=os.environ.get("YAMEN_ACCESS_LOG", "1") not in ("0", "false", "no"),
            notices=os.environ.get("YAMEN_NOTICES", "1") not in ("0", "false", "no"),
            rate_limit=os.environ.get("YAMEN_RATE_LIMIT", DEFAULT_RATE_LIMIT),
            pg_timeout=_number("YAMEN_PG_TIMEOUT", "1.0", float),
            body_timeout=_number("YAMEN_BODY_TIMEOUT", "10", float),
            jobs=os.environ.get("YAMEN_JOBS", "1") not in ("0", "false", "no"),
            batch_appends=os.environ.get("YAMEN_BATCH_APPENDS", "1") not in ("0", "false", "no"),
            snapshot_every=_number("YAMEN_SNAPSHOT_EVERY", "8", int),
            cors_origins=parse_origins(os.environ.get("YAMEN_CORS_ORIGINS", "*")),
            redis_cluster_nodes=parse_nodes(os.environ.get("REDIS_CLUSTER_NODES", "")),
            redis_password=os.environ.get("REDIS_PASSWORD") or None,
            redis_cluster_tls=os.environ.get("REDIS_CLUSTER_TLS", ""),
            standby_url=os.environ.get("YAMEN_STANDBY_URL") or None,
            trusted_proxies=os.environ.get("YAMEN_TRUSTED_PROXIES", ""),
            standby_max_lag_ms=_number("YAMEN_STANDBY_MAX_LAG_MS", "1000", int),
            admin_token=admin_token(os.environ.get("YAMEN_ADMIN_TOKEN", "")),
            assertion_audience=os.environ.get("YAMEN_ASSERTION_AUDIENCE", "").strip() or "yamen",
            app_requests_per_minute=_count("YAMEN_APP_REQUESTS_PER_MINUTE", "60000"),
            app_games_per_day=_count("YAMEN_APP_GAMES_PER_DAY", "100000"),
            app_concurrent_games=_count("YAMEN_APP_CONCURRENT_GAMES", "10000"),
            webhook_backoff=parse_backoff(os.environ.get("YAMEN_WEBHOOK_BACKOFF", DEFAULT_WEBHOOK_BACKOFF)),
            webhook_allow_private=os.environ.get("YAMEN_WEBHOOK_ALLOW_PRIVATE", "0") in ("1", "true", "yes"),
            webhook_concurrency=_number("YAMEN_WEBHOOK_CONCURRENCY", "8", int),
            webhook_retention_days=_retention_days(),
            vapid_private_key=os.environ.get("YAMEN_VAPID_PRIVATE_KEY", "").strip() or None,
            vapid_subject=vapid_subject(os.environ.get("YAMEN_VAPID_SUBJECT", "")),
            push_backoff=parse_backoff(
                os.environ.get("YAMEN_PUSH_BACKOFF", "10,60,300,1800"), "YAMEN_PUSH_BACKOFF"
            ),
            ws_heartbeat_seconds=_number("YAMEN_WS_HEARTBEAT_SECONDS", "15", float),
            ws_max_message_bytes=_number("YAMEN_WS_MAX_MESSAGE_BYTES", "65536", int),
            ws_messages_per_second=_number("YAMEN_WS_MESSAGES_PER_SECOND", "200", float),
            ws_send_queue=_number("YAMEN_WS_SEND_QUEUE", "256", int),
        )


def _number(name: str, default: str, kind: type[int] | type[float]) -> Any:
    """The environment variable *name* as a number: a refusal names the variable."""
    text = os.environ.get(name, default)
    try:
        return kind(text)
    except ValueError:
        whole = "a whole number" if kind is int else "a number"
        raise ValueError(f"{name}: {text!r} is not {whole}") from None


def _retention_days() -> int:
    days: int = _number("YAMEN_WEBHOOK_RETENTION_DAYS", "30", int)
    if not 1 <= days <= 3650:
        raise ValueError(f"YAMEN_WEBHOOK_RETENTION_DAYS: {days} is not a number of days from 1 to 3650")
    return days


def _count(name: str, default: str) -> int:
    """The environment variable *name* as a whole number of 0 or more: a refusal names the variable."""
    value: int = _number(name, default, int)
    if value < 0:
        raise ValueError(f"{name}: {value} is not a whole number of 0 or more")
    return value


ADMIN_TOKEN_LENGTH = 32


def admin_token(text: str) -> str | None:
    """``YAMEN_ADMIN_TOKEN``: unset or empty -> None (no admin API); a short one is refused, as it
    could be guessed."""
    token = text.strip()
    if not token:
        return None
    if len(token) < ADMIN_TOKEN_LENGTH:
        raise ValueError(
            f"YAMEN_ADMIN_TOKEN: at least {ADMIN_TOKEN_LENGTH} characters "
            "(e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


def vapid_subject(text: str) -> str | None:
    """``YAMEN_VAPID_SUBJECT``: a ``mailto:`` or ``https:`` URL (RFC 8292), or None when unset."""
    subject = text.strip()
    if not subject:
        return None
    if not subject.startswith(("mailto:", "https://")):
        raise ValueError(f"YAMEN_VAPID_SUBJECT: {subject!r} is not a mailto: or https: URL")
    return subject


def parse_backoff(text: str, name: str = "YAMEN_WEBHOOK_BACKOFF") -> tuple[float, ...]:
    """``"5, 300, 1800"`` -> (5.0, 300.0, 1800.0): the seconds before each retry (none: one attempt)."""
    delays = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            delay = float(item)
        except ValueError:
            delay = -1.0
        if not 0 < delay <= 7 * 86_400:
            raise ValueError(f"{name}: {item!r} is not a number of seconds from 0 to 604800")
        delays.append(delay)
    return tuple(delays)


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

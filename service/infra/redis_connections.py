"""Every Redis connection a worker opens is made here, and no other module reads a Redis setting.

- **Settings.**  One Redis is a URL (``REDIS_URL``): ``redis://[user:password@]host[:port][/db]``,
  ``rediss://…`` for TLS, configured by its ``ssl_*`` query parameters (:func:`redis_tls`), or
  ``unix://[user:password@]/path/to/socket``.  A Redis Cluster is its seed nodes
  (``REDIS_CLUSTER_NODES``), ``REDIS_PASSWORD`` and ``REDIS_CLUSTER_TLS`` (:func:`cluster_tls`).  A
  URL is parsed by redis-py's own ``parse_url``, here only, so the command clients and the
  subscriber read it the same way.
- **The command clients** (:func:`command_client`, :func:`redis_client`,
  :func:`redis_cluster_client`): snapshots and the notices' publisher (:mod:`.cache`), the
  rate-limit counters (:mod:`service.http.limits`).  Short timeouts (Redis is a cache: never wait
  on it), a redis-py ``Retry`` with a short exponential backoff (a pooled connection that died with
  a Redis restart is replaced and the command sent again at once), idle connections pinged before
  they are used again.
- **Cluster discovery** (:func:`cluster_master_of`): the master that owns a key's slot now.
- **The subscriber's connection** (:class:`Endpoint`, :func:`subscriber_endpoint`,
  :func:`node_endpoint`): where the notice board's own socket connects, how it authenticates, its
  TLS context — the one redis-py builds from the same settings (:func:`tls_context`), so the board
  trusts exactly the servers the command clients trust — and its timeouts.  The board
  (:mod:`.notices`) speaks the protocol over it.

A setting that cannot work (an unknown parameter, a TLS file that cannot be read) raises a
ValueError naming the setting when the client or endpoint is made, at start-up: redis-py reads its
parameters only when it first connects, and a cache would take that failure for Redis being away —
forever.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError

if TYPE_CHECKING:
    from ..settings import Settings

CONNECT_SECONDS = 0.5
"""A command client's connect timeout."""
COMMAND_SECONDS = 0.5
"""A command client's wait for a reply."""
HEALTH_CHECK_SECONDS = 2
"""A pooled connection idle this long is pinged before it is used again."""
SUBSCRIBE_SECONDS = 2.0
"""The subscriber's connect, its TLS handshake, and sending its AUTH and SUBSCRIBE: each."""
LOCATE_SECONDS = 3.0
"""The subscriber's wait for a cluster's seeds to say which master owns the channel."""

REDIS_ERRORS = (aioredis.RedisError, RedisClusterException, OSError, AttributeError)
"""What a Redis (or Redis Cluster) client raises when Redis is away (redis-py's cluster client can
raise an AttributeError for a connection that dropped mid-send); a cache swallows them."""


def _retry(retries: int) -> Retry:
    """A few quick tries (5 ms, 10 ms… at most 50 ms apart): enough to replace a dead connection."""
    return Retry(ExponentialBackoff(cap=0.05, base=0.005), retries=retries)


def _tls(tls: dict[str, Any] | None) -> dict[str, Any]:
    """Client keyword arguments for the TLS options *tls* (None: plain connections)."""
    return {"ssl": True, **tls} if tls is not None else {}


# --- TLS ----------------------------------------------------------------------------------------
def redis_tls(url: str) -> dict[str, Any] | None:
    """The TLS options of a Redis URL as redis-py reads them: None for ``redis://`` and
    ``unix://``; for ``rediss://``, its ``ssl_*`` query parameters (``ssl_cert_reqs``,
    ``ssl_ca_certs``, ``ssl_ca_path``, ``ssl_certfile``, ``ssl_keyfile``, ``ssl_check_hostname``,
    ``ssl_min_version``, ``ssl_ciphers``…), none of them meaning redis-py's defaults."""
    return _tls_options(dict(parse_url(url)))  # ValueError for any other scheme


def _tls_options(options: dict[str, Any]) -> dict[str, Any] | None:
    if options.get("connection_class") is not SSLConnection:
        return None
    return {name: value for name, value in options.items() if name.startswith("ssl_")}


def tls_context(options: dict[str, Any], setting: str = "REDIS_URL") -> ssl.SSLContext:
    """The TLS context redis-py builds from *options* (:func:`redis_tls`), with its defaults: the
    server's certificate and host name are checked unless ``ssl_cert_reqs=none``.  Built now, so a
    wrong parameter or a certificate file that cannot be read stops the start-up with its reason
    (a ValueError naming *setting*): later, every connection would fail, and a cache takes that
    for Redis being away."""
    try:
        return SSLConnection(**options).ssl_context.get()
    except (OSError, TypeError, ValueError, RedisError) as exc:
        shown = ", ".join(f"{name}={value}" for name, value in options.items() if name != "ssl_password")
        why = f"{type(exc).__name__}: {exc}"
        raise ValueError(f"{setting}: TLS refused ({shown or 'defaults'}): {why}") from exc


def cluster_tls(text: str) -> dict[str, Any] | None:
    """``REDIS_CLUSTER_TLS``: empty, ``0`` or ``off`` -> None (plain connections); ``1`` or ``on``
    -> TLS with redis-py's defaults (certificates checked against the system's CAs, host names
    too); else the ``ssl_*`` parameters of a ``rediss://`` URL, e.g.
    ``ssl_ca_certs=/etc/redis/ca.pem&ssl_check_hostname=false``.  Checked now, files included."""
    value = text.strip().lstrip("?")
    if value.lower() in ("", "0", "off", "no", "false"):
        return None
    if value.lower() in ("1", "on", "yes", "true"):
        options: dict[str, Any] = {}
    else:
        options = redis_tls("rediss://cluster/?" + value) or {}
        unknown = sorted(set(parse_qs(value, keep_blank_values=True)) - set(options))
        if unknown:
            raise ValueError(
                f"REDIS_CLUSTER_TLS: {', '.join(unknown)} is not a TLS parameter (ssl_ca_certs=…, "
                "ssl_certfile=…, ssl_keyfile=…, ssl_cert_reqs=…, ssl_check_hostname=…)"
            )
    tls_context(options, "REDIS_CLUSTER_TLS")
    return options


# --- the command clients ------------------------------------------------------------------------
def command_client(settings: Settings) -> aioredis.Redis | RedisCluster | None:
    """The command client the settings describe: a cluster's (``REDIS_CLUSTER_NODES``), one
    Redis's (``REDIS_URL``), or None when neither is set."""
    if settings.redis_cluster_nodes:
        tls = cluster_tls(settings.redis_cluster_tls)
        return redis_cluster_client(settings.redis_cluster_nodes, settings.redis_password, tls)
    if settings.redis_url:
        return redis_client(settings.redis_url)
    return None


def redis_client(url: str) -> aioredis.Redis:
    """A Redis client as every part of a worker uses it: short timeouts (Redis is a cache: never
    wait on it), and a pooled connection that died with a Redis restart is replaced and the
    command sent again at once, instead of failing once per dead connection.  ``rediss://`` is
    TLS, configured by the URL's ``ssl_*`` parameters (:func:`redis_tls`).

    The URL is checked now, TLS files included: redis-py reads its parameters only when it first
    connects, and a cache would take that failure for Redis being away — forever."""
    try:
        client = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=COMMAND_SECONDS,
            retry=_retry(2),
            retry_on_error=[RedisConnectionError],
            retry_on_timeout=False,
            health_check_interval=HEALTH_CHECK_SECONDS,
        )
        pool = client.connection_pool
        pool.connection_class(**pool.connection_kwargs)  # an unknown parameter: TypeError
    except (TypeError, ValueError, RedisError) as exc:
        raise ValueError(f"REDIS_URL: {exc}") from exc
    options = redis_tls(url)
    if options is not None:
        tls_context(options)
    return client


def redis_cluster_client(
    nodes: tuple[tuple[str, int], ...], password: str | None = None, tls: dict[str, Any] | None = None
) -> RedisCluster:
    """A Redis Cluster client with the same short timeouts, over TLS with the options *tls*
    (:func:`cluster_tls`) when given.  A command that meets a dead or demoted master makes the
    client read the cluster's slots again and send it once more; during a failover (until a
    replica is promoted, about twice the cluster's node timeout) commands fail, which a cache
    survives."""
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        password=password,
        socket_connect_timeout=CONNECT_SECONDS,
        socket_timeout=COMMAND_SECONDS,
        retry=_retry(1),
        require_full_coverage=False,  # a slot without a master fails its own keys, not every key
        dynamic_startup_nodes=False,  # the configured seeds stay the seeds, whatever was seen since
        health_check_interval=HEALTH_CHECK_SECONDS,
        **_tls(tls),
    )


# --- cluster discovery --------------------------------------------------------------------------
async def cluster_master_of(
    key: str | bytes,
    seeds: tuple[tuple[str, int], ...],
    password: str | None = None,
    tls: dict[str, Any] | None = None,
) -> tuple[str, int]:
    """The master that owns *key*'s slot now, as the first seed that answers ``CLUSTER SLOTS``
    says (asked afresh each time, so a promoted replica is found after a failover); over TLS with
    the options *tls* when given."""
    slot = key_slot(key.encode() if isinstance(key, str) else key)
    failures = []
    for host, port in seeds:
        client = aioredis.Redis(
            host=host,
            port=port,
            password=password,
            socket_connect_timeout=CONNECT_SECONDS,
            socket_timeout=COMMAND_SECONDS,
            retry=Retry(NoBackoff(), 0),  # a dead seed is skipped at once, not retried
            **_tls(tls),
        )
        try:
            shards = await client.cluster("slots")
        except REDIS_ERRORS as exc:
            failures.append(f"{host}:{port}: {type(exc).__name__}")
            continue
        finally:
            await client.aclose()
        for start, end, master, *_ in shards:
            if start <= slot <= end:
                return master[0].decode(), int(master[1])
        failures.append(f"{host}:{port}: slot {slot} has no master")
    raise ConnectionError("no seed node knows the master: " + "; ".join(failures))


# --- the subscriber's connection ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how the notice board's socket connects (:mod:`.notices`)."""

    host: str | None
    """None: a Unix socket at :attr:`path`."""
    port: int = 6379
    path: str | None = None
    username: str | None = None
    password: str | None = None
    db: int = 0
    """The URL's database: unused by the subscriber (pub/sub channels are not per database)."""
    tls: ssl.SSLContext | None = None
    timeout: float = SUBSCRIBE_SECONDS
    """Seconds for each of: connecting, the TLS handshake, sending AUTH and SUBSCRIBE."""

    def auth(self) -> tuple[str, str, str] | None:
        """The AUTH command to send first (None: no password, no AUTH)."""
        if self.password is None:
            return None
        return ("AUTH", self.username or "default", self.password)


def subscriber_endpoint(url: str) -> Endpoint:
    """The subscriber's connection to the one Redis at *url*: the host, port or socket, user,
    password and TLS (a ``rediss://`` URL's, :func:`tls_context`) the command client would use."""
    options: dict[str, Any] = dict(parse_url(url))  # ValueError for any other scheme
    tls_options = _tls_options(options)
    tls = tls_context(tls_options) if tls_options is not None else None
    username, password = options.get("username"), options.get("password")
    if options.get("connection_class") is UnixDomainSocketConnection:
        return Endpoint(host=None, path=options.get("path", ""), username=username, password=password)
    return Endpoint(
        host=options.get("host") or "127.0.0.1",
        port=int(options.get("port") or 6379),
        username=username,
        password=password,
        db=int(options.get("db") or 0),
        tls=tls,
    )


def node_endpoint(
    host: str, port: int, password: str | None = None, tls: ssl.SSLContext | None = None
) -> Endpoint:
    """The subscriber's connection to one node of a cluster (:func:`cluster_master_of` found it),
    with ``REDIS_PASSWORD`` and the context of ``REDIS_CLUSTER_TLS`` (None: plain)."""
    return Endpoint(host=host, port=port, password=password, tls=tls)

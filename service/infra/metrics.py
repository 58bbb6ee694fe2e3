"""What ``GET /metrics`` serves: Prometheus metrics kept with ``prometheus-client``.

Each worker process keeps its own registry (scrape every worker, or sum at the load balancer):
requests by status and their latency by route, moves by kind and their latency, races lost,
snapshot lookups, and the batching of appends and notices.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = CONTENT_TYPE_LATEST

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Counter(
    "yamen_http_requests",
    "HTTP requests, by method and the status sent to the client ('none': cancelled unanswered)",
    ["method", "status"],
    registry=REGISTRY,
)
HTTP_SECONDS = Histogram(
    "yamen_http_request_seconds",
    "Time to answer an HTTP request, by method and route (the path template)",
    ["method", "route"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
MOVES = Counter("yamen_moves", "Moves accepted and appended, by game kind", ["kind"], registry=REGISTRY)
MOVE_SECONDS = Histogram(
    "yamen_move_seconds",
    "Time from a move's arrival at the application to its answer: judge, append, cache, announce",
    ["kind"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
MOVE_RACES = Counter(
    "yamen_move_races", "Appends that lost a race on the expected version", registry=REGISTRY
)
SNAPSHOTS = Counter(
    "yamen_snapshots",
    "Snapshot lookups while loading a game, by result (hit, miss, rejected)",
    ["result"],
    registry=REGISTRY,
)
APPEND_BATCHES = Counter(
    "yamen_append_batches", "Transactions that appended moves together (group commit)", registry=REGISTRY
)
APPENDS_BATCHED = Counter(
    "yamen_appends_batched",
    "Moves appended in those transactions (appends / batches = moves per commit)",
    registry=REGISTRY,
)
NOTICE_BATCHES = Counter(
    "yamen_notice_batches",
    "Redis round trips that wrote snapshots and posted move notices",
    registry=REGISTRY,
)
NOTICES = Counter(
    "yamen_notices", "Move notices posted (notices / batches = moves sharing a round trip)", registry=REGISTRY
)
READS_FROM_MEMORY = Counter(
    "yamen_reads_from_memory",
    "Reads answered from the worker's memory, vouched for by the notice board",
    registry=REGISTRY,
)


def render() -> bytes:
    """The registry in the Prometheus text exposition format."""
    return generate_latest(REGISTRY)

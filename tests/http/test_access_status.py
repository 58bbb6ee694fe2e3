"""Every answer is logged and counted with the status the client received.

Litestar answers some requests outside the middleware it is given: an exception raised in a
middleware (the rate limit's 429), an unmatched route, a refused CORS preflight.  An access log
among those middlewares saw the 429 leave as an exception and recorded a 500 — in the access line
and in ``yamen_http_requests_total`` — so alerting on 5xx fired for every throttled client.  Each
case here goes through the real app and checks the line and the counter against what was sent.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import structlog
from litestar.testing import AsyncTestClient
from prometheus_client.parser import text_string_to_metric_families

from service.http.limits import MAX_BODY_BYTES
from service.infra.logging import AccessLogMiddleware, configure_logging
from tests.conftest import make_app

Sent = tuple[str, str, int]
"""(method, path, status) of the request whose answer is checked."""


async def _counted(client: AsyncTestClient) -> Counter[tuple[str, str]]:
    """``yamen_http_requests_total`` by (method, status), as ``/metrics`` serves it."""
    counts: Counter[tuple[str, str]] = Counter()
    for family in text_string_to_metric_families((await client.get("/metrics")).text):
        if family.name == "yamen_http_requests":
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    counts[(sample.labels["method"], sample.labels["status"])] = int(sample.value)
    return counts


async def _rate_limited(client: AsyncTestClient) -> Sent:
    for _ in range(2):
        assert (await client.get("/v1/catalogue")).status_code == 200
    refused = await client.get("/v1/catalogue")
    assert refused.status_code == 429 and refused.headers["retry-after"]
    return "GET", "/v1/catalogue", refused.status_code


async def _body_too_large(client: AsyncTestClient) -> Sent:
    huge = b'{"kind": "bluff", "seed": "' + b"x" * MAX_BODY_BYTES + b'"}'
    answer = await client.post("/v1/games", content=huge, headers={"content-type": "application/json"})
    assert answer.status_code == 413
    return "POST", "/v1/games", answer.status_code


async def _stalled_body(client: AsyncTestClient) -> Sent:
    """A body that stops arriving (the settings' body_timeout is 0.3 s), sent as a server would."""
    sent: list[dict[str, Any]] = []
    parts = [{"type": "http.request", "body": b'{"kind": "bl', "more_body": True}]

    async def receive() -> dict[str, Any]:
        if parts:
            return parts.pop()
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "path": "/v1/games", "raw_path": b"/v1/games", "query_string": b"", "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"100")],
        "client": ("127.0.0.1", 1), "server": ("test", 80), "scheme": "http",
    }  # fmt: skip
    await asyncio.wait_for(client.app(scope, receive, send), 5)
    assert sent[0]["status"] == 408
    return "POST", "/v1/games", sent[0]["status"]


async def _unmatched_route(client: AsyncTestClient) -> Sent:
    answer = await client.get("/v1/nowhere")
    assert answer.status_code == 404
    return "GET", "/v1/nowhere", answer.status_code


async def _refused_preflight(client: AsyncTestClient) -> Sent:
    answer = await client.options(
        "/v1/games",
        headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
    )
    assert answer.status_code == 400
    return "OPTIONS", "/v1/games", answer.status_code


async def _crash(client: AsyncTestClient) -> Sent:
    def broken() -> None:
        raise RuntimeError("a bug")

    client.app.state.application.reads.catalogue = broken
    answer = await client.get("/v1/catalogue")
    assert answer.status_code == 500
    return "GET", "/v1/catalogue", answer.status_code


@pytest.mark.parametrize(
    "case", [_rate_limited, _body_too_large, _stalled_body, _unmatched_route, _refused_preflight, _crash]
)
async def test_each_answer_is_logged_and_counted_with_the_status_sent(
    database_url: str, case: Callable[[AsyncTestClient], Awaitable[Sent]]
) -> None:
    app = make_app(
        database_url,
        None,
        rate_limit="2/minute",  # counted per worker here (no Redis); /metrics is not limited
        body_timeout=0.3,
        cors_origins=("https://play.example",),
    )
    entries = structlog.testing.LogCapture()
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, entries], cache_logger_on_first_use=False
    )
    try:
        async with AsyncTestClient(app=app) as client:
            before = await _counted(client)
            method, path, status = await case(client)
            after = await _counted(client)
    finally:
        configure_logging("json")
    lines = [e for e in entries.entries if e["event"] == "request" and e["path"] == path]
    assert lines and lines[-1]["status"] == status and lines[-1]["method"] == method
    assert after[(method, str(status))] - before[(method, str(status))] == 1
    if status != 500:
        assert not [e for e in lines if e["status"] == 500]
        assert after[(method, "500")] == before[(method, "500")]


async def test_an_exception_is_recorded_as_what_the_server_sends() -> None:
    """Nothing answered: the server sends 500, and so it is recorded; an answer already started:
    its status is what the client has, whatever the application raised afterwards."""

    async def crashes_at_once(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("before any answer")

    async def crashes_midway(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"par", "more_body": True})
        raise RuntimeError("after the answer started")

    async def ignore(message: Any) -> None:
        pass

    entries = structlog.testing.LogCapture()
    structlog.configure(processors=[entries], cache_logger_on_first_use=False)
    try:
        for inner in (crashes_at_once, crashes_midway):
            scope = {"type": "http", "method": "GET", "path": "/" + inner.__name__, "headers": []}
            with pytest.raises(RuntimeError):
                await AccessLogMiddleware(inner)(scope, None, ignore)
    finally:
        configure_logging("json")
    assert [(e["path"], e["status"]) for e in entries.entries] == [
        ("/crashes_at_once", 500),
        ("/crashes_midway", 200),
    ]


async def test_a_request_cancelled_unanswered_is_no_500() -> None:
    """Cancelled before any answer (the server stopping): nothing was sent, so no 5xx is counted."""
    from service.infra import metrics

    async def waits(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(3600)

    def counted(status: str) -> float:
        labels = {"method": "GET", "status": status}
        return metrics.REGISTRY.get_sample_value("yamen_http_requests_total", labels) or 0.0

    before = {status: counted(status) for status in ("none", "500")}
    entries = structlog.testing.LogCapture()
    structlog.configure(processors=[entries], cache_logger_on_first_use=False)
    try:
        scope = {"type": "http", "method": "GET", "path": "/waits", "headers": []}
        request = asyncio.ensure_future(AccessLogMiddleware(waits)(scope, None, None))
        await asyncio.sleep(0.01)
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
    finally:
        configure_logging("json")
    assert [(e["path"], e["status"]) for e in entries.entries] == [("/waits", None)]
    assert counted("none") == before["none"] + 1 and counted("500") == before["500"]

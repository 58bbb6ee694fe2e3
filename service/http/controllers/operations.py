"""Operations: liveness, readiness, metrics and the OpenAPI document."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get

from ...application.documents import Health
from ...application.errors import NotReady
from ...codec import json_encoder
from ...infra import metrics
from ..dependencies import App
from ..problems import problems
from .responses import json_answer


class OperationsController(Controller):
    path = "/"
    tags = ("operations",)

    @get("/healthz", operation_id="healthz", summary="The process is up")
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="readyz",
        summary="Postgres is reachable (Redis state reported)",
        responses=problems(NotReady),
    )
    async def readyz(self, application: App) -> Health:
        health = await application.health()
        if health.postgres != "ok":
            raise NotReady(
                f"postgres: {health.postgres}; redis: {health.redis}",
                postgres=health.postgres,
                redis=health.redis,
            )
        return health

    @get("/metrics", operation_id="metrics", include_in_schema=False, media_type=metrics.CONTENT_TYPE)
    async def metrics(self) -> bytes:
        """Prometheus metrics of this worker (see :mod:`service.infra.metrics`)."""
        return metrics.render()

    @get("/v1/openapi.json", operation_id="getOpenapi", include_in_schema=False)
    async def openapi(self, request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
        return json_answer(json_encoder.encode(request.app.state.openapi_document(request.app)))

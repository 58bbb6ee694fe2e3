"""A real ``yamen serve`` for the generated clients: its own database on the test Postgres, the test
Redis, no rate limit; started once for the clients' tests and stopped by its process group."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest

from tests.servers import fresh_database, yamen_serve


@pytest.fixture(scope="session")
def live_url() -> Iterator[str]:
    """The base URL of a ``yamen serve`` subprocess on its own database."""
    with fresh_database("yamen_clients_") as url, yamen_serve(url) as base:
        yield base


@pytest.fixture(scope="session")
def served_document(live_url: str) -> bytes:
    """The OpenAPI document the running service serves."""
    with urllib.request.urlopen(live_url + "/v1/openapi.json", timeout=10) as answer:
        return answer.read()


def operation_ids(document: dict) -> list[str]:
    return [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]

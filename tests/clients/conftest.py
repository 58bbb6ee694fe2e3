"""A real ``yamen serve`` for the generated clients: its own database on the test Postgres, the test
Redis, no rate limit, an operator token (the app flow makes its apps with the admin API) and
webhooks allowed to a receiver on this machine; started once for the clients' tests and stopped
by its process group."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest

from tests.servers import fresh_database, yamen_serve

ADMIN_TOKEN = "clients-admin-token-of-at-least-32-characters"
SETTINGS = {
    "YAMEN_ADMIN_TOKEN": ADMIN_TOKEN,
    "YAMEN_WEBHOOK_ALLOW_PRIVATE": "1",  # the test receiver listens on 127.0.0.1
    "YAMEN_WEBHOOK_BACKOFF": "0.5,1,2",
}


@pytest.fixture(scope="session")
def live_url() -> Iterator[str]:
    """The base URL of a ``yamen serve`` subprocess on its own database."""
    with fresh_database("yamen_clients_") as url, yamen_serve(url, env=SETTINGS) as base:
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

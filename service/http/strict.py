"""Request bodies are decoded strictly, as the OpenAPI document describes them.

Litestar converts a handler's ``data`` with msgspec's *lax* rules (``strict=False``, which query
strings and forms need): a body's ``"rated": 0`` or ``"credential": "true"`` became a boolean, so
the service accepted requests its own document calls invalid (schemathesis' negative testing
found ``"rated": 0`` creating a game).  Before a handler with a body of one of the service's own
types runs, the raw JSON is decoded again with msgspec's strict rules; a mismatch is the same 400
``invalid_request`` Litestar gives any other invalid body.  Moves are left alone: their command is
decoded by the title's own codec (strict already)."""

from __future__ import annotations

import types
import typing
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ValidationException

_TYPES: dict[Any, Any] = {}
"""Per route handler's function (it lives as long as its module; a handler object may not, and its
``id`` may be another's later): the type its JSON body is checked against, or None (no body of ours)."""


def _own_body_type(handler: Any) -> Any:
    key = handler.fn
    if key not in _TYPES:
        found = None
        field = handler.parsed_fn_signature.parameters.get("data")
        if field is not None:
            annotation = field.annotation
            members = (
                typing.get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
            )
            structs = [m for m in members if isinstance(m, type) and issubclass(m, msgspec.Struct)]
            if structs and all(m.__module__.startswith("service.") for m in structs):
                found = annotation
        _TYPES[key] = found
    return _TYPES[key]


async def strict_body(request: Request[Any, Any, Any]) -> None:
    """(``before_request``.)  Refuse a JSON body that only lax coercion would have accepted."""
    body_type = _own_body_type(request.route_handler)
    if body_type is None or request.method in ("GET", "HEAD", "OPTIONS"):
        return
    body = await request.body()
    if not body.strip():
        return  # an optional body left out; a required one is Litestar's to refuse
    try:
        found = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return  # not JSON: Litestar's own decoding says so
    try:
        msgspec.convert(_known(_integral(found), body_type), type=body_type, strict=True, str_keys=True)
    except msgspec.ValidationError as exc:
        if ", got `" not in str(exc):
            return  # a value out of its bounds, not of another type: refused downstream as before
        raise ValidationException(
            detail=f"Validation failed for {request.method} {request.url.path}",
            extra=[{"message": str(exc), "key": "data", "source": "body"}],
        ) from None


def _known(value: Any, body_type: Any) -> Any:
    """Only the members the body's type has: an unknown member is Litestar's decoding's to judge,
    as before (this check is about the type of each member, not about which are allowed)."""
    if not isinstance(value, dict):
        return value
    members = typing.get_args(body_type) if isinstance(body_type, types.UnionType) else (body_type,)
    structs = [m for m in members if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    if len(structs) != 1:
        return value
    names = {field.encode_name for field in msgspec.structs.fields(structs[0])}
    return {key: item for key, item in value.items() if key in names}


def _integral(value: Any) -> Any:
    """JSON's ``2.0`` is the integer 2 to JSON Schema (and to the document): strict decoding would
    refuse it for an integer member, so integral numbers are made integers first."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    return value

"""Finish the OpenAPI document Litestar generates so code generators get usable types.

Litestar renders a msgspec tagged union as ``oneOf`` with the tag as a required constant but no
``discriminator``; generators then produce untyped blobs.  This adds the discriminator (with its
mapping) to every such union, declares the problem+json error responses each operation can give,
and documents the headers the contract relies on (ETag, If-Match, Idempotency-Key).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec

from domain.kernel import Game

from .problems import ProblemDetails

REF = "#/components/schemas/"

# Error answers per operation (method, path) beyond the ones every operation can give.
_ERRORS: dict[tuple[str, str], dict[int, str]] = {
    ("post", "/v1/games"): {404: "Unknown game kind", 422: "Invalid options or seats"},
    ("post", "/v1/games/{game_id}/seats/{seat}"): {404: "Unknown game or seat", 409: "Seat already taken"},
    ("get", "/v1/games/{game_id}"): {401: "Invalid token", 404: "Unknown game"},
    ("get", "/v1/games/{game_id}/states/{version}"): {
        401: "Invalid token",
        403: "reveal=true before the game has ended",
        404: "Unknown game or version",
    },
    ("get", "/v1/games/{game_id}/legal-moves"): {401: "Invalid token", 404: "Unknown game"},
    ("get", "/v1/games/{game_id}/events"): {401: "Invalid token", 404: "Unknown game"},
    ("get", "/v1/catalogue/{kind}/components"): {404: "Unknown game kind"},
    ("get", "/v1/games/{game_id}/record"): {401: "Invalid token", 404: "Unknown game"},
    ("get", "/v1/games/{game_id}/verification"): {404: "Unknown game"},
    ("post", "/v1/games/import"): {
        413: "The record is too large",
        422: "Not a record, not complete, or it does not verify (`detail` names the check and seq)",
    },
    ("post", "/v1/games/{game_id}/moves"): {
        401: "Missing or invalid token",
        403: "Not this seat's turn",
        404: "Unknown game",
        409: "The game has not started, has ended, or was created under retired rules",
        412: "If-Match names a stale version; `current_version` says the current one",
        422: "The rules forbid this move (`code` and `rule` say which), or the Idempotency-Key was reused",
    },
}


def _discriminate(node: Any, schemas: dict[str, Any]) -> None:
    if isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            options = node.get(key)
            if isinstance(options, list) and {"type": "null"} in options and len(options) > 2:
                # Optional[Union[...]]: a discriminator cannot cover null, so nest the union.
                refs = [o for o in options if o != {"type": "null"}]
                if all(isinstance(o, dict) and "$ref" in o for o in refs) and _tag_mapping(refs, schemas):
                    node[key] = [{"oneOf": refs}, {"type": "null"}]
                    options = None
            if isinstance(options, list) and options and all(isinstance(o, dict) and "$ref" in o for o in options):
                mapping = _tag_mapping(options, schemas)
                if mapping is not None:
                    field, tags = mapping
                    node["discriminator"] = {"propertyName": field, "mapping": tags}
                    if key == "anyOf":
                        node["oneOf"] = node.pop("anyOf")
        for value in list(node.values()):
            _discriminate(value, schemas)
    elif isinstance(node, list):
        for value in node:
            _discriminate(value, schemas)


def _tag_mapping(options: list[dict[str, Any]], schemas: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    for field in ("type", "kind"):
        tags: dict[str, str] = {}
        for option in options:
            ref = option["$ref"]
            schema = schemas.get(ref.removeprefix(REF), {})
            prop = schema.get("properties", {}).get(field, {})
            tag = prop.get("const")
            if tag is None and isinstance(prop.get("enum"), list) and len(prop["enum"]) == 1:
                tag = prop["enum"][0]
            if not isinstance(tag, str) or field not in schema.get("required", []):
                break
            tags[tag] = ref
        else:
            return field, tags
    return None


def _rename_colliding_components(doc: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    """Litestar names two games' same-named types by module path (``yangtze_commands_Pass``);
    generators turn that into ugly class names, so call them ``YangtzePass`` instead."""
    schemas = doc.get("components", {}).get("schemas", {})
    renames = {}
    for name in schemas:
        head, _, rest = name.partition("_")
        if head in games and rest:
            short = rest.rsplit("_", 1)[-1]
            renames[name] = head.capitalize() + short
    if not renames:
        return doc
    text = json.dumps(doc)
    for old, new in renames.items():
        text = text.replace(f'"{REF}{old}"', f'"{REF}{new}"')
    renamed = json.loads(text)
    renamed["components"]["schemas"] = {renames.get(k, k): v for k, v in renamed["components"]["schemas"].items()}
    return renamed


def _name_unions(doc: dict[str, Any], games: dict[str, Game]) -> None:
    """Give the three cross-game unions a name of their own (``Command``, ``Event``, ``View``), so
    generators emit one named union type instead of an anonymous one per use."""
    from .codec import tag_of

    named = {
        "Command": {tag_of(t) for g in games.values() for t in g.command_types},
        "Event": {tag_of(t) for g in games.values() for t in g.event_types},
        "View": {tag_of(g.view_type) for g in games.values()},
    }
    schemas = doc["components"]["schemas"]

    def visit(node: Any) -> Any:
        if isinstance(node, dict):
            mapping = node.get("discriminator", {}).get("mapping")
            if mapping:
                for name, tags in named.items():
                    if set(mapping) == tags:
                        schemas[name] = node
                        return {"$ref": REF + name}
            return {k: visit(v) for k, v in node.items()}
        if isinstance(node, list):
            return [visit(v) for v in node]
        return node

    doc["paths"] = visit(doc["paths"])
    for key in list(schemas):
        if key not in named:
            schemas[key] = visit(schemas[key])


def finish_openapi(document: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    doc = _rename_colliding_components(copy.deepcopy(document), games)
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    problem_schema, extra = msgspec.json.schema_components([ProblemDetails], ref_template=REF + "{name}")
    schemas.update(extra)
    problem_ref = problem_schema[0]
    _discriminate(doc, schemas)
    if games:
        _name_unions(doc, games)

    def problem(description: str) -> dict[str, Any]:
        return {"description": description, "content": {"application/problem+json": {"schema": problem_ref}}}

    for path, item in doc.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses["400"] = problem("Malformed request (bad JSON, parameters or headers)")
            for status, description in _ERRORS.get((method, path), {}).items():
                responses[str(status)] = problem(description)
            responses.setdefault("503", problem("Postgres is unavailable"))
            if method == "post" and path == "/v1/games/{game_id}/moves":
                ok = responses.get("200", {})
                ok.setdefault("headers", {})["ETag"] = {"schema": {"type": "string"}, "description": "The new version"}
            if method == "post" and path == "/v1/games/import":
                operation["requestBody"] = {
                    "required": True,
                    "description": "A complete game record as exported by GET /v1/games/{game_id}/record",
                    "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                }
            if method == "get" and path == "/v1/games/{game_id}/record":
                responses["200"] = {
                    "description": "NDJSON lines: a header, one line per event, and a footer once the game has ended",
                    "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                }
            if method == "get" and path == "/v1/games/{game_id}":
                responses.setdefault("200", {}).setdefault("headers", {})["ETag"] = {
                    "schema": {"type": "string"},
                    "description": "The game's version; send it back in If-None-Match for a 304",
                }
                responses["304"] = {"description": "Not modified since the version in If-None-Match"}
    doc.setdefault("info", {})["x-games"] = sorted(games)
    return doc

"""Finish the OpenAPI document Litestar generates so code generators get usable types.

Litestar renders a msgspec tagged union as ``oneOf`` with the tag as a required constant but no
``discriminator``; generators then produce untyped blobs.  This adds the discriminator (with its
mapping) to every such union, names the three cross-game unions (``Command``, ``Event``,
``View``), and gives module-qualified and generic component names short, stable ones.  Each
handler declares its own responses (problem codes, headers); nothing here is per path.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from domain.kernel import Game

from ..codec import tag_of

REF = "#/components/schemas/"


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
            if (
                isinstance(options, list)
                and options
                and all(isinstance(o, dict) and "$ref" in o for o in options)
            ):
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


GENERIC = ("GameDocument", "LegalMoves", "MoveResult", "History", "EventEnvelope")
"""The application's documents with a game-specific part (one instantiation per app)."""


def _short_names(doc: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    """Litestar names a generic document by its type argument (``GameDocument_typing.Union_…``) and
    two games' same-named types by module path (``domain_yangtze_commands_Pass``); generators turn
    those into unusable class names, so call them ``GameDocument`` and ``YangtzePass``."""
    schemas = doc.get("components", {}).get("schemas", {})
    roots = {}
    for kind, game in games.items():
        for t in (*game.command_types, *game.event_types, game.view_type):
            parts = t.__module__.split(".")[:-1]  # the game's package: ("domain", "yangtze")
            for start in range(len(parts)):  # Litestar keeps as much of the path as makes names unique
                roots["_".join(parts[start:]) + "_"] = kind
    renames = {}
    for name in schemas:
        generic = next((g for g in GENERIC if name.startswith(g + "_")), None)
        if generic is not None:
            renames[name] = generic
            continue
        kind = next((k for root, k in roots.items() if name.startswith(root)), None)
        if kind is not None:
            renames[name] = kind.capitalize() + name.rsplit("_", 1)[-1]
    if not renames:
        return doc
    text = json.dumps(doc)
    for old, new in renames.items():
        text = text.replace(json.dumps(REF + old), json.dumps(REF + new))
    renamed = json.loads(text)
    renamed["components"]["schemas"] = {
        renames.get(k, k): v for k, v in renamed["components"]["schemas"].items()
    }
    for generic in GENERIC:
        if generic in renamed["components"]["schemas"]:
            renamed["components"]["schemas"][generic]["title"] = generic
    return renamed


def _name_unions(doc: dict[str, Any], games: dict[str, Game]) -> None:
    """Give the three cross-game unions a name of their own (``Command``, ``Event``, ``View``), so
    generators emit one named union type instead of an anonymous one per use."""

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


def _closed_bodies(doc: dict[str, Any], games: dict[str, Game]) -> None:
    """Request bodies the service decodes with ``forbid_unknown_fields`` (every command, the
    create request) say so: ``additionalProperties: false``, so clients and fuzzers know an
    unknown field is refused."""
    tags = {
        tag_of(t)
        for g in games.values()
        for t in g.command_types
        if t.__struct_config__.forbid_unknown_fields
    }
    refs: dict[str, str] = {}

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            refs.update(node.get("discriminator", {}).get("mapping", {}))
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(doc)
    schemas = doc["components"]["schemas"]
    closed = {refs[tag].removeprefix(REF) for tag in tags if tag in refs} | {"CreateGame"}
    for name in closed:
        if name in schemas:
            schemas[name]["additionalProperties"] = False


def _never_null_parameters(doc: dict[str, Any]) -> None:
    """An optional header or query parameter is absent or a string, never ``null`` (Litestar
    writes ``Optional[str]`` as ``oneOf: [string, null]``; clients then send the text "null")."""
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                options = schema.get("oneOf")
                if parameter.get("in") in ("header", "query") and isinstance(options, list):
                    kept = [o for o in options if o != {"type": "null"}]
                    if len(kept) == 1 and len(kept) < len(options):
                        del schema["oneOf"]
                        schema.update(kept[0])


def finish_openapi(document: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    doc = _short_names(copy.deepcopy(document), games)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    _discriminate(doc, schemas)
    if games:
        _name_unions(doc, games)
    _closed_bodies(doc, games)
    _never_null_parameters(doc)
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else ():
                for header in response.get("headers", {}).values():
                    header.setdefault("schema", {"type": "string"})  # Litestar omits it; ours are all text
    doc.setdefault("info", {})["x-games"] = sorted(games)
    return doc

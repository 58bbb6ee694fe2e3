"""Finish the OpenAPI document Litestar generates so code generators get usable types.

Litestar renders a msgspec tagged union as ``oneOf`` with the tag as a required constant but no
``discriminator``; generators then produce untyped blobs.  This adds the discriminator (with its
mapping) to every such union, names the three cross-game unions (``Command``, ``Event``,
``View``), names every game's types by their game (``YangtzePass``, ``PingyaoPlaceTeller``: two
games' ``Pass`` or ``GameSetUp`` never collide in a generator) and the generic documents by their
generic name, and documents game records (NDJSON) also as bytes.  openapi-python-client and
openapi-typescript generate the whole client from the result (``tests/clients``).  Each handler
declares its own responses (problem codes, headers) and operationId; nothing here is per path.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from typing import Any

import msgspec.inspect as mi

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


def game_types(game: Game) -> set[type]:
    """Every struct and enum a game's commands, events and view are made of, the parts included."""
    found: set[type] = set()

    def walk(info: mi.Type) -> None:
        if isinstance(info, (mi.StructType, mi.DataclassType, mi.TypedDictType, mi.NamedTupleType)):
            if info.cls not in found:
                found.add(info.cls)
                for field in info.fields:
                    walk(field.type)
        elif isinstance(info, mi.EnumType):
            found.add(info.cls)
        elif isinstance(info, mi.Metadata):  # Annotated[T, Meta(...)]
            walk(info.type)
        elif isinstance(info, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
            walk(info.item_type)
        elif isinstance(info, mi.DictType):
            walk(info.key_type)
            walk(info.value_type)
        elif isinstance(info, (mi.TupleType, mi.UnionType)):
            for item in info.item_types if isinstance(info, mi.TupleType) else info.types:
                walk(item)

    for info in mi.multi_type_info((*game.command_types, *game.event_types, game.view_type)):
        walk(info)
    return found


def game_schema_name(kind: str, t: type) -> str:
    """A game's type in the document: ``<Kind><Name>`` (``YangtzePass``, ``PingyaoPlaceTeller``);
    a name that already starts with the kind keeps it (``YangtzeView``)."""
    prefix = kind.capitalize()
    return t.__name__ if t.__name__.startswith(prefix) else prefix + t.__name__


def _litestar_names(games: dict[str, Game]) -> dict[str, str]:
    """Litestar's component name for each game type -> its game-namespaced name.

    Litestar keys a type by its module path and qualified name and names the component after the
    shortest part of that key that tells same-named types apart (``Pass``, or
    ``yangtze_commands_Pass`` when two games have a ``Pass``); any suffix of the key may be it."""
    owners: dict[type, set[str]] = {}
    for kind, game in games.items():
        for t in game_types(game):
            owners.setdefault(t, set()).add(kind)
    candidates: dict[str, str | None] = {}
    for t, kinds in owners.items():
        config = getattr(t, "__struct_config__", None)
        tag = config.tag if config is not None and isinstance(config.tag, str) else None
        if tag is not None and "." in tag:
            space = tag.partition(".")[0]  # ``table.Resign`` (every title's) is TableResign in all
        elif t.__module__.startswith("domain.kernel"):
            continue  # the kernel's own types (a table's options) keep their names
        elif len(kinds) == 1:
            space = next(iter(kinds))
        else:  # shared by several games: not game-specific, its name stays
            continue
        key = (*t.__module__.split("."), re.sub(r"[^a-zA-Z0-9._-]+", "_", t.__qualname__))
        new = game_schema_name(space, t)
        for start in range(len(key)):
            name = "_".join(key[start:])
            candidates[name] = new if candidates.get(name, new) == new else None  # None: ambiguous
    return {old: new for old, new in candidates.items() if new is not None}


def _short_names(doc: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    """Name every game's types ``<Kind><Name>`` (Litestar calls them ``Pass``, or
    ``yangtze_commands_Pass`` when two games share a name, and generators then emit colliding or
    unusable classes), and each generic document by its generic name (``GameDocument``, not
    ``GameDocument_typing.Union_…``).  Each renamed schema's title is its new name."""
    schemas = doc.get("components", {}).get("schemas", {})
    game_names = _litestar_names(games)
    renames = {}
    for name in schemas:
        generic = next((g for g in GENERIC if name.startswith(g + "_")), None)
        if generic is not None:
            renames[name] = generic
        elif name in game_names:
            renames[name] = game_names[name]
    final = [renames.get(name, name) for name in schemas]
    clashes = sorted({name for name in final if final.count(name) > 1})
    if clashes:
        raise ValueError(f"schema names clash after namespacing: {clashes}")
    if not renames:
        return doc
    text = json.dumps(doc)
    for old, new in renames.items():
        text = text.replace(json.dumps(REF + old), json.dumps(REF + new))
    renamed = json.loads(text)
    renamed["components"]["schemas"] = {
        renames.get(k, k): v for k, v in renamed["components"]["schemas"].items()
    }
    for new in renames.values():
        renamed["components"]["schemas"][new]["title"] = new
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
    closed = {refs[tag].removeprefix(REF) for tag in tags if tag in refs} | {"CreateGame", "HandToBot"}
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


NDJSON = "application/x-ndjson"
BINARY = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}


def _records_as_bytes(doc: dict[str, Any]) -> None:
    """A record is NDJSON, which generators do not know: the import's body is documented as the
    bytes it is read as (``application/octet-stream``; the service reads any type), and the
    export's answer also as bytes, after its NDJSON, so a generated client returns its raw body."""
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            body = operation.get("requestBody", {})
            if NDJSON in body.get("content", {}):
                body["content"] = copy.deepcopy(BINARY)
                body["description"] = (
                    body.get("description", "")
                    + " (NDJSON bytes, sent as application/octet-stream or "
                    + NDJSON
                    + ")"
                ).strip()
            for response in operation.get("responses", {}).values():
                content = response.get("content", {})
                if NDJSON in content:
                    content.update(copy.deepcopy(BINARY))


def _describe_game_types(schemas: dict[str, Any], games: dict[str, Game]) -> None:
    """Each game type's docstring as its schema's description: a command's says what the move does
    (the reference web client shows it beside the move), an event's what happened."""
    for kind, game in games.items():
        for t in game_types(game):
            doc = t.__dict__.get("__doc__")
            schema = schemas.get(game_schema_name(kind, t))
            if doc and schema is not None and isinstance(schema, dict):
                schema.setdefault("description", inspect.cleandoc(doc))


def finish_openapi(document: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    doc = _short_names(copy.deepcopy(document), games)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    _describe_game_types(schemas, games)
    _discriminate(doc, schemas)
    if games:
        _name_unions(doc, games)
    _closed_bodies(doc, games)
    _never_null_parameters(doc)
    _records_as_bytes(doc)
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else ():
                for header in response.get("headers", {}).values():
                    header.setdefault("schema", {"type": "string"})  # Litestar omits it; ours are all text
                if "headers" in response:  # Litestar's order varies from run to run
                    response["headers"] = dict(sorted(response["headers"].items()))
    doc.setdefault("info", {})["x-games"] = sorted(games)
    return doc

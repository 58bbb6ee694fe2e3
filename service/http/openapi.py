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

import msgspec
import msgspec.inspect as mi
from litestar import Request, Router
from litestar.openapi.plugins import (
    JsonRenderPlugin,
    OpenAPIRenderPlugin,
    RapidocRenderPlugin,
    RedocRenderPlugin,
    StoplightRenderPlugin,
    SwaggerRenderPlugin,
    YamlRenderPlugin,
)

from domain.kernel import Game, bots

from ..codec import tag_of
from .controllers.responses import SERVER_TIME

REF = "#/components/schemas/"
HEADERS = "#/components/headers/"


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
    renamed: dict[str, Any] = json.loads(text)
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
    create and join requests, a player's registration) say so: ``additionalProperties: false``, so
    clients and fuzzers know an unknown field is refused."""
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
    bodies = {"CreateGame", "HandToBot", "JoinSeat", "RegisterPlayer"}
    closed = {refs[tag].removeprefix(REF) for tag in tags if tag in refs} | bodies
    for name in closed:
        if name in schemas:
            schemas[name]["additionalProperties"] = False


def _optional_bodies(doc: dict[str, Any]) -> None:
    """A body a handler takes as optional (``JSONBody[X | None] = None``: joinSeat's, which only an
    app's key sends) is ``required: false`` with X's schema.  Litestar writes it as a required body of
    X or null, and generated clients then demand a body nobody else sends."""
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not isinstance(body, dict):
                continue
            for media in body.get("content", {}).values():
                one_of = media.get("schema", {}).get("oneOf")
                if isinstance(one_of, list) and len(one_of) == 2 and {"type": "null"} in one_of:
                    media["schema"] = next(schema for schema in one_of if schema != {"type": "null"})
                    body["required"] = False


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
                if parameter.get("in") in ("header", "query") and _nullable_enum(schema):
                    schema["type"] = "string"
                    schema["enum"] = [value for value in schema["enum"] if value is not None]


def _nullable_enum(schema: Any) -> bool:
    """Litestar's ``Literal["a", "b"] | None``: ``type: [null, string]`` with ``null`` among the
    enum's values, which generators turn into three copies of one enum."""
    return (
        isinstance(schema, dict)
        and isinstance(schema.get("type"), list)
        and sorted(schema["type"]) == ["null", "string"]
        and None in schema.get("enum", [])
    )


def _nullable_enums_as_unions(node: Any) -> None:
    """A body member that is one of some words or null becomes ``anyOf: [that enum, null]``: one
    enum type (and ``None``) in a generated client instead of three copies of it."""
    if isinstance(node, dict):
        for key, value in node.items():
            if _nullable_enum(value):
                words = [word for word in value["enum"] if word is not None]
                rest = {k: v for k, v in value.items() if k not in ("type", "enum")}
                node[key] = {"anyOf": [{"type": "string", "enum": words}, {"type": "null"}], **rest}
            else:
                _nullable_enums_as_unions(value)
    elif isinstance(node, list):
        for item in node:
            _nullable_enums_as_unions(item)


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


def options_components(games: dict[str, Game]) -> tuple[dict[str, str], dict[str, Any]]:
    """Each title's ``options`` schema, named ``<Kind>Options``, and the schemas it refers to (the
    table's), written by msgspec from the options type: the same source as the catalogue's
    ``options_schema`` and the decoder the service checks options with, so none can drift."""
    names: dict[str, str] = {}
    components: dict[str, Any] = {}
    for kind, game in sorted(games.items()):
        t = game.options_type
        (root,), found = msgspec.json.schema_components([t], ref_template=REF + "{name}")
        name = game_schema_name(kind, t)
        schema = found.pop(root["$ref"].removeprefix(REF))
        components.update(found)
        components[name] = {**schema, "title": name}
        names[kind] = name
    return names, components


def _create_game_by_kind(doc: dict[str, Any], games: dict[str, Game]) -> None:
    """``CreateGame`` as a union discriminated by ``kind``: per title its exact ``options`` (every
    option with its type, enum and range; ``additionalProperties: false``) and its bot levels, so a
    generated client knows every option and an unknown one is refused by the document too.  What
    JSON Schema cannot say (a combination of options a title cannot set up) stays a 422
    ``invalid_options`` naming the reason."""
    schemas = doc["components"]["schemas"]
    base = schemas.get("CreateGame")
    if base is None or not games:
        return
    names, components = options_components(games)
    schemas.update(components)
    mapping = {}
    for kind, game in sorted(games.items()):
        name = f"Create{kind.capitalize()}Game"
        member = copy.deepcopy(base)
        member["title"] = name
        member["properties"]["kind"] = {"type": "string", "const": kind}
        member["properties"]["options"] = {"$ref": REF + names[kind]}
        member["properties"]["bots"] = {
            **member["properties"]["bots"],
            "propertyNames": {"pattern": "^[0-9]+$"},
            "additionalProperties": {"type": "string", "enum": list(bots.levels(game))},
        }
        schemas[name] = member
        mapping[kind] = REF + name
    schemas["CreateGame"] = {
        "title": "CreateGame",
        "description": "A new game: its title (`kind`) decides which `options` and bot levels it takes",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    }


SERVER_TIME_HEADER = {
    "description": "The service's time (Unix ms) when it answered: compare clock deadlines with it",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}


def _server_time_on_every_answer(doc: dict[str, Any]) -> None:
    """Every answer carries ``Server-Time-Ms`` (the app stamps each one as it is sent,
    :func:`~service.http.controllers.responses.stamp_server_time`): each response says so, by a
    reference to the one definition (``components.headers``)."""
    doc.setdefault("components", {}).setdefault("headers", {})["ServerTimeMs"] = SERVER_TIME_HEADER
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else ():
                response.setdefault("headers", {})[SERVER_TIME] = {"$ref": HEADERS + "ServerTimeMs"}


UNROUTED = (
    "`not_found`: the path matches no route (a path parameter of the wrong type: a seat that is no number)"
)


def _unrouted_paths(doc: dict[str, Any]) -> None:
    """An operation with path parameters also answers the router's own 404 (``not_found``), for a
    path whose parameter does not fit its type: said beside the operation's own 404 codes."""
    for path, item in doc.get("paths", {}).items():
        if "{" not in path:
            continue
        for operation in item.values():
            found = operation.get("responses", {}).get("404") if isinstance(operation, dict) else None
            if found is not None:
                found["description"] = f"{found['description']}; {UNROUTED}"


SECURITY_SCHEMES: dict[str, dict[str, str]] = {
    "appKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "ymk_<key_id>.<secret>",
        "description": "An app's API key, server to server: `ymk_` then the key's public id (12 lowercase "
        "hex characters), a dot and the secret. Made by the operator (`yamen apps create`, the admin API), "
        "shown once, rotated with an overlap, revocable. The app's games and limits go with it.",
    },
    "playerCredential": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "ymp_<credential_id>.<secret> or JWT",
        "description": "A player: its credential `ymp_<credential_id>.<secret>`, or a short-lived assertion "
        "its app's server signed (a JWT: HS256 or EdDSA, `kid` the app's signing key, `iss` the app id, "
        "`sub` the app's id for the player, `aud` `yamen`, `exp` and `iat`). In a game it acts as the seat "
        "it holds there.",
    },
    "seatToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "ymn.<seat>.<secret>",
        "description": "One seat of one game: `ymn.`, the seat number, a dot and the secret. Shown once, "
        "when the seat is taken.",
    },
    "adminToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "The operator's token (`YAMEN_ADMIN_TOKEN`), for `/v1/admin` only.",
    },
}
"""Every credential the API takes, all ``Authorization: Bearer …``; never in a query string."""

SEAT: list[dict[str, list[str]]] = [{"seatToken": []}, {"playerCredential": []}]
"""A game's operation only a seat may call (a spectator is refused ``token_required``)."""
WATCHER: list[dict[str, list[str]]] = [*SEAT, {"appKey": []}, {}]
"""A game's operation anybody who may see the game calls: a seat, a player, an app, or nobody (a
spectator; the game's visibility decides whether it exists for them)."""
ANYBODY: list[dict[str, list[str]]] = [{"appKey": []}, {"playerCredential": []}, {}]
"""An operation outside any game: an app or a player counts against its app's limits (and a game it
creates is its app's); anybody else calls it anonymously."""


def _security(doc: dict[str, Any]) -> None:
    """The credentials each operation takes (``security``), so generated clients carry them: kept
    where the handler declares its own (the admin API); else a ``{game_id}`` operation that answers
    ``token_required`` needs a seat (:data:`SEAT`), any other game operation is :data:`WATCHER`'s,
    and the rest of ``/v1`` :data:`ANYBODY`'s."""
    doc.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    for path, item in doc.get("paths", {}).items():
        if not path.startswith("/v1/"):
            continue
        for operation in item.values():
            if not isinstance(operation, dict) or "security" in operation:
                continue
            if "{game_id}" in path:
                needs_seat = "`token_required`" in operation.get("responses", {}).get("401", {}).get(
                    "description", ""
                )
                operation["security"] = copy.deepcopy(SEAT if needs_seat else WATCHER)
            else:
                operation["security"] = copy.deepcopy(ANYBODY)


SEAT_PARAMETER: dict[str, Any] = {
    "name": "seat",
    "in": "query",
    "required": False,
    "description": "With a player's credential or assertion: the seat the player acts as, when it holds "
    "several seats of this game (hot seat); its only seat otherwise",
    "schema": {"type": "integer", "minimum": 0, "maximum": 16},
}


def _seat_parameter(doc: dict[str, Any]) -> None:
    """``?seat=`` on every operation a player may call in a game, unless its path names a seat
    already (:func:`service.http.dependencies.game_access` reads it)."""
    for path, item in doc.get("paths", {}).items():
        if "{game_id}" not in path or "{seat}" in path:
            continue
        for operation in item.values():
            if isinstance(operation, dict) and {"playerCredential": []} in operation.get("security", []):
                operation.setdefault("parameters", []).append(copy.deepcopy(SEAT_PARAMETER))


def finish_openapi(document: dict[str, Any], games: dict[str, Game]) -> dict[str, Any]:
    doc = _short_names(copy.deepcopy(document), games)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    _describe_game_types(schemas, games)
    _discriminate(doc, schemas)
    if games:
        _name_unions(doc, games)
    _closed_bodies(doc, games)
    _create_game_by_kind(doc, games)
    _never_null_parameters(doc)
    _nullable_enums_as_unions(schemas)
    _optional_bodies(doc)
    _records_as_bytes(doc)
    _server_time_on_every_answer(doc)
    _unrouted_paths(doc)
    _security(doc)
    _seat_parameter(doc)
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else ():
                for header in response.get("headers", {}).values():
                    if "$ref" not in header:  # Litestar omits the schema; ours are all text
                        header.setdefault("schema", {"type": "string"})
                if "headers" in response:  # Litestar's order varies from run to run
                    response["headers"] = dict(sorted(response["headers"].items()))
    doc.setdefault("info", {})["x-games"] = sorted(games)
    return doc


class Finished(OpenAPIRenderPlugin):
    """One of Litestar's renderings of the document (JSON, YAML, a browsing page) given the finished
    document (the app's ``openapi_document``: what ``yamen openapi`` writes) instead of Litestar's
    raw one, whose schema names run to thousands of characters and which has no descriptions."""

    def __init__(self, inner: OpenAPIRenderPlugin) -> None:
        super().__init__(
            path=inner.paths, media_type=inner.media_type, favicon=inner.favicon, style=inner.style
        )
        self.inner = inner

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return self.inner.render(request, request.app.state.openapi_document(request.app))

    def receive_router(self, router: Router) -> None:
        self.inner.receive_router(router)


def render_plugins() -> list[OpenAPIRenderPlugin]:
    """What ``/schema`` serves (Litestar's usual set: Redoc at ``/schema`` itself), every one of
    them the finished document."""
    return [
        Finished(plugin)
        for plugin in (
            RedocRenderPlugin(),
            SwaggerRenderPlugin(),
            RapidocRenderPlugin(),
            StoplightRenderPlugin(),
            JsonRenderPlugin(),
            YamlRenderPlugin(),
        )
    ]

"""The AsyncAPI 3 document of the realtime channel (``/v1/ws``), built from the message types.

The messages' schemas are msgspec's (:mod:`service.application.realtime`); what they carry of the
games — a command, an event envelope, a move's answer — is the OpenAPI document's own components
(``Command``, ``EventEnvelope``, ``MoveResult``, …), copied in under the same names, so both
contracts describe one set of types.  Served at ``/v1/asyncapi.json``; committed as
``asyncapi/asyncapi.yaml`` (``python -m service.http.asyncapi`` writes it; a test keeps it in sync
and ``@asyncapi/parser`` validates it).
"""

from __future__ import annotations

import copy
import pathlib
import sys
from typing import Any

import msgspec

from ..application import realtime as rt
from .realtime import CLOSE_CODES, PATH

REF = "#/components/schemas/{name}"

CLIENT_MESSAGES: dict[str, type[msgspec.Struct]] = {
    "hello": rt.Hello,
    "subscribe": rt.Subscribe,
    "unsubscribe": rt.Unsubscribe,
    "move": rt.Move,
    "get_legal_moves": rt.GetLegalMoves,
    "ping": rt.Ping,
    "pong": rt.Pong,
}
SERVER_MESSAGES: dict[str, type[msgspec.Struct]] = {
    "welcome": rt.Welcome,
    "subscribed": rt.Subscribed,
    "unsubscribed": rt.Unsubscribed,
    "events": rt.Events,
    "table": rt.TableChanged,
    "end": rt.Ended,
    "move_result": rt.MoveAnswered,
    "legal_moves": rt.LegalMovesAnswered,
    "problem": rt.ProblemMessage,
    "ping": rt.Ping,
    "pong": rt.Pong,
}

DESCRIPTION = """\
One WebSocket per client for moves and every game it follows: the same rooms as the HTTP API
(the same judge, the same redaction, the same problem codes), without an HTTP request per move.
See docs/realtime.md.

**Opening.** `GET /v1/ws` upgraded to a WebSocket; every frame is one JSON message (text frames)
with a `type`. A browser's `Origin` must be one the service allows (`YAMEN_CORS_ORIGINS`) or its
own. No long-lived secret goes in the URL: send the credential in the first message `hello`
(`credential`: what HTTP takes after `Authorization: Bearer`), or in the upgrade request's
`Authorization` header, or open with a short-lived stream ticket (`?ticket=` from
`POST /v1/games/{game_id}/events/tickets`), which follows its game as its seat, read only.

**The first message is `hello`**; the server answers `welcome` with the connection's limits.

**Resume.** `subscribe` with `after` = the last `seq` received: every later event arrives exactly
once, in order, then the new ones, whichever server the client reconnected to.

**Close codes.**

""" + "\n".join(f"- `{code}` {why}" for code, why in CLOSE_CODES.items())


def _message(name: str, struct: type[msgspec.Struct]) -> dict[str, Any]:
    doc = (struct.__doc__ or "").strip()
    message: dict[str, Any] = {
        "name": name,
        "title": name,
        "contentType": "application/json",
        "payload": {"$ref": REF.format(name=struct.__name__)},
    }
    if doc:
        message["summary"] = " ".join(doc.split("\n\n")[0].split())
    return message


def _reachable(schemas: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    """The OpenAPI components *roots* refer to, transitively."""
    seen: dict[str, Any] = {}
    stack = list(roots)
    prefix = "#/components/schemas/"
    while stack:
        name = stack.pop()
        if name in seen or name not in schemas:
            continue
        seen[name] = schemas[name]

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith(prefix):
                    stack.append(ref[len(prefix) :])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(schemas[name])
    return dict(sorted(seen.items()))


def _asyncapi_schema(node: Any) -> Any:
    """OpenAPI's schema dialect as AsyncAPI's: a ``discriminator`` names the property only (AsyncAPI
    has no ``mapping``: the tag's ``const`` in each option says it)."""
    if isinstance(node, dict):
        found = {k: _asyncapi_schema(v) for k, v in node.items()}
        discriminator = found.get("discriminator")
        if isinstance(discriminator, dict):
            found["discriminator"] = discriminator["propertyName"]
        return found
    if isinstance(node, list):
        return [_asyncapi_schema(v) for v in node]
    return node


def document(openapi: dict[str, Any], version: str) -> dict[str, Any]:
    """The AsyncAPI 3.1 document, its game types taken from the finished *openapi* document."""
    structs = list(dict.fromkeys([*CLIENT_MESSAGES.values(), *SERVER_MESSAGES.values()]))
    _, own = msgspec.json.schema_components(structs, ref_template=REF)
    own.pop("EventEnvelope_Any_", None)
    own["Move"]["properties"]["command"] = {
        "$ref": REF.format(name="Command"),
        "description": "A command of the game (the same union as `POST /v1/games/{game_id}/moves` takes)",
    }
    own["LegalMovesAnswered"]["properties"]["result"] = {
        "$ref": REF.format(name="LegalMoves"),
        "description": "The body `GET /v1/games/{game_id}/legal-moves` answers",
    }
    own["Events"]["properties"]["events"]["items"] = {"$ref": REF.format(name="EventEnvelope")}
    own["MoveAnswered"]["properties"]["result"] = {
        "$ref": REF.format(name="MoveResult"),
        "description": "The body `POST /v1/games/{game_id}/moves` answers",
    }
    games = _reachable(
        openapi["components"]["schemas"], ["Command", "EventEnvelope", "MoveResult", "LegalMoves", "SeatInfo"]
    )
    schemas = {**_asyncapi_schema(copy.deepcopy(games)), **{k: v for k, v in own.items() if k not in games}}
    channel_messages = {
        **{f"{name}": {"$ref": f"#/components/messages/{name}"} for name in CLIENT_MESSAGES},
        **{f"{name}": {"$ref": f"#/components/messages/{name}"} for name in SERVER_MESSAGES},
    }
    return {
        "asyncapi": "3.1.0",
        "info": {"title": "Yamen realtime channel", "version": version, "description": DESCRIPTION},
        "defaultContentType": "application/json",
        "channels": {
            "realtime": {
                "address": PATH,
                "title": "The realtime socket",
                "description": "One connection follows several games, as a seat or spectator, and moves.",
                "messages": channel_messages,
                "bindings": {
                    "ws": {
                        "method": "GET",
                        "query": {
                            "type": "object",
                            "properties": {
                                "ticket": {
                                    "type": "string",
                                    "maxLength": 128,
                                    "description": "A stream ticket (instead of a credential): read only",
                                }
                            },
                        },
                        "bindingVersion": "0.1.0",
                    }
                },
            }
        },
        "operations": {
            "receiveClientMessages": {
                "action": "receive",
                "channel": {"$ref": "#/channels/realtime"},
                "title": "What a client sends",
                "messages": [{"$ref": f"#/channels/realtime/messages/{name}"} for name in CLIENT_MESSAGES],
            },
            "sendServerMessages": {
                "action": "send",
                "channel": {"$ref": "#/channels/realtime"},
                "title": "What the server sends",
                "messages": [{"$ref": f"#/channels/realtime/messages/{name}"} for name in SERVER_MESSAGES],
            },
        },
        "components": {
            "messages": {
                **{name: _message(name, t) for name, t in CLIENT_MESSAGES.items()},
                **{name: _message(name, t) for name, t in SERVER_MESSAGES.items()},
            },
            "schemas": schemas,
        },
    }


COMMITTED = pathlib.Path(__file__).resolve().parents[2] / "asyncapi" / "asyncapi.yaml"


def render_yaml(doc: dict[str, Any]) -> str:
    import yaml  # type: ignore[import-untyped]  # a development tool's: the service serves JSON

    class Dumper(yaml.SafeDumper):  # type: ignore[misc]
        pass

    def text(dumper: Any, value: str) -> Any:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return str(yaml.dump(doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100))


def production_document() -> dict[str, Any]:
    """The document of the production titles (what ``asyncapi/asyncapi.yaml`` holds)."""
    from ..cli import openapi_document
    from .app import API_VERSION

    return document(openapi_document(), API_VERSION)


if __name__ == "__main__":  # pragma: no cover - python -m service.http.asyncapi [output]
    target = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else COMMITTED
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_yaml(production_document()))
    print(f"wrote {target}")

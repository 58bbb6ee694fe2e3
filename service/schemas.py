"""The HTTP contract's documents.  Types that carry a game's commands, events or views are built
per app from the registry (``contract_types``), so the OpenAPI document names every game's
commands as one tagged union with a discriminator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

import msgspec

from domain.kernel import Game, Outcome, union_of

from .audit import Verification
from .games import SeatInfo, SeatToken


class CatalogueEntry(msgspec.Struct, kw_only=True):
    kind: str
    title: str
    summary: str
    rules_version: str
    player_counts: list[int]
    options_schema: dict[str, Any]
    """JSON Schema of the ``options`` object accepted when creating a game of this kind."""
    variants: dict[str, str]


class Catalogue(msgspec.Struct, kw_only=True):
    games: list[CatalogueEntry]


class CreateGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: str
    """A kind from ``/v1/catalogue``."""
    options: dict[str, Any] = {}
    """The game's options (``players`` and variants); see the kind's ``options_schema``."""
    seed: Optional[str] = None
    """A seed for a reproducible test game; omit it for a secret random seed."""
    take_seats: Literal["all", "none"] | list[int] = "all"
    """Seats whose tokens the creator takes now (hot seat, bots); the rest wait for a join."""


class GameCreated(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    version: int
    players: int
    seed_commitment: str
    """SHA-256 of the secret seed; the seed itself is revealed when the game ends."""
    tokens: list[SeatToken]


class Joined(msgspec.Struct, kw_only=True):
    game_id: str
    seat: int
    token: str
    status: str


class GameSummary(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    players: int
    open_seats: list[int]
    version: int
    created_at: str


class GameList(msgspec.Struct, kw_only=True):
    games: list[GameSummary]
    next_cursor: Optional[str] = None


class Imported(msgspec.Struct, kw_only=True):
    game_id: str
    """The id the imported game is stored under here."""
    kind: str
    version: int
    imported_from: str
    """The game's id where it was played."""
    verification: Verification


class Health(msgspec.Struct, kw_only=True):
    status: str
    postgres: str = "unknown"
    redis: str = "unknown"


@dataclass(frozen=True)
class ContractTypes:
    command: Any
    event_envelope: type
    document: type
    legal_moves: type
    move_result: type
    history: type


def contract_types(games: dict[str, Game]) -> ContractTypes:
    games_sorted = [games[k] for k in sorted(games)]
    command = union_of(tuple(t for g in games_sorted for t in g.command_types))
    event = union_of(tuple(t for g in games_sorted for t in g.event_types))
    view = union_of(tuple(g.view_type for g in games_sorted))
    envelope = msgspec.defstruct(
        "EventEnvelope",
        [("seq", int), ("seat", Optional[int]), ("recorded_at", str), ("event", Optional[event])],
        kw_only=True,
        module="service.schemas",
    )
    document = msgspec.defstruct(
        "GameDocument",
        [
            ("game_id", str),
            ("kind", str),
            ("title", str),
            ("rules_version", str),
            ("status", str),
            ("version", int),
            ("players", int),
            ("seats", list[SeatInfo]),
            ("viewer", Optional[int]),
            ("to_act", list[int]),
            ("view", view),
            ("outcome", Optional[Outcome]),
            ("seed_commitment", str),
            ("seed", Optional[str]),
            ("created_at", str),
            ("revealed_state", Optional[dict[str, Any]], None),
        ],
        kw_only=True,
        module="service.schemas",
    )
    legal = msgspec.defstruct(
        "LegalMoves",
        [("version", int), ("seat", Optional[int]), ("moves", list[command])],
        kw_only=True,
        module="service.schemas",
    )
    result = msgspec.defstruct(
        "MoveResult",
        [("version", int), ("status", str), ("events", list[envelope])],
        kw_only=True,
        module="service.schemas",
    )
    history = msgspec.defstruct(
        "History",
        [("version", int), ("events", list[envelope]), ("next_after", Optional[int])],
        kw_only=True,
        module="service.schemas",
    )
    return ContractTypes(command, envelope, document, legal, result, history)

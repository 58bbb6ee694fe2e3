"""The games an app serves, as the types its handlers are annotated with.

Controllers are module-level classes annotated with the names ``Command``, ``Event`` and ``View``;
each app resolves those names to the union of *its* games' commands, events and views through
Litestar's ``signature_namespace``.  So one controller serves apps with different sets of games,
and each app's OpenAPI document lists exactly its games in every tagged union.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Game, union_of


def signature_namespace(games: dict[str, Game]) -> dict[str, Any]:
    """``Command``, ``Event`` and ``View``: each the tagged union over *games* (in kind order)."""
    ordered = [games[kind] for kind in sorted(games)]
    return {
        "Command": union_of(tuple(t for g in ordered for t in g.command_types)),
        "Event": union_of(tuple(t for g in ordered for t in g.event_types)),
        "View": union_of(tuple(g.view_type for g in ordered)),
    }

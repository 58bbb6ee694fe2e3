"""Human labels and descriptions of every option a title takes, served with the catalogue
(``option_labels``), so a front end never shows a raw key such as ``zombie_after``.

The description is the option's own, from its type's docstring in the title's options schema;
the table's options (clock, take-backs, zombie rule: :mod:`domain.kernel.table`), which every
title shares, and the few options a title left undescribed are described here.  Labels are short
names in the rules' words; a key this table does not know is labelled from the key itself."""

from __future__ import annotations

from typing import Any

import msgspec


class OptionLabel(msgspec.Struct, kw_only=True):
    label: str
    """A short name to show beside the option's control: "Take-backs"."""
    description: str
    """What the option does, in a sentence or two."""


LABELS: dict[str, str] = {
    "players": "Players",
    "table": "Table",
    "chapter": "Chapter",
    "map": "District boards",
    "talents": "Talents",
    "action_tiles": "Action tiles",
    "mixed_ages": "Mixed Ages drafting",
    "shops": "Shop tiles",
    "pointer": "Special Action Pointer",
    "goals": "Scoring goals",
    "upkeep": "Upkeep board",
    "overlay": "Final scoring overlay",
    "variant": "Advanced 2-player variant",
    "difficulty": "Solo bot difficulty",
    "crowdfunding": "Crowdfunding promo",
    "storyline": "Solo storyline",
    "table.clock": "Clock",
    "table.takebacks": "Take-backs",
    "table.zombie_after": "Bot takes over after",
    "table.clock.mode": "Clock kind",
    "table.clock.seconds": "Seconds",
    "table.clock.increment": "Increment (seconds)",
    "table.clock.days": "Days",
    "table.clock.on_timeout": "On timeout",
}

DESCRIPTIONS: dict[str, str] = {
    "players": "How many seats the game has.",
    "table": "How the table is run: a clock, take-backs, and when a bot takes over a silent seat.",
    "table.clock": "No clock (the default), seconds per decision, a chess clock for the whole game, "
    "or days per decision (correspondence).",
    "table.takebacks": "off: moves are final; consent: a seat may ask the others to take its last "
    "move back; free: take back at will (only when one player holds every seat, or solo).",
    "table.zombie_after": "With a clock whose timeout lets a bot decide: after this many timeouts "
    "a bot plays the seat for good (0: never).",
    "table.clock.mode": "decision: seconds per decision; total: seconds per seat for the game plus "
    "an increment per move; correspondence: days per decision.",
    "table.clock.seconds": "Seconds per decision, or per seat for the whole game (total).",
    "table.clock.increment": "Seconds added to a seat's clock after each of its moves (total).",
    "table.clock.days": "Days per decision (correspondence).",
    "table.clock.on_timeout": "bot: a bot decides for the seat; forfeit: the seat forfeits the game.",
}


def _label(key: str) -> str:
    known = LABELS.get(key)
    if known is not None:
        return known
    last = key.rsplit(".", 1)[-1].replace("_", " ")
    return last[:1].upper() + last[1:]


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """*node* with a ``$ref`` (directly, or as the one non-null part of an ``anyOf``) resolved."""
    defs: dict[str, Any] = schema.get("$defs", {})
    parts = [part for part in node.get("anyOf", [node]) if part.get("type") != "null"]
    for part in parts:
        ref = part.get("$ref")
        if isinstance(ref, str):
            found: dict[str, Any] = defs.get(ref.rsplit("/", 1)[-1], {})
            return found
    return node


def _description(node: dict[str, Any]) -> str:
    if node.get("description"):
        return str(node["description"])
    for part in node.get("anyOf", []):
        if part.get("description"):
            return str(part["description"])
    return ""


def option_labels(schema: dict[str, Any]) -> dict[str, OptionLabel]:
    """Every option of the options *schema* (JSON Schema as msgspec writes it), nested ones by
    their dotted path (``table.clock.seconds``): its label and description."""
    labels: dict[str, OptionLabel] = {}

    def walk(node: dict[str, Any], prefix: str, depth: int) -> None:
        for name, property_ in _resolve(schema, node).get("properties", {}).items():
            key = f"{prefix}{name}"
            description = _description(property_) or DESCRIPTIONS.get(key, "")
            labels[key] = OptionLabel(label=_label(key), description=description)
            if depth < 3:
                walk(property_, f"{key}.", depth + 1)

    walk(schema, "", 0)
    return labels

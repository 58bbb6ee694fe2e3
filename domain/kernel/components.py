"""Component data: every value of a game's tiles, cards and tracks, in one data file per game.

The rulebooks print some values and only name or picture others; Yamen assumes the rest.  A
game's data file (JSON, in its package) holds all of them, each entry saying whether it is
printed (and where) or assumed (and why), so an owner of the physical game can check the file
against the components and replace assumed values without touching code.  The file is decoded
into the game's typed structs when the package is imported — a value of the wrong type, a
missing field or a broken invariant (``__post_init__``) stops the game from loading, with the
entry named — and ``yamen components check KIND FILE`` runs the same validation on any file.

A changed value changes how the game plays: it is a rules change, and bumps the rules version.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

T = TypeVar("T")


class ComponentDataError(ValueError):
    """A component data file that does not decode or breaks an invariant."""


class Entry(msgspec.Struct, kw_only=True, frozen=True):
    """What every entry of a component data file carries besides its values."""

    printed: bool = False
    """True when the rulebook prints this entry's values."""
    source: str = ""
    """Where the rulebook prints them (section, page), or — for an assumed entry — what the
    assumption rests on."""

    def __post_init__(self) -> None:
        if not self.source:
            raise ValueError("every entry says where its values come from (`source`)")


@dataclass(frozen=True)
class ComponentFile(Generic[T]):
    """A game's data file: where it lives and the type it decodes to."""

    package: str
    filename: str
    type: type[T]

    def load(self) -> T:
        """The packaged file, decoded and validated."""
        data = importlib.resources.files(self.package).joinpath(self.filename).read_bytes()
        return self.check(data, origin=f"{self.package}/{self.filename}")

    def check(self, data: bytes, *, origin: str = "component data") -> T:
        """*data* decoded into the game's types, or :class:`ComponentDataError` naming the entry."""
        try:
            return msgspec.json.decode(data, type=self.type)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ComponentDataError(f"{origin}: {exc}") from None

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the file (for editors and for owners replacing values)."""
        return msgspec.json.schema(self.type)

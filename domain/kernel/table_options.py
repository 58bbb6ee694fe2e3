"""The table's options (``options.table`` of every title): kept apart from :mod:`.table` so the
kernel's ``Options`` can carry them."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

MAX_SECONDS = 30 * 24 * 3600


class Clock(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A game clock."""

    mode: Literal["decision", "total", "correspondence"]
    """``decision``: ``seconds`` per decision; ``total``: ``seconds`` per seat for the game, plus
    ``increment`` after each of its decisions; ``correspondence``: ``days`` per decision."""
    seconds: Annotated[int, Meta(ge=1, le=MAX_SECONDS)] = 60
    increment: Annotated[int, Meta(ge=0, le=3600)] = 0
    days: Annotated[int, Meta(ge=1, le=30)] = 3
    on_timeout: Literal["bot", "forfeit"] = "bot"
    """What happens when a seat's time runs out: a bot decides for it, or the seat resigns."""


class TableOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """The table's options, beside the title's own (``options.table``)."""

    clock: Clock | None = None
    takebacks: Literal["off", "consent", "free"] = "off"
    """``consent``: the other seats played by people agree to each take-back; ``free``: no consent
    (solo and hot-seat games only: the service refuses it elsewhere)."""
    zombie_after: Annotated[int, Meta(ge=0, le=100)] = 3
    """Timeouts after which a seat is replaced by a bot for the rest of the game (0: never)."""


NO_TABLE = TableOptions()

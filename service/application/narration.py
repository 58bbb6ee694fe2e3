"""The narrated feed: each event of a game told in one line, in the game's words (what
``yamen replay`` says, :mod:`service.record.narrate`), for a reader who sees the event as it is
redacted for them.

A title narrates an event from the table just before it (``Game.describe(state, event)``), so a
narrator folds the game's events in order.  The line is made from the event *as the reader sees
it* (:func:`domain.kernel.redact_for`): a card drawn behind a screen is told as "draws 2 cards",
never which; an event hidden from the reader entirely has no line.  The table before it only names
public things (a ruler's order, a seat), which every reader sees anyway."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.kernel import Event, Game

from ..codec import GameCodec
from ..infra.store import EventStore


class Narrator:
    """Narrates one game's events in order, starting from the table *state* before the first."""

    def __init__(self, game: Game, state: Any) -> None:
        self.game = game
        self.state = state

    def line(self, event: Event, shown: Event | None) -> str | None:
        """The line for *event* as its reader sees it (*shown*: the redacted form, None when
        hidden), then the table moves past *event* (the full one: the table is the server's)."""
        describe = self.game.describe
        text = describe(self.state, shown) if shown is not None and describe is not None else ""
        self.state = self.game.evolve(self.state, event)
        return text or None  # "": bookkeeping the title chose not to narrate


async def narrator(
    store: EventStore, game_id: str, game: Game, codec: GameCodec, options_json: bytes, before: int
) -> Narrator:
    """A narrator for the events after *before* (the table folded from the game's first event)."""
    state = game.initial(codec.decode_options_json(options_json))
    if before > 0:
        earlier: Iterable[Any] = await store.events(game_id, upto=before)
        state = game.fold(state, (codec.decode_event(stored.payload) for stored in earlier))
    return Narrator(game, state)

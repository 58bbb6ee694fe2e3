"""What the use cases tell each other about a game, without holding each other.

A move or a change to a table is made by :mod:`.moves` and :mod:`.seats`; what follows from it
belongs to others — the bots take their turn (:mod:`.bots`), the app's server is told
(:mod:`.webhooks`), the seats' phones are pushed (:mod:`.push`), a finished game is rated
(:mod:`.ratings`).  Those others need :mod:`.seats` and :mod:`.moves` themselves, so neither can be
handed its listeners when it is built.  One :class:`GameHooks` is built first and handed to each
at construction: the makers of a change call it, and each listener subscribes itself in its own
constructor.  Nobody sets another object's attributes afterwards.

Listeners run in the order they subscribed (the order :class:`~service.application.Application`
builds them in); the synchronous ones only schedule work (a job, a pump) and never fail a move.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from domain.kernel import Seat

Changed = Callable[[str], None]
Moved = Callable[[str, list[Seat], Any], Awaitable[None]]
TableChanged = Callable[[str], Awaitable[None]]


class GameHooks:
    """The four things said about a game, each to its listeners."""

    __slots__ = ("_changed", "_finished", "_moved", "_rated", "_table_changed")

    def __init__(self) -> None:
        self._changed: list[Changed] = []
        self._finished: list[Changed] = []
        self._rated: list[Changed] = []
        self._moved: list[Moved] = []
        self._table_changed: list[TableChanged] = []

    # --- subscribing (each listener, in its constructor) ----------------------------------------
    def on_changed(self, listener: Changed) -> None:
        """After every committed move and every change to a game's table: created, rematched (the
        rematch and the finished game), a seat claimed, handed to a bot or taken back."""
        self._changed.append(listener)

    def on_finished(self, listener: Changed) -> None:
        """After the move that finished a game."""
        self._finished.append(listener)

    def on_rated(self, listener: Changed) -> None:
        """After a finished game's ratings were settled (rated, or why it was not)."""
        self._rated.append(listener)

    def on_moved(self, listener: Moved) -> None:
        """After a move is committed and announced, with who is to act now and the state."""
        self._moved.append(listener)

    def on_table_changed(self, listener: TableChanged) -> None:
        """After a change that may put a bot seat to act: a game created with bot seats, the last
        claim, a seat handed to a bot."""
        self._table_changed.append(listener)

    # --- telling (the makers of a change) -------------------------------------------------------
    def changed(self, game_id: str) -> None:
        for listener in self._changed:
            listener(game_id)

    def finished(self, game_id: str) -> None:
        for listener in self._finished:
            listener(game_id)

    def rated(self, game_id: str) -> None:
        for listener in self._rated:
            listener(game_id)

    async def moved(self, game_id: str, to_act: list[Seat], state: Any) -> None:
        for listener in self._moved:
            await listener(game_id, to_act, state)

    async def table_changed(self, game_id: str) -> None:
        for listener in self._table_changed:
            await listener(game_id)

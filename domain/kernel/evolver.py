"""Evolve by handlers: one small function per event type, found by the event's type.

Every title folds its log the same way, so the loop is written once, here.  A title names its
handlers beside the events they apply (``domain/<title>/evolve.py``) and builds one
:class:`Evolver` from them and the table's (``domain.kernel.table.handlers``)::

    EVOLVER = Evolver({RoundStarted: round_started, ...} | table_handlers(State, to_act))
    GAME = Game(..., evolve=EVOLVER.evolve, fold_events=EVOLVER.fold)

An evolver is built once and never changed: nothing is registered at import time, and two
evolvers (say, a title's own events only, and its events with the table's) never share a table.

Applying a fact costs one dictionary look-up and one call; :meth:`Evolver.fold` is the hot loop of
every load (the events after a snapshot), so it binds what it reads before the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

State = TypeVar("State")

Handler = Callable[[Any, Any], None]
"""``handler(state, event)``: applies one fact to *state* in place; never validates, never fails."""


class Evolver(Generic[State]):
    """A title's ``evolve`` and ``fold``, from its handlers.

    *after_each*, when given, runs after every event's handler: a title whose events also close
    something every event can close (Pingyao's pending decision frames) says so once, here,
    rather than in each handler."""

    __slots__ = ("_after_each", "_handlers", "handlers")

    def __init__(
        self,
        handlers: Mapping[type, Handler],
        *,
        after_each: Handler | None = None,
    ) -> None:
        self._handlers: dict[type, Handler] = dict(handlers)
        self._after_each = after_each
        self.handlers: Mapping[type, Handler] = MappingProxyType(self._handlers)
        """Event type -> its handler (read-only: an evolver never changes once built)."""

    def extended(self, more: Mapping[type, Handler]) -> Evolver[State]:
        """A new evolver that also applies *more* (the table's events, say); this one is unchanged."""
        clash = self._handlers.keys() & more.keys()
        if clash:
            names = ", ".join(sorted(t.__name__ for t in clash))
            raise ValueError(f"two handlers for the same event type: {names}")
        return Evolver({**self._handlers, **more}, after_each=self._after_each)

    def evolve(self, state: State, event: Any) -> State:
        """Apply one fact to *state* (in place) and return it."""
        self._handlers[type(event)](state, event)
        if self._after_each is not None:
            self._after_each(state, event)
        return state

    def fold(self, state: State, events: Iterable[Any]) -> State:
        """:meth:`evolve` over *events* in order, in one loop."""
        handlers = self._handlers
        after_each = self._after_each
        if after_each is None:
            for event in events:
                handlers[type(event)](state, event)
        else:
            for event in events:
                handlers[type(event)](state, event)
                after_each(state, event)
        return state

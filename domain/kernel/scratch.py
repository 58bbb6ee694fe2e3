"""Deciding through a scratch copy: a command's events are folded as they are emitted.

Many decisions cannot be written down in one go: taking a tile may end the round, which starts
the next one, which draws from a bag.  ``decide`` must never touch the state it was given, so
it works on a :class:`Scratch` — a private copy that applies each event the moment it is
emitted, so every later step of the same decision sees the table as the rules say it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import msgspec

from .game import Event
from .rng import Rng

S = TypeVar("S")


def clone(state: S) -> S:
    """A deep copy of a msgspec-typed state, for decisions that look ahead through their events."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=type(state))


class Scratch(Generic[S]):
    """A copy of the state that folds every event the moment it is emitted.

    ``state`` is the copy (the events so far applied), ``events`` what was emitted, in order, and
    ``rng`` the command's random stream.  *copy* makes the copy: :func:`clone` unless a game has
    a cheaper one for its own state type.
    """

    __slots__ = ("_evolve", "events", "rng", "state")

    def __init__(
        self,
        state: S,
        evolve: Callable[[S, Event], S],
        rng: Rng,
        *,
        copy: Callable[[S], S] = clone,
    ) -> None:
        self.state: S = copy(state)
        self.events: list[Event] = []
        self.rng = rng
        self._evolve = evolve

    def emit(self, *events: Event) -> None:
        """Record *events* and apply them to the copy, in order."""
        append, evolve, state = self.events.append, self._evolve, self.state
        for event in events:
            append(event)
            state = evolve(state, event)
        self.state = state

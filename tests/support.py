"""Shared test helpers: given/when/then for rules, and random playouts for any game.

Given/when/then reads like the rulebook's examples::

    given(GAME, events).when(seat, command).then(expected_events)
    given(GAME, events).when(seat, command).raises("not_your_turn")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.kernel import Command, Event, Game, Options, Rng, RuleViolation, Seat, clone, redact_for


@dataclass
class _When:
    game: Game
    state: Any
    seat: Seat
    command: Command
    rng: Rng

    def events(self) -> list[Event]:
        before = msgspec.msgpack.encode(self.state)
        events = self.game.decide(self.state, self.seat, self.command, self.rng)
        assert msgspec.msgpack.encode(self.state) == before, "decide must not mutate the state"
        return events

    def then(self, expected: Sequence[Event]) -> Any:
        """Assert the emitted events; returns the state they fold to."""
        events = self.events()
        assert list(events) == list(expected)
        return self.game.fold(clone(self.state), events)

    def raises(self, code: str) -> RuleViolation:
        try:
            events = self.game.decide(self.state, self.seat, self.command, self.rng)
        except RuleViolation as violation:
            assert violation.code == code, f"expected {code!r}, got {violation.code!r}: {violation}"
            return violation
        raise AssertionError(f"expected RuleViolation {code!r}, got events {events!r}")


@dataclass
class _Given:
    game: Game
    state: Any

    def when(self, seat: Seat, command: Command, *, seed: str = "test", position: int = 0) -> _When:
        return _When(self.game, self.state, seat, command, Rng(seed, position))


def given(game: Game, events: Sequence[Event], options: Options | None = None) -> _Given:
    opts = options if options is not None else game.options_type()
    return _Given(game, game.fold(game.initial(opts), events))


def given_state(game: Game, state: Any) -> _Given:
    return _Given(game, state)


@dataclass
class Playout:
    state: Any
    events: list[Event]
    moves: int


def random_playout(
    game: Game,
    options: Options,
    seed: str,
    *,
    max_moves: int = 20_000,
    check: Callable[[Any, list[Event]], None] | None = None,
    check_all_legal_moves: bool = False,
) -> Playout:
    """Play one complete game choosing uniformly among the legal moves.

    At every step: somebody must act until the game ends, each acting seat has a legal move,
    the chosen move is accepted, events round-trip through msgpack/JSON, and redacted events
    never carry hidden facts to another seat.  The finished game is re-folded from its events and
    must reach the identical state.
    """
    state, events = game.start(options, seed)
    events = list(events)
    chooser = Rng(seed + "/chooser")
    moves = 0
    event_union = _event_union(game)
    while game.outcome(state) is None:
        seats = game.to_act(state)
        assert seats, "nobody can act but the game has no outcome"
        seat = seats[chooser.below(len(seats))]
        legal = game.legal_moves(state, seat)
        assert legal, f"seat {seat} must act but has no legal move"
        candidates = legal if check_all_legal_moves else [chooser.choice(legal)]
        if check_all_legal_moves:
            for candidate in legal:
                game.decide(state, seat, candidate, Rng(seed, len(events)))
        command = chooser.choice(candidates)
        new = game.decide(state, seat, command, Rng(seed, len(events)))
        assert new, f"an accepted command must record at least one event: {command!r}"
        for event in new:
            blob = msgspec.msgpack.encode(event)
            assert msgspec.msgpack.decode(blob, type=event_union) == event
            seats_allowed = event.visible_to()
            if seats_allowed is not None:
                for viewer in [None, *range(options.players)]:
                    if viewer not in seats_allowed:
                        assert redact_for(event, viewer) != event, f"{event!r} leaks to {viewer}"
        state = game.fold(state, new)
        events.extend(new)
        if check is not None:
            check(state, events)
        moves += 1
        assert moves < max_moves, "game did not end"
    assert game.to_act(state) == [], "a finished game must have nobody to act"
    refolded = game.fold(game.initial(options), events)
    assert msgspec.msgpack.encode(refolded) == msgspec.msgpack.encode(state), "re-fold differs"
    snapshot = msgspec.msgpack.encode(state)
    assert msgspec.msgpack.encode(msgspec.msgpack.decode(snapshot, type=game.state_type)) == snapshot
    return Playout(state=state, events=events, moves=moves)


_unions: dict[str, Any] = {}


def _event_union(game: Game) -> Any:
    from domain.kernel import union_of

    if game.kind not in _unions:
        _unions[game.kind] = union_of(game.event_types)
    return _unions[game.kind]

"""The contract every game implements: the Decider shape plus views and redaction.

A game is a package exposing one :class:`Game` value built from pure functions::

    initial(options)                  -> State      the empty table before setup
    setup(options, rng)               -> [Event]    the opening events (seating, shuffles, draws)
    decide(state, seat, command, rng) -> [Event]    validates; raises RuleViolation
    evolve(state, event)              -> State      applies a fact; never validates, never fails
    to_act(state)                     -> [Seat]     who must answer now (several for simultaneous choices)
    legal_moves(state, seat)          -> [Command]  every legal command for that seat now
    view(state, seat | None)          -> View       what that seat (or a spectator) may see
    outcome(state)                    -> Outcome | None

``evolve`` may update the state in place and returns it: folding a long game must stay close to
the cost of decoding its events.  ``decide`` must never mutate the state it is given (use
a :class:`~domain.kernel.scratch.Scratch` copy when a decision has to look ahead through its own events).

Randomness: ``decide`` draws from the :class:`~domain.kernel.rng.Rng` it is handed and records
each outcome in an event, so ``evolve`` never needs the generator and a replay cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from msgspec import UNSET, UnsetType

from .errors import InvalidOptions
from .rng import Rng
from .table_options import TableOptions

if TYPE_CHECKING:
    from .components import ComponentFile

Seat = int
"""Seats are numbered 0..players-1 in player order."""


class Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    """An intention, named in the imperative (``PurchaseGood``).

    Each game derives its own base with a namespaced tag, e.g.
    ``class YangtzeCommand(Command, tag=lambda name: f"yangtze.{name}")``, so that commands of all
    games form one tagged union in the OpenAPI document.
    """


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    """A fact, named in the past tense (``GoodPurchased``).  Stored forever: new fields get
    defaults, a field's type never changes, unknown fields are skipped by old readers.

    Hidden information: an event whose facts not every seat may see overrides
    :meth:`visible_to` (the seats that may see it in full; ``()`` means nobody until the game
    ends) and :meth:`redacted` (what everybody else sees, or ``None`` to hide the event
    entirely).
    """

    def visible_to(self) -> tuple[Seat, ...] | None:
        """The seats allowed to see this event in full, or ``None`` when it is public."""
        return None

    def redacted(self) -> Event | None:
        """The form shown to a seat (or spectator) not in :meth:`visible_to`."""
        return None


class View(msgspec.Struct, kw_only=True, tag_field="kind"):
    """What one seat (or a spectator) may see of a game.  Each game subclasses it with
    ``tag="<kind>"``."""


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Options every game accepts; games subclass it with their variants."""

    players: int = 4
    """Number of seats."""
    table: TableOptions | UnsetType = UNSET
    """The table around the game: a clock, take-backs, when a seat that keeps timing out is replaced
    by a bot (``domain.kernel.table``).  Unset: none of these (and options encode as before)."""


class SeatScore(msgspec.Struct, frozen=True, kw_only=True):
    seat: Seat
    score: int
    rank: int
    """1 for the winner(s); equal ranks mean a shared place after every tie-break."""
    breakdown: dict[str, int] = {}
    """Points by scoring step, named as in the rulebook."""
    tiebreak: list[int] = []
    """The values compared, in order, when scores are equal (e.g. copper, then reputation)."""


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """The result of a finished game."""

    winners: list[Seat]
    scores: list[SeatScore]
    summary: str = ""
    """A sentence a player would say: who won and by how much."""
    details: dict[str, Any] = {}
    """Game-specific final details (e.g. Yangtze's best partition of each player's goods)."""


class TimedType(Protocol):
    """A title's ``Timed`` command type (``domain.kernel.table.timed_type``), by its constructor: the
    table's module imports this one, so this one names it by what it does."""

    def __call__(self, *, at_ms: int, command: Command) -> Command: ...


@dataclass(frozen=True)
class Game:
    """One title's rules, as pure functions.  The registry maps ``kind`` to one of these."""

    kind: str
    title: str
    rules_version: str
    """Bumped whenever a rules change could alter the outcome of a stored game."""
    player_counts: tuple[int, ...]
    options_type: type[Options]
    command_types: tuple[type[Command], ...]
    event_types: tuple[type[Event], ...]
    state_type: type
    view_type: type[View]
    initial: Callable[[Any], Any]
    setup: Callable[[Any, Rng], list[Event]]
    decide: Callable[[Any, Seat, Command, Rng], list[Event]]
    evolve: Callable[[Any, Event], Any]
    to_act: Callable[[Any], list[Seat]]
    legal_moves: Callable[[Any, Seat], list[Command]]
    view: Callable[[Any, Seat | None], View]
    outcome: Callable[[Any], Outcome | None]
    components: Callable[[], dict[str, Any]]
    """Component data (tiles, cards, tracks) for front ends; every assumed value marked as such."""
    describe: Callable[[Any, Event], str] | None = None
    """Optional narration of an event for ``yamen replay`` (who did what, what it cost)."""
    summary: str = ""
    variants: dict[str, str] = field(default_factory=dict)
    """Human descriptions of the options beyond ``players``."""
    component_file: ComponentFile[Any] | None = None
    """The game's :class:`~domain.kernel.components.ComponentFile` (its data file), if it has one."""
    setup_under: Callable[[Any, Rng, str], list[Event]] | None = None
    """``setup`` under one of the earlier versions (the setup event records the version)."""
    fold_events: Callable[[Any, Iterable[Event]], Any] | None = None
    """``evolve`` over many events in one loop (what :meth:`fold` runs when a game gives it): every
    load folds the events after its snapshot, so the per-event call it saves counts."""
    strategies: dict[str, Callable[[Any, Seat, Sequence[Command], Rng], Command]] = field(
        default_factory=dict
    )
    """Bot levels beyond ``random`` (see :mod:`domain.kernel.bots`): level name -> strategy
    ``(view, seat, legal, rng) -> Command``, strongest last (each reads its title's own view type)."""
    timed_type: TimedType | None = None
    """The table's ``Timed`` command for this title (``domain.kernel.table``): a command stamped with
    the time the service judged it.  Set by ``seat_game``."""
    service_command_types: tuple[type, ...] = ()
    """Commands only the service sends (``Timed``, the table's ``ClaimTimeout``/``StartClocks``): in
    records, never in a seat's request."""
    revealing: frozenset[type] = frozenset()
    """Public events that reveal hidden information (a command with one cannot be taken back)."""
    earlier_versions: tuple[str, ...] = ()
    """Rules versions this code still judges, besides :attr:`rules_version`: a game started under
    one of them is finished under it (its setup event records the version, and the rules that
    changed since read it from the state), so a rules fix never strands a game in progress."""

    def judges(self, rules_version: str) -> bool:
        """Whether a game created under *rules_version* can be played and verified by this code."""
        return rules_version == self.rules_version or rules_version in self.earlier_versions

    def fold(self, state: Any, events: Iterable[Event]) -> Any:
        if self.fold_events is not None:
            return self.fold_events(state, events)
        evolve = self.evolve
        for event in events:
            state = evolve(state, event)
        return state

    def start(
        self, options: Options, seed: bytes | str, rules_version: str | None = None
    ) -> tuple[Any, list[Event]]:
        """The opening events of a new game and the state they fold to — under *rules_version*
        when it is one of :attr:`earlier_versions` (to re-run a game set up under it)."""
        rng = Rng(seed, 0)
        if rules_version is None or rules_version == self.rules_version:
            events = self.setup(options, rng)
        elif self.setup_under is not None and rules_version in self.earlier_versions:
            events = self.setup_under(options, rng, rules_version)
        else:
            raise InvalidOptions(f"{self.kind} cannot set up a game under rules {rules_version!r}")
        return self.fold(self.initial(options), events), events


def redact_for(event: Event, viewer: Seat | None, *, revealed: bool = False) -> Event | None:
    """The form of *event* that *viewer* (a seat, or ``None`` for a spectator) may see.

    After the game ends (``revealed``) every event is shown in full.
    """
    if revealed:
        return event
    seats = event.visible_to()
    if seats is None or (viewer is not None and viewer in seats):
        return event
    return event.redacted()


def union_of(types: Sequence[type]) -> Any:
    """``Union[types...]`` for a tuple of types built at runtime."""
    from typing import Any, Union

    if not types:
        return Any
    if len(types) == 1:
        return types[0]
    return Union[tuple(types)]  # noqa: UP007 - a union of a runtime tuple

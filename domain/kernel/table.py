"""The table around every game: clocks, seats that leave, take-backs — one set of rules for every
title, recorded as events in the game's own log (tagged ``table.*``) and judged by ``decide`` like
any move, so ``yamen verify`` replays them and ``yamen replay`` narrates them.

Table rules (docs/table.md has the reasons for each choice):

- **Clock** (option ``table.clock``): ``decision`` gives every decision ``seconds``; ``total`` gives
  each seat ``seconds`` for the whole game plus ``increment`` after each of its decisions (a chess
  clock); ``correspondence`` gives every decision ``days``.  A seat's time runs while it is to act.
  The service stamps each command with the time it was judged (``Timed``); the record keeps that
  stamp, so the clock is folded from the log like everything else.
- **Time running out**: the service claims the timeout (``ClaimTimeout``) once the deadline has
  passed.  ``on_timeout: bot``: the seat's decision is made by a bot, and after ``zombie_after``
  timeouts (0: never) the seat is replaced by a bot for the rest of the game; ``on_timeout:
  forfeit``: the seat resigns.
- **Resigning and leaving**: a seat that resigns concedes: when at most one seat would be left in
  contention (two players, or the others already gone) the game ends and the others win; otherwise
  a bot plays the seat on (a "zombie").  A seat that leaves is always played on by a bot.  Either
  way the seat ranks after every seat still played by its holder, and the outcome records who was
  replaced, when and why.
- **Take-backs** (option ``table.takebacks``): a seat may ask to undo its last command while no
  other command has been judged since, that command used no randomness and no event of it was
  private or revealed hidden information (the title's ``revealing`` events); the other seats still
  played by people consent (``consent``), or it is undone at once (``free``, for solo and hot-seat
  games).  The undo is an event: the log stays append-only, and the state before the command is
  restored from a copy folded into the table state when the command was judged.

``seat_game(game)`` returns the title's :class:`~domain.kernel.game.Game` with these rules around
it; the title's ``State`` carries a ``table: TableState`` field and registers :func:`handlers`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from .errors import GameOver, RuleViolation
from .game import Command, Event, Game, Outcome, SeatScore
from .table_options import NO_TABLE, Clock, TableOptions

# The table's rules are the service's own, written down in docs/table.md: its sections name them.
R_TAKEBACKS = "Table: Take-backs"
R_LEAVING = "Table: Resigning and leaving"
R_CLOCKS = "Table: Clocks"


def limit_ms(clock: Clock) -> int | None:
    """The time one decision may take, or None when the seat's remaining time bounds it."""
    if clock.mode == "decision":
        return clock.seconds * 1000
    if clock.mode == "correspondence":
        return clock.days * 86_400_000
    return None


# --- state -----------------------------------------------------------------------------------------
LeaveReason = Literal["resigned", "left", "timeouts", "timeout"]
"""Why a seat left the table (a bot plays it on)."""


class SeatClock(msgspec.Struct, kw_only=True):
    remaining_ms: int = 0
    """``total`` clocks: time left; other modes: unused."""
    since_ms: int = -1
    """When the seat's current decision began; -1 when it is not to act."""


class Replaced(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    at_ms: int
    """When (Unix milliseconds, the service's stamp)."""
    reason: LeaveReason
    """``timeouts``: ``zombie_after`` timeouts; ``timeout``: time ran out under ``forfeit``."""


class TableState(msgspec.Struct, kw_only=True, omit_defaults=True):
    options: TableOptions = NO_TABLE
    clocks: list[SeatClock] = []
    timeouts: list[int] = []
    replaced: list[Replaced] = []
    ended: int = -1
    """The seat whose resignation ended the game; -1 while the table has not ended it."""
    ended_at_ms: int = 0
    undo: bytes | None = None
    """The title's state before the last command (msgpack, ``table`` left out), while that command
    may be taken back."""
    undo_seat: int = -1
    """The seat of the last command judged (take-backs on), whether or not it may be undone."""
    takeback_by: int = -1
    """The seat asking for a take-back; -1 when none is asked for."""
    consents: list[int] = []


EMPTY = TableState()
"""The table of a game that has no table event yet (its state's ``table`` is UNSET, so a state
encodes exactly as it did before the table existed and old records' state digests still verify).
Never mutated."""


def table_of(state: Any) -> TableState:
    """The table state of a title's state (read only); EMPTY for a game without a table."""
    t: TableState | UnsetType = getattr(state, "table", UNSET)
    return EMPTY if isinstance(t, UnsetType) else t


def _own(state: Any) -> TableState:
    """The table state to change (created on the first table event)."""
    t: TableState | UnsetType = state.table
    if isinstance(t, UnsetType):
        t = state.table = TableState()
    return t


# --- events ------------------------------------------------------------------------------------------
class TableEvent(Event, frozen=True, tag=lambda name: f"table.{name}"):
    frame: ClassVar[bool] = False
    """(Pingyao's fold reads ``frame`` on every event.)"""


class Arranged(TableEvent, frozen=True, kw_only=True):
    """The table is laid for the game: its options (clock, take-backs, zombies)."""

    options: TableOptions
    players: int


class ClockPunched(TableEvent, frozen=True, kw_only=True):
    """A decision ended at ``at_ms`` (``seat`` -1: the clocks start).  The seat's time is charged
    (``total``: less the increment) and every seat to act now starts its next decision."""

    seat: int
    at_ms: int


class TimedOut(TableEvent, frozen=True, kw_only=True):
    seat: int
    at_ms: int


class SeatReplaced(TableEvent, frozen=True, kw_only=True):
    """A bot plays the seat from now on; it ranks after every seat still played by its holder."""

    seat: int
    at_ms: int
    reason: LeaveReason


class GameConceded(TableEvent, frozen=True, kw_only=True):
    """A resignation left at most one seat in contention: the game ends, the others win."""

    seat: int
    at_ms: int


class Checkpoint(TableEvent, frozen=True, kw_only=True):
    """Take-backs on: a command by ``seat`` begins here; ``undoable`` when it used no randomness and
    revealed nothing (then the state before it is kept)."""

    seat: int
    undoable: bool


class TakebackRequested(TableEvent, frozen=True, kw_only=True):
    seat: int


class TakebackConsented(TableEvent, frozen=True, kw_only=True):
    seat: int


class TakebackDeclined(TableEvent, frozen=True, kw_only=True):
    seat: int


class TakenBack(TableEvent, frozen=True, kw_only=True):
    """The last command of ``seat`` is undone: the state before it is back."""

    seat: int


TABLE_EVENTS: tuple[type[TableEvent], ...] = (
    Arranged,
    ClockPunched,
    TimedOut,
    SeatReplaced,
    GameConceded,
    Checkpoint,
    TakebackRequested,
    TakebackConsented,
    TakebackDeclined,
    TakenBack,
)


# --- commands ----------------------------------------------------------------------------------------
class TableCommand(Command, frozen=True, tag=lambda name: f"table.{name}"):
    pass


class Resign(TableCommand, frozen=True, kw_only=True):
    """Concede: with at most one other seat in contention the game ends; otherwise a bot plays
    this seat on and it ranks last."""


class Leave(TableCommand, frozen=True, kw_only=True):
    """Leave the table: a bot plays this seat to the end; it ranks after every seat still played."""


class RequestTakeback(TableCommand, frozen=True, kw_only=True):
    """Ask to undo this seat's last command (nobody has acted since, and it revealed nothing)."""


class AnswerTakeback(TableCommand, frozen=True, kw_only=True):
    """Consent to (or decline) the take-back another seat asked for."""

    accept: bool


class ClaimTimeout(TableCommand, frozen=True, kw_only=True):
    """(Service only.) The seat's deadline has passed."""


class StartClocks(TableCommand, frozen=True, kw_only=True):
    """(Service only.) Every seat is taken: the clocks start."""


PUBLIC_COMMANDS: tuple[type[TableCommand], ...] = (Resign, Leave, RequestTakeback, AnswerTakeback)
"""Table commands a seat sends (``POST …/moves``)."""
SERVICE_COMMANDS: tuple[type[TableCommand], ...] = (ClaimTimeout, StartClocks)
"""Table commands only the service sends (always inside ``Timed``)."""


class Timed(TableCommand, frozen=True, kw_only=True):
    """A command and the time the service judged it at, in Unix milliseconds.  Only the service
    sends it; the record keeps it.  Each title decodes its own subclass (:func:`timed_type`), whose
    ``command`` is the union of that title's commands."""

    at_ms: int
    command: Command


def timed_type(game_commands: tuple[type, ...]) -> type[Timed]:
    """``Timed`` for one title: a command (the title's or a table command) and its time."""
    from .game import union_of

    inner = union_of((*game_commands, *PUBLIC_COMMANDS, *SERVICE_COMMANDS))
    timed = msgspec.defstruct(
        "Timed",
        [("at_ms", int), ("command", inner)],
        bases=(Timed,),
        tag="table.Timed",
        kw_only=True,
        frozen=True,
        forbid_unknown_fields=True,
    )
    assert issubclass(timed, Timed)  # defstruct's annotation says only Struct
    return timed


# --- folding -------------------------------------------------------------------------------------------
def handlers(
    state_type: type[msgspec.Struct], to_act: Callable[[Any], list[int]]
) -> dict[type, Callable[[Any, Any], None]]:
    """The table events' handlers for a title whose state (``state_type``, with a ``table`` field)
    folds by a dictionary of handlers; *to_act* is the title's own."""
    fields = [f for f in state_type.__struct_fields__ if f != "table"]
    decoder = msgspec.msgpack.Decoder(state_type)
    encoder = msgspec.msgpack.Encoder()

    def table_set_up(state: Any, event: Arranged) -> None:
        table = _own(state)
        table.options = event.options
        table.timeouts = [0] * event.players
        if event.options.clock is not None:
            start = event.options.clock.seconds * 1000 if event.options.clock.mode == "total" else 0
            table.clocks = [SeatClock(remaining_ms=start) for _ in range(event.players)]

    def clock_punched(state: Any, event: ClockPunched) -> None:
        table = _own(state)
        clocks = table.clocks
        if not clocks:
            return
        clock = table.options.clock
        if event.seat >= 0:
            c = clocks[event.seat]
            if c.since_ms >= 0 and clock is not None and clock.mode == "total":
                c.remaining_ms = max(0, c.remaining_ms - (event.at_ms - c.since_ms)) + clock.increment * 1000
            c.since_ms = -1
        acting = set(to_act(state)) if table.ended < 0 else set()  # the title's own to_act
        for seat, c in enumerate(clocks):
            if seat in acting:
                if c.since_ms < 0:
                    c.since_ms = event.at_ms
            else:
                c.since_ms = -1

    def timed_out(state: Any, event: TimedOut) -> None:
        table = _own(state)
        table.timeouts[event.seat] += 1
        if table.clocks:
            clock = table.clocks[event.seat]
            if table.options.clock is not None and table.options.clock.mode == "total":
                clock.remaining_ms = 0
            clock.since_ms = event.at_ms  # the bot's decision begins now

    def seat_replaced(state: Any, event: SeatReplaced) -> None:
        _own(state).replaced.append(Replaced(seat=event.seat, at_ms=event.at_ms, reason=event.reason))

    def game_conceded(state: Any, event: GameConceded) -> None:
        table = _own(state)
        table.ended = event.seat
        table.ended_at_ms = event.at_ms
        for c in table.clocks:
            c.since_ms = -1

    def checkpoint(state: Any, event: Checkpoint) -> None:
        table = _own(state)
        table.undo_seat = event.seat
        table.takeback_by = -1
        table.consents = []
        table.undo = None
        if event.undoable:
            state.table = UNSET  # the copy leaves the table out (UNSET fields are not encoded)
            try:
                table.undo = encoder.encode(state)
            finally:
                state.table = table

    def takeback_requested(state: Any, event: TakebackRequested) -> None:
        table = _own(state)
        table.takeback_by = event.seat
        table.consents = []

    def takeback_consented(state: Any, event: TakebackConsented) -> None:
        _own(state).consents.append(event.seat)

    def takeback_declined(state: Any, event: TakebackDeclined) -> None:
        table = _own(state)
        table.takeback_by = -1
        table.consents = []

    def taken_back(state: Any, event: TakenBack) -> None:
        table = _own(state)
        assert table.undo is not None, "decide takes back only while the copy is kept"
        before = decoder.decode(table.undo)
        for name in fields:
            setattr(state, name, getattr(before, name))
        table.undo = None
        table.undo_seat = -1
        table.takeback_by = -1
        table.consents = []

    return {
        Arranged: table_set_up,
        ClockPunched: clock_punched,
        TimedOut: timed_out,
        SeatReplaced: seat_replaced,
        GameConceded: game_conceded,
        Checkpoint: checkpoint,
        TakebackRequested: takeback_requested,
        TakebackConsented: takeback_consented,
        TakebackDeclined: takeback_declined,
        TakenBack: taken_back,
    }


# --- judging ---------------------------------------------------------------------------------------------
def table_options(options: Any) -> TableOptions:
    """The table options of a title's options (``options.table``; UNSET means none)."""
    table = getattr(options, "table", UNSET)
    return NO_TABLE if table is UNSET else table


def replaced_seats(table: TableState) -> set[int]:
    return {r.seat for r in table.replaced}


def deadline_ms(table: TableState, seat: int) -> int | None:
    """When *seat*'s current decision times out (Unix ms), or None (no clock, or not to act)."""
    clock = table.options.clock
    if clock is None or not table.clocks or table.ended >= 0:
        return None
    c = table.clocks[seat]
    if c.since_ms < 0:
        return None
    limit = limit_ms(clock)
    return c.since_ms + (c.remaining_ms if limit is None else limit)


def may_take_back(table: TableState, seat: int) -> bool:
    return (
        table.options.takebacks != "off"
        and table.undo is not None
        and table.undo_seat == seat
        and table.takeback_by < 0
    )


def _stamp(at: int | None) -> int:
    if at is None:
        raise RuleViolation("time_stamp_missing", "the service stamps table commands with the time")
    return at


def _leaving(state: Any, seat: int, at: int, reason: LeaveReason, players: int, concede: bool) -> list[Event]:
    table = table_of(state)
    gone = replaced_seats(table)
    if seat in gone:
        raise RuleViolation("seat_replaced", f"seat {seat} has already left the table", rule=R_LEAVING)
    contenders = [s for s in range(players) if s not in gone and s != seat]
    events: list[Event] = [SeatReplaced(seat=seat, at_ms=at, reason=reason)]
    if concede and len(contenders) <= 1:
        events.append(GameConceded(seat=seat, at_ms=at))
    return events


def seat_game(game: Game, revealing: frozenset[type] = frozenset()) -> Game:
    """*game* with the table's rules around it (see the module docstring)."""
    timed = timed_type(game.command_types)
    inner_decide, inner_to_act, inner_outcome, inner_legal = (
        game.decide,
        game.to_act,
        game.outcome,
        game.legal_moves,
    )
    inner_setup, inner_setup_under, inner_describe = game.setup, game.setup_under, game.describe

    def players_of(state: Any) -> int:
        players: int = state.players
        return players

    def arranged(options: Any) -> list[Event]:
        """The table's own setup, after the title's: its options, when there are any."""
        table = table_options(options)
        return [] if table == NO_TABLE else [Arranged(options=table, players=options.players)]

    def setup(options: Any, rng: Any) -> list[Event]:
        return [*inner_setup(options, rng), *arranged(options)]

    def setup_under(options: Any, rng: Any, version: str) -> list[Event]:
        assert inner_setup_under is not None
        return [*inner_setup_under(options, rng, version), *arranged(options)]

    def to_act(state: Any) -> list[int]:
        return [] if table_of(state).ended >= 0 else inner_to_act(state)

    def legal_moves(state: Any, seat: int) -> list[Command]:
        return [] if table_of(state).ended >= 0 else inner_legal(state, seat)

    def decide(state: Any, seat: int, command: Any, rng: Any) -> list[Event]:
        table = table_of(state)
        if table.ended >= 0:
            raise GameOver()
        at: int | None = None
        if type(command) is timed:
            at, command = command.at_ms, command.command
        if isinstance(command, TableCommand):
            return table_decide(state, seat, command, at)
        draws = rng.draws
        events = list(inner_decide(state, seat, command, rng))
        if table.options.takebacks != "off":
            undoable = rng.draws == draws and not any(
                e.visible_to() is not None or type(e) in revealing for e in events
            )
            events.insert(0, Checkpoint(seat=seat, undoable=undoable))
        if table.clocks and at is not None:
            events.append(ClockPunched(seat=seat, at_ms=at))
        return events

    def table_decide(state: Any, seat: int, command: TableCommand, at: int | None) -> list[Event]:
        table = table_of(state)
        players = players_of(state)
        if isinstance(command, Resign):
            return _leaving(state, seat, _stamp(at), "resigned", players, concede=True) + _punch(table, at)
        if isinstance(command, Leave):
            return _leaving(state, seat, _stamp(at), "left", players, concede=False) + _punch(table, at)
        if isinstance(command, RequestTakeback):
            if table.options.takebacks == "off":
                raise RuleViolation(
                    "takebacks_off", "this game was created without take-backs", rule=R_TAKEBACKS
                )
            if table.takeback_by >= 0:
                raise RuleViolation(
                    "takeback_pending", f"seat {table.takeback_by} has already asked", rule=R_TAKEBACKS
                )
            if table.undo_seat != seat:
                raise RuleViolation(
                    "takeback_not_last",
                    "only the last command can be taken back, by the seat that sent it",
                    rule=R_TAKEBACKS,
                )
            if table.undo is None:
                raise RuleViolation(
                    "takeback_revealed",
                    "that command used randomness or revealed hidden information: it cannot be undone",
                    rule=R_TAKEBACKS,
                )
            asked: list[Event] = [TakebackRequested(seat=seat)]
            others = [s for s in range(players) if s != seat and s not in replaced_seats(table)]
            if table.options.takebacks == "free" or not others:
                asked.append(TakenBack(seat=seat))
            return asked + _punch(table, at)
        if isinstance(command, AnswerTakeback):
            if table.takeback_by < 0:
                raise RuleViolation("no_takeback_asked", "nobody has asked for a take-back", rule=R_TAKEBACKS)
            if seat == table.takeback_by or seat in replaced_seats(table):
                raise RuleViolation("not_asked", "the other seats answer a take-back", rule=R_TAKEBACKS)
            if seat in table.consents:
                raise RuleViolation("already_answered", "this seat has already consented", rule=R_TAKEBACKS)
            if not command.accept:
                return [TakebackDeclined(seat=seat)]
            consents = {*table.consents, seat}
            needed = {s for s in range(players) if s != table.takeback_by and s not in replaced_seats(table)}
            answered: list[Event] = [TakebackConsented(seat=seat)]
            if needed <= consents:
                answered.append(TakenBack(seat=table.takeback_by))
                answered += _punch(table, at)
            return answered
        if isinstance(command, ClaimTimeout):
            now = _stamp(at)
            due = deadline_ms(table, seat)
            if due is None or seat not in inner_to_act(state):
                raise RuleViolation("no_deadline", f"seat {seat} has no running clock", rule=R_CLOCKS)
            if now < due:
                raise RuleViolation("not_yet", f"seat {seat}'s time runs out at {due}", rule=R_CLOCKS)
            clock = table.options.clock
            assert clock is not None
            events: list[Event] = [TimedOut(seat=seat, at_ms=now)]
            if clock.on_timeout == "forfeit":
                events += _leaving(state, seat, now, "timeout", players, concede=True)
            elif (
                table.options.zombie_after
                and table.timeouts[seat] + 1 >= table.options.zombie_after
                and seat not in replaced_seats(table)
            ):
                events.append(SeatReplaced(seat=seat, at_ms=now, reason="timeouts"))
            return events
        if isinstance(command, StartClocks):
            if not table.clocks:
                raise RuleViolation("no_clock", "this game has no clock", rule=R_CLOCKS)
            return [ClockPunched(seat=-1, at_ms=_stamp(at))]
        raise RuleViolation("unknown_table_command", type(command).__name__)

    def outcome(state: Any) -> Outcome | None:
        table = table_of(state)
        base = inner_outcome(state)
        if base is None and table.ended < 0:
            return None
        if not table.replaced:
            return base
        return _with_replacements(base, table, players_of(state))

    def describe(state: Any, event: Event) -> str:
        if isinstance(event, TableEvent):
            return narrate(event)
        return inner_describe(state, event) if inner_describe is not None else ""

    return replace(
        game,
        command_types=(*game.command_types, *PUBLIC_COMMANDS),
        event_types=(*game.event_types, *TABLE_EVENTS),
        setup=setup,
        setup_under=setup_under if inner_setup_under is not None else None,
        decide=decide,
        to_act=to_act,
        legal_moves=legal_moves,
        outcome=outcome,
        describe=describe,
        timed_type=timed,
        service_command_types=(timed, *SERVICE_COMMANDS),
        revealing=revealing,
    )


def _punch(table: TableState, at: int | None) -> list[Event]:
    """A table command that changes who is to act restarts the clocks of the seats to act."""
    return [ClockPunched(seat=-1, at_ms=at)] if table.clocks and at is not None else []


def _with_replacements(base: Outcome | None, table: TableState, players: int) -> Outcome:
    gone = [r.seat for r in table.replaced]
    order = {seat: i for i, seat in enumerate(gone)}
    if base is None:
        scores = [SeatScore(seat=s, score=0, rank=1) for s in range(players)]
    else:
        scores = list(base.scores)
    staying = [s for s in scores if s.seat not in order]
    leaving = [s for s in scores if s.seat in order]

    def ranked(group: list[SeatScore], offset: int, key: Callable[[SeatScore], Any]) -> list[SeatScore]:
        return [
            msgspec.structs.replace(s, rank=offset + 1 + sum(1 for o in group if key(o) < key(s)))
            for s in group
        ]

    new = ranked(staying, 0, lambda score: score.rank) + ranked(
        leaving, len(staying), lambda score: (score.rank, order[score.seat])
    )
    new.sort(key=lambda score: score.seat)
    winners = (
        [s.seat for s in new if s.rank == 1 and s.seat not in order]
        if players > 1
        else (base.winners if base is not None else [])
    )
    left = ", ".join(f"seat {r.seat} ({r.reason})" for r in table.replaced)
    summary = (base.summary + " — " if base is not None and base.summary else "") + f"replaced: {left}"
    if table.ended >= 0 and players > 1:
        summary = f"Seat {table.ended} conceded; " + ", ".join(f"seat {w}" for w in winners) + " won"
    details = dict(base.details) if base is not None else {}
    details["replaced"] = [msgspec.to_builtins(r) for r in table.replaced]
    return Outcome(winners=winners, scores=new, summary=summary, details=details)


def narrate(event: Event) -> str:
    """``yamen replay``'s line for a table event."""
    if isinstance(event, Arranged):
        options = event.options
        parts = []
        if options.clock is not None:
            c = options.clock
            what = {
                "decision": f"{c.seconds} s per decision",
                "total": f"{c.seconds} s per seat + {c.increment} s per decision",
                "correspondence": f"{c.days} days per decision",
            }[c.mode]
            parts.append(f"clock: {what}, on timeout {c.on_timeout}")
        if options.takebacks != "off":
            parts.append(f"take-backs: {options.takebacks}")
        parts.append(
            f"a seat is replaced by a bot after {options.zombie_after} timeouts"
            if options.zombie_after
            else ""
        )
        return "Table: " + "; ".join(p for p in parts if p)
    if isinstance(event, ClockPunched):
        return "The clocks start" if event.seat < 0 else f"Seat {event.seat}'s clock stops"
    if isinstance(event, TimedOut):
        return f"Seat {event.seat}'s time ran out"
    if isinstance(event, SeatReplaced):
        why = {
            "resigned": "resigned",
            "left": "left the table",
            "timeouts": "ran out of time too often",
            "timeout": "forfeited on time",
        }[event.reason]
        return f"Seat {event.seat} {why}: a bot plays the seat from now on"
    if isinstance(event, GameConceded):
        return f"Seat {event.seat} conceded: the game ends"
    if isinstance(event, Checkpoint):
        return f"Seat {event.seat} acts" + ("" if event.undoable else " (cannot be taken back)")
    if isinstance(event, TakebackRequested):
        return f"Seat {event.seat} asks to take back its last move"
    if isinstance(event, TakebackConsented):
        return f"Seat {event.seat} agrees to the take-back"
    if isinstance(event, TakebackDeclined):
        return f"Seat {event.seat} declines the take-back"
    if isinstance(event, TakenBack):
        return f"Seat {event.seat}'s last move is taken back"
    return type(event).__name__

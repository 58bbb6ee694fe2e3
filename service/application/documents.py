"""What the application answers: typed documents, the same for every game.

The parts that differ by game — a command, an event, a view — are type parameters.  The
application fills them with whatever game a request is about; the HTTP edge names them with the
union of the games an app serves, so the OpenAPI document lists every game's commands as one
tagged union (see :mod:`service.http.contract`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import msgspec

from domain.kernel import Event, Outcome, Seat, redact_for

from ..codec import GameCodec
from ..record.chain import StoredEvent, timestamp
from ..record.verify import Verification
from .option_labels import OptionLabel

if TYPE_CHECKING:
    from .narration import Narrator

C = TypeVar("C")
"""A game's command."""
E = TypeVar("E")
"""A game's event."""
V = TypeVar("V")
"""A game's view."""


# --- the catalogue ------------------------------------------------------------------------------
class CatalogueEntry(msgspec.Struct, kw_only=True):
    kind: str
    title: str
    summary: str
    rules_version: str
    player_counts: list[int]
    options_schema: dict[str, Any]
    """JSON Schema of the ``options`` object accepted when creating a game of this kind."""
    variants: dict[str, str]
    bot_levels: list[str] = []
    """Levels of the service's bots for this kind, weakest first (``random``: uniform among the
    legal moves)."""
    moves: dict[str, str] = {}
    """What each command a seat may send does, by its ``type`` (``yangtze.PurchaseGood``, the
    table's ``table.Resign``…): the text a front end shows beside a legal move."""
    option_labels: dict[str, OptionLabel] = {}
    """A human label and description for every option of ``options_schema``, by key; the nested
    ones by their dotted path (``table.clock.seconds``)."""


class Catalogue(msgspec.Struct, kw_only=True):
    games: list[CatalogueEntry]


# --- tables and seats ---------------------------------------------------------------------------
class CreateGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: str
    """A kind from ``/v1/catalogue``."""
    options: dict[str, Any] = {}
    """The game's options (``players`` and variants); see the kind's ``options_schema``."""
    seed: str | None = None
    """A seed for a reproducible test game; omit it for a secret random seed."""
    take_seats: Literal["all", "none"] | list[int] = "all"
    """Seats whose tokens the creator takes now (hot seat, own bots); the rest wait for a join.
    Seats in ``bots`` are never taken."""
    bots: dict[str, str] = {}
    """Seats the service's bots play, from the start: seat number (as a string) -> bot level (one
    of the catalogue's ``bot_levels`` for this kind, e.g. ``{"1": "heuristic", "2": "random"}``).
    A bot decides from its own seat's view and legal moves only, like a person in that seat."""
    rated: bool = False
    """Ask for a rated game: when it finishes, every seat's player is rated from the outcome, if
    every seat is then held by a distinct player or a bot. A game whose creator takes seats at
    create (``take_seats``) is never rated: create it with ``"take_seats": "none"`` and let each
    player claim its seat. See ``docs/ratings.md``."""
    visibility: Literal["public", "app", "private"] | None = None
    """Who may list and watch the game: ``public`` (anyone), ``app`` (the creating app's key and its
    players; needs an app key or an app's player), ``private`` (the creating app's key and the
    game's own seats). Omitted: the app's ``default_visibility``, or ``public`` without an app.
    Anybody else is answered 404 for the game."""


class SeatToken(msgspec.Struct, kw_only=True):
    seat: int
    token: str
    """Bearer token for this seat. Shown once; only its hash is stored."""


class GameCreated(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    version: int
    players: int
    seed_commitment: str
    """SHA-256 of the secret seed; the seed itself is revealed when the game ends."""
    tokens: list[SeatToken]


class HandToBot(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    level: str = "random"
    """One of the catalogue's ``bot_levels`` for this kind."""


class Joined(msgspec.Struct, kw_only=True):
    game_id: str
    seat: int
    token: str
    status: str


class StreamTicket(msgspec.Struct, kw_only=True):
    ticket: str
    """Opens this game's event stream as the seat that asked for it (``?ticket=``); it can be read
    by whoever sees the URL, so it is short-lived, for one game, and never the seat token."""
    expires_in: int
    """Seconds it may still be used to open (or reopen) the stream."""
    stream: str
    """The stream's URL with the ticket, relative to the service: what ``EventSource`` opens."""


class SeatInfo(msgspec.Struct, kw_only=True):
    seat: int
    claimed: bool
    bot: str | None = None
    """The bot level playing this seat (see the catalogue's ``bot_levels``); ``null`` for a person."""


class Table(msgspec.Struct, kw_only=True):
    """Which seats are claimed, and the game's status (``open`` until the last claim)."""

    status: str
    seats: list[SeatInfo]


class GameSummary(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    players: int
    open_seats: list[int]
    version: int
    created_at: str
    options: dict[str, Any] = {}
    """The game's options as created: the title's variants and the table's (``options.table``: the
    clock, take-backs), so a player can pick a game to join from the list."""
    bots: dict[str, str] = {}
    """Seats played by the service's bots (seat -> level), for open games."""
    visibility: Literal["public", "app", "private"] = "public"
    """Who may list and watch the game: anyone, the owning app's key and players, or the owning
    app's key and the game's own seats."""


class GameList(msgspec.Struct, kw_only=True):
    games: list[GameSummary]
    next_cursor: str | None = None


# --- the game as a seat sees it -----------------------------------------------------------------
class SeatClockInfo(msgspec.Struct, kw_only=True):
    seat: int
    deadline_ms: int | None
    """When the seat's current decision times out (Unix milliseconds); null when it is not to act.
    Compare it with the ``Server-Time-Ms`` header of the same answer, not with the device's clock."""
    remaining_ms: int | None
    """``total`` clocks: the seat's time left before its current decision began."""
    timeouts: int


class ReplacedSeat(msgspec.Struct, kw_only=True):
    seat: int
    at_ms: int
    reason: str
    """``resigned``, ``left``, ``timeouts`` (ran out of time ``zombie_after`` times) or ``timeout``
    (forfeited on time)."""


class TableInfo(msgspec.Struct, kw_only=True):
    """The table around the game (``options.table``): clock, seats replaced by bots, take-backs."""

    clock: dict[str, Any] | None = None
    """The clock option (mode, seconds, increment, days, on_timeout), if any."""
    clocks: list[SeatClockInfo] = []
    takebacks: str = "off"
    zombie_after: int = 3
    replaced: list[ReplacedSeat] = []
    """Seats a bot plays since their holder resigned, left or ran out of time; they rank last."""
    takeback_requested_by: int | None = None
    takeback_consents: list[int] = []
    can_take_back: bool = False
    """Whether the viewer may ask now to take back its last command."""
    conceded_by: int | None = None
    """The seat whose resignation ended the game."""


class SeatRating(msgspec.Struct, kw_only=True):
    """One seat's rating change in a rated game (:mod:`service.application.ratings`)."""

    seat: int
    player_id: str | None
    """The player rated for the seat (it stays rated for it when a bot took over); ``null``: a bot."""
    bot: str | None
    """A bot's level: an anchor, whose fixed rating takes part and never changes."""
    rank: int
    """The seat's place in the outcome (ties share a place)."""
    rating_before: int
    rating_after: int
    delta: int
    """``rating_after - rating_before``, as displayed."""
    provisional: bool
    """The player has fewer rated games in this title than the leaderboard asks for (after this one)."""
    games: int
    """The player's rated games in this title, this one included (0 for a bot)."""


class GameRatings(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What a game asked to be rated did to its players' ratings."""

    rated: bool
    """``false``: the game was asked to be rated but ended unrated (``reason`` says why)."""
    reason: str | None = None
    """``creator_took_seats``, ``player_holds_several_seats``, ``seat_without_player``, ``no_players``."""
    seats: list[SeatRating] = []


class GameDocument(msgspec.Struct, Generic[V], kw_only=True, omit_defaults=True):
    game_id: str
    kind: str
    title: str
    rules_version: str
    status: str
    version: int
    players: int
    seats: list[SeatInfo]
    viewer: int | None
    to_act: list[int]
    view: V
    outcome: Outcome | None
    seed_commitment: str
    seed: str | None
    created_at: str
    revealed_state: dict[str, Any] | None = None
    """Time travel with ``reveal=true`` after the end: the full state, hidden parts included."""
    table: TableInfo | None = None
    """The table around the game (clock, replaced seats, take-backs), for games that have one."""
    ratings: GameRatings | None = None
    """A finished game that was asked to be rated: every seat's rating change, or why it ended
    unrated.  Absent while the change is being applied (the answer then carries no ``ETag``)."""


class LegalMoves(msgspec.Struct, Generic[C], kw_only=True):
    version: int
    seat: int | None
    moves: list[C]


class EventEnvelope(msgspec.Struct, Generic[E], kw_only=True):
    seq: int
    seat: int | None
    """The seat whose command caused the event (None for setup)."""
    recorded_at: str
    event: E | None
    """The event as the caller may see it; null when it is hidden from the caller entirely."""
    text: str | msgspec.UnsetType | None = msgspec.UNSET
    """With `include=narration`: the event told in one line, in the game's words, from the event as
    the caller sees it (what `yamen replay` says); null for an event the game does not narrate or
    that is hidden from the caller. Absent without `include=narration`."""


def envelope(
    codec: GameCodec,
    stored: StoredEvent,
    viewer: Seat | None,
    revealed: bool,
    event: Event | None = None,
    narrator: Narrator | None = None,
) -> EventEnvelope[Any]:
    """A stored event as *viewer* may see it (in full once the game is over: *revealed*), told in
    a line by *narrator* (which must be given the game's events in order) when there is one."""
    if event is None:
        event = codec.decode_event(stored.payload)
    shown = redact_for(event, viewer, revealed=revealed)
    made: EventEnvelope[Any] = EventEnvelope(
        seq=stored.seq, seat=stored.seat, recorded_at=timestamp(stored.recorded_at), event=shown
    )
    if narrator is not None:
        made.text = narrator.line(event, shown)
    return made


class MoveResult(msgspec.Struct, Generic[E, C, V], kw_only=True, omit_defaults=True):
    version: int
    """The game's version after the move."""
    status: str
    events: list[EventEnvelope[E]]
    """The move's events, as the mover may see them."""
    to_act: list[int] | None = None
    """The seats to act after the move (absent from answers stored before it was added)."""
    legal_moves: LegalMoves[C] | None = None
    """With ``include=legal_moves``: the mover's legal moves now (empty while others are to act),
    so a client needs no GET before its next move."""
    document: GameDocument[V] | None = None
    """With ``include=document``: the game as the mover sees it now."""


class History(msgspec.Struct, Generic[E], kw_only=True):
    version: int
    events: list[EventEnvelope[E]]
    next_after: int | None


# --- audit --------------------------------------------------------------------------------------
class Imported(msgspec.Struct, kw_only=True):
    game_id: str
    """The id the imported game is stored under here."""
    kind: str
    version: int
    imported_from: str
    """The game's id where it was played."""
    verification: Verification


# --- encoded answers ----------------------------------------------------------------------------
class Encoded(msgspec.Struct, frozen=True):
    """An answer already encoded as JSON (reads and moves keep theirs per version and viewer),
    with the version it describes (the ``ETag``).  ``body`` is None for "not modified"."""

    version: int | None
    body: bytes | None
    status: int = 200
    """200 for a fresh answer; a replayed idempotent answer keeps its original status."""


# --- operations ---------------------------------------------------------------------------------
class Health(msgspec.Struct, kw_only=True):
    status: str
    postgres: str = "unknown"
    redis: str = "unknown"

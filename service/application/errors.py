"""Why the application refuses a request: one exception per refusal, each with a stable code.

The application speaks of games, seats and records, never of HTTP: these classes say *what* went
wrong (a kind of refusal and its code) and the HTTP edge (:mod:`service.http.problems`) maps each
kind to a status, in one table.  A code is part of the public contract (problem+json ``code``):
never rename one.  Refusals the rules make are the domain's own :class:`RuleViolation`.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ApplicationError(Exception):
    """A refusal with a stable ``code`` and a message for people (``detail``)."""

    code: ClassVar[str]
    summary: ClassVar[str] = ""
    """What the code means, for the API documentation."""

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra
        """Machine-readable facts for the client (e.g. ``current_version``)."""


# --- the kinds of refusal (each becomes one HTTP status at the edge) -----------------------------
class Malformed(ApplicationError):
    """The request cannot be read as meant (a cursor or a header of the wrong shape)."""


class NotFound(ApplicationError):
    """Nothing of that name here."""


class Unauthenticated(ApplicationError):
    """The caller did not prove which seat they hold."""


class Forbidden(ApplicationError):
    """The caller is known but may not do or see this."""


class Conflict(ApplicationError):
    """The game's state does not allow this now."""


class Stale(ApplicationError):
    """The caller decided on a version of the game that is no longer current."""


class Unprocessable(ApplicationError):
    """Well formed, but not something this game or record can accept."""


class TooLarge(ApplicationError):
    """More than the service accepts in one request."""


class Unavailable(ApplicationError):
    """The service cannot answer now; retry later."""


# --- the refusals -------------------------------------------------------------------------------
class InvalidCursor(Malformed):
    code = "invalid_cursor"
    summary = "the cursor is not one this API returned"


class InvalidPrecondition(Malformed):
    code = "invalid_precondition"
    summary = 'If-Match / If-None-Match must name a game version such as "12"'


class UnknownKind(NotFound):
    code = "unknown_kind"
    summary = "no game of this kind is hosted here (see /v1/catalogue)"


class GameNotFound(NotFound):
    code = "game_not_found"
    summary = "no game has this id"


class SeatNotFound(NotFound):
    code = "seat_not_found"
    summary = "the game has no seat with this number"


class VersionNotFound(NotFound):
    code = "version_not_found"
    summary = "the game has no such version (1 is the state right after setup)"


class TokenRequired(Unauthenticated):
    code = "token_required"
    summary = "this needs a seat's token: `Authorization: Bearer ymn.<seat>.<secret>`"


class InvalidToken(Unauthenticated):
    code = "invalid_token"
    summary = "the token is malformed or does not hold a seat in this game"


class InvalidTicket(Unauthenticated):
    code = "invalid_ticket"
    summary = "the stream ticket is not one this service issued for this game"


class TicketExpired(Unauthenticated):
    code = "ticket_expired"
    summary = "the stream ticket has expired; ask for a new one (POST .../events/tickets)"


class NotRevealedYet(Forbidden):
    code = "not_revealed_yet"
    summary = "hidden information is revealed when the game ends"


class SeatTaken(Conflict):
    code = "seat_taken"
    summary = "somebody already holds this seat"


class NotYourSeat(Forbidden):
    code = "not_your_seat"
    summary = "a seat's token may hand over or take back only its own seat"


class SeatNotHandedOver(Conflict):
    code = "seat_not_bot"
    summary = "this seat is not played by a bot"


class SeatReplaced(Conflict):
    code = "seat_replaced"
    summary = "the seat has left the table (resigned, left or timed out too often): a bot plays it"


class GameNotFinished(Conflict):
    code = "game_not_finished"
    summary = "a rematch follows a finished game"


class GameNotStarted(Conflict):
    code = "game_not_started"
    summary = "the game starts when every seat is taken"


class GameEnded(Conflict):
    code = "game_over"
    summary = "the game has ended; no move is accepted"


class RulesRetired(Conflict):
    code = "rules_version_retired"
    summary = "the game was created under rules this build no longer judges"


class TooMuchContention(Conflict):
    code = "too_much_contention"
    summary = "the game changed too often while the move was judged; retry"


class IdempotencyConflict(Conflict):
    code = "idempotency_conflict"
    summary = "a request with this Idempotency-Key is being answered; retry"


class VersionMismatch(Stale):
    code = "version_mismatch"
    summary = "If-Match names a version that is not current; `current_version` says which is"

    def __init__(self, current_version: int) -> None:
        super().__init__(f"the game is at version {current_version}", current_version=current_version)
        self.current_version = current_version


class InvalidOptions(Unprocessable):
    code = "invalid_options"
    summary = "the options do not describe a game this title can set up"


class InvalidSeat(Unprocessable):
    code = "invalid_seat"
    summary = "take_seats names a seat the game does not have"


class UnknownBotLevel(Unprocessable):
    code = "unknown_bot_level"
    summary = "the title has no bot of that level (see the catalogue's bot_levels)"


class WrongGameKind(Unprocessable):
    code = "wrong_game_kind"
    summary = "the command belongs to another game"


class IllegalMove(Unprocessable):
    code = "illegal_move"
    summary = "the move is not among the legal moves"


class IdempotencyKeyReused(Unprocessable):
    code = "idempotency_key_reused"
    summary = "this Idempotency-Key was used with a different request"


class InvalidRecord(Unprocessable):
    code = "invalid_record"
    summary = "the body is not a game record"


class IncompleteRecord(Unprocessable):
    code = "incomplete_record"
    summary = "only a finished game's complete record (with its seed) can be imported"


class RecordDoesNotVerify(Unprocessable):
    code = "record_does_not_verify"
    summary = "a check failed; `detail` names the check and the first bad seq"


class UnstorableValue(Unprocessable):
    code = "unstorable_value"
    summary = "a value cannot be stored (e.g. text with a NUL character)"


class NotReady(Unavailable):
    code = "not_ready"
    summary = "Postgres is unreachable: this worker cannot serve games now"


class RecordTooLarge(TooLarge):
    code = "record_too_large"
    summary = "the record is larger than the service imports"


def refusals() -> list[type[ApplicationError]]:
    """Every refusal class with a code (for the API documentation and its tests)."""
    out: list[type[ApplicationError]] = []
    stack = list(ApplicationError.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "code" in cls.__dict__:
            out.append(cls)
    return sorted(out, key=lambda c: c.code)

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


class TooMany(ApplicationError):
    """The caller has reached one of its limits: ``limit`` says the number, ``retry_after`` (seconds)
    when to try again."""


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


class CredentialInUrl(Malformed):
    code = "credential_in_url"
    summary = (
        "a credential was sent in the query string (`key`, `token`, `api_key`, `access_token`): send it "
        "as `Authorization: Bearer …` only (URLs are logged and cached); revoke a key that was sent this way"
    )


class SeatRequired(Malformed):
    code = "seat_required"
    summary = "the player holds several seats of this game: name the one it acts as with `?seat=`"


class AppNotFound(NotFound):
    code = "app_not_found"
    summary = "no app has this id"


class AdminApiOff(NotFound):
    code = "not_found"
    summary = "no admin API here: the operator has not set `YAMEN_ADMIN_TOKEN` (the path matches no route)"


class KeyNotFound(NotFound):
    code = "key_not_found"
    summary = "the app has no such API key (or it is revoked already, for a rotation)"


class SigningKeyNotFound(NotFound):
    code = "signing_key_not_found"
    summary = "the app has no signing key with this kid"


class InvalidAppKey(Unauthenticated):
    code = "invalid_app_key"
    summary = "the app key is malformed, unknown, revoked, or expired after a rotation"


class AdminTokenRequired(Unauthenticated):
    code = "admin_token_required"
    summary = "the admin API needs the operator's token: `Authorization: Bearer <YAMEN_ADMIN_TOKEN>`"


class AppDisabled(Forbidden):
    code = "app_disabled"
    summary = "the operator has disabled this app: its keys and players are refused"


class InvalidVisibility(Unprocessable):
    code = "invalid_visibility"
    summary = "`app` visibility needs an owning app: create the game with an app key or an app's player"


class InvalidSigningKey(Unprocessable):
    code = "invalid_signing_key"
    summary = "HS256 takes no key (Yamen makes the secret); EdDSA needs the app's Ed25519 public key in PEM"


class GamesPerDayReached(TooMany):
    code = "games_per_day_reached"
    summary = "the app has created its `limit` of games today (UTC); `Retry-After` says when the day ends"


class ConcurrentGamesReached(TooMany):
    code = "concurrent_games_reached"
    summary = "the app has its `limit` of games not finished (open or active); finish one first"


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


class NotTheCreator(Forbidden):
    code = "not_the_creator"
    summary = (
        "only the game's creator (its player, its app's key, or a holder of a seat its create took) "
        "fills open seats with bots; anybody may join them"
    )


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


class VersionNotReached(Conflict):
    code = "version_not_reached"
    summary = (
        "`min_version` is newer than the game (which is at `current_version`): no acknowledged move "
        "made it that new here"
    )

    def __init__(self, min_version: int, current_version: int) -> None:
        super().__init__(
            f"the game is at version {current_version}, not yet {min_version}",
            current_version=current_version,
        )


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


class AppKeyRequired(Unauthenticated):
    code = "app_key_required"
    summary = "this is an app's own business: `Authorization: Bearer ymk_<key_id>.<secret>`"


class WebhookUrlRefused(Malformed):
    code = "webhook_url_refused"
    summary = (
        "the webhook URL is not http(s), or its host is (or resolves to) a loopback, private, link-local, "
        "multicast, reserved or unspecified address; `detail` says which"
    )


class WebhookNotFound(NotFound):
    code = "webhook_not_found"
    summary = "this app has no webhook endpoint with this id"


class DeliveryNotFound(NotFound):
    code = "delivery_not_found"
    summary = "the webhook endpoint has no delivery with this id"


class WebhookLimitReached(Conflict):
    code = "webhook_limit_reached"
    summary = "the app has as many webhook endpoints as it may; delete one first"


class PlayerRequired(Unauthenticated):
    code = "player_required"
    summary = (
        "this is a player's own business: `Authorization: Bearer ymp_<id>.<secret>` (a player credential) "
        "or a player assertion (a JWT its app signed)"
    )


class InvalidPlayerCredential(Unauthenticated):
    code = "invalid_player_credential"
    summary = "the player credential is malformed, unknown, revoked or expired"


class AssertionExpired(Unauthenticated):
    code = "assertion_expired"
    summary = "the player assertion's `exp` has passed (30 s of clock skew allowed): the app signs a new one"


class AssertionNotYetValid(Unauthenticated):
    code = "assertion_not_yet_valid"
    summary = "the player assertion's `iat` or `nbf` is in the future (beyond 30 s of clock skew)"


class AssertionWrongAudience(Unauthenticated):
    code = "assertion_wrong_audience"
    summary = "the player assertion's `aud` does not name this service"


class AssertionInvalid(Unauthenticated):
    code = "assertion_invalid"
    summary = (
        "the player assertion is malformed, lacks a required claim (`iss`, `sub`, `aud`, `exp`, `iat`), "
        "is not signed by a signing key of its `iss` app (unknown or revoked `kid`, another algorithm), "
        "or lives longer than an hour; `detail` says which"
    )


class PlayerNotFound(NotFound):
    code = "player_not_found"
    summary = "this app has no player with this id"


class CredentialNotFound(NotFound):
    code = "credential_not_found"
    summary = "the player has no credential with this id"


class NotOnLeaderboard(NotFound):
    code = "not_on_leaderboard"
    summary = "the player is not on this title's leaderboard (no rating yet, or still provisional)"


class NotReady(Unavailable):
    code = "not_ready"
    summary = "Postgres is unreachable: this worker cannot serve games now"


class RecordTooLarge(TooLarge):
    code = "record_too_large"
    summary = "the record is larger than the service imports"


class SeekNotFound(NotFound):
    code = "seek_not_found"
    summary = "the calling player has no seek with this id"


class SeekExists(Conflict):
    code = "seek_exists"
    summary = "the player has an open seek for this title already (one at a time per title): cancel it first"


class SeekClosed(Conflict):
    code = "seek_closed"
    summary = "the seek is no longer open: it was matched (see its game), cancelled or expired"


class InvalidSeek(Malformed):
    code = "invalid_seek"
    summary = (
        "the seek's player counts or option constraints are not the title's: an option key it does "
        "not have, a value its option refuses, or a count it is not played by"
    )


class AppRequestsReached(TooMany):
    code = "too_many_requests"
    summary = (
        "the app has sent its `limit` of requests this minute (HTTP requests and realtime messages "
        "together); `retry_after` says when its window resets"
    )


class TooManySubscriptions(TooMany):
    code = "too_many_subscriptions"
    summary = "a realtime connection follows at most `limit` games at once: unsubscribe from one first"


class PushOff(NotFound):
    code = "push_off"
    summary = (
        "this service sends no Web Push: its operator set no VAPID key (`YAMEN_VAPID_PRIVATE_KEY` and "
        "`YAMEN_VAPID_SUBJECT`)"
    )


class PushSubscriptionNotFound(NotFound):
    code = "push_subscription_not_found"
    summary = "the caller (its player, or its seat) has no push subscription with this id"


class InvalidPushSubscription(Malformed):
    code = "invalid_push_subscription"
    summary = (
        "not a browser's PushSubscription: the endpoint is not an https URL of a public host, or "
        "`keys.p256dh` is not a P-256 public key or `keys.auth` not 16 bytes (base64url); `detail` says which"
    )


class PushOwnerRequired(Unauthenticated):
    code = "push_owner_required"
    summary = (
        "push subscriptions belong to a player (`Authorization: Bearer ymp_<id>.<secret>` or an assertion) "
        "or to a seat (its token `ymn.<seat>.<secret>` with the game's id in `game_id`)"
    )


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

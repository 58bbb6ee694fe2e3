"""Players: the people an app vouches for (or the reference client's guests), their credentials,
the assertions an app's server signs for them, and their games across titles.

A player is known across games; a seat token knows one seat.  A player calls with

- a **credential** ``ymp_<credential_id>.<secret>`` — its app's server asks for one
  (``POST /v1/players`` with the app key), or a guest gets one (``POST /v1/guests``); the id is
  public and names the row, only the SHA-256 of the whole credential is stored, it is shown once,
  a player may hold several, and each can be revoked;
- an **assertion** — a JWT its app's server signed (HS256 with a secret Yamen made for the app,
  or EdDSA with the app's own key), verified by PyJWT: header ``kid`` names the app's signing key,
  ``iss`` is the app, ``sub`` the app's id for its user (a new ``sub`` registers the player: the
  app vouches for it), ``aud`` this service (``YAMEN_ASSERTION_AUDIENCE``), ``exp`` and ``iat``
  required, 30 s of clock skew allowed, at most an hour from ``iat`` to ``exp``.  A browser holding
  one needs no call to its app's server until it expires.

Either way the caller is a :class:`~.identity.PlayerCaller` with its app's id, so its traffic
counts against the app's limits.  In a game it plays the seats bound to it (``seats.player_id``:
a claim or a create by the player binds them), and may have a seat's token re-issued
(:meth:`service.application.seats.Seats.reissue`).

**Revocation at once.**  A worker remembers a verified credential or signing key only while the
notice board vouches for it (its subscription unbroken since, and at most
:data:`~.apps.KEY_TRUST_SECONDS`); revoking a credential posts ``<credential_id> revoked``
(:meth:`Players.forget` on every worker), as the apps' revocations do for signing keys
(``<kid> revoked``) and apps (``<app_id> revoked``).  Without a live board every request reads
its credential or signing key from Postgres (one read by key).
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import jwt
import msgspec

from ..infra.accounts import Accounts
from ..infra.notices import NoticeBoard
from ..infra.players_store import CredentialRow, DuplicatePlayerId, MyGameRow, PlayerRow, PlayerStore
from ..record.chain import timestamp
from .apps import KEY_TRUST_SECONDS, PLAIN_TEXT, Apps, digest
from .clock import Clock, utcnow
from .errors import (
    AppDisabled,
    AppKeyRequired,
    AssertionExpired,
    AssertionInvalid,
    AssertionNotYetValid,
    AssertionWrongAudience,
    CredentialNotFound,
    InvalidPlayerCredential,
    PlayerNotFound,
)
from .identity import AppCaller, PlayerCaller, Principal
from .reads import _decode_cursor

ASSERTION_AUDIENCE = "yamen"
"""The ``aud`` an assertion must name, unless ``YAMEN_ASSERTION_AUDIENCE`` says another."""
LEEWAY_SECONDS = 30
"""Clock skew allowed between the app's server and this one, on ``exp``, ``iat`` and ``nbf``."""
MAX_ASSERTION_SECONDS = 3600
"""The longest an assertion may live (``exp - iat``): a bearer token in a browser is short-lived."""
ALGORITHMS = ("HS256", "EdDSA")
"""The algorithms of the apps' signing keys; a key verifies only its own (no algorithm confusion)."""
REQUIRED_CLAIMS = ["iss", "sub", "aud", "exp", "iat"]
KNOWN = 100_000
"""Verified credentials, signing keys and players a worker remembers (each)."""

_CREDENTIAL = re.compile(r"^ymp_([0-9a-f]{12})\.([A-Za-z0-9_-]{20,100})$")
_TEXT = re.compile(r"[^\x00-\x1f\x7f]+")
MAX_EXTERNAL_ID = 200


def _text(value: str) -> bool:
    """*value* is text without control characters."""
    return _TEXT.fullmatch(value) is not None


ExternalId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_EXTERNAL_ID, pattern=PLAIN_TEXT)]
DisplayName = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=PLAIN_TEXT)]


# --- what the players API says and accepts --------------------------------------------------------
class RegisterPlayer(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    external_id: ExternalId
    """The app's own id for its user (any text without control characters, up to 200): the same id
    always finds the same player."""
    display_name: DisplayName | None = None
    """A name to show; given again, it replaces the one stored (omitted: kept)."""
    credential: bool = False
    """``true``: also make a new player credential for the player (shown once, in ``credential``)."""
    credential_expires_in: Annotated[int, msgspec.Meta(ge=60, le=366 * 24 * 3600)] | None = None
    """Seconds the new credential works (omitted: until revoked)."""


class JoinSeat(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """With the app's key only: whom the seat is claimed for.  Anybody else sends no body (a player
    claiming for itself is known by its credential)."""

    player_id: Annotated[str, msgspec.Meta(max_length=40, pattern="^p_[0-9a-f]+$")]
    """The app's player the seat is bound to, e.g. to seat its users in a private game."""


class NewCredential(msgspec.Struct, kw_only=True):
    credential_id: str
    """Public: names the credential (for revoking it)."""
    credential: str
    """``ymp_<credential_id>.<secret>``: the player sends it as ``Authorization: Bearer <credential>``.
    Shown once; only its hash is stored."""
    created_at: str
    expires_at: str | None = None


class CredentialInfo(msgspec.Struct, kw_only=True):
    credential_id: str
    created_at: str
    expires_at: str | None = None
    revoked_at: str | None = None


class PlayerInfo(msgspec.Struct, kw_only=True):
    player_id: str
    """Yamen's id for the player (``p_…``)."""
    external_id: str | None
    """The app's id for its user; null for a guest."""
    display_name: str | None
    created_at: str
    app_id: str | None = None
    """The app that vouches for the player; null for a guest of the reference client."""
    credential: NewCredential | None = None
    """The credential made by this request, if one was asked for (shown once)."""
    credentials: list[CredentialInfo] | None = None
    """``GET /v1/players/{player_id}``: every credential of the player, revoked ones too."""


class MyGameLinks(msgspec.Struct, kw_only=True):
    """The game's resources (a player holding several of its seats adds ``?seat=<n>``)."""

    game: str
    legal_moves: str
    moves: str
    events: str


class MyGame(msgspec.Struct, kw_only=True):
    game_id: str
    kind: str
    status: str
    """``open`` (waiting for players), ``active`` or ``finished``."""
    version: int
    players: int
    seats: list[int]
    """The seats of the game this player holds."""
    to_act: list[int]
    """Which of those seats are to act now (empty: nothing to do; always empty unless ``active``)."""
    created_at: str
    updated_at: str
    """When the game last changed: its last move, or the claim that started it (the list is newest
    first by this)."""
    links: MyGameLinks


class MyGames(msgspec.Struct, kw_only=True):
    games: list[MyGame]
    next_cursor: str | None = None
    """Pass as ``cursor`` for the next page; null on the last one."""


# --- secrets --------------------------------------------------------------------------------------
def new_player_id() -> str:
    return "p_" + secrets.token_hex(10)


def new_credential() -> tuple[str, str]:
    """A new ``(credential_id, credential)``."""
    credential_id = secrets.token_hex(6)
    return credential_id, f"ymp_{credential_id}.{secrets.token_urlsafe(32)}"


@dataclass(slots=True)
class _KnownCredential:
    """A credential this worker verified, and whose it is."""

    secret_hash: str
    expires_at: datetime | None
    revoked: bool
    player_id: str
    app_id: str | None
    epoch: int
    checked_at: float


@dataclass(slots=True)
class _KnownKey:
    """A signing key this worker read (None: the app has no such key, or it is revoked)."""

    alg: str
    verifier: Any
    """The key as PyJWT's algorithm prepared it (HMAC bytes, or an Ed25519 public key)."""
    epoch: int
    checked_at: float


class Players:
    """Players, their credentials and assertions, and their games (see the module docstring)."""

    def __init__(
        self,
        store: PlayerStore,
        accounts: Accounts,
        apps: Apps,
        clock: Clock = utcnow,
        audience: str = ASSERTION_AUDIENCE,
        *,
        board: NoticeBoard | None = None,
        announce: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.apps = apps
        self.clock = clock
        self.audience = audience
        self.board = board
        """The notice board: while it is live, verified credentials and keys are remembered."""
        self.announce = announce
        """Posts ``<name> revoked`` to every worker (the snapshot cache's ``announce_revoked``)."""
        self._credentials: dict[str, _KnownCredential] = {}
        self._keys: dict[tuple[str, str], _KnownKey] = {}
        self._forgotten = 0
        """Changes heard so far (:meth:`forget`): a row read while one was heard is not remembered."""
        self._assertions: dict[str, tuple[PlayerCaller, float, tuple[str, str]]] = {}
        """assertion -> (its player, its exp, its signing key (app, kid)): verified ones."""
        self._players: dict[tuple[str, str], str] = {}
        """(app, external id) -> player id: a player is never deleted, so this never goes stale."""

    # --- verifying a credential -----------------------------------------------------------------
    async def authenticate_credential(self, credential: str) -> PlayerCaller:
        """The player holding ``ymp_…`` *credential*: :class:`InvalidPlayerCredential` for a
        malformed, unknown, revoked or expired one, :class:`AppDisabled` when its app is disabled."""
        match = _CREDENTIAL.match(credential)
        if match is None:
            raise InvalidPlayerCredential("a player credential looks like ymp_<12 hex>.<secret>")
        credential_id = match.group(1)
        known = self._vouched_credential(credential_id)
        if known is None:
            heard, epoch = self._forgotten, self._epoch()
            found = await self.store.credential(credential_id)
            if found is None:
                raise InvalidPlayerCredential("no such player credential")
            row, player = found
            known = _KnownCredential(
                row.secret_hash,
                row.expires_at,
                row.revoked_at is not None,
                player.player_id,
                player.app_id,
                epoch,
                time.monotonic(),
            )
            if self._unchanged(heard, epoch):
                if len(self._credentials) >= KNOWN:
                    self._credentials.clear()  # a bound, not an LRU: a forgotten one is one read away
                self._credentials[credential_id] = known
        if not hmac.compare_digest(known.secret_hash, digest(credential)):
            raise InvalidPlayerCredential("no such player credential")
        if known.revoked:
            raise InvalidPlayerCredential(f"this credential ({credential_id}) was revoked")
        if known.expires_at is not None and known.expires_at <= self.clock():
            raise InvalidPlayerCredential(
                f"this credential ({credential_id}) expired at {timestamp(known.expires_at)}"
            )
        if known.app_id is not None:
            await self._enabled(known.app_id)
        return PlayerCaller(player_id=known.player_id, app_id=known.app_id)

    def _epoch(self) -> int:
        """The board's epoch while it is live, else -1 (nothing is remembered)."""
        board = self.board
        return board.epoch if board is not None and board.live else -1

    def _heard(self) -> int:
        """The board's epoch once every notice that has arrived is heard: a revocation posted before
        this request began is in the socket already (``RedisSnapshotCache._delivered``)."""
        board = self.board
        if board is not None and board.live:
            board.drain()
        return self._epoch()

    @staticmethod
    def _trusted(epoch: int, checked_at: float, heard: int) -> bool:
        """Something remembered in *epoch* at *checked_at* is still vouched for (*heard*: the board's
        epoch now, its notices heard)."""
        return epoch >= 0 and epoch == heard and time.monotonic() - checked_at <= KEY_TRUST_SECONDS

    def _unchanged(self, heard: int, epoch: int) -> bool:
        """Nothing was forgotten since *heard* and the board is still in *epoch*: a row read meanwhile
        is no older than any notice, so it may be remembered."""
        return epoch >= 0 and heard == self._forgotten and epoch == self._epoch()

    def _vouched_credential(self, credential_id: str) -> _KnownCredential | None:
        heard = self._heard()  # first: a revocation heard now forgets the credential
        known = self._credentials.get(credential_id)
        if known is not None and not self._trusted(known.epoch, known.checked_at, heard):
            del self._credentials[credential_id]
            return None
        return known

    async def _enabled(self, app_id: str) -> None:
        app = await self.apps.app_limits(app_id)
        if app.disabled_at is not None:
            raise AppDisabled(f"the app {app_id} is disabled")

    # --- verifying an assertion -----------------------------------------------------------------
    async def authenticate_assertion(self, assertion: str) -> PlayerCaller:
        """The player an app's signed *assertion* vouches for (registered now if the app never named
        it before), or the 401 refusal saying why (see the module docstring).

        A browser sends the same assertion with every request until it expires, so a verified one
        is remembered (a dictionary look-up instead of about a tenth of a millisecond of parsing and
        signature checking) until its ``exp``, while its signing key is remembered as trusted."""
        verified = self._assertions.get(assertion)
        if verified is not None:
            caller, expires, signer = verified
            heard = self._heard()  # first: a revoked signing key is forgotten now
            key = self._keys.get(signer)
            if (
                time.time() < expires + LEEWAY_SECONDS
                and key is not None
                and self._trusted(key.epoch, key.checked_at, heard)
            ):
                assert caller.app_id is not None  # an assertion's player always has its app
                await self._enabled(caller.app_id)
                return caller
            del self._assertions[assertion]
        try:  # read first to find the key: nothing read here is trusted before the signature is
            unverified = jwt.decode_complete(assertion, options={"verify_signature": False})
        except jwt.InvalidTokenError as exc:
            raise AssertionInvalid(f"not a signed JWT: {exc}") from None
        kid, issuer = unverified["header"].get("kid"), unverified["payload"].get("iss")
        if not isinstance(kid, str) or not kid:
            raise AssertionInvalid("the header names no kid (the app's signing key id)")
        if not isinstance(issuer, str) or not issuer:
            raise AssertionInvalid("no iss claim (the app's id)")
        key = await self._signing_key(issuer, kid)
        if key is None:
            raise AssertionInvalid(f"the app {issuer} has no signing key {kid} (or it was revoked)")
        try:
            claims = jwt.decode(
                assertion,
                key.verifier,
                algorithms=[key.alg],
                audience=self.audience,
                issuer=issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": REQUIRED_CLAIMS},
            )
        except jwt.ExpiredSignatureError:
            raise AssertionExpired("the assertion has expired: ask the app's server for a new one") from None
        except jwt.ImmatureSignatureError as exc:
            raise AssertionNotYetValid(f"{exc}: check the app server's clock") from None
        except jwt.InvalidAudienceError:
            raise AssertionWrongAudience(f"the assertion's aud must be {self.audience!r}") from None
        except jwt.InvalidTokenError as exc:
            raise AssertionInvalid(str(exc)) from None
        lifetime = float(claims["exp"]) - float(claims["iat"])
        if lifetime > MAX_ASSERTION_SECONDS:
            raise AssertionInvalid(
                f"the assertion lives {lifetime:.0f} s from iat to exp; at most {MAX_ASSERTION_SECONDS}"
            )
        subject = claims["sub"]
        if not isinstance(subject, str) or len(subject) > MAX_EXTERNAL_ID or not _text(subject):
            raise AssertionInvalid(
                f"sub must be the app's id for its user: text of 1 to {MAX_EXTERNAL_ID} characters"
            )
        await self._enabled(issuer)
        caller = PlayerCaller(player_id=await self._player_for(issuer, subject), app_id=issuer)
        if (issuer, kid) in self._keys:  # remembered while the key is (see _signing_key)
            if len(self._assertions) >= KNOWN:
                self._assertions.clear()
            self._assertions[assertion] = (caller, float(claims["exp"]), (issuer, kid))
        return caller

    async def _signing_key(self, app_id: str, kid: str) -> _KnownKey | None:
        known = self._keys.get((app_id, kid))
        if known is not None and self._trusted(known.epoch, known.checked_at, self._heard()):
            return known
        self._keys.pop((app_id, kid), None)
        heard, epoch = self._forgotten, self._epoch()
        row = await self.accounts.signing_key(app_id, kid)
        if row is None or row.revoked_at is not None or row.alg not in ALGORITHMS:
            return None
        known = _KnownKey(
            row.alg, jwt.get_algorithm_by_name(row.alg).prepare_key(row.key), epoch, time.monotonic()
        )
        if self._unchanged(heard, epoch):
            if len(self._keys) >= KNOWN:
                self._keys.clear()
            self._keys[(app_id, kid)] = known
        return known

    async def _player_for(self, app_id: str, external_id: str) -> str:
        """The app's player *external_id*, registered now if the app never named it before."""
        player_id = self._players.get((app_id, external_id))
        if player_id is None:
            player_id = await self.store.player_of(app_id, external_id)
            if player_id is None:
                player, _ = await self._register(app_id, external_id, None)
                player_id = player.player_id
            self._remember_player(app_id, external_id, player_id)
        return player_id

    def _remember_player(self, app_id: str, external_id: str, player_id: str) -> None:
        if len(self._players) >= KNOWN:
            self._players.clear()
        self._players[(app_id, external_id)] = player_id

    def forget(self, name: str) -> None:
        """A ``<name> revoked`` notice: *name* is a credential id, a signing key's kid or an app id."""
        self._forgotten += 1
        self._credentials.pop(name, None)
        for app_kid in [k for k in self._keys if name in k]:
            del self._keys[app_kid]
        if name.startswith("app_"):
            for credential_id in [c for c, known in self._credentials.items() if known.app_id == name]:
                del self._credentials[credential_id]

    # --- an app's players -------------------------------------------------------------------------
    async def register(self, app: AppCaller, data: RegisterPlayer) -> tuple[PlayerInfo, bool]:
        """The app's player *data.external_id*, made now if the app has none yet (True), with a new
        credential if *data* asks for one."""
        player, created = await self._register(app.app_id, data.external_id, data.display_name)
        self._remember_player(app.app_id, data.external_id, player.player_id)
        credential = None
        if data.credential:
            credential = await self._issue(player.player_id, data.credential_expires_in)
        return _player_info(player, credential), created

    async def _register(
        self, app_id: str | None, external_id: str, display_name: str | None
    ) -> tuple[PlayerRow, bool]:
        while True:
            row = PlayerRow(
                player_id=new_player_id(),
                app_id=app_id,
                external_id=external_id,
                display_name=display_name,
                created_at=self.clock(),
            )
            try:
                return await self.store.register(row)
            except DuplicatePlayerId:  # an 80-bit id drawn twice: draw again
                continue

    async def _issue(self, player_id: str, expires_in: int | None = None) -> NewCredential:
        now = self.clock()
        while True:
            credential_id, credential = new_credential()
            row = CredentialRow(
                credential_id=credential_id,
                player_id=player_id,
                secret_hash=digest(credential),
                created_at=now,
                expires_at=now + timedelta(seconds=expires_in) if expires_in is not None else None,
            )
            try:
                await self.store.add_credential(row)
                break
            except DuplicatePlayerId:
                continue
        return NewCredential(
            credential_id=credential_id,
            credential=credential,
            created_at=timestamp(now),
            expires_at=_time(row.expires_at),
        )

    async def player(self, app: AppCaller, player_id: str) -> PlayerInfo:
        """The app's player and its credentials; :class:`PlayerNotFound` for anybody else's."""
        player = await self._own(app, player_id)
        info = _player_info(player)
        info.credentials = [_credential_info(c) for c in await self.store.credentials(player_id)]
        return info

    async def claimant(self, caller: Principal | None, data: JoinSeat | None) -> str | None:
        """The player a seat claimed by *caller* is bound to: the calling player, or the app's
        player *data* names (only an app's key may name one); None for a bare claim."""
        if data is not None:
            if not isinstance(caller, AppCaller):
                raise AppKeyRequired("only an app's key claims a seat for one of its players")
            return (await self._own(caller, data.player_id)).player_id
        return caller.player_id if isinstance(caller, PlayerCaller) else None

    async def _own(self, app: AppCaller, player_id: str) -> PlayerRow:
        player = await self.store.player(player_id)
        if player is None or player.app_id != app.app_id:
            raise PlayerNotFound(f"the app {app.app_id} has no player {player_id}")
        return player

    async def revoke(self, app: AppCaller, player_id: str, credential_id: str) -> CredentialInfo:
        """The credential stops working now, on every worker."""
        await self._own(app, player_id)
        row = await self.store.revoke_credential(player_id, credential_id, self.clock())
        if row is None:
            raise CredentialNotFound(f"the player {player_id} has no credential {credential_id}")
        self.forget(credential_id)
        if self.announce is not None:
            await self.announce(credential_id)
        return _credential_info(row)

    # --- guests ---------------------------------------------------------------------------------
    async def guest(self) -> PlayerInfo:
        """A new anonymous player (no app vouches for it) and its credential, shown once."""
        now = self.clock()
        while True:
            player = PlayerRow(
                player_id=new_player_id(), app_id=None, external_id=None, display_name=None, created_at=now
            )
            credential_id, credential = new_credential()
            row = CredentialRow(
                credential_id=credential_id,
                player_id=player.player_id,
                secret_hash=digest(credential),
                created_at=now,
            )
            try:
                await self.store.add_guest(player, row)
                break
            except DuplicatePlayerId:
                continue
        return _player_info(
            player,
            NewCredential(credential_id=credential_id, credential=credential, created_at=timestamp(now)),
        )

    # --- the player itself ------------------------------------------------------------------------
    async def me(self, caller: PlayerCaller) -> PlayerInfo:
        """The calling player, with its credentials (ids and dates: which to revoke)."""
        player = await self.store.player(caller.player_id)
        if player is None:  # its credential was just verified: a player is never deleted
            raise PlayerNotFound(f"no player {caller.player_id}")
        info = _player_info(player)
        info.credentials = [_credential_info(c) for c in await self.store.credentials(caller.player_id)]
        return info

    async def revoke_own(self, caller: PlayerCaller, credential_id: str) -> CredentialInfo:
        """The calling player revokes one of its own credentials (a lost device; the one it calls
        with, to sign out): refused from the next request on, on every worker."""
        row = await self.store.revoke_credential(caller.player_id, credential_id, self.clock())
        if row is None:
            raise CredentialNotFound(f"you have no credential {credential_id}")
        self.forget(credential_id)
        if self.announce is not None:
            await self.announce(credential_id)
        return _credential_info(row)

    async def games(
        self, caller: PlayerCaller, status: str | None, to_act: bool, cursor: str | None, limit: int
    ) -> MyGames:
        """The games where the player holds a seat, across titles, most recently changed first,
        *limit* at a time (keyset *cursor*): of *status*, or only those where it is to act."""
        rows = await self.store.games_of(
            caller.player_id, status=status, to_act=to_act, before=_decode_cursor(cursor), limit=limit + 1
        )
        more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1] if rows else None
        return MyGames(
            games=[_my_game(row) for row in rows],
            next_cursor=_cursor(last.updated_at, last.game_id) if more and last else None,
        )


def _cursor(moment: datetime, game_id: str) -> str:
    """A keyset cursor with nothing to escape in a query string (no ``+``: UTC written ``Z``)."""
    return f"{moment.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')}~{game_id}"


def _my_game(row: MyGameRow) -> MyGame:
    base = f"/v1/games/{row.game_id}"
    return MyGame(
        game_id=row.game_id,
        kind=row.kind,
        status=row.status,
        version=row.version,
        players=row.players,
        seats=row.seats,
        to_act=[s for s in row.seats if s in row.to_act] if row.status == "active" else [],
        created_at=timestamp(row.created_at),
        updated_at=timestamp(row.updated_at),
        links=MyGameLinks(
            game=base, legal_moves=f"{base}/legal-moves", moves=f"{base}/moves", events=f"{base}/events"
        ),
    )


def _player_info(player: PlayerRow, credential: NewCredential | None = None) -> PlayerInfo:
    return PlayerInfo(
        player_id=player.player_id,
        external_id=player.external_id,
        display_name=player.display_name,
        created_at=timestamp(player.created_at),
        app_id=player.app_id,
        credential=credential,
    )


def _credential_info(row: CredentialRow) -> CredentialInfo:
    return CredentialInfo(
        credential_id=row.credential_id,
        created_at=timestamp(row.created_at),
        expires_at=_time(row.expires_at),
        revoked_at=_time(row.revoked_at),
    )


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)

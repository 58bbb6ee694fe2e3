"""Apps (integrators): their API keys, signing keys and limits.

An app is a front end's backend.  It calls with an API key ``ymk_<key_id>.<secret>``: the key id
(12 lowercase hex characters) is public and names the key's row; only the SHA-256 of the whole key
is stored, and the key is shown once, when it is made.  A rotation makes a new key and lets the
old one work on for an overlap (``expires_at``); a revocation stops a key at once.

**At once, on every worker.**  A worker remembers a key it has verified only while the Redis notice
board vouches for it (its subscription unbroken since: :attr:`NoticeBoard.epoch`), and at most
:data:`KEY_TRUST_SECONDS` even then; a revocation, rotation or change of the app posts a
``<name> revoked`` notice every board hears, and every worker forgets the key or app.  Without a
live board every request looks its key up in Postgres (one read by primary key).

**Limits.** An app's traffic (its key, its players' credentials and assertions) counts against
the app's own limits, not its address's: requests per minute (:mod:`service.http.limits`), games
per UTC day and games not finished at once, checked when a game is created or rematched
(:meth:`Apps.count_new_game`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

import msgspec

from ..infra.accounts import Accounts, AppRow, DuplicateName, KeyRow, SigningKeyRow
from ..infra.notices import NoticeBoard
from ..record.chain import timestamp
from .clock import Clock, utcnow
from .errors import (
    AppDisabled,
    AppNotFound,
    ConcurrentGamesReached,
    GamesPerDayReached,
    InvalidAppKey,
    InvalidSigningKey,
    InvalidVisibility,
    KeyNotFound,
    SigningKeyNotFound,
)
from .identity import AppCaller, Principal, Visibility, visibility_of

KEY_TRUST_SECONDS = 60.0
"""The longest a worker trusts a key (and its app's limits) it has verified, even while the notice
board vouches for it: the bound on a lost revocation notice."""
KNOWN_KEYS = 100_000
"""Verified keys a worker remembers."""
DEFAULT_OVERLAP_SECONDS = 24 * 3600
"""How long a rotated key keeps working by default, while the app rolls out the new one."""
MAX_OVERLAP_SECONDS = 30 * 24 * 3600

_KEY = re.compile(r"^ymk_([0-9a-f]{12})\.([A-Za-z0-9_-]{20,100})$")

Count = Annotated[int, msgspec.Meta(ge=0, le=1_000_000_000)]
PLAIN_TEXT = r"^[^\x00-\x1f\x7f]+(?![\s\S])"
"""Text without control characters, as a JSON Schema pattern.  Not ``…$``: Python's ``$`` (msgspec
checks patterns with :func:`re.search`) also matches before a final newline, and a name ending in
one passed; the look-ahead means the end in Python and in ECMA 262 alike."""
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=PLAIN_TEXT)]
Overlap = Annotated[int, msgspec.Meta(ge=0, le=MAX_OVERLAP_SECONDS)]


@dataclass(frozen=True)
class AppDefaults:
    """A new app's limits unless its creator says otherwise (``YAMEN_APP_*`` settings)."""

    requests_per_minute: int = 60_000
    games_per_day: int = 100_000
    concurrent_games: int = 10_000


# --- what the admin API and the CLI say -------------------------------------------------------
class Limits(msgspec.Struct, kw_only=True):
    requests_per_minute: int
    """Requests a minute from the app's key and its players, together (the app's own bucket)."""
    games_per_day: int
    """Games the app (its key or its players) may create per UTC day, rematches included."""
    concurrent_games: int
    """Games of the app not finished (open or active) at once."""


class KeyInfo(msgspec.Struct, kw_only=True):
    key_id: str
    """Public: names the key (``ymk_<key_id>.…``); the secret is never shown again."""
    status: Literal["active", "expiring", "expired", "revoked"]
    """``expiring``: rotated, still working until ``expires_at``."""
    created_at: str
    expires_at: str | None = None
    revoked_at: str | None = None


class SigningKeyInfo(msgspec.Struct, kw_only=True):
    kid: str
    """The ``kid`` header of the app's assertions signed with this key."""
    alg: Literal["HS256", "EdDSA"]
    created_at: str
    revoked_at: str | None = None
    public_key: str | None = None
    """EdDSA: the app's public key (PEM); never an HS256 secret."""


class AppInfo(msgspec.Struct, kw_only=True):
    app_id: str
    name: str
    created_at: str
    limits: Limits
    default_visibility: Visibility
    """The visibility of a game the app creates without saying one."""
    disabled_at: str | None = None
    """Set: every key of the app is refused (403 ``app_disabled``)."""
    keys: list[KeyInfo] = []
    signing_keys: list[SigningKeyInfo] = []


class AppList(msgspec.Struct, kw_only=True):
    apps: list[AppInfo]


class NewKey(msgspec.Struct, kw_only=True):
    app_id: str
    key_id: str
    key: str
    """``ymk_<key_id>.<secret>``: send it as ``Authorization: Bearer <key>``. Shown once; only its
    hash is stored."""
    created_at: str
    replaces: KeyInfo | None = None
    """After a rotation: the old key, working on until its ``expires_at``."""


class AppCreated(msgspec.Struct, kw_only=True):
    app: AppInfo
    key: NewKey


class NewSigningKey(msgspec.Struct, kw_only=True):
    app_id: str
    kid: str
    alg: Literal["HS256", "EdDSA"]
    secret: str | None = None
    """HS256: the shared secret the app signs its assertions with. Shown once."""
    public_key: str | None = None
    """EdDSA: the public key registered (the app keeps its private key)."""


# --- what the admin API accepts -----------------------------------------------------------------
class CreateApp(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Name
    requests_per_minute: Count | None = None
    """Default: ``YAMEN_APP_REQUESTS_PER_MINUTE`` (60,000)."""
    games_per_day: Count | None = None
    """Default: ``YAMEN_APP_GAMES_PER_DAY`` (100,000)."""
    concurrent_games: Count | None = None
    """Default: ``YAMEN_APP_CONCURRENT_GAMES`` (10,000)."""
    default_visibility: Visibility = "public"
    """The visibility of a game the app creates without saying one."""


class UpdateApp(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Only the fields given change."""

    name: Name | None = None
    requests_per_minute: Count | None = None
    games_per_day: Count | None = None
    concurrent_games: Count | None = None
    default_visibility: Visibility | None = None
    disabled: bool | None = None
    """``true``: every key of the app is refused at once; ``false``: they work again."""


class RotateKey(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    overlap_seconds: Overlap = DEFAULT_OVERLAP_SECONDS
    """How long the old key keeps working (0: it stops now)."""


class AddSigningKey(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    alg: Literal["HS256", "EdDSA"]
    """HS256: Yamen makes a secret and shows it once; EdDSA: send the app's Ed25519 public key."""
    public_key: Annotated[str, msgspec.Meta(max_length=4000)] | None = None
    """EdDSA: the app's public key, PEM (``-----BEGIN PUBLIC KEY-----…``)."""


# --- secrets ------------------------------------------------------------------------------------
def digest(credential: str) -> str:
    """What is stored of a credential: the SHA-256 of all of it."""
    return hashlib.sha256(credential.encode()).hexdigest()


def new_app_id() -> str:
    return "app_" + secrets.token_hex(8)


def new_key() -> tuple[str, str]:
    """A new ``(key_id, key)``."""
    key_id = secrets.token_hex(6)
    return key_id, f"ymk_{key_id}.{secrets.token_urlsafe(32)}"


@dataclass(slots=True)
class _Known:
    """A key this worker verified, with its app as it was then."""

    secret_hash: str
    expires_at: datetime | None
    app: AppRow
    epoch: int
    checked_at: float


class Apps:
    """Apps, their keys and limits (see the module docstring)."""

    def __init__(
        self,
        accounts: Accounts,
        clock: Clock = utcnow,
        defaults: AppDefaults | None = None,
        *,
        board: NoticeBoard | None = None,
        announce: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.accounts = accounts
        self.clock = clock
        self.defaults = defaults or AppDefaults()
        self.board = board
        """The notice board: while it is live, verified keys are remembered."""
        self.announce = announce
        """Posts ``<name> revoked`` to every worker (the snapshot cache's ``announce_revoked``)."""
        self._known: dict[str, _Known] = {}
        self._apps: dict[str, tuple[AppRow, int, float]] = {}
        self._forgotten = 0
        """Changes heard so far (``forget``): a key read while one was heard is not remembered."""

    # --- verifying a key ------------------------------------------------------------------------
    async def authenticate_key(self, key: str) -> AppCaller:
        """The app holding *key*: :class:`InvalidAppKey` for a malformed, unknown, expired or
        revoked key, :class:`AppDisabled` when its app is disabled."""
        match = _KEY.match(key)
        if match is None:
            raise InvalidAppKey("an app key looks like ymk_<12 hex>.<secret>")
        key_id = match.group(1)
        known = self._vouched(key_id)
        if known is None:
            heard, epoch = self._forgotten, self._epoch()
            found = await self.accounts.key(key_id)
            if found is None:
                raise InvalidAppKey("no such app key")
            row, app = found
            if row.revoked_at is not None:
                raise InvalidAppKey(f"this key ({key_id}) was revoked")
            known = _Known(row.secret_hash, row.expires_at, app, epoch, time.monotonic())
            # Remembered only if no change was heard while Postgres was read: the row read may be
            # older than the notice.
            if epoch >= 0 and heard == self._forgotten and epoch == self._epoch():
                if len(self._known) >= KNOWN_KEYS:
                    self._known.clear()  # a bound, not an LRU: a forgotten key is one read away
                self._known[key_id] = known
        if not hmac.compare_digest(known.secret_hash, digest(key)):
            raise InvalidAppKey("no such app key")
        if known.expires_at is not None and known.expires_at <= self.clock():
            raise InvalidAppKey(
                f"this key ({key_id}) expired at {timestamp(known.expires_at)} (it was rotated)"
            )
        if known.app.disabled_at is not None:
            raise AppDisabled(f"the app {known.app.app_id} is disabled")
        return AppCaller(app_id=known.app.app_id, key_id=key_id)

    def _epoch(self) -> int:
        """The board's epoch while it is live, else -1 (nothing is remembered)."""
        board = self.board
        return board.epoch if board is not None and board.live else -1

    def _heard(self) -> int:
        """The board's epoch once every notice that has arrived is heard (a revocation posted
        before this request began is in the socket already: see ``RedisSnapshotCache._delivered``)."""
        board = self.board
        if board is not None and board.live:
            board.drain()
        return self._epoch()

    def _vouched(self, key_id: str) -> _Known | None:
        epoch = self._heard()  # first: a change heard now forgets the key
        known = self._known.get(key_id)
        if known is None:
            return None
        if epoch < 0 or known.epoch != epoch or time.monotonic() - known.checked_at > KEY_TRUST_SECONDS:
            del self._known[key_id]
            return None
        return known

    async def app_limits(self, app_id: str) -> AppRow:
        """The app as its limits are now (remembered like keys)."""
        remembered = self._vouched_app(app_id)
        if remembered is not None:
            return remembered
        heard, epoch = self._forgotten, self._epoch()
        app = await self.accounts.app(app_id)
        if app is None:
            raise AppNotFound(f"no app {app_id}")
        if epoch >= 0 and heard == self._forgotten and epoch == self._epoch():
            if len(self._apps) >= KNOWN_KEYS:
                self._apps.clear()
            self._apps[app_id] = (app, self._epoch(), time.monotonic())
        return app

    def _vouched_app(self, app_id: str) -> AppRow | None:
        heard = self._heard()  # first: a change heard now forgets the app
        entry = self._apps.get(app_id)
        if entry is None:
            return None
        app, epoch, checked_at = entry
        if epoch != heard or epoch < 0 or time.monotonic() - checked_at > KEY_TRUST_SECONDS:
            del self._apps[app_id]
            return None
        return app

    def remembered_app(self, key_id: str) -> AppRow | None:
        """The app of a key this worker has just verified (its limits), if remembered."""
        known = self._known.get(key_id)
        return known.app if known is not None else None

    def forget(self, name: str) -> None:
        """A ``<name> revoked`` notice: *name* is a key id or an app id."""
        self._forgotten += 1
        self._known.pop(name, None)
        self._apps.pop(name, None)
        if name.startswith("app_"):
            for key_id in [k for k, known in self._known.items() if known.app.app_id == name]:
                del self._known[key_id]

    async def _changed(self, name: str) -> None:
        """Every worker forgets *name* (a key or an app) now."""
        self.forget(name)
        if self.announce is not None:
            await self.announce(name)

    async def ownership(
        self, principal: Principal | None, requested: Visibility | None
    ) -> tuple[str | None, Visibility]:
        """Who owns a game *principal* creates, and its visibility: an app's key or an app's player
        make it the app's, by default as visible as the app says; anybody else's is nobody's, and
        public unless they ask for private (only its own seats see it)."""
        app_id = principal.app_id if principal is not None else None
        if app_id is None:
            if requested == "app":
                raise InvalidVisibility(
                    "a game is only visible to an app when an app's key or player creates it"
                )
            return None, requested or "public"
        if requested is not None:
            return app_id, requested
        return app_id, visibility_of((await self.app_limits(app_id)).default_visibility)

    # --- limits ---------------------------------------------------------------------------------
    async def count_new_game(self, app_id: str) -> Callable[[], Awaitable[None]]:
        """Let the app create one more game, or refuse with the limit it would break; returns the
        undo for a game that is not created after all."""
        app = await self.app_limits(app_id)
        unfinished = await self.accounts.unfinished_games(app_id, app.concurrent_games)
        if unfinished >= app.concurrent_games:
            raise ConcurrentGamesReached(
                f"the app has {app.concurrent_games} games not finished, its limit: finish one first",
                limit=app.concurrent_games,
                retry_after=60,
            )
        now = self.clock().astimezone(UTC)
        day = now.date()
        if not await self.accounts.count_game(app_id, day, app.games_per_day):
            midnight = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
            raise GamesPerDayReached(
                f"the app has created {app.games_per_day} games today (UTC), its limit",
                limit=app.games_per_day,
                retry_after=max(1, int((midnight - now).total_seconds()) + 1),
            )

        async def undo() -> None:
            await self.accounts.uncount_game(app_id, day)

        return undo

    # --- apps -----------------------------------------------------------------------------------
    async def create(self, data: CreateApp) -> AppCreated:
        """A new app and its first key (shown once)."""
        now = self.clock()
        defaults = self.defaults
        while True:
            app = AppRow(
                app_id=new_app_id(),
                name=data.name,
                created_at=now,
                requests_per_minute=_given(data.requests_per_minute, defaults.requests_per_minute),
                games_per_day=_given(data.games_per_day, defaults.games_per_day),
                concurrent_games=_given(data.concurrent_games, defaults.concurrent_games),
                default_visibility=data.default_visibility,
            )
            key_id, key = new_key()
            row = KeyRow(key_id=key_id, app_id=app.app_id, secret_hash=digest(key), created_at=now)
            try:
                await self.accounts.create_app(app, row)
                break
            except DuplicateName:  # a 64-bit app id or 48-bit key id drawn twice: draw again
                continue
        info = _app_info(app, now, [row], [])
        return AppCreated(app=info, key=_new_key(row, key))

    async def list(self) -> AppList:
        now = self.clock()
        return AppList(apps=[_app_info(app, now) for app in await self.accounts.apps()])

    async def get(self, app_id: str) -> AppInfo:
        app = await self._app(app_id)
        keys, signing = await self.accounts.keys(app_id), await self.accounts.signing_keys(app_id)
        return _app_info(app, self.clock(), keys, signing)

    async def update(self, app_id: str, data: UpdateApp) -> AppInfo:
        """Change the app's name, limits or default visibility, or disable (enable) it: at once on
        every worker."""
        await self._app(app_id)
        changes: dict[str, object] = {
            name: value
            for name in (
                "name",
                "requests_per_minute",
                "games_per_day",
                "concurrent_games",
                "default_visibility",
            )
            if (value := getattr(data, name)) is not None
        }
        if data.disabled is not None:
            changes["disabled_at"] = self.clock() if data.disabled else None
        app = await self.accounts.update_app(app_id, changes)
        if app is None:
            raise AppNotFound(f"no app {app_id}")
        await self._changed(app_id)
        return await self.get(app_id)

    async def _app(self, app_id: str) -> AppRow:
        app = await self.accounts.app(app_id)
        if app is None:
            raise AppNotFound(f"no app {app_id}")
        return app

    # --- keys -----------------------------------------------------------------------------------
    async def create_key(self, app_id: str) -> NewKey:
        """Another key for the app (shown once); the others keep working."""
        await self._app(app_id)
        return await self._add_key(app_id)

    async def _add_key(self, app_id: str, replaces: KeyInfo | None = None) -> NewKey:
        while True:
            key_id, key = new_key()
            row = KeyRow(key_id=key_id, app_id=app_id, secret_hash=digest(key), created_at=self.clock())
            try:
                await self.accounts.add_key(row)
                break
            except DuplicateName:
                continue
        return _new_key(row, key, replaces)

    async def rotate_key(
        self, app_id: str, key_id: str, overlap_seconds: int = DEFAULT_OVERLAP_SECONDS
    ) -> NewKey:
        """A new key for the app; *key_id* keeps working for *overlap_seconds* more, then stops."""
        await self._app(app_id)
        old = await self.accounts.expire_key(
            app_id, key_id, self.clock() + timedelta(seconds=overlap_seconds)
        )
        if old is None:
            raise KeyNotFound(f"the app {app_id} has no key {key_id} that is not revoked")
        await self._changed(key_id)
        return await self._add_key(app_id, _key_info(old, self.clock()))

    async def revoke_key(self, app_id: str, key_id: str) -> KeyInfo:
        """The key stops working now, on every worker."""
        row = await self.accounts.revoke_key(app_id, key_id, self.clock())
        if row is None:
            raise KeyNotFound(f"the app {app_id} has no key {key_id}")
        await self._changed(key_id)
        return _key_info(row, self.clock())

    # --- signing keys (player assertions) -------------------------------------------------------
    async def add_signing_key(self, app_id: str, data: AddSigningKey) -> NewSigningKey:
        """A key the app signs player assertions with: an HS256 secret made here (shown once), or
        the app's Ed25519 public key."""
        await self._app(app_id)
        if data.alg == "HS256":
            if data.public_key is not None:
                raise InvalidSigningKey("HS256 takes no public_key: Yamen makes the secret and shows it once")
            material = secrets.token_urlsafe(48)
        else:
            if data.public_key is None:
                raise InvalidSigningKey("EdDSA needs the app's Ed25519 public key (PEM) in public_key")
            material = ed25519_public_key(data.public_key)
        while True:
            row = SigningKeyRow(
                app_id=app_id,
                kid="sk_" + secrets.token_hex(6),
                alg=data.alg,
                key=material,
                created_at=self.clock(),
            )
            try:
                await self.accounts.add_signing_key(row)
                break
            except DuplicateName:
                continue
        if data.alg == "HS256":
            return NewSigningKey(app_id=app_id, kid=row.kid, alg="HS256", secret=material)
        return NewSigningKey(app_id=app_id, kid=row.kid, alg="EdDSA", public_key=material)

    async def revoke_signing_key(self, app_id: str, kid: str) -> SigningKeyInfo:
        """Assertions signed with the key are refused from now on, on every worker."""
        row = await self.accounts.revoke_signing_key(app_id, kid, self.clock())
        if row is None:
            raise SigningKeyNotFound(f"the app {app_id} has no signing key {kid}")
        await self._changed(kid)
        return _signing_info(row)


def ed25519_public_key(text: str) -> str:
    """*text* as an Ed25519 public key in PEM, or :class:`InvalidSigningKey` saying why not."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(text.strip().encode())
    except (ValueError, TypeError) as exc:
        raise InvalidSigningKey(f"public_key is not a PEM public key: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise InvalidSigningKey("public_key must be an Ed25519 key (EdDSA), not " + type(key).__name__)
    pem = key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return pem.decode()


def _given(value: int | None, default: int) -> int:
    return default if value is None else value


def _key_info(row: KeyRow, now: datetime) -> KeyInfo:
    status: Literal["active", "expiring", "expired", "revoked"]
    if row.revoked_at is not None:
        status = "revoked"
    elif row.expires_at is None:
        status = "active"
    elif row.expires_at > now:
        status = "expiring"
    else:
        status = "expired"
    return KeyInfo(
        key_id=row.key_id,
        status=status,
        created_at=timestamp(row.created_at),
        expires_at=_time(row.expires_at),
        revoked_at=_time(row.revoked_at),
    )


def _signing_info(row: SigningKeyRow) -> SigningKeyInfo:
    return SigningKeyInfo(
        kid=row.kid,
        alg="HS256" if row.alg == "HS256" else "EdDSA",
        created_at=timestamp(row.created_at),
        revoked_at=_time(row.revoked_at),
        public_key=row.key if row.alg == "EdDSA" else None,
    )


def _app_info(
    app: AppRow, now: datetime, keys: list[KeyRow] | None = None, signing: list[SigningKeyRow] | None = None
) -> AppInfo:
    return AppInfo(
        app_id=app.app_id,
        name=app.name,
        created_at=timestamp(app.created_at),
        limits=Limits(
            requests_per_minute=app.requests_per_minute,
            games_per_day=app.games_per_day,
            concurrent_games=app.concurrent_games,
        ),
        default_visibility=visibility_of(app.default_visibility),
        disabled_at=_time(app.disabled_at),
        keys=[_key_info(k, now) for k in keys or []],
        signing_keys=[_signing_info(s) for s in signing or []],
    )


def _new_key(row: KeyRow, key: str, replaces: KeyInfo | None = None) -> NewKey:
    return NewKey(
        app_id=row.app_id, key_id=row.key_id, key=key, created_at=timestamp(row.created_at), replaces=replaces
    )


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)

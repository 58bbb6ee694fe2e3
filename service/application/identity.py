"""Who is calling, and which games they may see.

Every credential arrives as ``Authorization: Bearer <credential>`` and is told apart by its shape:

- ``ymk_<key_id>.<secret>`` — an app's API key (server to server): :class:`AppCaller`;
- ``ymp_<credential_id>.<secret>`` — a player's credential: :class:`PlayerCaller`;
- three base64url parts starting ``eyJ`` — a player assertion (a JWT signed by the app's server):
  :class:`PlayerCaller`;
- ``ymn.<seat>.<secret>`` — a seat token, which holds one seat of one game: :class:`SeatBearer`,
  checked against a game only where one is named (:meth:`Identity.viewer`).

:class:`Identity` classifies and verifies; the app keys are :mod:`.apps`' to check and the player
credentials and assertions :mod:`.players`' (any object with the :class:`PlayerCredentials`
methods, handed to :class:`Identity` when it is built).

**Visibility.** A game belongs to the app whose key (or player) created it (``games.app_id``;
none for anonymous games) and is ``public`` (anyone lists and watches it), ``app`` (the owning
app's key and that app's players) or ``private`` (the owning app's key and the game's own seats).
Seats always play their game.  To anybody else the game does not exist: every route with a
``{game_id}`` answers 404 ``game_not_found`` (:meth:`Identity.viewer`, applied to all of them by one
check, :func:`service.http.dependencies.game_access`) and ``GET /v1/games`` never lists it
(:meth:`Identity.listing`), so game ids cannot be enumerated.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal, Protocol

from domain.kernel import Seat

from ..infra.accounts import Accounts
from .errors import GameNotFound, InvalidTicket, InvalidToken, SeatRequired, TicketExpired
from .seats import Seats

Visibility = Literal["public", "app", "private"]
VISIBILITIES: tuple[Visibility, ...] = ("public", "app", "private")

CREDENTIAL_FORMS = (
    "expected 'Authorization: Bearer <credential>': an app key ymk_<key_id>.<secret>, a player "
    "credential ymp_<id>.<secret>, a player assertion (a JWT), or a seat token ymn.<seat>.<secret>"
)

OWNERS = 200_000
"""Games whose owner and visibility a worker remembers (both are fixed when the game is created)."""


@dataclass(frozen=True, slots=True)
class AppCaller:
    """An app's backend, calling with one of its API keys."""

    app_id: str
    key_id: str


@dataclass(frozen=True, slots=True)
class PlayerCaller:
    """A player, with its credential or an assertion its app signed."""

    player_id: str
    app_id: str | None
    """The app that vouches for the player (its limits and visibility apply); None for a guest of
    the reference client."""


Principal = AppCaller | PlayerCaller
"""Somebody known across games: an app, or a player."""


@dataclass(frozen=True, slots=True)
class SeatBearer:
    """A seat token: which seat it holds, if any, depends on the game it is shown to."""

    token: str


Credential = Principal | SeatBearer


@dataclass(frozen=True, slots=True)
class Owner:
    """Who owns a game and who may see it (fixed when the game is created)."""

    app_id: str | None
    visibility: Visibility


@dataclass(frozen=True, slots=True)
class Listing:
    """Which games a caller may find in ``GET /v1/games`` besides the public ones."""

    app_id: str | None = None
    """The caller's app: its ``app`` games are listed (and its ``private`` ones too for its key)."""
    whole_app: bool = False
    """The caller is the app itself (its key): its private games are listed too."""
    player_id: str | None = None
    """The caller is a player: the games where it holds a seat are listed, whatever their visibility."""


PUBLIC_ONLY = Listing()
"""What an anonymous caller (or a bare seat token) finds: the public games."""


class AppKeys(Protocol):
    """Checks app keys (:class:`service.application.apps.Apps`)."""

    async def authenticate_key(self, key: str) -> AppCaller:
        """The app holding *key*; :class:`~.errors.InvalidAppKey` (or ``AppDisabled``) otherwise."""
        ...

    def forget(self, name: str) -> None:
        """Whatever is remembered of the key or app *name* is no longer vouched for."""


class PlayerCredentials(Protocol):
    """Checks players' credentials and assertions (:mod:`service.application.players`)."""

    async def authenticate_credential(self, credential: str) -> PlayerCaller:
        """The player holding ``ymp_…`` *credential*, or a 401 refusal."""
        ...

    async def authenticate_assertion(self, assertion: str) -> PlayerCaller:
        """The player an app's signed *assertion* (a JWT) vouches for, or a 401 refusal saying why."""
        ...

    def forget(self, name: str) -> None:
        """Whatever is remembered of the credential or signing key *name* is no longer vouched for."""


class Identity:
    """Classifies a request's credential and decides what it may see (see the module docstring)."""

    def __init__(
        self, seats: Seats, accounts: Accounts, apps: AppKeys, players: PlayerCredentials | None = None
    ) -> None:
        self.seats = seats
        self.accounts = accounts
        self.apps = apps
        self.players = players
        """Checks player credentials and assertions (None: they are refused)."""
        self._owners: OrderedDict[str, Owner] = OrderedDict()

    def forget(self, name: str) -> None:
        """A ``<name> revoked`` notice (:mod:`service.infra.notices`): a key, credential, signing key
        or app changed on some worker; nothing remembered of it is trusted any more."""
        self.apps.forget(name)
        if self.players is not None:
            self.players.forget(name)

    # --- who is calling -------------------------------------------------------------------------
    async def authenticate(self, authorization: str | None) -> Credential | None:
        """The credential in an ``Authorization`` header, verified (a seat token is only recognised
        here: it is checked against the game it is shown to); None without one."""
        if not authorization:
            return None
        scheme, _, credential = authorization.partition(" ")
        credential = credential.strip()
        if scheme.lower() != "bearer" or not credential:
            raise InvalidToken(CREDENTIAL_FORMS)
        if credential.startswith("ymk_"):
            return await self.apps.authenticate_key(credential)
        if credential.startswith("ymn."):
            return SeatBearer(credential)
        if credential.startswith("ymp_"):
            return await self._players().authenticate_credential(credential)
        if credential.startswith("eyJ") and credential.count(".") == 2:
            return await self._players().authenticate_assertion(credential)
        raise InvalidToken(CREDENTIAL_FORMS)

    def _players(self) -> PlayerCredentials:
        if self.players is None:
            raise InvalidToken("player credentials and assertions are not accepted by this service")
        return self.players

    # --- which games they may see ----------------------------------------------------------------
    async def owner(self, game_id: str) -> Owner:
        """Who owns *game_id* and who may see it; :class:`GameNotFound` when there is no such game."""
        owner = self._owners.get(game_id)
        if owner is None:
            found = await self.accounts.game_owner(game_id)
            if found is None:
                raise GameNotFound(f"no game {game_id}")
            owner = Owner(found[0], visibility_of(found[1]))
            self._owners[game_id] = owner
            if len(self._owners) > OWNERS:
                self._owners.popitem(last=False)
        return owner

    def remember_owner(self, game_id: str, app_id: str | None, visibility: Visibility) -> None:
        """A game this worker has just created: its first request needs no lookup."""
        self._owners[game_id] = Owner(app_id, visibility)

    async def viewer(
        self,
        game_id: str,
        credential: Credential | None,
        *,
        seat: Seat | None = None,
        ticket: str | None = None,
        path_seat: Seat | None = None,
    ) -> Seat | None:
        """The seat *credential* holds in *game_id* (None: a spectator), once it is known the caller
        may see the game at all — else :class:`GameNotFound`, exactly as if there were no such game.

        A player holding several seats of the game (hot seat) names one with *seat*; on a route about
        one seat (*path_seat*: claiming it, handing it to a bot, re-issuing its token) that seat is
        the one it acts as if it holds it.  A stream *ticket* proves its seat the way a seat token
        does."""
        owner = await self.owner(game_id)
        public = owner.visibility == "public"
        match credential:
            case SeatBearer(token=token):
                if public:
                    return await self.seats.authenticate(game_id, token)  # 401 for a wrong token
                try:
                    return await self.seats.authenticate(game_id, token)
                except InvalidToken:
                    raise GameNotFound(f"no game {game_id}") from None
            case AppCaller(app_id=app_id):
                if public or app_id == owner.app_id:
                    return None
            case PlayerCaller(player_id=player_id, app_id=app_id):
                held = await self.seats.player_seats(game_id, player_id)
                if held:
                    return _one_of(held, seat, path_seat)
                if public or (owner.visibility == "app" and app_id is not None and app_id == owner.app_id):
                    return None
            case None:
                if public:
                    return None
                if ticket is not None:
                    try:
                        return await self.seats.redeem(game_id, ticket)
                    except (InvalidTicket, TicketExpired):
                        pass
        raise GameNotFound(f"no game {game_id}")

    @staticmethod
    def listing(credential: Credential | None) -> Listing:
        """Which games besides the public ones *credential* finds in ``GET /v1/games``."""
        match credential:
            case AppCaller(app_id=app_id):
                return Listing(app_id=app_id, whole_app=True)
            case PlayerCaller(player_id=player_id, app_id=app_id):
                return Listing(app_id=app_id, player_id=player_id)
        return PUBLIC_ONLY


def _one_of(held: list[Seat], seat: Seat | None, path_seat: Seat | None = None) -> Seat | None:
    """The seat a player acts as: its only one, or the one it names — on a route about one seat,
    that seat if it holds it (else its only one, or none: claiming another seat needs none)."""
    if seat is not None:
        if seat in held:
            return seat
        raise SeatRequired(
            f"this player holds seats {', '.join(map(str, held))} of this game, not seat {seat}"
        )
    if path_seat is not None:
        return path_seat if path_seat in held else held[0] if len(held) == 1 else None
    if len(held) == 1:
        return held[0]
    raise SeatRequired(
        f"this player holds seats {', '.join(map(str, held))} of this game: name one with ?seat="
    )


def visibility_of(text: str) -> Visibility:
    for visibility in VISIBILITIES:
        if text == visibility:
            return visibility
    raise ValueError(f"a game's visibility is one of {VISIBILITIES}, not {text!r}")

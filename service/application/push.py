"""Web Push: "your turn" and "game finished" on a player's phone, sent by the job engine.

**Subscriptions.**  A browser subscribes with its ``PushSubscription`` (the push service's URL for
it, its P-256 key and auth secret, RFC 8291) and the VAPID public key the service gives
(``GET /v1/push/key``).  A player credential (or assertion) subscribes *the player*: it hears of
every seat it holds, in every game.  A bare seat token subscribes *that seat* of that game (a guest
without a player).  The operator's VAPID key pair (``YAMEN_VAPID_PRIVATE_KEY``,
``YAMEN_VAPID_SUBJECT``) signs every push (RFC 8292); without it push is off and the API says so
(404 ``push_off``).

**What is sent is derived from the games row.**  Like the webhooks' pump (:mod:`.webhooks`), a
*pump* per game compares the game (its version, status and who is ``to_act``, kept on its row by
every append) with the game's push cursor (``push_progress``) and, in one transaction, queues a
notification per subscription (``push_outbox``) and moves the cursor on — so each notification is
derived once, and none is lost with a worker.  A seat is told "your turn" when it is to act now and
was not at the cursor, or has moved since (its turn came round again); "game finished" goes to
every seat a person holds, once.  Bots' seats are told nothing.  Only subscriptions made before the
change hear of it (subscribing shows nobody the games of last week again).

**Sending** is at least once, by jobs of the ``push`` queue (workers of their own, so a slow push
service never holds a bot's turn or a request): ``pywebpush`` encrypts the payload (RFC 8291,
``aes128gcm``) and signs the VAPID JWT; a 2xx is success, a 404 or 410 means the browser dropped
the subscription (it is deleted), anything else is tried again after each delay of
:data:`BACKOFF` and then dropped (the subscription's ``failures`` counts them).  Each send is
bounded by :data:`SEND_TIMEOUT_SECONDS` and a process sends at most ``concurrency`` at once.

**The payload** is what the service worker shows: ``{"title", "body", "url", "tag"}`` — the
title's name, the game's ``/play`` link and a tag per game (a newer notice replaces an older one).
Never a view, a hidden card, a token or the outcome's details.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import secrets as random_secrets
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

import aiohttp
import msgspec
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid  # type: ignore[import-untyped]
from pywebpush import WebPushException, webpush_async  # type: ignore[import-untyped]

from ..codec import json_encoder
from ..infra.push_store import Due, Outgoing, PushProgress, PushStore, SubscriptionRow
from ..infra.webhook_delivery import UrlRefused, resolve
from ..record.chain import timestamp
from .clock import Clock, utcnow
from .errors import InvalidPushSubscription, InvalidToken, PushOff, PushSubscriptionNotFound
from .hooks import GameHooks

if TYPE_CHECKING:
    from ..infra.jobs import JobQueue

log = structlog.get_logger("yamen.push")

BACKOFF = (10.0, 60.0, 300.0, 1800.0)
"""Seconds before each retry of a failed push (``YAMEN_PUSH_BACKOFF``); after the last it is dropped."""
SEND_TIMEOUT_SECONDS = 10.0
"""One push's bound: connecting, sending and the push service's answer."""
TURN_TTL = 86_400
"""How long a push service keeps a "your turn" for a browser that is offline (seconds)."""
FINISHED_TTL = 7 * 86_400
PER_JOB = 100
"""Notifications one job sends before it makes way for other games' jobs."""
SUBSCRIPTIONS_PER_OWNER = 20
"""Browsers one player (or seat) may have subscribed: the oldest go first beyond."""
FINISHED_WINDOW = timedelta(days=1)
"""The sweep looks at finished games changed this recently (unfinished ones always)."""
DUE_GRACE = timedelta(seconds=30)
"""A notification due this long ago with nobody sending it had its job lost: the sweep queues one."""


@dataclass(frozen=True, slots=True)
class PushSettings:
    private_key: str | None = None
    """``YAMEN_VAPID_PRIVATE_KEY``: PEM, or base64url of the raw 32-byte P-256 key (or of its DER)."""
    subject: str | None = None
    """``YAMEN_VAPID_SUBJECT``: a ``mailto:`` or ``https:`` URL push services may contact."""
    backoff: tuple[float, ...] = BACKOFF
    allow_private: bool = False
    """Push endpoints may be http and loopback or private addresses (``YAMEN_WEBHOOK_ALLOW_PRIVATE=1``:
    tests).  Off, only https endpoints of public hosts are accepted and sent to."""
    concurrency: int = 8


def load_vapid(text: str) -> Vapid:
    """The VAPID key from its PEM, or base64url raw or DER form; ``ValueError`` names the setting."""
    try:
        if "BEGIN" in text:
            return Vapid.from_pem(text.strip().encode())
        return Vapid.from_string(text.strip())
    except Exception as exc:  # noqa: BLE001 - py_vapid raises several kinds
        raise ValueError(
            f"YAMEN_VAPID_PRIVATE_KEY: not a P-256 private key in PEM or base64url form ({exc})"
        ) from None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key_of(vapid: Vapid) -> str:
    """The VAPID public key as ``PushManager.subscribe``'s ``applicationServerKey`` wants it:
    base64url of the uncompressed P-256 point."""
    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(raw)


def generate_key_pair() -> tuple[str, str]:
    """A new VAPID key pair: (private key, base64url raw; public key, base64url point)."""
    vapid = Vapid()
    vapid.generate_keys()
    value = vapid.private_key.private_numbers().private_value
    return b64url(value.to_bytes(32, "big")), public_key_of(vapid)


# --- what the API reads and answers ---------------------------------------------------------------
Base64Url = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern="^[A-Za-z0-9_-]+={0,2}$")]


class PushKeys(msgspec.Struct, kw_only=True):
    p256dh: Base64Url
    """The browser's P-256 public key (base64url of the uncompressed point)."""
    auth: Base64Url
    """Its 16-byte auth secret (base64url)."""


class SubscribePush(msgspec.Struct, kw_only=True, rename={"expiration_time": "expirationTime"}):
    """The browser's ``PushSubscription.toJSON()``, and the game a seat token's seat is in (other
    fields a browser may add are ignored)."""

    endpoint: Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]
    """The push service's URL for this browser: https, a public host."""
    keys: PushKeys
    expiration_time: int | None = None
    """(Ignored) when the browser says the subscription expires."""
    game_id: Annotated[str, msgspec.Meta(max_length=64, pattern="^[A-Za-z0-9_-]+$")] | None = None
    """With a seat token: the game whose seat is subscribed.  Not with a player's credential."""


class PushKey(msgspec.Struct, kw_only=True):
    public_key: str
    """The VAPID public key: ``applicationServerKey`` for ``PushManager.subscribe`` (base64url)."""
    subject: str
    """Whom push services may contact about this service's pushes."""


class PushSubscription(msgspec.Struct, kw_only=True):
    subscription_id: str
    owner: Literal["player", "seat"]
    player_id: str | None
    """The player it belongs to (``owner`` = ``player``)."""
    game_id: str | None
    """The game of the seat it belongs to (``owner`` = ``seat``)."""
    seat: int | None
    endpoint: str
    created_at: str
    last_success_at: str | None
    """When a push to it last succeeded."""
    failures: int
    """Failed pushes in a row."""


class Notice(msgspec.Struct, kw_only=True):
    """The payload a service worker shows (``showNotification(title, {body, tag, data: {url}})``)."""

    title: str
    body: str
    url: str
    tag: str


@dataclass(frozen=True, slots=True)
class Owner:
    """Who subscribes: a player, or a seat of a game."""

    player_id: str | None = None
    game_id: str | None = None
    seat: int | None = None


class Push:
    """Subscriptions, the pump and sending (see the module docstring)."""

    def __init__(
        self,
        store: PushStore,
        clock: Clock = utcnow,
        settings: PushSettings | None = None,
        *,
        hooks: GameHooks | None = None,
        seat_of: Callable[[str, str], Awaitable[int]] | None = None,
        queue: JobQueue | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings or PushSettings()
        self.vapid: Vapid | None = None
        self.public_key: str | None = None
        if bool(self.settings.private_key) != bool(self.settings.subject):
            raise ValueError("YAMEN_VAPID_PRIVATE_KEY and YAMEN_VAPID_SUBJECT are set together, or neither")
        if self.settings.private_key and self.settings.subject:
            self.vapid = load_vapid(self.settings.private_key)
            self.public_key = public_key_of(self.vapid)
        self.queue = queue
        """The job queue; without one nothing is pumped or sent."""
        self.seat_of = seat_of
        """The seat a token holds in a game, or :class:`InvalidToken` — ``Seats.authenticate``."""
        if hooks is not None:
            hooks.on_changed(self.changed)  # "your turn", "game finished" (nothing while push is off)
        self._asking: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None
        self._sending = asyncio.Semaphore(max(1, self.settings.concurrency))

    @property
    def enabled(self) -> bool:
        return self.vapid is not None

    async def close(self) -> None:
        for task in list(self._asking):
            task.cancel()
        if self._session is not None:
            await self._session.close()

    # --- subscriptions ------------------------------------------------------------------------------
    def key(self) -> PushKey:
        if self.public_key is None or self.settings.subject is None:
            raise PushOff("this service sends no Web Push: its operator set no VAPID key")
        return PushKey(public_key=self.public_key, subject=self.settings.subject)

    async def subscribe(self, owner: Owner, request: SubscribePush) -> PushSubscription:
        self.key()
        await self._check(request)
        row = SubscriptionRow(
            subscription_id="psub_" + random_secrets.token_hex(12),
            player_id=owner.player_id,
            game_id=owner.game_id,
            seat=owner.seat,
            endpoint=request.endpoint,
            p256dh=request.keys.p256dh.rstrip("="),
            auth=request.keys.auth.rstrip("="),
            created_at=self.clock(),
            last_success_at=None,
            failures=0,
        )
        saved = await self.store.subscribe(row, SUBSCRIPTIONS_PER_OWNER)
        log.info(
            "push_subscribed",
            subscription_id=saved.subscription_id,
            player_id=owner.player_id,
            game_id=owner.game_id,
        )
        return _subscription(saved)

    async def subscription(
        self, player_id: str | None, token: str | None, subscription_id: str
    ) -> PushSubscription:
        return _subscription(await self._own(player_id, token, subscription_id))

    async def unsubscribe(self, player_id: str | None, token: str | None, subscription_id: str) -> None:
        await self._own(player_id, token, subscription_id)
        await self.store.remove(subscription_id)

    async def _own(self, player_id: str | None, token: str | None, subscription_id: str) -> SubscriptionRow:
        """The caller's subscription: its player's, or its seat's (by the seat's token); anybody
        else's is answered exactly as one that does not exist."""
        self.key()
        missing = PushSubscriptionNotFound(f"no push subscription {subscription_id} of yours")
        row = await self.store.subscription(subscription_id)
        if row is None:
            raise missing
        if row.player_id is not None:
            if player_id != row.player_id:
                raise missing
            return row
        if token is None or row.game_id is None or self.seat_of is None:
            raise missing
        try:
            seat = await self.seat_of(row.game_id, token)
        except InvalidToken:
            raise missing from None
        if seat != row.seat:
            raise missing
        return row

    async def _check(self, request: SubscribePush) -> None:
        allow_private = self.settings.allow_private
        scheme = urllib.parse.urlsplit(request.endpoint).scheme
        if scheme != "https" and not allow_private:
            raise InvalidPushSubscription("the endpoint must be an https URL (a browser's push service)")
        try:
            await resolve(request.endpoint, allow_private=allow_private)
        except UrlRefused as refused:
            raise InvalidPushSubscription(f"the endpoint is refused: {refused}") from None
        try:
            point = _unb64url(request.keys.p256dh)
            auth = _unb64url(request.keys.auth)
        except (binascii.Error, ValueError):
            raise InvalidPushSubscription("keys.p256dh and keys.auth must be base64url") from None
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        except ValueError:
            raise InvalidPushSubscription(
                "keys.p256dh is not a P-256 public key (65 bytes, uncompressed)"
            ) from None
        if len(auth) != 16:
            raise InvalidPushSubscription(f"keys.auth must be 16 bytes, not {len(auth)}")

    # --- the pump -----------------------------------------------------------------------------------
    def changed(self, game_id: str) -> None:
        """A game changed: ask for its push job if anybody may hear of it.  Asked in the background
        (the change is committed; a request lost with its worker is the sweep's to repeat)."""
        if self.queue is None or not self.enabled:
            return
        task = asyncio.get_running_loop().create_task(self._ask(game_id))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask(self, game_id: str) -> None:
        try:
            if self.queue is not None and await self.store.followed(game_id):
                await self.queue.push(game_id)
        except Exception as exc:  # noqa: BLE001 - the sweep asks again
            log.warning("push_not_queued", game_id=game_id, error=str(exc))

    async def run(self, game_id: str) -> None:
        """(A job.)  Derive the game's new notifications, then send what is due."""
        if not self.enabled:
            return
        await self.pump(game_id)
        await self.send(game_id)

    async def pump(self, game_id: str) -> int:
        """Queue the notifications the game's row holds past its cursor; returns how many."""
        now = self.clock()
        async with self.store.step(game_id) as step:
            game = await step.game()
            if game is None:
                return 0
            before = await step.progress()
            progress = before or PushProgress()
            if before is not None and (
                before.seq > game.version
                or (before.seq == game.version and before.status_seen == game.status)
            ):
                return 0  # nothing new, or a pump that read a newer row has been here
            people = {h.seat: h.player_id for h in await step.seats() if not h.bot}
            notes: list[tuple[str, int]] = []
            if game.status == "active":
                acted = await step.acted(progress.seq, game.version) if before is not None else set()
                for seat in game.to_act:
                    if seat in people and (
                        before is None or seat not in progress.to_act_seen or seat in acted
                    ):
                        notes.append(("turn", seat))
            if game.status == "finished" and progress.status_seen != "finished":
                notes.extend(("finished", seat) for seat in sorted(people))
            outgoing: list[Outgoing] = []
            position = progress.notified
            if notes:
                wanted = {seat: people[seat] for _, seat in notes}
                listening = await step.subscribers(wanted, game.updated_at)
                for kind, seat in notes:
                    position += 1
                    payload = _notice(kind, game_id, game.kind, seat)
                    for heard, subscription_id in listening:
                        if heard == seat:
                            outgoing.append(
                                Outgoing(
                                    subscription_id=subscription_id,
                                    position=position,
                                    kind=kind,
                                    payload=payload,
                                )
                            )
            outgoing = _once_per_subscription(outgoing)
            await step.queue(outgoing, now)
            await step.save(
                PushProgress(
                    seq=game.version,
                    status_seen=game.status,
                    to_act_seen=list(game.to_act),
                    notified=position,
                ),
                now,
            )
        if outgoing:
            log.info("push_pumped", game_id=game_id, notifications=len(outgoing))
        return len(outgoing)

    # --- sending ------------------------------------------------------------------------------------
    async def send(self, game_id: str) -> int:
        """Send *game_id*'s due notifications (at most :data:`PER_JOB`); returns those accepted.  What
        is left, or is due later, gets a job of its own."""
        vapid = self.vapid
        if vapid is None:
            return 0
        now = self.clock()
        due = await self.store.due(game_id, now, PER_JOB)
        results = await asyncio.gather(*(self._send_one(vapid, item) for item in due))
        following = await self.store.next_due(game_id)
        if following is not None and self.queue is not None:
            await self.queue.push(game_id, at=None if following <= self.clock() else following)
        return sum(results)

    async def _send_one(self, vapid: Vapid, item: Due) -> bool:
        async with self._sending:
            status, error = await self._post(vapid, item)
        now = self.clock()
        if status is not None and 200 <= status < 300:
            await self.store.sent(item, now)
            return True
        if status in (404, 410):
            await self.store.remove(item.subscription_id)
            log.info("push_subscription_gone", subscription_id=item.subscription_id, status=status)
            return False
        backoff = self.settings.backoff
        retry_at = now + timedelta(seconds=backoff[item.tries]) if item.tries < len(backoff) else None
        await self.store.failed(item, retry_at)
        log.info(
            "push_failed",
            subscription_id=item.subscription_id,
            game_id=item.game_id,
            status=status,
            error=error,
            given_up=retry_at is None,
        )
        return False

    async def _post(self, vapid: Vapid, item: Due) -> tuple[int | None, str | None]:
        """Encrypt and send one notification: (the push service's status, else why none came)."""
        try:
            await resolve(item.endpoint, allow_private=self.settings.allow_private)
        except UrlRefused as refused:
            return None, f"the endpoint is refused: {refused}"
        if self._session is None:
            self._session = aiohttp.ClientSession()
        turn = item.kind == "turn"
        subscription: dict[str, Any] = {
            "endpoint": item.endpoint,
            "keys": {"p256dh": item.p256dh, "auth": item.auth},
        }
        try:
            response = await webpush_async(
                subscription,
                data=item.payload,
                vapid_private_key=vapid,
                vapid_claims={"sub": self.settings.subject or ""},
                ttl=TURN_TTL if turn else FINISHED_TTL,
                headers={"Urgency": "high" if turn else "normal", "Topic": _topic(item.game_id)},
                timeout=aiohttp.ClientTimeout(total=SEND_TIMEOUT_SECONDS),
                aiohttp_session=self._session,
            )
        except WebPushException as exc:
            code = (
                exc.response.status if exc.response is not None and hasattr(exc.response, "status") else None
            )
            return code, str(exc).splitlines()[0][:200]
        except (aiohttp.ClientError, TimeoutError) as exc:
            return None, f"{type(exc).__name__}: {exc}"[:200]
        if isinstance(response, str):
            return None, "no request was sent"
        return response.status, None

    # --- the sweep ----------------------------------------------------------------------------------
    async def sweep(self) -> None:
        """(The job queue's periodic sweep.)  Ask for the job of every followed game the cursor
        trails, and of every game with a notification due and nobody sending it."""
        if self.queue is None or not self.enabled:
            return
        now = self.clock()
        games = await self.store.games_behind(now - FINISHED_WINDOW)
        games += await self.store.games_due(now - DUE_GRACE)
        for game_id in dict.fromkeys(games):
            await self.queue.push(game_id)


def _notice(kind: str, game_id: str, title: str, seat: int) -> str:
    name = title.capitalize()
    url = f"/play/#/game/{game_id}/seat/{seat}"
    if kind == "turn":
        notice = Notice(title="Your turn", body=f"{name}: it is your move.", url=url, tag=f"yamen-{game_id}")
    else:
        notice = Notice(
            title="Game finished",
            body=f"{name}: the game is over. See how it ended.",
            url=url,
            tag=f"yamen-{game_id}",
        )
    return json_encoder.encode(notice).decode()


def _topic(game_id: str) -> str:
    """RFC 8030's Topic: a newer notice of the game replaces one the push service still holds."""
    return hashlib.sha256(game_id.encode()).hexdigest()[:32]


def _once_per_subscription(outgoing: list[Outgoing]) -> list[Outgoing]:
    """A player holding several seats hears of each kind of news once per pump run."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for item in outgoing:
        if (item.subscription_id, item.kind) not in seen:
            seen.add((item.subscription_id, item.kind))
            kept.append(item)
    return kept


def _subscription(row: SubscriptionRow) -> PushSubscription:
    return PushSubscription(
        subscription_id=row.subscription_id,
        owner="player" if row.player_id is not None else "seat",
        player_id=row.player_id,
        game_id=row.game_id,
        seat=row.seat,
        endpoint=row.endpoint,
        created_at=timestamp(row.created_at),
        last_success_at=None if row.last_success_at is None else timestamp(row.last_success_at),
        failures=row.failures,
    )


__all__ = ["Push", "PushSettings", "generate_key_pair", "load_vapid"]

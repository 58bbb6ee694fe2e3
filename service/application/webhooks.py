"""Webhooks: an app's server hears about its games, signed by the Standard Webhooks scheme.

**What is sent is derived from the record.**  Notifications are a projection of a game's event
log and its games/seats rows, never a second truth.  A *pump* per game (a job, one at a time per
game) compares the record with the game's cursor (``webhook_progress``: the last event, status,
seats and rematch it has turned into notifications) and, in one transaction, inserts a delivery
per notification for every endpoint of the owning app subscribed to its type and moves the cursor
on.  A change to a game asks for its pump (:meth:`Webhooks.changed`, the one hook the application
calls after a move, a claim, a seat handed over or taken back, a game created or rematched); the
job queue's periodic sweep asks for the pump of every app game whose cursor is behind its version,
status or seats — so a worker killed between a change's commit and its request loses nothing.

The notifications, in the order a game's pump derives them (each ``{"type", "timestamp",
"data"}``, the Standard Webhooks payload shape; ``data`` holds public facts and links only — never
a view, a hidden card or a token):

- ``game.created`` — the first time the pump sees the game, with the seats bots play then
  (``bot_seats``: a seat handed to a bot before it is one of them, not a ``seat.replaced``);
- ``game.started`` — the game left ``open`` (the last seat claimed, or created with every seat);
- ``seek.matched`` — (right after ``game.created``) the matcher formed the game from seeks of the
  app's players (``seeks``: each seek's id, player and seat; :mod:`.seeks`);
- ``seat.timed_out`` — a seat's clock ran out (``table.TimedOut``);
- ``seat.replaced`` — a bot plays the seat on: after timeouts, a resignation or leaving the table
  (``table.SeatReplaced``, with its ``reason``), or its holder handed it to a bot (``handed_to_bot``);
- ``game.turn`` — who is to act now (``to_act``), at the game's version: one per pump run while the
  game is under way (moves made together are announced together: a turn already over when the pump
  runs is not announced on its own);
- ``game.finished`` — with the outcome (public once the game is over) and, for a game asked to be
  rated, every seat's rating change (``ratings``: derived once the change is applied);
- ``game.rematch_offered`` — a rematch of the finished game was created (its id).

**WebhookDelivery** is at least once, by jobs of the ``webhooks`` queue (their own workers, so a receiver
that hangs holds none of the workers that play bots or answer requests): per (endpoint, game) one
job at a time, in the order derived, the next waiting until the previous succeeded or was given up.
A 2xx is success; anything else, or no answer within the bounds of
:mod:`service.infra.webhook_delivery`, is a failed attempt, tried again after each delay of the
schedule (:data:`BACKOFF`).  A delivery that exhausts the schedule is given up and its endpoint
disabled with the reason; enabling it again (``PATCH``) resumes its backlog.  The ``webhook-id``
of a delivery never changes, across retries and redeliveries: receivers spot replays by it.
"""

from __future__ import annotations

import asyncio
import base64
import secrets as random_secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
import structlog

from domain.kernel import Outcome, SeatScore

from ..codec import json_encoder
from ..infra.webhook_delivery import Sender, UrlRefused, resolve
from ..infra.webhook_store import (
    AttemptRow,
    DeliveryRow,
    EndpointRow,
    Notification,
    Progress,
    WebhookStore,
)
from ..record.chain import timestamp
from ..settings import DEFAULT_WEBHOOK_BACKOFF, parse_backoff
from .clock import Clock, utcnow
from .documents import GameRatings
from .errors import DeliveryNotFound, InvalidCursor, WebhookLimitReached, WebhookNotFound, WebhookUrlRefused
from .hooks import GameHooks
from .seats import rematch_id
from .states import States

if TYPE_CHECKING:
    from ..infra.jobs import JobQueue

log = structlog.get_logger("yamen.webhooks")

EventType = Literal[
    "game.created",
    "game.started",
    "game.turn",
    "game.finished",
    "seat.replaced",
    "seat.timed_out",
    "game.rematch_offered",
    "seek.matched",
]
EVENT_TYPES: tuple[EventType, ...] = (
    "game.created",
    "game.started",
    "game.turn",
    "game.finished",
    "seat.replaced",
    "seat.timed_out",
    "game.rematch_offered",
    "seek.matched",
)

BACKOFF = parse_backoff(DEFAULT_WEBHOOK_BACKOFF)
"""Seconds before each retry of a failed delivery (``YAMEN_WEBHOOK_BACKOFF`` sets another)."""
MAX_ENDPOINTS = 20
"""Endpoints one app may have: each one multiplies the deliveries of every game."""
OVERLAP_SECONDS = 86_400
"""How long a rotated secret keeps signing beside the new one unless the rotation says otherwise."""
DELIVERIES_PER_JOB = 100
"""Deliveries one job sends before it makes way for the jobs of other games and endpoints."""
FINISHED_WINDOW = timedelta(days=7)
"""The sweep looks at finished games changed this recently (unfinished ones always): a game whose
end the pump missed is found on the next sweep, long before."""
REMATCH_WINDOW = timedelta(days=7)
"""The sweep looks for the rematch of games finished this recently whose rematch's own request for
the pump was lost (each rematch request asks again, whenever it comes)."""
RETENTION_DAYS = 30
"""The delivery log's default retention, in days, of finished deliveries."""
FORGET_PER_SWEEP = 5000
"""Finished deliveries past their retention one sweep deletes: a bounded statement per minute,
which keeps up with 7 million deliveries a day."""
DUE_GRACE = timedelta(seconds=30)
"""A delivery due this long ago with nobody sending it had its job lost: the sweep queues one."""
OWNERS = 200_000
"""Games whose owning app a worker remembers (fixed when the game is created)."""
SUBSCRIBERS_SECONDS = 2.0
"""How long a worker trusts what it last read of whether an app has endpoints at all: an app
without any is not followed (no pump per move).  A subscription posts a notice on the board, so
every worker forgets at once; without the board (or a notice lost), its first endpoint is heard of
within this long, and changes meanwhile are the sweep's to find."""


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    backoff: tuple[float, ...] = BACKOFF
    allow_private: bool = False
    """Endpoints may be loopback or private addresses (``YAMEN_WEBHOOK_ALLOW_PRIVATE=1``: tests, and
    a service whose apps' servers share its private network)."""
    retention: timedelta = timedelta(days=RETENTION_DAYS)
    """How long the delivery log keeps a delivery after it succeeded or was given up
    (``YAMEN_WEBHOOK_RETENTION_DAYS``); pending ones are kept until they finish."""


# --- what the API reads and answers ---------------------------------------------------------------
WebhookUrl = Annotated[str, msgspec.Meta(min_length=1, max_length=2000, description="An http(s) URL")]
EventTypes = Annotated[
    list[EventType],
    msgspec.Meta(min_length=1, max_length=len(EVENT_TYPES), description="The notifications it wants"),
]
Description = Annotated[str, msgspec.Meta(max_length=500)]


class SubscribeWebhook(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A new endpoint: where to send which notifications."""

    url: WebhookUrl
    """Where deliveries are POSTed: http(s), and (unless the operator allows private addresses) a
    host that resolves to public addresses only."""
    event_types: EventTypes
    description: Description = ""


class WebhookEndpointChange(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """What to change in an endpoint (fields left out stay as they are)."""

    url: WebhookUrl | None = None
    event_types: EventTypes | None = None
    description: Description | None = None
    enabled: bool | None = None
    """``true`` enables an endpoint the app or the service disabled: its pending deliveries are
    sent at once, in order.  ``false`` pauses it: deliveries wait."""


class RotateWebhookSecret(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    overlap_seconds: Annotated[int, msgspec.Meta(ge=0, le=7 * 86_400)] = OVERLAP_SECONDS
    """How long the secrets in use until now keep signing beside the new one (the
    ``webhook-signature`` header carries a signature per secret meanwhile)."""


class WebhookEndpoint(msgspec.Struct, kw_only=True):
    endpoint_id: str
    url: str
    event_types: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    """Why the service disabled it (deliveries kept failing); ``null`` when enabled, or disabled by
    the app."""
    disabled_at: str | None
    created_at: str
    updated_at: str
    deliveries: str
    """The endpoint's delivery log (a path)."""


class WebhookEndpointCreated(WebhookEndpoint, kw_only=True):
    secret: str
    """The signing secret (``whsec_…``, Standard Webhooks' form): shown once, only here."""


class WebhookEndpointList(msgspec.Struct, kw_only=True):
    endpoints: list[WebhookEndpoint]


class WebhookSecretRotated(msgspec.Struct, kw_only=True):
    endpoint_id: str
    secret: str
    """The new signing secret: shown once, only here."""
    previous_secrets_expire_at: str | None
    """Until then deliveries are signed with the previous secrets too; ``null`` if there were none
    left."""


class WebhookAttempt(msgspec.Struct, kw_only=True):
    attempt: int
    attempted_at: str
    status_code: int | None
    """The receiver's HTTP status; ``null`` when none came (refused, unreachable, timed out)."""
    error: str | None
    """Why the attempt failed; ``null`` for a 2xx."""
    duration_ms: int
    response_excerpt: str
    """The first bytes of the receiver's answer."""


class WebhookDelivery(msgspec.Struct, kw_only=True):
    delivery_id: str
    """The delivery's ``webhook-id``: the same on every attempt and redelivery."""
    game_id: str
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    """``failed``: given up after its whole schedule (redeliver it to try again)."""
    next_attempt_at: str | None
    """When it is tried next, while pending."""
    created_at: str
    finished_at: str | None
    payload: dict[str, Any]
    """The body sent, as signed."""
    attempts: list[WebhookAttempt]


class WebhookDeliveryList(msgspec.Struct, kw_only=True):
    deliveries: list[WebhookDelivery]
    next_cursor: str | None = None


# --- the notifications' bodies --------------------------------------------------------------------
class Links(msgspec.Struct, kw_only=True, omit_defaults=True):
    game: str
    events: str
    rematch: str | None = None


class FinalResult(msgspec.Struct, kw_only=True):
    winners: list[int]
    scores: list[SeatScore]
    summary: str


class MatchedSeek(msgspec.Struct, kw_only=True):
    seek_id: str
    player_id: str
    seat: int


class GameFacts(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A notification's ``data``: public facts and links only."""

    game_id: str
    kind: str
    status: str
    version: int
    players: int
    to_act: list[int] = []
    bot_seats: list[int] | None = None
    """(``game.created``, ``game.started``) The seats the service's bots play; a seat handed to a
    bot later is announced by ``seat.replaced``."""
    seat: int | None = None
    reason: str | None = None
    outcome: FinalResult | None = None
    ratings: GameRatings | None = None
    """(``game.finished``, a game asked to be rated) Every seat's rating change, or why it ended
    unrated: the notification waits until the change is applied."""
    rematch_game_id: str | None = None
    seeks: list[MatchedSeek] | None = None
    """(``seek.matched``) The seeks the game was formed from: each one's id, player and seat."""
    links: Links


class Payload(msgspec.Struct, kw_only=True):
    type: str
    timestamp: str
    data: GameFacts


class _SeatFact(msgspec.Struct):
    seat: int
    reason: str | None = None


_seat_fact = msgspec.json.Decoder(_SeatFact)
_payload = msgspec.json.Decoder(dict[str, Any])


def message_id(game_id: str, position: int) -> str:
    """The ``webhook-id`` of a game's *position*-th notification (the delivery's id in the API)."""
    return f"msg_{position}_{game_id}"


def _position_of(delivery_id: str) -> tuple[str, int] | None:
    prefix, _, rest = delivery_id.partition("_")
    number, _, game_id = rest.partition("_")
    if prefix != "msg" or not (number.isascii() and number.isdecimal()) or not game_id or len(number) > 18:
        return None
    return game_id, int(number)


def new_secret() -> str:
    """A signing secret in Standard Webhooks' form: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(random_secrets.token_bytes(32)).decode()


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)


class Webhooks:
    """Subscriptions, the pump and delivery (see the module docstring)."""

    def __init__(
        self,
        states: States,
        store: WebhookStore,
        clock: Clock = utcnow,
        settings: WebhookSettings | None = None,
        *,
        hooks: GameHooks | None = None,
        announce: Callable[[str], Awaitable[None]] | None = None,
        ratings_of: Callable[[str], Awaitable[tuple[bool, GameRatings | None]]] | None = None,
        seeks_of: Callable[[str], Awaitable[list[tuple[str, str, int]]]] | None = None,
        queue: JobQueue | None = None,
    ) -> None:
        self.states = states
        self.store = store
        self.clock = clock
        self.settings = settings or WebhookSettings()
        self.sender = Sender(allow_private=self.settings.allow_private)
        self.queue = queue
        """The job queue; without one nothing is pumped or sent."""
        self._owners: OrderedDict[str, str | None] = OrderedDict()
        self._subscribed: dict[str, tuple[bool, float]] = {}
        self.announce = announce
        """Posts a notice that every worker hears (:meth:`forget` is called with the app's id)."""
        """app -> (has endpoints, when that was read)."""
        self._asking: set[asyncio.Task[None]] = set()
        self.ratings_of = ratings_of
        """A finished game's ratings: (still being applied, the change) — ``Ratings.of_game``."""
        self.seeks_of = seeks_of
        """The seeks a game was formed from: (seek id, player id, seat) — ``Seeks.matched_seeks``."""
        if hooks is not None:
            # Every change to a game — a move, a claim, a seat handed over or back, a game created
            # or rematched — asks for its pump (nothing for a game no app owns); so does a finished
            # game's rating once settled (its game.finished waits for the change).
            hooks.on_changed(self.changed)
            hooks.on_rated(self.changed)

    async def close(self) -> None:
        for task in list(self._asking):
            task.cancel()
        await self.sender.close()

    # --- subscriptions ------------------------------------------------------------------------------
    async def subscribe(self, app_id: str, request: SubscribeWebhook) -> WebhookEndpointCreated:
        await self._check_url(request.url)
        if await self.store.count_endpoints(app_id) >= MAX_ENDPOINTS:
            raise WebhookLimitReached(f"an app has at most {MAX_ENDPOINTS} endpoints; delete one first")
        now = self.clock()
        row = EndpointRow(
            endpoint_id="whep_" + random_secrets.token_hex(12),
            app_id=app_id,
            url=request.url,
            event_types=list(dict.fromkeys(request.event_types)),
            description=request.description,
            enabled=True,
            disabled_reason=None,
            disabled_at=None,
            created_at=now,
            updated_at=now,
        )
        secret = new_secret()
        await self.store.create_endpoint(row, secret)
        self._subscribed[app_id] = (True, time.monotonic())
        # Every other worker forgets that the app had no endpoint: its next change is pumped at
        # once, not found by the sweep a minute later.
        if self.announce is not None:
            await self.announce(app_id)
        log.info("webhook_subscribed", app_id=app_id, endpoint_id=row.endpoint_id, types=row.event_types)
        return WebhookEndpointCreated(**msgspec.structs.asdict(_endpoint(row)), secret=secret)

    async def endpoints(self, app_id: str) -> WebhookEndpointList:
        return WebhookEndpointList(endpoints=[_endpoint(row) for row in await self.store.endpoints(app_id)])

    async def endpoint(self, app_id: str, endpoint_id: str) -> WebhookEndpoint:
        return _endpoint(await self._own(app_id, endpoint_id))

    async def change(self, app_id: str, endpoint_id: str, request: WebhookEndpointChange) -> WebhookEndpoint:
        if request.url is not None:
            await self._check_url(request.url)
        changes: dict[str, Any] = {
            name: value
            for name, value in (
                ("url", request.url),
                ("event_types", list(dict.fromkeys(request.event_types or [])) or None),
                ("description", request.description),
                ("enabled", request.enabled),
            )
            if value is not None
        }
        changed = await self.store.update_endpoint(app_id, endpoint_id, changes, self.clock())
        if changed is None:
            raise WebhookNotFound(f"this app has no webhook endpoint {endpoint_id}")
        row, enabled_now = changed
        if enabled_now:
            for game_id in await self.store.pending_games(endpoint_id):
                await self._send_soon(endpoint_id, game_id, bring_forward=True)
            log.info("webhook_enabled", app_id=app_id, endpoint_id=endpoint_id)
        return _endpoint(row)

    async def remove(self, app_id: str, endpoint_id: str) -> None:
        if not await self.store.delete_endpoint(app_id, endpoint_id):
            raise WebhookNotFound(f"this app has no webhook endpoint {endpoint_id}")

    async def rotate(
        self, app_id: str, endpoint_id: str, request: RotateWebhookSecret
    ) -> WebhookSecretRotated:
        now = self.clock()
        secret = new_secret()
        until = now + timedelta(seconds=request.overlap_seconds)
        kept = await self.store.rotate_secret(app_id, endpoint_id, secret, now, until)
        if kept is None:
            raise WebhookNotFound(f"this app has no webhook endpoint {endpoint_id}")
        previous = [s.expires_at for s in kept if s.secret != secret and s.expires_at and s.expires_at > now]
        return WebhookSecretRotated(
            endpoint_id=endpoint_id,
            secret=secret,
            previous_secrets_expire_at=_stamp(max(previous)) if previous else None,
        )

    async def deliveries(
        self,
        app_id: str,
        endpoint_id: str,
        *,
        status: str | None,
        game_id: str | None,
        cursor: str | None,
        limit: int,
    ) -> WebhookDeliveryList:
        await self._own(app_id, endpoint_id)
        found = await self.store.deliveries(
            endpoint_id, status=status, game_id=game_id, before=_decode_cursor(cursor), limit=limit + 1
        )
        page = found[:limit]
        next_cursor = None
        if len(found) > limit:
            last = page[-1][0]
            next_cursor = f"{last.created_at.isoformat()}~{last.position}~{last.game_id}"
        return WebhookDeliveryList(deliveries=[_delivery(d, a) for d, a in page], next_cursor=next_cursor)

    async def redeliver(self, app_id: str, endpoint_id: str, delivery_id: str) -> WebhookDelivery:
        """Send a delivery again now, whatever became of it, with the same ``webhook-id``."""
        await self._own(app_id, endpoint_id)
        where = _position_of(delivery_id)
        if where is None or not await self.store.redeliver(endpoint_id, *where, self.clock()):
            raise DeliveryNotFound(f"endpoint {endpoint_id} has no delivery {delivery_id}")
        await self._send_soon(endpoint_id, where[0], bring_forward=True)
        found = await self.store.delivery(endpoint_id, *where)
        assert found is not None  # just updated
        return _delivery(*found)

    async def _own(self, app_id: str, endpoint_id: str) -> EndpointRow:
        """*app_id*'s endpoint; another app's is answered exactly as one that does not exist."""
        row = await self.store.endpoint(app_id, endpoint_id)
        if row is None:
            raise WebhookNotFound(f"this app has no webhook endpoint {endpoint_id}")
        return row

    async def _check_url(self, url: str) -> None:
        try:
            await resolve(url, allow_private=self.settings.allow_private)
        except UrlRefused as refused:
            raise WebhookUrlRefused(f"{refused}") from None

    # --- the pump -----------------------------------------------------------------------------------
    def changed(self, game_id: str) -> None:
        """A game changed (a move, a claim, a seat handed over or back, created, rematched): ask
        for its pump if an app owns it.  Asked in the background: the change is committed, and a
        request lost with its worker is the sweep's to repeat, so nobody waits for it."""
        if self.queue is None or (game_id in self._owners and self._owners[game_id] is None):
            return
        task = asyncio.get_running_loop().create_task(self._ask_for_pump(game_id))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask_for_pump(self, game_id: str) -> None:
        try:
            app_id = await self._owner(game_id)
            if app_id is not None and self.queue is not None and await self._has_endpoints(app_id):
                await self.queue.webhook_pump(game_id)
        except Exception as exc:  # noqa: BLE001 - the sweep asks again
            log.warning("webhook_pump_not_queued", game_id=game_id, error=str(exc))

    def forget(self, app_id: str) -> None:
        """(The notice board.)  Read again whether *app_id* has endpoints: it subscribed one."""
        self._subscribed.pop(app_id, None)

    async def _has_endpoints(self, app_id: str) -> bool:
        known = self._subscribed.get(app_id)
        now = time.monotonic()
        if known is None or now - known[1] > SUBSCRIBERS_SECONDS:
            if len(self._subscribed) > OWNERS:
                self._subscribed.clear()
            known = (await self.store.count_endpoints(app_id) > 0, now)
            self._subscribed[app_id] = known
        return known[0]

    async def _owner(self, game_id: str) -> str | None:
        if game_id in self._owners:
            return self._owners[game_id]
        exists, app_id = await self.store.game_app(game_id)
        if exists:
            self._owners[game_id] = app_id
            if len(self._owners) > OWNERS:
                self._owners.popitem(last=False)
        return app_id

    async def pump(self, game_id: str) -> int:
        """(A job.) Turn what the record holds past the game's cursor into deliveries; returns the
        notifications derived."""
        app_id = await self._owner(game_id)
        if app_id is None:
            return 0
        loaded = await self.states.load(game_id)
        row, game, state = loaded.row, loaded.game, loaded.state
        outcome = game.outcome(state)
        status = "finished" if outcome is not None else row.status
        seats_now = await self.store.seats_seen(game_id)
        ratings = None
        if status == "finished" and self.ratings_of is not None:
            pending, ratings = await self.ratings_of(game_id)
            if pending:
                return 0  # game.finished carries the rating change: asked for again once it is applied
        rematch = rematch_id(game_id) if status == "finished" else None
        rematch_exists = rematch is not None and await self.store.exists(rematch)
        now = self.clock()
        sent_to: set[str] = set()
        async with self.store.pump_step(game_id) as step:
            before = await step.progress()
            progress = before or Progress(seats_seen=seats_now)
            if progress.seq > loaded.version:
                return 0  # a pump that loaded a newer state has been here
            seat_events = await self.store.seat_events(game_id, progress.seq, loaded.version)
            derived = Derivation(game_id, row.kind, status, loaded.version, row.players, progress.notified)
            facts: list[tuple[str, datetime, dict[str, Any]]] = []
            bot_seats = [seat for seat, held in enumerate(seats_now.split(",")) if held == "b"]
            if before is None:
                facts.append(("game.created", row.created_at, {"bot_seats": bot_seats}))
                matched = await self.seeks_of(game_id) if self.seeks_of is not None else []
                if matched:
                    seeks = [MatchedSeek(seek_id=s, player_id=p, seat=n) for s, p, n in matched]
                    facts.append(("seek.matched", row.created_at, {"seeks": seeks}))
            if progress.status_seen == "open" and status != "open":
                facts.append(("game.started", row.updated_at, {"bot_seats": bot_seats}))
            for kind, seq, recorded_at, payload in seat_events:
                fact = _seat_fact.decode(payload)
                if kind == "table.TimedOut":
                    facts.append(("seat.timed_out", recorded_at, {"seat": fact.seat, "version": seq}))
                else:
                    extra = {"seat": fact.seat, "reason": fact.reason, "version": seq}
                    facts.append(("seat.replaced", recorded_at, extra))
            for seat in _handed_over(progress.seats_seen, seats_now):
                facts.append(("seat.replaced", now, {"seat": seat, "reason": "handed_to_bot"}))
            to_act = game.to_act(state) if status == "active" else []
            moved = before is None or loaded.version > progress.seq or progress.status_seen != "active"
            if to_act and moved:
                facts.append(("game.turn", row.updated_at, {"to_act": list(to_act)}))
            if status == "finished" and progress.status_seen != "finished":
                assert outcome is not None
                facts.append(
                    ("game.finished", row.updated_at, {"outcome": _result(outcome), "ratings": ratings})
                )
            if rematch is not None and rematch_exists and not progress.rematch_seen:
                facts.append(("game.rematch_offered", now, {"rematch_game_id": rematch}))
            notes = [derived.note(kind, at, extra) for kind, at, extra in facts]
            subscribers = await step.subscribers(app_id) if notes else []
            deliveries = [
                (endpoint_id, note)
                for note in notes
                for endpoint_id, wanted in subscribers
                if note.event_type in wanted
            ]
            await step.deliver(deliveries, now)
            await step.save(
                Progress(
                    seq=loaded.version,
                    status_seen=status,
                    seats_seen=seats_now,
                    rematch_seen=progress.rematch_seen or rematch_exists,
                    notified=derived.position,
                    finished_at=progress.finished_at or (now if status == "finished" else None),
                ),
                now,
            )
            sent_to = {endpoint_id for endpoint_id, _ in deliveries}
        for endpoint_id in sorted(sent_to):
            await self._send_soon(endpoint_id, game_id)
        if notes:
            log.info("webhook_pumped", game_id=game_id, notifications=[n.event_type for n in notes])
        return len(notes)

    # --- delivery -----------------------------------------------------------------------------------
    async def _send_soon(self, endpoint_id: str, game_id: str, *, bring_forward: bool = False) -> None:
        if self.queue is None:
            return
        try:
            await self.queue.webhook_delivery(endpoint_id, game_id, bring_forward=bring_forward)
        except Exception as exc:  # noqa: BLE001 - the sweep queues what is due
            log.warning(
                "webhook_delivery_not_queued", endpoint_id=endpoint_id, game_id=game_id, error=str(exc)
            )

    async def deliver(self, endpoint_id: str, game_id: str) -> int:
        """(A job.) Send *game_id*'s pending deliveries to *endpoint_id*, in order, until one fails
        (it is tried again later) or none is left; returns the deliveries that succeeded."""
        succeeded = 0
        for _ in range(DELIVERIES_PER_JOB):
            now = self.clock()
            due = await self.store.due(endpoint_id, game_id, now)
            if due is None or not due.enabled:
                return succeeded
            delivery = due.delivery
            if delivery.next_attempt_at > now:
                await self._retry_at(endpoint_id, game_id, delivery.next_attempt_at)
                return succeeded
            attempt = await self.sender.send(due.url, delivery.message_id, delivery.payload, due.secrets, now)
            backoff = self.settings.backoff
            if attempt.succeeded:
                outcome, next_at = "succeeded", now
            elif delivery.tries < len(backoff):
                outcome, next_at = "pending", now + timedelta(seconds=backoff[delivery.tries])
            else:
                outcome, next_at = "failed", now
            recorded = await self.store.record_attempt(
                delivery,
                now,
                status_code=attempt.status_code,
                error=attempt.error,
                duration_ms=attempt.duration_ms,
                excerpt=attempt.excerpt,
                outcome=outcome,
                next_attempt_at=next_at,
            )
            if not recorded:
                continue
            if outcome == "succeeded":
                succeeded += 1
                continue
            log.info(
                "webhook_attempt_failed",
                endpoint_id=endpoint_id,
                game_id=game_id,
                delivery_id=delivery.message_id,
                error=attempt.error,
                given_up=outcome == "failed",
            )
            if outcome == "failed":
                reason = (
                    f"delivery {delivery.message_id} failed {delivery.tries + 1} attempts in a row"
                    f" (the last: {attempt.error}); enable the endpoint to resume its deliveries"
                )
                await self.store.disable(endpoint_id, reason, now)
                log.warning("webhook_disabled", endpoint_id=endpoint_id, reason=reason)
                return succeeded
            await self._retry_at(endpoint_id, game_id, next_at)
            return succeeded
        await self._send_soon(endpoint_id, game_id)  # more to send: after the others' turn
        return succeeded

    async def _retry_at(self, endpoint_id: str, game_id: str, at: datetime) -> None:
        if self.queue is not None:
            await self.queue.webhook_delivery(endpoint_id, game_id, at=at)

    # --- the sweep ----------------------------------------------------------------------------------
    async def sweep(self) -> None:
        """(The job queue's periodic sweep.)  Ask for the pump of every app game the cursor trails
        and for the sending of every delivery due with nobody sending it."""
        if self.queue is None:
            return
        now = self.clock()
        behind = await self.store.games_behind(now - FINISHED_WINDOW)
        behind += await self.store.rematches_unseen(now - REMATCH_WINDOW)
        for game_id in dict.fromkeys(behind):
            await self.queue.webhook_pump(game_id)
        for endpoint_id, game_id in await self.store.deliveries_due(now - DUE_GRACE):
            await self._send_soon(endpoint_id, game_id)
        forgotten = await self.store.forget_finished(now - self.settings.retention, FORGET_PER_SWEEP)
        if forgotten:
            log.info(
                "webhook deliveries forgotten", deliveries=forgotten, retention=str(self.settings.retention)
            )


@dataclass(slots=True)
class Derivation:
    """Numbers a game's new notifications and writes their bodies."""

    game_id: str
    kind: str
    status: str
    version: int
    players: int
    position: int
    """The last notification's place in the game (the next one gets the one after)."""

    def note(self, event_type: str, at: datetime, extra: dict[str, Any]) -> Notification:
        self.position += 1
        path = f"/v1/games/{self.game_id}"
        rematch = extra.get("rematch_game_id")
        facts = GameFacts(
            game_id=self.game_id,
            kind=self.kind,
            status=self.status,
            version=extra.get("version", self.version),
            players=self.players,
            to_act=extra.get("to_act", []),
            bot_seats=extra.get("bot_seats"),
            seat=extra.get("seat"),
            reason=extra.get("reason"),
            outcome=extra.get("outcome"),
            ratings=extra.get("ratings"),
            rematch_game_id=rematch,
            seeks=extra.get("seeks"),
            links=Links(
                game=path,
                events=f"{path}/events",
                rematch=f"/v1/games/{rematch}" if rematch else None,
            ),
        )
        body = json_encoder.encode(Payload(type=event_type, timestamp=timestamp(at), data=facts)).decode()
        return Notification(
            position=self.position,
            message_id=message_id(self.game_id, self.position),
            event_type=event_type,
            payload=body,
        )


def _handed_over(before: str, now: str) -> Iterator[int]:
    """Seats a person played before and a bot plays now."""
    for seat, (was, is_now) in enumerate(zip(before.split(","), now.split(","))):
        if was == "p" and is_now == "b":
            yield seat


def _result(outcome: Outcome) -> FinalResult:
    return FinalResult(winners=list(outcome.winners), scores=list(outcome.scores), summary=outcome.summary)


def _endpoint(row: EndpointRow) -> WebhookEndpoint:
    return WebhookEndpoint(
        endpoint_id=row.endpoint_id,
        url=row.url,
        event_types=row.event_types,
        description=row.description,
        enabled=row.enabled,
        disabled_reason=row.disabled_reason,
        disabled_at=_stamp(row.disabled_at),
        created_at=timestamp(row.created_at),
        updated_at=timestamp(row.updated_at),
        deliveries=f"/v1/webhooks/{row.endpoint_id}/deliveries",
    )


def _delivery(row: DeliveryRow, attempts: list[AttemptRow]) -> WebhookDelivery:
    status: Literal["pending", "succeeded", "failed"] = (
        "pending" if row.status == "pending" else "succeeded" if row.status == "succeeded" else "failed"
    )
    return WebhookDelivery(
        delivery_id=row.message_id,
        game_id=row.game_id,
        event_type=row.event_type,
        status=status,
        next_attempt_at=timestamp(row.next_attempt_at) if status == "pending" else None,
        created_at=timestamp(row.created_at),
        finished_at=_stamp(row.finished_at),
        payload=_payload.decode(row.payload),
        attempts=[
            WebhookAttempt(
                attempt=a.attempt,
                attempted_at=timestamp(a.attempted_at),
                status_code=a.status_code,
                error=a.error,
                duration_ms=a.duration_ms,
                response_excerpt=a.response_excerpt,
            )
            for a in attempts
        ],
    )


def _decode_cursor(cursor: str | None) -> tuple[datetime, str, int] | None:
    if cursor is None:
        return None
    try:
        stamp, position, game_id = cursor.split("~", 2)
        if not game_id.isascii() or not game_id.replace("_", "").replace("-", "").isalnum():
            raise ValueError(game_id)
        moment = datetime.fromisoformat(stamp)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment, game_id, int(position)
    except ValueError:
        raise InvalidCursor("the cursor is not one this API returned") from None

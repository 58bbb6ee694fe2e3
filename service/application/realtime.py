"""The realtime channel: one WebSocket per client, for moves and the games it follows.

The socket is another door to the same rooms (``docs/realtime.md``).  A :class:`Session` decodes
one client's messages and calls the very use cases the HTTP controllers call — ``Moves.submit``
and ``Reads.after_move`` for a move, ``Identity.viewer`` for who the client is in a game,
``Seats.redeem`` for a stream ticket, ``Reads.follow`` (the live feed of the SSE stream, woken by
the notice board) for a subscription — and adds no rules of its own: a move over the socket is
judged, appended, redacted and refused exactly as ``POST …/moves`` is, and a subscription carries
exactly the redacted envelopes ``GET …/events`` does.

What is the transport's (heartbeats, the bounded send queue, message size, the rate of messages,
close codes, the origin of a browser) lives in :mod:`service.http.realtime`; a refusal's problem
(status, code) is rendered there too, from the one map of :mod:`service.http.problems`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
import structlog

from domain.kernel import Seat, union_of

from ..codec import json_encoder
from .documents import EventEnvelope, SeatInfo
from .errors import (
    GameNotFound,
    InvalidTicket,
    InvalidToken,
    TicketExpired,
    TokenRequired,
    TooManySubscriptions,
)
from .identity import AppCaller, Identity, PlayerCaller, Principal, SeatBearer
from .moves import Moves
from .reads import Reads
from .seats import Seats
from .states import States

log = structlog.get_logger("yamen.realtime")

PROTOCOL = 1
"""The protocol's version (the ``welcome`` message says it; a change that breaks clients bumps it)."""

GameIdText = Annotated[str, msgspec.Meta(max_length=64, pattern="^[A-Za-z0-9_-]+$")]
Correlation = Annotated[str, msgspec.Meta(max_length=64)]
"""A client-chosen id, echoed in the answer to the message that carried it."""
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=16)]


# --- what a client sends ------------------------------------------------------------------------
class Hello(msgspec.Struct, tag="hello", forbid_unknown_fields=True, kw_only=True):
    """The first message of every connection (the server waits for nothing else).  ``credential``
    is what HTTP takes in ``Authorization: Bearer …``: a seat token, a player credential, a player
    assertion or an app key.  Send ``hello`` again to add a credential (e.g. a second game's seat
    token); each is tried in every game the socket names."""

    id: Correlation | None = None
    credential: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)] | None = None


class Subscribe(msgspec.Struct, tag="subscribe", forbid_unknown_fields=True, kw_only=True):
    """Follow a game: every event after ``after``, once each and in order, then the new ones as
    they are appended.  ``as``: ``seat`` (a seat the socket's credentials hold — refused otherwise)
    or ``spectator``; absent, a seat if the socket holds one, else a spectator.  ``seat`` names
    the seat of a player holding several.  Subscribing again to the same game replaces the
    subscription (a new ``after``)."""

    id: Correlation | None = None
    game_id: GameIdText
    after: Annotated[int, msgspec.Meta(ge=0)] = 0
    as_: Literal["seat", "spectator"] | None = msgspec.field(default=None, name="as")
    seat: SeatNumber | None = None
    include: Annotated[list[Literal["narration"]], msgspec.Meta(max_length=1)] = []
    """``narration``: each event carries ``text``, the event told in one line as this subscription
    may see it (``GET …/events?include=narration``)."""


class Unsubscribe(msgspec.Struct, tag="unsubscribe", forbid_unknown_fields=True, kw_only=True):
    id: Correlation | None = None
    game_id: GameIdText


class Move(msgspec.Struct, tag="move", forbid_unknown_fields=True, kw_only=True):
    """``POST /v1/games/{game_id}/moves`` over the socket: ``expected_version`` is ``If-Match``,
    ``idempotency_key`` is ``Idempotency-Key``, ``include`` is ``?include=``; the answer is a
    ``move_result`` (the HTTP answer's body) or a ``problem`` (its problem+json), with this ``id``."""

    id: Correlation | None = None
    game_id: GameIdText
    command: msgspec.Raw
    """A command of the game (the ``Command`` union of the OpenAPI document)."""
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None
    idempotency_key: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    include: Annotated[list[Literal["legal_moves", "document"]], msgspec.Meta(max_length=2)] = []
    seat: SeatNumber | None = None


class GetLegalMoves(msgspec.Struct, tag="get_legal_moves", forbid_unknown_fields=True, kw_only=True):
    """``GET /v1/games/{game_id}/legal-moves`` over the socket (for the seat whose turn it now is,
    when a move's ``include=legal_moves`` answered for another): answered ``legal_moves``.
    ``min_version``: never older than this version (a version the client has seen)."""

    id: Correlation | None = None
    game_id: GameIdText
    seat: SeatNumber | None = None
    min_version: Annotated[int, msgspec.Meta(ge=0)] | None = None


class Ping(msgspec.Struct, tag="ping", forbid_unknown_fields=True, kw_only=True):
    """Either side may ping; the other answers ``pong`` with the same ``t``."""

    t: int | None = None


class Pong(msgspec.Struct, tag="pong", forbid_unknown_fields=True, kw_only=True):
    t: int | None = None


ClientMessage = Hello | Subscribe | Unsubscribe | Move | GetLegalMoves | Ping | Pong
client_decoder = msgspec.json.Decoder(ClientMessage)


# --- what the server sends ----------------------------------------------------------------------
class Limits(msgspec.Struct, kw_only=True, frozen=True):
    """The connection's limits (``welcome`` says them; ``docs/realtime.md``)."""

    heartbeat_seconds: float = 15.0
    """The server pings this often; a client silent for twice as long is closed (4009)."""
    max_message_bytes: int = 65_536
    """A larger client message closes the connection (1009)."""
    messages_per_second: float = 200.0
    """The sustained rate of client messages; beyond it (and its burst) the connection is closed (4029)."""
    burst: int = 400
    send_queue: int = 256
    """Messages waiting to be sent to a client; one more closes the connection (4008: a slow consumer)."""
    max_subscriptions: int = 64
    moves_in_flight: int = 16
    """Moves of one connection judged at once; more wait (the socket is not read meanwhile)."""


class Welcome(msgspec.Struct, tag="welcome", kw_only=True):
    id: str | None = None
    protocol: int = PROTOCOL
    limits: Limits


class Subscribed(msgspec.Struct, tag="subscribed", kw_only=True):
    id: str | None = None
    game_id: str
    seat: int | None
    """The seat the events are redacted for; null for a spectator."""
    after: int


class Unsubscribed(msgspec.Struct, tag="unsubscribed", kw_only=True):
    id: str | None = None
    game_id: str


class Events(msgspec.Struct, tag="events", kw_only=True):
    """New events of a followed game, in order, each with its ``seq``: the items ``GET …/events``
    returns, redacted for the subscription's seat."""

    game_id: str
    version: int
    """The ``seq`` of the last event here (resume with ``after`` = this)."""
    status: str
    to_act: list[int] | None
    """Who must act at ``version`` (null when the game has already moved past it: the next
    ``events`` says)."""
    events: list[EventEnvelope[Any]]


class TableChanged(msgspec.Struct, tag="table", kw_only=True):
    """A game waiting for players: who has claimed a seat (claims are not events)."""

    game_id: str
    status: str
    seats: list[SeatInfo]


class Ended(msgspec.Struct, tag="end", kw_only=True):
    """The game has ended and every event has been sent; the subscription is over."""

    game_id: str
    version: int
    status: str = "finished"


class MoveAnswered(msgspec.Struct, tag="move_result", kw_only=True):
    id: str | None = None
    game_id: str
    result: msgspec.Raw
    """The body ``POST …/moves`` answers (a ``MoveResult``), byte for byte."""


class LegalMovesAnswered(msgspec.Struct, tag="legal_moves", kw_only=True):
    id: str | None = None
    game_id: str
    result: msgspec.Raw
    """The body ``GET …/legal-moves`` answers (a ``LegalMoves``), byte for byte."""


class Problem(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A refusal, as HTTP's problem+json says it (same ``status`` and ``code``)."""

    type: str
    title: str
    status: int
    code: str
    detail: str | None = None
    rule: str | None = None
    current_version: int | None = None
    errors: list[dict[str, Any]] | None = None
    limit: int | None = None
    retry_after: int | None = None
    """Seconds until the limit's window resets (HTTP's ``Retry-After``), with ``too_many_requests``."""


class ProblemMessage(msgspec.Struct, tag="problem", kw_only=True, omit_defaults=True):
    id: str | None = None
    game_id: str | None = None
    problem: Problem


ServerMessage = (
    Welcome | Subscribed | Unsubscribed | Events | TableChanged | Ended | MoveAnswered | ProblemMessage
) | (LegalMovesAnswered | Ping | Pong)


class Closing(Exception):
    """The connection must close with *code* and *reason* (``docs/realtime.md``, close codes)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason


# --- the session ----------------------------------------------------------------------------------
Send = Callable[[bytes], None]
"""Queues one encoded message for the client (raises :class:`Closing` when the queue is full)."""
Meter = Callable[[str], Awaitable[None]]
"""Counts one request of the app (its id) against its ``requests_per_minute``; raises
:class:`AppRequestsReached` when it is one too many."""
Refusal = Callable[[BaseException], Problem | None]
"""The problem an exception is (None: not a refusal but a bug, answered ``internal_error``)."""


@dataclass
class Subscription:
    game_id: str
    seat: Seat | None
    task: asyncio.Task[None]


TO_ACT_REMEMBERED = 10_000
SEAT_TOKENS = 64
"""Seat tokens one socket holds (sent in ``hello``); one more forgets the oldest."""


class Realtime:
    """Every open socket of this worker, and what they share: the use cases, the command decoder,
    the limits."""

    def __init__(
        self,
        reads: Reads,
        moves: Moves,
        identity: Identity,
        seats: Seats,
        states: States,
        limits: Limits,
        meter: Meter | None = None,
    ) -> None:
        self.meter = meter
        """Counts a message of an app's socket in the app's own bucket (as its HTTP requests are
        counted); None: apps' messages are bounded per connection only."""
        self.reads = reads
        self.moves = moves
        self.identity = identity
        self.seats = seats
        self.states = states
        self.limits = limits
        self.command_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(
            union_of(tuple(t for g in reads.titles for t in g.command_types))
        )
        self.sessions: set[Session] = set()
        self.connections: set[asyncio.Task[Any]] = set()
        """Every connection's task, until its close frame is sent (see :meth:`closed`)."""
        self.stopping = False
        self.on_stop: list[Callable[[], None]] = []
        self._to_act: OrderedDict[str, tuple[int, list[int]]] = OrderedDict()

    def stop(self) -> None:
        """The server is stopping: every socket closes with 1001 ``going away`` (clients reconnect,
        to another server, and resume with ``after``)."""
        self.stopping = True
        for stop in list(self.on_stop):
            stop()

    async def closed(self, seconds: float) -> None:
        """Until every socket has sent its close frame, for at most *seconds*: the worker's shutdown
        waits for it, because once the lifespan ends the process exits and a socket whose close
        frame was still queued would be dropped without one (granian cancels its socket tasks as it
        stops, so no frame is sent for them otherwise)."""
        if self.connections:
            await asyncio.wait(set(self.connections), timeout=seconds)

    async def to_act(self, game_id: str, version: int) -> list[int] | None:
        """Who must act at *version* of the game; None when the game is past it already.  Read from
        this worker's memory when it vouches for that version, once per version for every socket."""
        known = self._to_act.get(game_id)
        if known is not None and known[0] == version:
            return known[1]
        entry = await self.states.vouched(game_id)
        if entry is not None and entry.row.version == version:
            loaded = self.states.for_reading(entry)
        else:
            loaded = await self.states.load(game_id, recall=True)
        if loaded.version != version:
            return None
        to_act = [] if loaded.row.status != "active" else loaded.game.to_act(loaded.state)
        self._to_act[game_id] = (version, to_act)
        self._to_act.move_to_end(game_id)
        if len(self._to_act) > TO_ACT_REMEMBERED:
            self._to_act.popitem(last=False)
        return to_act


class Session:
    """One client's protocol state: its credentials, its subscriptions, its moves in flight."""

    def __init__(
        self,
        hub: Realtime,
        send: Send,
        refusal: Refusal,
        *,
        credential: Principal | SeatBearer | None = None,
        ticket: str | None = None,
    ) -> None:
        self.hub = hub
        self.send = send
        self.refusal = refusal
        self.greeted = False
        self.principal: Principal | None = None
        self.seat_tokens: list[str] = []
        self._holders: dict[tuple[str, Seat | None], str] = {}
        """The seat token that last proved (game, seat asked for): tried first, and still proved
        every time (a re-issued token stops holding its seat at once).  A socket that has played
        many games holds many tokens of the same seat number; scanning them oldest first cost a
        move one failed check (a hash, a lookup) per older game."""
        self.ticket = ticket
        """A stream ticket from the URL: it opens its game's subscription as its seat (read only)."""
        if credential is not None:
            self._hold(credential)
        self.subscriptions: dict[str, Subscription] = {}
        self.moves: set[asyncio.Task[None]] = set()
        self._in_flight = asyncio.Semaphore(hub.limits.moves_in_flight)

    def _hold(self, credential: Principal | SeatBearer) -> None:
        if isinstance(credential, SeatBearer):
            if credential.token not in self.seat_tokens:
                self.seat_tokens.append(credential.token)
                if len(self.seat_tokens) > SEAT_TOKENS:
                    del self.seat_tokens[0]  # the oldest is forgotten: a socket's work stays bounded
        else:
            self.principal = credential

    # --- dispatch -----------------------------------------------------------------------------
    async def receive(self, data: bytes | str) -> None:
        """Handle one client message (raises :class:`Closing` when the connection must end)."""
        try:
            message = client_decoder.decode(data)
        except msgspec.DecodeError as exc:
            # A malformed message is answered, not fatal — except before hello.
            if not self.greeted:
                self.refuse(exc, None, None)
                raise Closing(4001, "the first message must be hello") from None
            self.refuse(exc, None, None)
            return
        if not self.greeted and not isinstance(message, Hello):
            raise Closing(4001, "the first message must be hello")
        if (
            self.principal is not None  # only an app's or its player's socket is metered
            and isinstance(message, (Subscribe, Move, GetLegalMoves))
            and not await self._metered(message)
        ):
            return
        match message:
            case Hello():
                await self._hello(message)
            case Subscribe():
                await self._subscribe(message)
            case Unsubscribe(id=id, game_id=game_id):
                self.unsubscribe(game_id)
                self.send(json_encoder.encode(Unsubscribed(id=id, game_id=game_id)))
            case Move():
                await self._in_flight.acquire()
                task = asyncio.get_running_loop().create_task(self._move(message))
                self.moves.add(task)
                task.add_done_callback(self._move_done)
            case GetLegalMoves():
                await self._legal_moves(message)
            case Ping(t=t):
                self.send(json_encoder.encode(Pong(t=t)))
            case Pong():
                pass  # any message proves the client alive (the transport noted it)

    async def _metered(self, message: Subscribe | Move | GetLegalMoves) -> bool:
        """Whether the message may be served: one that does work (a subscription, a move, a read of
        legal moves) on an app's or its player's socket counts against the app's requests per
        minute, in the bucket its HTTP requests count in; over it, the message is refused as HTTP
        refuses the request (429), and the connection stays open."""
        meter = self.hub.meter
        match self.principal:
            case AppCaller(app_id=app_id) | PlayerCaller(app_id=str(app_id)) if meter is not None:
                try:
                    await meter(app_id)
                except Exception as exc:  # noqa: BLE001 - any refusal is answered as HTTP answers it
                    self.refuse(exc, message.id, message.game_id)
                    return False
        return True

    def _move_done(self, task: asyncio.Task[None]) -> None:
        self.moves.discard(task)
        self._in_flight.release()

    async def _hello(self, hello: Hello) -> None:
        if hello.credential is not None:
            try:
                credential = await self.hub.identity.authenticate(f"Bearer {hello.credential}")
            except Exception as exc:  # noqa: BLE001 - any refusal is answered as HTTP answers it
                self.refuse(exc, hello.id, None)
                if not self.greeted:
                    raise Closing(4001, "the credential was refused") from None
                return
            if credential is not None:
                self._hold(credential)
        self.greeted = True
        self.send(json_encoder.encode(Welcome(id=hello.id, limits=self.hub.limits)))

    # --- who the socket is in a game ---------------------------------------------------------------
    async def viewer(self, game_id: str, seat: Seat | None, *, ticket: bool) -> Seat | None:
        """The seat this socket's credentials hold in the game (the one named by *seat* when it
        holds several), else None for a spectator — or :class:`GameNotFound` when it may not see
        the game at all, as over HTTP.  A stream ticket counts when *ticket* (subscriptions only)."""
        identity = self.hub.identity
        asked = (game_id, seat)
        known = self._holders.pop(asked, None)
        if known is not None and known in self.seat_tokens:  # not forgotten since
            try:
                held = await identity.viewer(game_id, SeatBearer(known))
            except (InvalidToken, GameNotFound):
                pass  # re-issued, or the game is gone: look again
            else:
                if seat is None or held == seat:
                    self._holders[asked] = known
                    return held
        named = f"ymn.{seat}." if seat is not None else "ymn."
        for token in self.seat_tokens:
            if not token.startswith(named) or token == known:
                continue  # a token holds the seat its second part names
            try:
                held = await identity.viewer(game_id, SeatBearer(token))
            except (InvalidToken, GameNotFound):
                continue  # another game's token
            if seat is None or held == seat:
                self._holders[asked] = token
                if len(self._holders) > SEAT_TOKENS:
                    del self._holders[next(iter(self._holders))]  # the longest unused
                return held
        if ticket and self.ticket is not None:
            try:
                held = await self.hub.seats.redeem(game_id, self.ticket)
            except (InvalidTicket, TicketExpired):
                pass  # another game's ticket
            else:
                if seat is None or held == seat:
                    return held
        return await identity.viewer(game_id, self.principal, seat=seat)

    # --- subscriptions ---------------------------------------------------------------------------
    async def _subscribe(self, message: Subscribe) -> None:
        game_id = message.game_id
        try:
            most = self.hub.limits.max_subscriptions
            if game_id not in self.subscriptions and len(self.subscriptions) >= most:
                raise TooManySubscriptions(f"a connection follows at most {most} games", limit=most)
            viewer = await self.viewer(game_id, message.seat, ticket=True)
            if message.as_ == "spectator":
                viewer = None
            elif message.as_ == "seat" and viewer is None:
                raise TokenRequired("this socket holds no seat in this game: send its credential in hello")
        except Exception as exc:  # noqa: BLE001 - any refusal is answered as HTTP answers it
            self.refuse(exc, message.id, game_id)
            return
        self.unsubscribe(game_id)
        self.send(
            json_encoder.encode(Subscribed(id=message.id, game_id=game_id, seat=viewer, after=message.after))
        )
        task = asyncio.get_running_loop().create_task(
            self._follow(game_id, viewer, message.after, narrate="narration" in message.include)
        )
        self.subscriptions[game_id] = Subscription(game_id, viewer, task)

    def unsubscribe(self, game_id: str) -> None:
        subscription = self.subscriptions.pop(game_id, None)
        if subscription is not None:
            subscription.task.cancel()

    async def _follow(self, game_id: str, viewer: Seat | None, after: int, *, narrate: bool = False) -> None:
        """The live feed of the SSE stream (``Reads.follow``: woken by the notice board, so a move
        made on any worker or replica arrives), as ``events``, ``table`` and ``end`` messages."""
        status = "active"
        last = after
        try:
            feed = self.hub.reads.follow(
                game_id, viewer, after, idle=self.hub.limits.heartbeat_seconds, narrate=narrate
            )
            async for batch in feed:
                if batch.table is not None:
                    status = batch.table.status
                    self.send(
                        json_encoder.encode(
                            TableChanged(game_id=game_id, status=status, seats=batch.table.seats)
                        )
                    )
                if not batch.events:
                    continue
                last = batch.events[-1].seq
                if batch.finished:
                    status = "finished"
                elif status == "finished":
                    status = "active"
                to_act = [] if status != "active" else await self.hub.to_act(game_id, last)
                events = batch.events
                shown = Events(game_id=game_id, version=last, status=status, to_act=to_act, events=events)
                self.send(json_encoder.encode(shown))
            if self.hub.stopping or self.hub.reads.stopping:
                return  # the connection closes with 1001 and the client resumes elsewhere
            self.send(json_encoder.encode(Ended(game_id=game_id, version=last)))
        except Closing:
            return  # the send queue overflowed: the connection is closing (4008)
        except Exception as exc:  # noqa: BLE001 - answered, and the subscription ends
            # The store went away (503): the subscription ends; the client subscribes again with
            # ``after`` = the last version it has.
            with contextlib.suppress(Closing):
                self.refuse(exc, None, game_id)
            return
        finally:
            current = self.subscriptions.get(game_id)
            if current is not None and current.task is asyncio.current_task():
                del self.subscriptions[game_id]

    # --- moves --------------------------------------------------------------------------------
    async def _move(self, message: Move) -> None:
        game_id = message.game_id
        try:
            command = self.hub.command_decoder.decode(message.command)
            seat = await self.viewer(game_id, message.seat, ticket=False)
            if seat is None:
                raise TokenRequired("send the seat's credential in hello: a spectator cannot move")
            answer = await self.hub.moves.submit(
                game_id,
                seat,
                command,
                if_match=message.expected_version,
                idempotency_key=message.idempotency_key,
            )
            if message.include and answer.body is not None:
                answer = await self.hub.reads.after_move(game_id, seat, answer, frozenset(message.include))
            assert answer.body is not None
            result = MoveAnswered(id=message.id, game_id=game_id, result=msgspec.Raw(answer.body))
            self.send(json_encoder.encode(result))
        except Closing:
            return  # the send queue overflowed: the connection is closing (4008)
        except Exception as exc:  # noqa: BLE001 - any refusal is answered as HTTP answers it
            with contextlib.suppress(Closing):
                self.refuse(exc, message.id, game_id)

    async def _legal_moves(self, message: GetLegalMoves) -> None:
        game_id = message.game_id
        try:
            seat = await self.viewer(game_id, message.seat, ticket=True)
            answer = await self.hub.reads.legal_moves(game_id, seat, message.min_version)
            assert answer.body is not None
            result = LegalMovesAnswered(id=message.id, game_id=game_id, result=msgspec.Raw(answer.body))
        except Exception as exc:  # noqa: BLE001 - any refusal is answered as HTTP answers it
            self.refuse(exc, message.id, game_id)
            return
        self.send(json_encoder.encode(result))

    # --- refusals -----------------------------------------------------------------------------
    def refuse(self, exc: BaseException, id: str | None, game_id: str | None) -> None:
        problem = self.refusal(exc)
        if problem is None:
            log.exception("realtime_unhandled_error", error=type(exc).__name__, exc_info=exc)
            problem = Problem(
                type="https://yamen.dev/problems/internal_error",
                title="Internal Server Error",
                status=500,
                code="internal_error",
                detail="an unexpected error occurred",
            )
        self.send(json_encoder.encode(ProblemMessage(id=id, game_id=game_id, problem=problem)))

    def close(self) -> None:
        """Stop every subscription (the connection is closing).  Moves in flight are let finish:
        each is appended whole or not at all, and its answer, which can no longer be sent, is what
        a retry with its idempotency key gets."""
        for subscription in self.subscriptions.values():
            subscription.task.cancel()
        self.subscriptions.clear()

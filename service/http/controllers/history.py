"""What happened in a game: its redacted history (read, or long-polled), and the live feed of new
events as server-sent events, which a browser opens for a seat with a short-lived stream ticket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Literal

from litestar import Controller, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from ...application.documents import History, StreamTicket
from ...application.errors import (
    GameNotFound,
    InvalidTicket,
    InvalidToken,
    TicketExpired,
    TokenRequired,
)
from ...application.reads import HEARTBEAT_SECONDS
from ...codec import json_encoder
from ..dependencies import App, Caller, GameId, Player
from ..problems import problems
from .responses import created, location_header, standby_lag_header

if TYPE_CHECKING:  # each app names this: the union of its games' events (see service.http.contract)
    from domain.kernel import Event

After = Annotated[int, QueryParameter(name="after", ge=0, description="Events after this version")]
Include = Annotated[
    Literal["narration"] | None,
    QueryParameter(
        name="include",
        required=False,
        description=(
            "`narration`: each event envelope carries `text`, the event told in one line in the "
            "game's words (what `yamen replay` says), from the event as the caller sees it"
        ),
    ),
]
RECONNECT_MS = 2000
"""What the stream asks a browser to wait before reconnecting (the SSE ``retry`` field)."""

STREAM_DESCRIPTION = f"""\
A `text/event-stream` (server-sent events) of the game's new events, redacted for the caller.

**Who is asking.** A spectator opens it with no credentials. A seat sends its token in
`Authorization: Bearer …`, or — for a browser's `EventSource`, which cannot send headers — a
short-lived `ticket` from `POST /v1/games/{{game_id}}/events/tickets`, so the seat token never
appears in a URL or a log. A ticket reopens the stream (automatic reconnects included) until it
expires; then ask for a new one and reopen with `?after=` the last id seen.

**Messages.**
- `event: event`, `id: <seq>`, `data:` one `EventEnvelope` (the same JSON as an item of
  `GET …/events`), in order, starting after `after` (or after `Last-Event-ID` on a reconnect).
- `event: seats`, `data: {{"status": "open", "seats": [{{"seat": 0, "claimed": true}}, …]}}` while the
  game waits for players: at once, then whenever a seat is claimed (claims are not events), and
  once more when the last claim starts the game (`"status": "active"`).
- a comment line `: heartbeat` after {HEARTBEAT_SECONDS:.0f} s without an event.
- `event: end`, `data: {{"version": <last seq>, "status": "finished"}}` once the game has ended and
  every event has been sent; the server then closes the stream (a client should not reconnect).
- a comment line `: server stopping` with `retry: {RECONNECT_MS}` when the server is told to stop
  (SIGINT, SIGTERM); the stream then closes *without* `end`: reconnect (an `EventSource` does by
  itself, with `Last-Event-ID`) and the stream resumes where it stopped, on another replica or
  on the same server once it is back.

The first message says `retry: {RECONNECT_MS}` (milliseconds before a browser reconnects).
Clients that cannot hold a stream long-poll `GET …/events?after=N&wait=30` instead.
"""


class HistoryController(Controller):
    path = "/v1/games/{game_id:str}/events"
    tags = ("games",)

    @get(
        "/",
        operation_id="listEvents",
        summary="The event history after a version, redacted for the caller (with `wait`: a long poll)",
        description=(
            "Up to `limit` events after `after`. With `wait` > 0 an answer that would be empty is held "
            "until the next event is appended or `wait` seconds pass (a long poll for clients that "
            "cannot keep a stream open); it comes back empty only then, when the game has ended, or "
            "when the server is stopping (SIGINT, SIGTERM). "
            "Continue with `after` = the last `seq` you received (`next_after` while more are waiting)."
        ),
        response_headers=[standby_lag_header()],
        responses=problems(GameNotFound, InvalidToken),
    )
    async def events(
        self,
        game_id: GameId,
        application: App,
        caller: Caller,
        after: After = 0,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=1000)] = 100,
        wait: Annotated[
            float,
            QueryParameter(name="wait", ge=0, le=60, description="Seconds to wait for a new event (0-60)"),
        ] = 0,
        include: Include = None,
    ) -> History[Event]:
        return await application.reads.history(
            game_id, caller, after, limit, wait, narrate=include == "narration"
        )

    @post(
        "/tickets",
        operation_id="createStreamTicket",
        summary="A short-lived ticket that opens this seat's event stream from a browser (EventSource)",
        description=(
            "`EventSource` cannot send an `Authorization` header. This ticket stands in for the seat "
            "token in the stream's URL: it opens only this game's stream, only as this seat, and "
            "expires after `expires_in` seconds (a stream already open stays open)."
        ),
        status_code=201,
        response_headers=[location_header("The stream the ticket opens (the answer's `stream`)")],
        responses=problems(GameNotFound, InvalidToken, TokenRequired),
    )
    async def ticket(self, game_id: GameId, application: App, player: Player) -> Response[StreamTicket]:
        ticket = await application.seats.ticket(game_id, player)
        return created(ticket, ticket.stream)

    @get(
        "/stream",
        operation_id="streamEvents",
        summary="Server-sent events: new events as they are appended, redacted for the caller",
        description=STREAM_DESCRIPTION,
        media_type="text/event-stream",
        responses={
            **problems(GameNotFound, InvalidToken, InvalidTicket, TicketExpired),
            200: ResponseSpec(
                data_container=str,
                generate_examples=False,
                media_type="text/event-stream",
                description="The event stream (see the operation's description for its messages)",
            ),
        },
    )
    async def stream(
        self,
        game_id: GameId,
        application: App,
        caller: Caller,
        after: After = 0,
        ticket: Annotated[
            str | None,
            QueryParameter(
                name="ticket",
                required=False,
                max_length=128,
                description="A stream ticket from POST …/events/tickets (instead of Authorization)",
            ),
        ] = None,
        last_event_id: Annotated[
            int | None,
            HeaderParameter(
                name="Last-Event-ID",
                required=False,
                ge=0,
                description="Sent by a reconnecting EventSource: resume after this event (wins over `after`)",
            ),
        ] = None,
        include: Include = None,
    ) -> ServerSentEvent:
        viewer = await application.seats.redeem(game_id, ticket) if ticket else caller
        start = max(after, last_event_id) if last_event_id is not None else after
        follow = application.reads.follow(
            game_id, viewer, start, idle=HEARTBEAT_SECONDS, narrate=include == "narration"
        )
        # An unknown game is refused here, before the stream starts; a finished game with nothing
        # after *start* gives no batch at all (the stream is just its end).
        first = await anext(follow, None)

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            yield ServerSentEventMessage(data=None, comment="yamen event stream", retry=RECONNECT_MS)
            batch = first
            last = start
            finished = first is None
            while batch is not None:
                finished = batch.finished
                envelopes = batch.events
                if batch.table is not None:
                    yield ServerSentEventMessage(
                        data=json_encoder.encode(batch.table).decode(), event="seats"
                    )
                elif not envelopes:
                    yield ServerSentEventMessage(data=None, comment="heartbeat")
                for envelope in envelopes:
                    last = envelope.seq
                    data = json_encoder.encode(envelope).decode()
                    yield ServerSentEventMessage(data=data, event="event", id=envelope.seq)
                batch = await anext(follow, None)
            if not finished:
                # The server is stopping (SIGINT, SIGTERM; service.http.shutdown): closing the stream
                # without `end` makes an EventSource reconnect after `retry`, to the next server.
                yield ServerSentEventMessage(data=None, comment="server stopping", retry=RECONNECT_MS)
                return
            end = json_encoder.encode({"version": last, "status": "finished"}).decode()
            yield ServerSentEventMessage(data=end, event="end")

        return ServerSentEvent(messages(), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

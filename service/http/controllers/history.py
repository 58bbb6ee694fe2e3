"""What happened in a game: its redacted history, and the live feed of new events (SSE)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated

from litestar import Controller, get
from litestar.params import QueryParameter
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from ...application.documents import History
from ...application.errors import GameNotFound, InvalidToken
from ...codec import json_encoder
from ..dependencies import App, Caller, GameId
from ..problems import problems

if TYPE_CHECKING:  # each app names this: the union of its games' events (see service.http.contract)
    from domain.kernel import Event

After = Annotated[int, QueryParameter(name="after", ge=0, description="Events after this version")]


class HistoryController(Controller):
    path = "/v1/games/{game_id:str}/events"
    tags = ("games",)

    @get(
        "/",
        summary="The event history after a version, redacted for the caller",
        responses=problems(GameNotFound, InvalidToken),
    )
    async def events(
        self,
        game_id: GameId,
        application: App,
        caller: Caller,
        after: After = 0,
        limit: Annotated[int, QueryParameter(name="limit", ge=1, le=1000)] = 100,
    ) -> History[Event]:
        return await application.reads.history(game_id, caller, after, limit)

    @get(
        "/stream",
        summary="Server-sent events: new events as they are appended, redacted for the caller",
        include_in_schema=False,
    )
    async def stream(
        self,
        game_id: GameId,
        application: App,
        caller: Caller,
        after: After = 0,
    ) -> ServerSentEvent:
        follow = application.reads.follow(game_id, caller, after)
        first = await follow.__anext__()  # an unknown game is refused before the stream starts

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            batches = [first]
            while True:
                for finished, envelopes in batches:
                    for envelope in envelopes:
                        data = json_encoder.encode(envelope).decode()
                        yield ServerSentEventMessage(data=data, event="event", id=envelope.seq)
                    if finished and not envelopes:
                        yield ServerSentEventMessage(data="{}", event="end")
                        return
                try:
                    batches = [await follow.__anext__()]
                except StopAsyncIteration:
                    yield ServerSentEventMessage(data="{}", event="end")
                    return

        return ServerSentEvent(messages())

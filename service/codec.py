"""Per-game encoders and decoders, built once per game (msgspec's advice: reuse them)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.kernel import Event, Game, union_of

from .record.chain import NewEvent


def tag_of(struct_type: type[msgspec.Struct]) -> str:
    """The ``type`` tag of a command or event type (every one has a string tag)."""
    tag = struct_type.__struct_config__.tag
    assert isinstance(tag, str), f"{struct_type.__name__} has no string tag"
    return tag


class GameCodec:
    def __init__(self, game: Game) -> None:
        self.game = game
        self.command_type = union_of(game.command_types)
        """What a seat may send."""
        self.recorded_command_type = union_of((*game.command_types, *game.service_command_types))
        """What a record may hold: also the commands only the service sends (the table's ``Timed``,
        ``ClaimTimeout``, ``StartClocks``)."""
        self.event_type = union_of(game.event_types)
        self.command_decoder = msgspec.json.Decoder(self.recorded_command_type)
        self.event_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(self.event_type)
        self.state_decoder: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(game.state_type)
        self.command_tags = {tag_of(t) for t in game.command_types}
        self.event_tags = {tag_of(t) for t in game.event_types}

    def decode_event(self, payload: bytes) -> Event:
        return self.event_decoder.decode(payload)

    def decode_options(self, options: Any) -> Any:
        return msgspec.convert(options, self.game.options_type)

    def decode_options_json(self, blob: bytes) -> Any:
        return msgspec.json.decode(blob, type=self.game.options_type)


json_encoder = msgspec.json.Encoder()


def new_events(
    events: list[Event], seat: int | None, command: bytes | None, key: str | None
) -> list[NewEvent]:
    """A command's events as rows to append: payload encoded once, visibility taken from the event."""
    return [
        NewEvent(
            type=tag_of(type(e)),
            payload=json_encoder.encode(e),
            visible_to=list(v) if (v := e.visible_to()) is not None else None,
            seat=seat,
            command=command,
            idempotency_key=key,
        )
        for e in events
    ]

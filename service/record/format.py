"""The game record's NDJSON format: export it line by line, read it back.

A record is one header line, one line per event, and (for a finished game) a footer line::

    {"record": "header", "format": 1, "kind": ..., "options": ..., "seed_commitment": ..., "seed": ...}
    {"record": "event", "seq": 1, "type": ..., "payload": {...}, "prev_hash": ..., "hash": ...}
    {"record": "footer", "version": N, "state_sha256": ..., "outcome": {...}}

While a game runs, a record is redacted for whoever asks: an event they may not see carries
only its ``payload_digest`` (which the chain covers) and its public form in ``shown``.  Once
the game has ended every record is complete and includes the seed.

Verification (``yamen verify RECORD``) is in :mod:`service.record.verify`.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import msgspec

from domain.kernel import Game, redact_for

from ..codec import GameCodec, json_encoder
from .chain import StoredEvent, payload_digest, timestamp

FORMAT = 1
NULL = msgspec.Raw(b"null")


def present(raw: msgspec.Raw | None) -> bytes | None:
    """The raw JSON of an optional field, or None when it is absent or null."""
    if raw is None:
        return None
    blob = bytes(raw)
    return None if blob in (b"", b"null") else blob


class RecordHeader(msgspec.Struct, kw_only=True, tag_field="record", tag="header"):
    format: int = FORMAT
    game_id: str
    kind: str
    title: str
    rules_version: str
    options: msgspec.Raw
    players: int
    seed_commitment: str
    seed: str | None
    """Revealed once the game has ended; null before."""
    status: str
    version: int
    created_at: str
    viewer: int | None = None
    """The seat this record was redacted for while the game ran (null: a spectator's)."""
    complete: bool
    """True when every payload is present (a finished game, or an export for everyone)."""


class RecordEvent(msgspec.Struct, kw_only=True, tag_field="record", tag="event", omit_defaults=True):
    seq: int
    type: str
    payload: msgspec.Raw = NULL
    """The event in full, when the reader may see it."""
    payload_digest: str | None = None
    """For an event the reader may not see: the digest the chain covers."""
    shown: msgspec.Raw = NULL
    """For an event the reader may not see: its public form, if any."""
    visible_to: list[int] | None = None
    seat: int | None = None
    command: msgspec.Raw = NULL
    idempotency_key: str | None = None
    recorded_at: str
    prev_hash: str
    hash: str


class RecordFooter(msgspec.Struct, kw_only=True, tag_field="record", tag="footer"):
    version: int
    state_sha256: str
    outcome: msgspec.Raw = NULL


RecordLine = RecordHeader | RecordEvent | RecordFooter
_line_decoder = msgspec.json.Decoder(RecordLine)


class RecordError(ValueError):
    """The record cannot be read at all (not NDJSON, no header, unknown kind)."""


def state_digest(state: Any) -> str:
    return hashlib.sha256(msgspec.msgpack.encode(state)).hexdigest()


# --- export ---------------------------------------------------------------------------------------
async def export_lines(
    game: Game,
    codec: GameCodec,
    header: RecordHeader,
    events: AsyncIterator[StoredEvent],
    viewer: int | None,
    seed: str,
) -> AsyncIterator[bytes]:
    """The record, line by line; events are streamed from the store, never held all at once."""
    revealed = header.complete
    yield json_encoder.encode(header) + b"\n"
    state = game.initial(codec.decode_options_json(bytes(header.options))) if revealed else None
    async for stored in events:
        line = RecordEvent(
            seq=stored.seq,
            type=stored.type,
            visible_to=stored.visible_to,
            seat=stored.seat,
            command=msgspec.Raw(stored.command) if stored.command is not None else NULL,
            idempotency_key=stored.idempotency_key,
            recorded_at=timestamp(stored.recorded_at),
            prev_hash=stored.prev_hash,
            hash=stored.hash,
        )
        event = codec.decode_event(stored.payload)
        hidden = stored.visible_to is not None and not revealed
        if hidden:
            # The chain covers a salted digest; the reader cannot salt without the seed.
            line.payload_digest = payload_digest(stored.payload, stored.visible_to, seed, stored.seq)
        seats = stored.visible_to
        if seats is None or revealed or (viewer is not None and viewer in seats):
            line.payload = msgspec.Raw(stored.payload)
        else:
            public = redact_for(event, viewer)
            line.shown = msgspec.Raw(json_encoder.encode(public)) if public is not None else NULL
        if state is not None:
            state = game.evolve(state, event)
        yield json_encoder.encode(line) + b"\n"
    if state is not None:
        outcome = game.outcome(state)
        yield (
            json_encoder.encode(
                RecordFooter(
                    version=header.version,
                    state_sha256=state_digest(state),
                    outcome=msgspec.Raw(json_encoder.encode(outcome)) if outcome is not None else NULL,
                )
            )
            + b"\n"
        )


# --- reading --------------------------------------------------------------------------------------
class Record(msgspec.Struct):
    header: RecordHeader
    events: list[RecordEvent]
    footer: RecordFooter | None


def read_record(lines: Iterable[bytes]) -> Record:
    header: RecordHeader | None = None
    events: list[RecordEvent] = []
    footer: RecordFooter | None = None
    for number, raw in enumerate(lines, start=1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            line = _line_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise RecordError(f"line {number}: {exc}") from None
        if isinstance(line, RecordHeader):
            if header is not None:
                raise RecordError(f"line {number}: a second header")
            header = line
        elif header is None:
            raise RecordError("the record must start with its header line")
        elif isinstance(line, RecordEvent):
            events.append(line)
        else:
            footer = line
    if header is None:
        raise RecordError("the record is empty")
    if header.format != FORMAT:
        raise RecordError(f"record format {header.format} is not supported (expected {FORMAT})")
    return Record(header, events, footer)


def iter_file_lines(path: str) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle

"""Stored events as plain data, and the SHA-256 chain that makes a game's record tamper-evident.

The chain needs no database: ``yamen verify`` recomputes it from an exported record offline.
Each event's hash covers the previous hash and a canonical encoding of everything an auditor
relies on (seq, type, payload digest, visibility, causing seat and command, idempotency key,
time).  The first event chains to the game's seed commitment, so replacing the commitment in a
record breaks the chain at seq 1.  The game id is not hashed (the commitment already names the
game), so an imported record keeps its chain under a new id.

The chain covers a *digest* of each payload rather than the payload itself, so that a record
redacted for one seat still verifies: a hidden event travels as its digest alone.  A public
event's digest is the SHA-256 of its payload; a hidden event's digest is salted with a value
derived from the secret seed, so nobody can recover a small hidden fact (a card, a tile) by
hashing every candidate before the seed is revealed at the end of the game.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import msgspec


class NewEvent(msgspec.Struct, frozen=True):
    """An event about to be appended: its JSON payload is encoded once, here, and hashed as is."""

    type: str
    payload: bytes
    visible_to: list[int] | None
    seat: int | None
    command: bytes | None
    idempotency_key: str | None


class StoredEvent(msgspec.Struct, frozen=True):
    game_id: str
    seq: int
    type: str
    payload: bytes
    visible_to: list[int] | None
    seat: int | None
    command: bytes | None
    idempotency_key: str | None
    recorded_at: datetime
    prev_hash: str
    hash: str


def timestamp(moment: datetime) -> str:
    """The one textual form of a record's time that goes into the hash (UTC, microseconds)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def hidden_salt(seed: str, seq: int) -> bytes:
    return hashlib.sha256(b"yamen/hidden/" + seed.encode() + b"/" + str(seq).encode()).digest()


def payload_digest(payload: bytes, visible_to: list[int] | None, seed: str | None, seq: int) -> str:
    """The digest the chain covers; for a hidden event it needs the seed."""
    if visible_to is None:
        return hashlib.sha256(payload).hexdigest()
    if seed is None:
        raise ValueError("a hidden event's digest needs the seed")
    return hashlib.sha256(hidden_salt(seed, seq) + payload).hexdigest()


def chain_hash(
    prev_hash: str,
    seq: int,
    type: str,
    digest: str,
    visible_to: list[int] | None,
    seat: int | None,
    command: bytes | None,
    idempotency_key: str | None,
    recorded_at: datetime,
) -> str:
    canonical = msgspec.json.encode(
        [
            seq,
            type,
            digest,
            visible_to,
            seat,
            msgspec.Raw(command) if command is not None else None,
            idempotency_key,
            timestamp(recorded_at),
        ]
    )
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical).hexdigest()


def seal(
    game_id: str, first_seq: int, prev_hash: str, events: list[NewEvent], recorded_at: datetime, seed: str
) -> list[StoredEvent]:
    """Number and chain a command's events, ready for one append."""
    out = []
    for offset, event in enumerate(events):
        seq = first_seq + offset
        digest = chain_hash(
            prev_hash,
            seq,
            event.type,
            payload_digest(event.payload, event.visible_to, seed, seq),
            event.visible_to,
            event.seat,
            event.command,
            event.idempotency_key,
            recorded_at,
        )
        out.append(
            StoredEvent(
                game_id=game_id,
                seq=seq,
                type=event.type,
                payload=event.payload,
                visible_to=event.visible_to,
                seat=event.seat,
                command=event.command,
                idempotency_key=event.idempotency_key,
                recorded_at=recorded_at,
                prev_hash=prev_hash,
                hash=digest,
            )
        )
        prev_hash = digest
    return out


def first_broken_link(seed_commitment: str, events: list[StoredEvent], seed: str) -> int | None:
    """The seq of the first event whose hash or numbering does not follow, or None if intact."""
    prev = seed_commitment
    expected_seq = 1
    for event in events:
        if event.seq != expected_seq or event.prev_hash != prev:
            return expected_seq
        digest = chain_hash(
            prev,
            event.seq,
            event.type,
            payload_digest(event.payload, event.visible_to, seed, event.seq),
            event.visible_to,
            event.seat,
            event.command,
            event.idempotency_key,
            event.recorded_at,
        )
        if digest != event.hash:
            return event.seq
        prev = digest
        expected_seq += 1
    return None

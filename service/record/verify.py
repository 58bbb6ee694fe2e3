"""Verifying a game record offline: the five checks an auditor relies on.

1. ``chain``  — every hash follows from the previous one (the first from the seed commitment);
2. ``fold``   — folding the events reproduces the final state and outcome in the footer;
3. ``replay`` — re-running every recorded command through ``decide`` from the initial state
   reproduces exactly the recorded events;
4. ``seed``   — the revealed seed matches the commitment and the setup's draws come from it;
5. ``stamps`` — commands the service stamped with a time (clocks, the table) were recorded then.

Each failed check names the first seq where the record breaks.  No server, no database.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.kernel import Event, Game, Rng, RuleViolation, seed_commitment

from ..codec import GameCodec
from .chain import chain_hash, payload_digest
from .format import Record, RecordError, present, state_digest


class Check(msgspec.Struct, kw_only=True):
    name: str
    status: str
    """``passed``, ``failed`` or ``skipped`` (e.g. the seed is not revealed yet)."""
    first_bad_seq: int | None = None
    detail: str = ""


class Verification(msgspec.Struct, kw_only=True):
    ok: bool
    """True when no check failed."""
    game_id: str | None = None
    kind: str | None = None
    version: int | None = None
    checks: list[Check]


# --- verification -------------------------------------------------------------------------------
def verify(record: Record, games: dict[str, Game], *, seed: str | None = None) -> Verification:
    """Run the five checks.  *seed* lets the server check replay for a game still running."""
    header = record.header
    game = games.get(header.kind)
    if game is None:
        raise RecordError(f"unknown game kind {header.kind!r}")
    if not game.judges(header.rules_version):
        raise RecordError(
            f"the record was played under rules {header.rules_version}; this build judges "
            f"{game.rules_version}"
        )
    codec = GameCodec(game)
    try:
        options = codec.decode_options_json(bytes(header.options))
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise RecordError(f"the header's options are not {header.kind}'s: {exc}") from None
    seed = seed if seed is not None else header.seed
    checks = [
        _check_chain(record, seed),
        _check_fold(record, game, codec, options),
        _check_replay(record, game, codec, seed, options),
        _check_seed(record, game, codec, seed, options),
        _check_stamps(record),
    ]
    return Verification(
        ok=all(c.status != "failed" for c in checks),
        game_id=header.game_id,
        kind=header.kind,
        version=header.version,
        checks=checks,
    )


class _Stamp(msgspec.Struct):
    type: str = ""
    at_ms: int | None = None


_stamp_of = msgspec.json.Decoder(_Stamp)


def _check_stamps(record: Record) -> Check:
    """5. ``stamps`` — a command the service stamped with the time it judged it (the table's
    ``Timed``: clocks, timeouts, resignations) carries the very time its events were recorded at,
    and stamps never go back: a clock cannot be re-timed after the fact without breaking the chain
    (the recording time is hashed) or this check."""
    stamped, last = 0, None
    for line in record.events:
        blob = present(line.command)
        if blob is None:
            continue
        try:
            stamp = _stamp_of.decode(blob)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a command that does not decode fails the replay check
        if stamp.type != "table.Timed" or stamp.at_ms is None:
            continue
        stamped += 1
        recorded = int(datetime.fromisoformat(line.recorded_at).timestamp() * 1000)
        if stamp.at_ms != recorded:
            return Check(
                name="stamps",
                status="failed",
                first_bad_seq=line.seq,
                detail=f"stamped {stamp.at_ms} but recorded at {recorded} (Unix ms)",
            )
        if last is not None and stamp.at_ms < last:
            return Check(
                name="stamps", status="failed", first_bad_seq=line.seq, detail="a stamp goes back in time"
            )
        last = stamp.at_ms
    detail = (
        f"{stamped} stamped command events match their recording time" if stamped else "no stamped commands"
    )
    return Check(name="stamps", status="passed", detail=detail)


def _check_chain(record: Record, seed: str | None) -> Check:
    prev = record.header.seed_commitment
    for expected_seq, line in enumerate(record.events, start=1):
        if line.seq != expected_seq or line.prev_hash != prev:
            return Check(
                name="chain",
                status="failed",
                first_bad_seq=expected_seq,
                detail="an event is missing, moved or re-linked",
            )
        payload = present(line.payload)
        if payload is not None and (line.visible_to is None or seed is not None):
            digest = payload_digest(payload, line.visible_to, seed, line.seq)
            if line.payload_digest is not None and line.payload_digest != digest:
                return Check(
                    name="chain",
                    status="failed",
                    first_bad_seq=line.seq,
                    detail="the payload does not match its digest",
                )
        elif line.payload_digest is not None:
            digest = line.payload_digest
        else:
            return Check(
                name="chain",
                status="failed",
                first_bad_seq=line.seq,
                detail="a hidden event without its digest",
            )
        computed = chain_hash(
            prev,
            line.seq,
            line.type,
            digest,
            line.visible_to,
            line.seat,
            present(line.command),
            line.idempotency_key,
            datetime.fromisoformat(line.recorded_at),
        )
        if computed != line.hash:
            return Check(
                name="chain",
                status="failed",
                first_bad_seq=line.seq,
                detail="the hash does not match the event",
            )
        prev = computed
    if record.events and record.events[-1].seq != record.header.version:
        return Check(
            name="chain",
            status="failed",
            first_bad_seq=record.events[-1].seq + 1,
            detail="the record ends early",
        )
    return Check(
        name="chain", status="passed", detail=f"{len(record.events)} events chained to the seed commitment"
    )


def _decoded_events(record: Record, codec: GameCodec) -> tuple[list[Event], int | None]:
    events: list[Event] = []
    for line in record.events:
        payload = present(line.payload)
        if payload is None:
            return events, line.seq
        try:
            events.append(codec.decode_event(payload))
        except (msgspec.DecodeError, msgspec.ValidationError):
            return events, line.seq
    return events, None


def _check_fold(record: Record, game: Game, codec: GameCodec, options: Any) -> Check:
    events, hidden_at = _decoded_events(record, codec)
    if hidden_at is not None:
        if present(record.events[hidden_at - 1].payload) is None:
            return Check(
                name="fold", status="skipped", detail=f"event {hidden_at} is hidden from this record's reader"
            )
        return Check(
            name="fold",
            status="failed",
            first_bad_seq=hidden_at,
            detail="the payload is not an event of this game",
        )
    if record.footer is None:
        return Check(
            name="fold", status="skipped", detail="the record has no final state (the game is still running)"
        )
    seq = 0
    try:
        state = game.initial(options)
        for seq, event in enumerate(events, start=1):  # noqa: B007 - the seq that failed is reported
            state = game.evolve(state, event)
    except Exception as exc:  # noqa: BLE001 - a corrupt record is reported, never crashes the verifier
        return Check(
            name="fold", status="failed", first_bad_seq=seq, detail=f"folding failed: {type(exc).__name__}"
        )
    if state_digest(state) != record.footer.state_sha256:
        return Check(
            name="fold",
            status="failed",
            first_bad_seq=record.header.version,
            detail="the folded state differs from the recorded final state",
        )
    outcome = game.outcome(state)
    outcome_blob = present(record.footer.outcome)
    recorded = msgspec.json.decode(outcome_blob) if outcome_blob is not None else None
    if msgspec.to_builtins(outcome) != recorded:
        return Check(
            name="fold", status="failed", first_bad_seq=record.header.version, detail="the outcome differs"
        )
    return Check(
        name="fold", status="passed", detail="the events fold to the recorded final state and outcome"
    )


def _check_replay(record: Record, game: Game, codec: GameCodec, seed: str | None, options: Any) -> Check:
    if seed is None:
        return Check(name="replay", status="skipped", detail="the seed is revealed when the game ends")
    events, hidden_at = _decoded_events(record, codec)
    if hidden_at is not None:
        return Check(
            name="replay", status="skipped", detail=f"event {hidden_at} is hidden from this record's reader"
        )
    try:
        state, opening = game.start(options, seed, record.header.rules_version)
    except RuleViolation as exc:
        return Check(name="replay", status="failed", first_bad_seq=1, detail=f"setup refused: {exc.code}")
    mismatch = _first_difference(opening, events, 0)
    if mismatch is not None:
        return Check(
            name="replay",
            status="failed",
            first_bad_seq=mismatch,
            detail="setup does not reproduce the opening events",
        )
    position = len(opening)
    while position < len(events):
        line = record.events[position]
        command_blob = present(line.command)
        if command_blob is None or line.seat is None:
            return Check(
                name="replay",
                status="failed",
                first_bad_seq=line.seq,
                detail="an event without the command that caused it",
            )
        try:
            command = codec.command_decoder.decode(command_blob)
            produced = game.decide(state, line.seat, command, Rng(seed, position))
        except (msgspec.DecodeError, msgspec.ValidationError):
            return Check(
                name="replay",
                status="failed",
                first_bad_seq=line.seq,
                detail="the recorded command does not decode",
            )
        except RuleViolation as exc:
            return Check(
                name="replay",
                status="failed",
                first_bad_seq=line.seq,
                detail=f"the rules refuse the recorded command: {exc.code}",
            )
        mismatch = _first_difference(produced, events, position)
        if mismatch is not None:
            return Check(
                name="replay",
                status="failed",
                first_bad_seq=mismatch,
                detail="the command does not produce the recorded events",
            )
        state = game.fold(state, produced)
        position += len(produced)
    return Check(
        name="replay",
        status="passed",
        detail=f"{len(events) - len(opening)} command events reproduced by decide",
    )


def _first_difference(produced: list[Event], recorded: list[Event], offset: int) -> int | None:
    for i, event in enumerate(produced):
        index = offset + i
        if index >= len(recorded) or recorded[index] != event:
            return index + 1
    return None


def _check_seed(record: Record, game: Game, codec: GameCodec, seed: str | None, options: Any) -> Check:
    header = record.header
    if header.seed is None:
        return Check(name="seed", status="skipped", detail="the seed is revealed when the game ends")
    if seed_commitment(header.seed) != header.seed_commitment:
        return Check(
            name="seed", status="failed", first_bad_seq=1, detail="the seed does not match its commitment"
        )
    events, _hidden_at = _decoded_events(record, codec)
    try:
        _, opening = game.start(options, header.seed, header.rules_version)
    except RuleViolation as exc:
        return Check(name="seed", status="failed", first_bad_seq=1, detail=f"setup refused: {exc.code}")
    mismatch = _first_difference(opening, events, 0)
    if mismatch is not None:
        return Check(
            name="seed",
            status="failed",
            first_bad_seq=mismatch,
            detail="the setup's draws did not come from the seed",
        )
    return Check(
        name="seed", status="passed", detail="the seed matches its commitment and produced every draw"
    )

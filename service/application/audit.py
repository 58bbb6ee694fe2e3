"""Audit: a game's record (redacted while it runs), the server's verification of a stored game,
and importing a finished game's record to browse it here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import msgspec

from domain.kernel import Seat

from ..codec import json_encoder
from ..infra.standby import Standby
from ..infra.store import EventStore, GameRow
from ..record.chain import StoredEvent, timestamp
from ..record.format import RecordError, RecordHeader, export_lines, present, read_record, state_digest
from ..record.verify import Verification, verify
from .clock import Clock, record_time, utcnow
from .documents import Imported
from .errors import IncompleteRecord, InvalidRecord, RecordDoesNotVerify, RecordTooLarge
from .seats import new_game_id
from .states import States, from_standby
from .titles import Titles

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""The largest record ``POST /v1/games/import`` accepts."""


class Audit:
    def __init__(
        self,
        titles: Titles,
        states: States,
        store: EventStore,
        clock: Clock = utcnow,
        *,
        standby: Standby | None = None,
    ) -> None:
        self.titles = titles
        self.states = states
        self.store = store
        self.clock = clock
        self.standby = standby
        """Where a spectator's record may be read (:mod:`service.infra.standby`)."""

    def _header(self, row: GameRow, viewer: Seat | None, *, complete: bool) -> RecordHeader:
        game, _ = self.titles[row.kind]
        return RecordHeader(
            game_id=row.game_id,
            kind=row.kind,
            title=game.title,
            rules_version=row.rules_version,
            options=msgspec.Raw(row.options),
            players=row.players,
            seed_commitment=row.seed_commitment,
            seed=row.seed if row.status == "finished" else None,
            status=row.status,
            version=row.version,
            created_at=timestamp(row.created_at),
            viewer=viewer,
            complete=complete,
        )

    async def export(self, game_id: str, viewer: Seat | None) -> AsyncIterator[bytes]:
        """The game's record as NDJSON lines: redacted for *viewer* while it runs, complete after.
        Events are read from Postgres in batches as the lines are sent; a spectator's from the
        standby when it may be read (the record then ends at the standby's version)."""
        found = await from_standby(self.standby, viewer, lambda store: self._row_on(store, game_id))
        store, row = found if found is not None else (self.store, await self.states.row(game_id))
        game, codec = self.titles[row.kind]
        header = self._header(row, viewer, complete=row.status == "finished")
        events = store.stream_events(game_id, upto=row.version)
        return export_lines(game, codec, header, events, viewer, row.seed)

    async def _row_on(self, store: EventStore, game_id: str) -> tuple[EventStore, GameRow]:
        return store, await self.states.row(game_id, store)

    async def verification(self, game_id: str) -> Verification:
        """The four audit checks on the stored game (replay uses the server's seed even before the
        end; the answer says only whether each check passed), and the served state against the fold."""
        row = await self.states.row(game_id)
        game, codec = self.titles[row.kind]
        header = self._header(row, None, complete=True)
        events = self.store.stream_events(game_id, upto=row.version)
        lines = [line async for line in export_lines(game, codec, header, events, None, row.seed)]
        record = read_record(lines)
        report = verify(record, {row.kind: game}, seed=row.seed)
        # The stored final state must also match what the service serves now (snapshot included).
        loaded = await self.states.load(game_id)
        if record.footer is not None and state_digest(loaded.state) != record.footer.state_sha256:
            report.ok = False
            report.checks[1] = msgspec.structs.replace(
                report.checks[1],
                status="failed",
                first_bad_seq=row.version,
                detail="the served state differs from the fold",
            )
        return report

    async def import_record(self, data: bytes) -> Imported:
        """Verify a complete record and store it as a new, finished, browsable game."""
        if len(data) > MAX_RECORD_BYTES:
            raise RecordTooLarge(f"records up to {MAX_RECORD_BYTES} bytes can be imported")
        try:
            record = read_record(data.splitlines())
        except RecordError as exc:
            raise InvalidRecord(str(exc)) from None
        header = record.header
        if not header.complete or header.seed is None or record.footer is None:
            raise IncompleteRecord("only a finished game's complete record (with its seed) can be imported")
        try:
            report = verify(record, self.titles.games)
        except RecordError as exc:
            raise InvalidRecord(str(exc)) from None
        failed = [c for c in report.checks if c.status != "passed"]
        if failed:
            first = failed[0]
            raise RecordDoesNotVerify(
                f"check {first.name} {first.status} at seq {first.first_bad_seq}: {first.detail}"
            )
        _, codec = self.titles[header.kind]
        game_id = new_game_id()
        now = record_time(self.clock)
        stored = [
            StoredEvent(
                game_id=game_id,
                seq=e.seq,
                type=e.type,
                payload=bytes(e.payload),
                visible_to=e.visible_to,
                seat=e.seat,
                command=present(e.command),
                idempotency_key=e.idempotency_key,
                recorded_at=datetime.fromisoformat(e.recorded_at),
                prev_hash=e.prev_hash,
                hash=e.hash,
            )
            for e in record.events
        ]
        options = json_encoder.encode(codec.decode_options_json(bytes(header.options)))
        row = GameRow(
            game_id=game_id,
            kind=header.kind,
            rules_version=header.rules_version,
            options=options,
            players=header.players,
            seed=header.seed,
            seed_commitment=header.seed_commitment,
            status="finished",
            version=header.version,
            last_hash=stored[-1].hash if stored else header.seed_commitment,
            imported=True,
            created_at=now,
            updated_at=now,
        )
        await self.store.create_game(row, [None] * header.players, stored)
        return Imported(
            game_id=game_id,
            kind=header.kind,
            version=header.version,
            imported_from=header.game_id,
            verification=report,
        )

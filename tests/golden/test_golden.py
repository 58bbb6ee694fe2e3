"""Golden records: finished games of every title and player count, committed in the repo.

They pin behaviour.  If a code change alters any outcome, replay or fold breaks here, and the
build stays red until the game's rules version is bumped, the change is explained in
docs/rules-versions.md and the records are regenerated (``python -m tests.golden.make``).
Verification is offline: no server, no database.
"""

from __future__ import annotations

import asyncio
import json
import pathlib

import msgspec
import pytest

from domain.kernel import redact_for
from domain.registry import production_games
from service.codec import GameCodec
from service.record.chain import StoredEvent
from service.record.format import export_lines, iter_file_lines, present, read_record
from service.record.verify import verify
from tests.golden.make import GAMES_PER_COUNT, HERE, record_path

ROOT = HERE.parent.parent
GAMES = production_games()
RECORDS = sorted(HERE.glob("*/*.ndjson"))


def test_every_title_and_player_count_has_its_golden_records():
    for kind, game in GAMES.items():
        for players in game.player_counts:
            for index in range(1, GAMES_PER_COUNT + 1):
                assert record_path(kind, players, index).exists(), (
                    f"missing golden record {kind} {players}p #{index}: run `python -m tests.golden.make`"
                )


def test_every_current_rules_version_is_explained():
    changelog = (ROOT / "docs" / "rules-versions.md").read_text()
    for game in GAMES.values():
        assert f"### {game.rules_version}\n" in changelog, (
            f"explain {game.rules_version} in docs/rules-versions.md"
        )


@pytest.mark.parametrize("path", RECORDS, ids=[f"{p.parent.name}/{p.stem}" for p in RECORDS])
def test_golden_record_verifies_offline(path: pathlib.Path):
    record = read_record(iter_file_lines(str(path)))
    game = GAMES[record.header.kind]
    assert record.header.rules_version == game.rules_version, (
        f"{path.name} was recorded under {record.header.rules_version} but the rules are now "
        f"{game.rules_version}: "
        "regenerate the golden records after explaining the bump in docs/rules-versions.md"
    )
    report = verify(record, GAMES)
    assert report.ok, msgspec.json.encode(report).decode()
    assert [c.status for c in report.checks] == ["passed"] * 5


def _stored(record) -> list[StoredEvent]:
    from datetime import datetime

    return [
        StoredEvent(
            game_id=record.header.game_id,
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


async def _export(game, header, stored, viewer, seed) -> list[bytes]:
    async def events():
        for event in stored:
            yield event

    return [line async for line in export_lines(game, GameCodec(game), header, events(), viewer, seed)]


@pytest.mark.parametrize(
    "path", [p for p in RECORDS if p.stem.endswith("-1")], ids=lambda p: f"{p.parent.name}/{p.stem}"
)
def test_exports_before_the_end_leak_nothing(path: pathlib.Path):
    """For every seat (and a spectator), at several points of the game: no seed, and no hidden
    event's payload unless that seat may see it; hidden events carry only their public form."""
    record = read_record(iter_file_lines(str(path)))
    game = GAMES[record.header.kind]
    codec = GameCodec(game)
    seed = record.header.seed
    stored = _stored(record)
    hidden = [e for e in stored if e.visible_to is not None]
    # Pingyao and Yangtze hide events (branch tiles drawn, goods behind a screen); since jiangnan-3
    # every Jiangnan event is public (a drawn tile lies on the Action Track; bags stay hidden in
    # the views): then the export must still carry no seed.
    assert hidden or record.header.kind == "jiangnan"
    for cut in sorted({len(stored) // 4, len(stored) // 2, len(stored) - 1}):
        header = msgspec.structs.replace(
            record.header, seed=None, status="active", version=cut, complete=False
        )
        for viewer in [None, *range(record.header.players)]:
            header = msgspec.structs.replace(header, viewer=viewer)
            lines = asyncio.run(_export(game, header, stored[:cut], viewer, seed))
            text = b"".join(lines)
            assert seed.encode() not in text
            exported = read_record(lines)
            assert verify(exported, GAMES).checks[0].status == "passed"
            for line, original in zip(exported.events, stored[:cut]):
                if original.visible_to is None or (viewer is not None and viewer in original.visible_to):
                    assert present(line.payload) == original.payload
                    continue
                assert present(line.payload) is None, f"seq {line.seq} leaks to {viewer}"
                public = redact_for(codec.decode_event(original.payload), viewer)
                shown = present(line.shown)
                assert (shown is None and public is None) or json.loads(shown) == msgspec.to_builtins(public)
                assert shown != original.payload


def _first(kind: str) -> list[bytes]:
    return list(iter_file_lines(str(record_path(kind, GAMES[kind].player_counts[-1], 1))))


def _checks(lines) -> dict[str, tuple[str, int | None]]:
    return {c.name: (c.status, c.first_bad_seq) for c in verify(read_record(lines), GAMES).checks}


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_forgeries_of_real_games_are_caught_at_their_seq(kind):
    from tests.golden.tamper import rechain

    lines = _first(kind)
    events = [json.loads(line) for line in lines[1:-1]]
    command_events = [e for e in events if e.get("command") is not None]
    target = command_events[len(command_events) // 2]["seq"]

    edited = list(lines)
    line = json.loads(edited[target])
    line["recorded_at"] = "2001-01-01T00:00:00.000000+00:00"
    edited[target] = json.dumps(line).encode()
    assert _checks(edited)["chain"] == ("failed", target)

    assert _checks(lines[:target] + lines[target + 1 :])["chain"] == ("failed", target)

    swapped = list(lines)
    swapped[target], swapped[target + 1] = swapped[target + 1], swapped[target]
    assert _checks(swapped)["chain"] == ("failed", target)

    # A drawn value changed and the whole chain re-forged: replay finds the first bad seq.
    # A hidden draw if the title has one, else a public one (Jiangnan's action tiles).
    hidden = [e for e in events if e.get("visible_to") is not None] or [
        e for e in events if e["type"].endswith("Drawn")
    ]
    drawn_in_play = [e for e in hidden if e.get("seat") is not None]
    victim = (drawn_in_play or hidden)[len(drawn_in_play or hidden) // 2]
    forged = list(lines)
    line = json.loads(forged[victim["seq"]])
    line["payload"] = _perturb(line["payload"])
    forged[victim["seq"]] = json.dumps(line).encode()
    checks = _checks(rechain(forged, json.loads(lines[0])["seed"], victim["seq"]))
    assert checks["chain"] == ("passed", None)
    assert checks["replay"] == ("failed", victim["seq"])

    header = json.loads(lines[0])
    header["seed"] = "0" * 64
    assert _checks([json.dumps(header).encode(), *lines[1:]])["seed"] == ("failed", 1)


def _perturb(payload: dict) -> dict:
    """Change one drawn value (the first int or str field after the type) to another valid-looking one."""
    changed = dict(payload)
    for key, value in payload.items():
        if key == "type":
            continue
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            changed[key] = value + 1
            return changed
        if isinstance(value, str):
            changed[key] = value + "x"
            return changed
        if isinstance(value, list) and value and isinstance(value[0], (int, str)):
            changed[key] = list(reversed(value)) if len(set(map(str, value))) > 1 else value + value[:1]
            return changed
    raise AssertionError(f"nothing to perturb in {payload}")

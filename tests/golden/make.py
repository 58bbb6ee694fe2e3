"""Write the golden records: complete games of every title and player count, pinned in the repo.

    python -m tests.golden.make            # (re)write every record for the current rules versions

A record is what ``GET /v1/games/{id}/record`` serves for a finished game, built here without a
server: the same domain decisions, the same sealing and the same export, with fixed timestamps
so the files are reproducible byte for byte.
"""

from __future__ import annotations

import asyncio
import hashlib
import pathlib
from datetime import UTC, datetime, timedelta

import msgspec

from domain.kernel import Game, Rng, seed_commitment
from domain.registry import production_games
from service.codec import GameCodec, json_encoder, new_events
from service.record.chain import StoredEvent, seal, timestamp
from service.record.format import RecordHeader, export_lines

HERE = pathlib.Path(__file__).resolve().parent
GAMES_PER_COUNT = 3
EPOCH = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def record_path(kind: str, players: int, index: int) -> pathlib.Path:
    return HERE / kind / f"{players}p-{index}.ndjson"


def golden_seed(kind: str, players: int, index: int) -> str:
    # A seed that looks like a real one (and appears nowhere else in the record before the end).
    return hashlib.sha256(f"yamen golden {kind} {players}p {index}".encode()).hexdigest()


def play(game: Game, players: int, seed: str, game_id: str, max_moves: int = 50_000) -> list[StoredEvent]:
    """A complete game, each seat choosing uniformly among its legal moves, sealed as stored."""
    options = msgspec.convert({"players": players}, game.options_type)
    state, opening = game.start(options, seed)
    clock = EPOCH
    stored = seal(game_id, 1, seed_commitment(seed), new_events(opening, None, None, None), clock, seed)
    chooser = Rng(seed + "/chooser")
    for _ in range(max_moves):
        if game.outcome(state) is not None:
            return stored
        seats = game.to_act(state)
        seat = seats[chooser.below(len(seats))]
        command = chooser.choice(game.legal_moves(state, seat))
        events = game.decide(state, seat, command, Rng(seed, len(stored)))
        state = game.fold(state, events)
        clock += timedelta(seconds=7)
        stored += seal(
            game_id,
            len(stored) + 1,
            stored[-1].hash,
            new_events(events, seat, json_encoder.encode(command), None),
            clock,
            seed,
        )
    raise RuntimeError(f"{game.kind} {players}p seed {seed} did not end")


async def _collect(lines) -> list[bytes]:
    return [line async for line in lines]


async def _iterate(events):
    for event in events:
        yield event


def record(game: Game, players: int, index: int) -> bytes:
    seed = golden_seed(game.kind, players, index)
    stored = play(game, players, seed, f"golden-{game.kind}-{players}p-{index}")
    options = msgspec.convert({"players": players}, game.options_type)
    header = RecordHeader(
        game_id=stored[0].game_id,
        kind=game.kind,
        title=game.title,
        rules_version=game.rules_version,
        options=msgspec.Raw(json_encoder.encode(options)),
        players=players,
        seed_commitment=seed_commitment(seed),
        seed=seed,
        status="finished",
        version=len(stored),
        created_at=timestamp(EPOCH),
        viewer=None,
        complete=True,
    )
    lines = asyncio.run(_collect(export_lines(game, GameCodec(game), header, _iterate(stored), None, seed)))
    return b"".join(lines)


def main() -> None:
    for kind, game in sorted(production_games().items()):
        for old in (HERE / kind).glob("*.ndjson") if (HERE / kind).exists() else []:
            old.unlink()
        for players in game.player_counts:
            for index in range(1, GAMES_PER_COUNT + 1):
                path = record_path(kind, players, index)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(record(game, players, index))
                print(f"wrote {path.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()

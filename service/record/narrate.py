"""``yamen replay``: a game record told step by step, the way a player would narrate it."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from domain.kernel import Event, Game

from ..codec import GameCodec
from .format import Record, RecordError, present


def _generic(event: Event) -> str:
    fields = ", ".join(f"{k}={v}" for k, v in msgspec.structs.asdict(event).items())
    name = type(event).__name__
    return f"{name}({fields})" if fields else name


def narrate(record: Record, games: dict[str, Game]) -> Iterator[str]:
    header = record.header
    game = games.get(header.kind)
    if game is None:
        raise RecordError(f"unknown game kind {header.kind!r}")
    codec = GameCodec(game)
    options = codec.decode_options_json(bytes(header.options))
    yield f"{game.title} — game {header.game_id}, {header.players} players, rules {header.rules_version}"
    yield f"options: {msgspec.json.encode(options).decode()}"
    yield f"seed commitment: {header.seed_commitment}" + (
        f" (seed revealed: {header.seed})" if header.seed else ""
    )
    state = game.initial(options)
    describe = game.describe
    for line in record.events:
        payload = present(line.payload)
        who = "setup" if line.seat is None else f"seat {line.seat}"
        if payload is None:
            shown = present(line.shown)
            text = "(hidden from this record's reader)"
            if shown is not None:
                text = _generic(codec.decode_event(shown)) + " (what this reader saw)"
            yield f"{line.seq:>5}  {who:8} {text}"
            state = None
            continue
        event = codec.decode_event(payload)
        if state is not None:
            text = describe(state, event) if describe is not None else _generic(event)
            state = game.evolve(state, event)
        else:
            text = _generic(event)
        if not text:
            continue  # bookkeeping a game chose not to narrate (e.g. the end of a decision step)
        yield f"{line.seq:>5}  {who:8} {text}"
    if state is not None:
        outcome = game.outcome(state)
        if outcome is not None:
            yield ""
            yield "Final scores" + (f": {outcome.summary}" if outcome.summary else "")
            for score in sorted(outcome.scores, key=lambda s: s.rank):
                parts = ", ".join(f"{k} {v}" for k, v in score.breakdown.items())
                yield f"  #{score.rank} seat {score.seat}: {score.score}" + (f" ({parts})" if parts else "")
            winners = ", ".join(f"seat {w}" for w in outcome.winners)
            yield f"Winner{'s' if len(outcome.winners) > 1 else ''}: {winners}"

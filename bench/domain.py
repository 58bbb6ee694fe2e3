"""In-process domain figures: random games per second, fold vs decode, snapshot sizes."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from domain.kernel import Game, Rng
from domain.registry import production_games
from service.codec import GameCodec, json_encoder
from service.infra.cache import encode_snapshot


def play(game: Game, players: int, seed: str) -> tuple[Any, list, Any]:
    """One complete game choosing uniformly among the legal moves; (options, events, mid state bytes)."""
    options = msgspec.convert({"players": players}, game.options_type)
    state, events = game.start(options, seed)
    events = list(events)
    chooser = Rng(seed + "/chooser")
    while game.outcome(state) is None:
        seats = game.to_act(state)
        seat = seats[chooser.below(len(seats))]
        command = chooser.choice(game.legal_moves(state, seat))
        new = game.decide(state, seat, command, Rng(seed, len(events)))
        state = game.fold(state, new)
        events.extend(new)
    return options, events, state


def games_per_second(seconds: float) -> list[dict[str, Any]]:
    out = []
    for kind, game in sorted(production_games().items()):
        for players in game.player_counts:
            # CPU time of this process: the single-core rate, whatever else the machine runs.
            n, events, t0 = 0, 0, time.process_time()
            try:
                while True:
                    _, evs, _ = play(game, players, f"bench-{kind}-{players}-{n}")
                    n += 1
                    events += len(evs)
                    elapsed = time.process_time() - t0
                    if elapsed >= seconds:
                        break
            except Exception as exc:  # noqa: BLE001 - a rules bug must not hide every other figure
                out.append({"kind": kind, "players": players, "error": f"{type(exc).__name__}: {exc}"})
                continue
            out.append(
                {
                    "kind": kind,
                    "players": players,
                    "games": n,
                    "games_per_s": n / elapsed,
                    "events_per_game": events / n,
                }
            )
    return out


class _Counter(msgspec.Struct):
    n: int = 0


def _noop(state: Any, event: Any) -> None:
    return None


def _write_struct(state: _Counter, event: Any) -> None:
    state.n = 1


def _write_slot(state: list[int], event: Any) -> None:
    state[3] = 1


def _floor(handlers: dict[type, Any], state: Any, events: Any) -> None:
    for event in events:
        handlers[type(event)](state, event)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def fold_vs_decode(repeat: int) -> list[dict[str, Any]]:
    """Fold a full game from its stored event payloads vs merely decoding those payloads."""
    out = []
    for kind, game in sorted(production_games().items()):
        players = max(game.player_counts)
        codec = GameCodec(game)
        try:
            options, events, final = play(game, players, f"fold-{kind}")
        except Exception as exc:  # noqa: BLE001 - a rules bug must not hide every other figure
            out.append({"kind": kind, "players": players, "error": f"{type(exc).__name__}: {exc}"})
            continue
        payloads = [json_encoder.encode(e) for e in events]
        decode = codec.decode_event
        decode_times, fold_times, dispatch_times, struct_times, slots_times = [], [], [], [], []
        # The floors under any state representation (what "a different representation" could
        # reach): the same generator-fed loop, one handler call per event by a dictionary of event
        # types, the handler doing nothing / one write to a msgspec Struct / one write to a list
        # slot (a flat array state). A representation can only save what its handlers spend above
        # these.
        types = {type(decode(p)) for p in payloads}
        noop = dict.fromkeys(types, _noop)
        write_struct = dict.fromkeys(types, _write_struct)
        write_slot = dict.fromkeys(types, _write_slot)
        for _ in range(repeat):
            t0 = time.perf_counter()
            for p in payloads:
                decode(p)
            t1 = time.perf_counter()
            state = game.fold(game.initial(options), (decode(p) for p in payloads))
            t2 = time.perf_counter()
            _floor(noop, _Counter(), (decode(p) for p in payloads))
            t3 = time.perf_counter()
            _floor(write_struct, _Counter(), (decode(p) for p in payloads))
            t4 = time.perf_counter()
            _floor(write_slot, [0] * 8, (decode(p) for p in payloads))
            t5 = time.perf_counter()
            decode_times.append(t1 - t0)
            fold_times.append(t2 - t1)
            dispatch_times.append(t3 - t2)
            struct_times.append(t4 - t3)
            slots_times.append(t5 - t4)
        assert msgspec.msgpack.encode(state) == msgspec.msgpack.encode(final)
        d, f = _median(decode_times), _median(fold_times)
        # Snapshot sizes: the finished state and the state half-way through.
        mid = game.fold(game.initial(options), events[: len(events) // 2])
        out.append(
            {
                "kind": kind,
                "players": players,
                "events": len(events),
                "decode_ms": d * 1000,
                "fold_ms": f * 1000,
                "ratio": f / d,
                "dispatch_floor": _median(dispatch_times) / d,
                "struct_write_floor": _median(struct_times) / d,
                "slot_write_floor": _median(slots_times) / d,
                "snapshot_mid_bytes": len(encode_snapshot(len(events) // 2, game.rules_version, mid)),
                "snapshot_final_bytes": len(encode_snapshot(len(events), game.rules_version, final)),
            }
        )
    return out

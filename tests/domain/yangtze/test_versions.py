"""Rules versions: a game keeps the rules it was set up under.  Games stored under yangtze-2 (two of
its golden records are kept in ``legacy/``) still replay, finish and verify under this code."""

from __future__ import annotations

import pathlib

import msgspec
import pytest

from domain.kernel import InvalidOptions, Rng, union_of
from domain.registry import production_games
from domain.yangtze import GAME
from domain.yangtze.events import EVENTS, GameSetUp, ResponsePassed
from domain.yangtze.rules import YangtzeOptions, setup
from domain.yangtze.state import rules_of
from domain.yangtze.versions import RULES_VERSION, YANGTZE_2, YANGTZE_3
from service.codec import GameCodec
from service.record.format import iter_file_lines, present, read_record
from service.record.verify import verify

from .test_playouts import Invariants

LEGACY = sorted((pathlib.Path(__file__).parent / "legacy").glob("*.ndjson"))


def test_the_game_judges_yangtze_3_and_still_yangtze_2():
    assert GAME.rules_version == RULES_VERSION == YANGTZE_3
    assert GAME.judges(YANGTZE_2) and GAME.judges(YANGTZE_3) and not GAME.judges("yangtze-1")


def test_a_new_game_records_its_rules_version_and_an_old_setup_event_reads_as_yangtze_2():
    state, events = GAME.start(YangtzeOptions(players=3), "versions")
    assert GAME.setup_under is not None  # the table wraps the title's own setup (see domain.kernel.table)
    assert events[0].rules_version == YANGTZE_3 and rules_of(state) == YANGTZE_3
    assert GAME.view(state, 0).rules_version == YANGTZE_3
    old = msgspec.json.Decoder(union_of(EVENTS)).decode(
        b'{"type": "yangtze.GameSetUp", "players": 2, "river": [1, 2, 3, 4, 5, 6, 7, 8]}'
    )
    assert old == GameSetUp(players=2, river=[1, 2, 3, 4, 5, 6, 7, 8], rules_version=YANGTZE_2)
    legacy = GAME.fold(GAME.initial(YangtzeOptions(players=2)), [old])
    assert rules_of(legacy) == YANGTZE_2 and GAME.view(legacy, None).rules_version == YANGTZE_2


def test_setup_under_an_earlier_version_draws_the_same_table():
    _state, new = GAME.start(YangtzeOptions(players=4), "same")
    state, old = GAME.start(YangtzeOptions(players=4), "same", YANGTZE_2)
    assert old[0] == msgspec.structs.replace(new[0], rules_version=YANGTZE_2) and old[1:] == new[1:]
    assert rules_of(state) == YANGTZE_2
    with pytest.raises(InvalidOptions):
        setup(YangtzeOptions(players=4), Rng("same", 0), "yangtze-1")


def _recorded(path: pathlib.Path):
    record = read_record(iter_file_lines(str(path)))
    codec = GameCodec(GAME)
    events = [codec.decode_event(present(line.payload)) for line in record.events]
    return record, codec, events


@pytest.mark.parametrize("path", LEGACY, ids=[p.stem for p in LEGACY])
def test_a_yangtze_2_record_replays_through_decide_to_its_outcome(path):
    """Every recorded command, decided again from the recorded opening under this code, gives
    exactly the recorded events, and the game ends with the recorded outcome."""
    record, codec, events = _recorded(path)
    assert record.header.rules_version == YANGTZE_2
    options = codec.decode_options_json(bytes(record.header.options))
    position = next(i for i, line in enumerate(record.events) if line.seat is not None)
    state = GAME.fold(GAME.initial(options), events[:position])  # the opening: setup's events
    assert rules_of(state) == YANGTZE_2
    while position < len(events):
        line = record.events[position]
        command = codec.command_decoder.decode(present(line.command))
        produced = GAME.decide(state, line.seat, command, Rng(record.header.seed, position))
        assert produced == events[position : position + len(produced)], f"seq {line.seq}"
        state = GAME.fold(state, produced)
        position += len(produced)
    assert msgspec.to_builtins(GAME.outcome(state)) == msgspec.json.decode(present(record.footer.outcome))


@pytest.mark.parametrize("path", LEGACY, ids=[p.stem for p in LEGACY])
def test_a_yangtze_2_game_cut_short_is_finished_under_yangtze_2(path):
    """A game in progress when the rules changed: its first half, then random legal moves to the
    end -- under yangtze-2 rules (no response window), with every invariant held."""
    record, codec, events = _recorded(path)
    options = codec.decode_options_json(bytes(record.header.options))
    cut = next(i for i in range(len(events) // 2, len(events)) if record.events[i].seat is not None)
    state = GAME.fold(GAME.initial(options), events[:cut])
    history = list(events[:cut])
    check = Invariants(options.players)
    chooser = Rng(f"finish {path.stem}")
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        command = chooser.choice(GAME.legal_moves(state, seat))
        new = GAME.decide(state, seat, command, Rng(record.header.seed + "/finish", len(history)))
        assert not any(isinstance(e, ResponsePassed) for e in new)
        state = GAME.fold(state, new)
        history += new
        check(state, history)
        assert len(history) < 20_000
    assert rules_of(state) == YANGTZE_2 and GAME.outcome(state).winners
    refolded = GAME.fold(GAME.initial(options), history)
    assert msgspec.msgpack.encode(refolded) == msgspec.msgpack.encode(state)


@pytest.mark.parametrize("path", LEGACY, ids=[p.stem for p in LEGACY])
def test_a_yangtze_2_golden_record_still_verifies(path):
    """Chain, fold (final-state digest and outcome), replay and seed: the verifier sets the game up
    under the version the record's header names (``Game.setup_under``)."""
    record = read_record(iter_file_lines(str(path)))
    assert record.header.rules_version == YANGTZE_2
    report = verify(record, production_games())
    assert report.ok and [c.status for c in report.checks] == ["passed"] * 5, msgspec.json.encode(report)

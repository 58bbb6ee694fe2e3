"""Games set up under an earlier rules version still play to their end and still verify.

``legacy/`` holds golden records played under ``pingyao-2`` (copied before the ``pingyao-3``
records were generated) and under ``pingyao-3`` (copied before ``pingyao-4``).  The ``pingyao-2``
setup events do not name a version, so they decode to ``pingyao-2``; every rule changed since reads
the version from the state.
"""

import dataclasses
import functools
import pathlib

import msgspec
import pytest

from domain.kernel import Rng, clone
from domain.pingyao import GAME
from domain.pingyao import components as C
from domain.pingyao.action_phase import resting_capacity
from domain.pingyao.board import silver_total
from domain.pingyao.flow import setup_under
from domain.pingyao.solo import event_setup
from domain.pingyao.versions import PINGYAO_2, PINGYAO_3
from domain.registry import production_games
from service.codec import GameCodec
from service.record.format import iter_file_lines, present, read_record, state_digest
from service.record.verify import verify

LEGACY = sorted((pathlib.Path(__file__).parent / "legacy").glob("*.ndjson"))
IDS = [p.stem for p in LEGACY]
CODEC = GameCodec(GAME)


def _record(path: pathlib.Path):
    return read_record(iter_file_lines(str(path)))


def _under(version: str):
    """The game as a verifier that starts a game under the record's rules version sees it."""
    return dataclasses.replace(GAME, setup=functools.partial(setup_under, rules_version=version))


def test_the_records_are_earlier_games_the_code_still_judges():
    versions = [_record(path).header.rules_version for path in LEGACY]
    assert sorted(set(versions)) == [PINGYAO_2, PINGYAO_3] and len(LEGACY) >= 4
    assert all(version != GAME.rules_version and GAME.judges(version) for version in versions)


@pytest.mark.parametrize("path", LEGACY, ids=IDS)
def test_earlier_records_verify(path):
    """All five checks pass when the game is started under the record's version: the chain, the
    fold (the state of a ``pingyao-2`` game encodes as it always did, so the recorded state digest
    still matches), the replay of every command through ``decide`` and the seed."""
    record = _record(path)
    report = verify(record, dict(production_games(), pingyao=_under(record.header.rules_version)))
    assert report.ok and [c.status for c in report.checks] == ["passed"] * 5, report


@pytest.mark.parametrize("path", LEGACY, ids=IDS)
def test_earlier_records_verify_with_the_registered_game(path):
    """All five checks, with the service's verifier: it sets the game up under the record's version."""
    report = verify(_record(path), production_games())
    assert report.ok and [c.status for c in report.checks] == ["passed"] * 5, report


def _replay(path: pathlib.Path, stop: int | None = None):
    """Fold the record's opening events (as the service loads a stored game), then re-run each
    recorded command through ``decide`` (up to event `stop`): it must produce exactly the recorded
    events."""
    record = _record(path)
    seed = record.header.seed
    lines = record.events
    events = [CODEC.decode_event(present(line.payload)) for line in lines]
    opening = next(i for i, line in enumerate(lines) if line.seat is not None)
    options = CODEC.decode_options_json(bytes(record.header.options))
    state = GAME.fold(GAME.initial(options), events[:opening])
    assert state.rules_version == record.header.rules_version
    position = opening
    while position < (len(events) if stop is None else stop):
        line = lines[position]
        command = CODEC.command_decoder.decode(present(line.command))
        produced = GAME.decide(state, line.seat, command, Rng(seed, position))
        assert produced == events[position : position + len(produced)], f"seq {line.seq}"
        state = GAME.fold(state, produced)
        position += len(produced)
    return record, state, position


@pytest.mark.parametrize("path", LEGACY, ids=IDS)
def test_an_earlier_game_replays_through_decide_to_its_recorded_outcome(path):
    record, state, position = _replay(path)
    assert position == len(record.events) and GAME.to_act(state) == []
    assert state_digest(state) == record.footer.state_sha256
    assert msgspec.to_builtins(GAME.outcome(state)) == msgspec.json.decode(present(record.footer.outcome))


@pytest.mark.parametrize("path", LEGACY, ids=IDS)
def test_an_earlier_game_cut_short_finishes_under_its_rules(path):
    """A game in progress when the rules changed: its first half as recorded, then random legal
    moves to the end, under its own rules (pingyao-2: the resting areas by player count; pingyao-3:
    by action, and a solo game's event cards E02 and E09 still fill the Yamen's resting area)."""
    record, state, position = _replay(path, stop=len(_record(path).events) // 2)
    assert 1 < state.round < C.ROUNDS and position < len(record.events)
    version, players = record.header.rules_version, record.header.players
    chooser = Rng(f"{path.stem}/continue")
    silver = silver_total(state)
    for moves in range(20_000):
        if GAME.outcome(state) is not None:
            break
        seat = GAME.to_act(state)[0]
        command = chooser.choice(GAME.legal_moves(state, seat))
        before = msgspec.msgpack.encode(state)
        new = GAME.decide(state, seat, command, Rng("continue", moves))
        assert msgspec.msgpack.encode(state) == before
        state = GAME.fold(clone(state), new)
        assert state.rules_version == version and silver_total(state) == silver
        assert all(p.copper >= 0 and p.head_office >= 0 for p in state.pl)
    outcome = GAME.outcome(state)
    assert outcome is not None and GAME.to_act(state) == [] and len(outcome.scores) == players
    if version == PINGYAO_2:
        assert {resting_capacity(state, a) for a in C.ACTIONS} == {C.resting_capacity_pingyao_2(players)}
    else:
        assert {a: resting_capacity(state, a) for a in C.ACTIONS} == {
            a: C.resting_capacity(a) for a in C.ACTIONS
        }
        assert event_setup(state, "E02")["yamen"] == event_setup(state, "E09")["yamen"] == "46"

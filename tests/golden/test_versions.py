"""What an importer must know of rules versions: a setup event that names none was played under the
title's ``-2`` rules, and a record's header must name the version its setup event records."""

from __future__ import annotations

import json

import pytest

from domain.registry import production_games
from domain.yangtze.state import rules_of
from service.codec import GameCodec
from service.record.format import iter_file_lines, read_record
from service.record.verify import verify
from tests.golden.make import record_path
from tests.golden.tamper import rechain

GAMES = production_games()
JUDGED_UNDER = {
    "jiangnan": lambda state: state.rules_version,
    "pingyao": lambda state: state.rules_version,
    "yangtze": rules_of,
}
"""The rules version a folded state is judged under, for each title."""


def _lines(kind: str) -> list[bytes]:
    return list(iter_file_lines(str(record_path(kind, GAMES[kind].player_counts[-1], 1))))


def _without_version(kind: str) -> list[bytes]:
    """The golden record with ``rules_version`` taken out of its setup event (the chain re-forged)."""
    lines = _lines(kind)
    setup = json.loads(lines[1])
    assert (
        setup["type"] == f"{kind}.GameSetUp"
        and setup["payload"]["rules_version"] == GAMES[kind].rules_version
    )
    del setup["payload"]["rules_version"]
    return rechain([lines[0], json.dumps(setup).encode(), *lines[2:]], json.loads(lines[0])["seed"], 1)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_setup_without_a_rules_version_is_judged_under_the_2_rules(kind):
    """Given a setup event without ``rules_version`` (as stored before each title recorded it), when
    it is decoded and folded, then the game is judged under ``<kind>-2``, a version this build
    still plays."""
    game = GAMES[kind]
    codec = GameCodec(game)
    payload = json.loads(_without_version(kind)[1])["payload"]
    event = codec.decode_event(json.dumps(payload).encode())
    header = json.loads(_lines(kind)[0])
    state = game.fold(
        game.initial(codec.decode_options_json(json.dumps(header["options"]).encode())), [event]
    )
    assert event.rules_version == JUDGED_UNDER[kind](state) == f"{kind}-2"
    assert game.judges(f"{kind}-2") and game.rules_version != f"{kind}-2"


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_header_naming_another_version_than_the_setup_fails_the_replay_at_its_first_event(kind):
    """Given a current game's record whose setup event lost its version (the header still names the
    current one), when it is verified, then the chain holds but the replay fails at seq 1: the setup
    re-run under the header's version records that version, and the events are folded under -2."""
    checks = {
        c.name: (c.status, c.first_bad_seq) for c in verify(read_record(_without_version(kind)), GAMES).checks
    }
    assert checks["chain"] == ("passed", None) and checks["replay"] == ("failed", 1)

"""Rules versions: a game set up under jiangnan-2 finishes under jiangnan-2, and its record still
verifies; the component data file decodes, validates and says where every value comes from."""

import pathlib

import msgspec
import pytest

from domain.jiangnan import GAME, JiangnanOptions, rules
from domain.jiangnan import components as C
from domain.kernel import ComponentDataError, Rng
from service.codec import GameCodec
from service.record.format import iter_file_lines, present, read_record
from service.record.verify import verify

LEGACY = sorted((pathlib.Path(__file__).parent / "legacy").glob("*.ndjson"))
"""Golden records of jiangnan-2 (tests/golden/jiangnan before the bump to jiangnan-3)."""


def test_the_game_judges_jiangnan_2_and_sets_up_jiangnan_3():
    assert GAME.rules_version == "jiangnan-3" and GAME.judges("jiangnan-2") and not GAME.judges("jiangnan-1")
    state, events = GAME.start(JiangnanOptions(players=3), "current")
    assert events[0].rules_version == "jiangnan-3" and state.rules_version == "jiangnan-3"


def test_a_setup_event_stored_before_jiangnan_3_reads_as_jiangnan_2():
    """msgspec schema evolution: the field is new, its default is the version those events had."""
    from domain.jiangnan.events import GameSetUp
    from domain.kernel import union_of

    state, events = GAME.start(JiangnanOptions(players=3), "evolution")
    stored = msgspec.to_builtins(events[0])
    del stored["rules_version"]
    old = msgspec.convert(stored, union_of(GAME.event_types))
    assert isinstance(old, GameSetUp) and old.rules_version == "jiangnan-2"
    legacy = GAME.fold(GAME.initial(JiangnanOptions(players=3)), [old])
    assert legacy.rules_version == "jiangnan-2" and GAME.view(legacy, None).rules_version == "jiangnan-2"
    assert GAME.view(state, 0).rules_version == "jiangnan-3"


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: p.stem)
def test_jiangnan_2_golden_records_still_verify(path):
    """The five checks of ``yamen verify`` with the registered game: the chain; the fold (a
    jiangnan-2 state encodes as it always did, so the recorded state digest still matches); the
    replay of every command through ``decide`` from the opening set up under the record's version
    (``Game.setup_under``: jiangnan-3 lays the District Boards out differently); the seed."""
    record = read_record(iter_file_lines(str(path)))
    assert record.header.rules_version == "jiangnan-2"
    report = verify(record, {"jiangnan": GAME})
    assert report.ok and [c.status for c in report.checks] == ["passed"] * 5, msgspec.to_builtins(report)
    options = GameCodec(GAME).decode_options_json(bytes(record.header.options))
    state, opening = GAME.start(options, "any seed", "jiangnan-2")
    assert state.rules_version == "jiangnan-2" and opening[0].rules_version == "jiangnan-2"


def _recorded(path):
    record = read_record(iter_file_lines(str(path)))
    codec = GameCodec(GAME)
    options = codec.decode_options_json(bytes(record.header.options))
    lines = record.events
    events = [codec.decode_event(present(line.payload)) for line in lines]
    return record, codec, options, lines, events


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: p.stem)
def test_a_jiangnan_2_game_in_progress_finishes_under_its_rules(path):
    """A jiangnan-2 game stored half way: its recorded opening folds to a jiangnan-2 table, its
    recorded commands replay through ``decide`` to the recorded events, and random legal moves finish
    it; replayed to the end, it reaches the recorded outcome."""
    record, codec, options, lines, events = _recorded(path)
    seed = record.header.seed
    first = next(i for i, line in enumerate(lines) if present(line.command) is not None)
    state = GAME.fold(GAME.initial(options), events[:first])
    assert state.rules_version == "jiangnan-2" and state.districts[:2] == ["society", "parlour"]
    position, half, stop = first, len(events) // 2, None
    while position < len(events):
        if position >= half and stop is None:  # the game as stored half way
            stop = (msgspec.msgpack.encode(state), position)
        line = lines[position]
        command = codec.command_decoder.decode(present(line.command))
        produced = GAME.decide(state, line.seat, command, Rng(seed, position))
        assert produced == events[position : position + len(produced)], line.seq
        state = GAME.fold(state, produced)
        position += len(produced)
    footer = present(record.footer.outcome)
    assert msgspec.to_builtins(GAME.outcome(state)) == msgspec.json.decode(footer)
    # the same game, stopped half way and finished with random legal moves under the new code
    assert stop is not None and stop[1] > first
    state = msgspec.msgpack.decode(stop[0], type=GAME.state_type)
    chooser, position = Rng("finish"), stop[1]
    while not state.finished:
        seat = GAME.to_act(state)[0]
        new = GAME.decide(state, seat, chooser.choice(GAME.legal_moves(state, seat)), Rng(seed, position))
        assert all(type(e).__name__ != "ServantIncomeTaken" for e in new)  # jiangnan-2 income
        state, position = GAME.fold(state, new), position + len(new)
    outcome = GAME.outcome(state)
    assert state.rules_version == "jiangnan-2" and outcome is not None
    assert len(outcome.scores) == options.players


@pytest.mark.parametrize(
    "options",
    [
        JiangnanOptions(players=4, chapter=3),
        JiangnanOptions(players=2, chapter=5),
        JiangnanOptions(players=1),
    ],
    ids=lambda o: f"{o.players}p-ch{o.chapter}",
)
def test_a_game_set_up_under_jiangnan_2_plays_to_the_end(options):
    """Events produced by folding the old setup: every later chapter too plays on under jiangnan-2."""
    seed = f"old-{options.players}-{options.chapter}"
    events = rules.setup(options, Rng(seed, 0), rules_version="jiangnan-2")
    state = GAME.fold(GAME.initial(options), events)
    chooser = Rng(seed)
    while not state.finished:
        seat = GAME.to_act(state)[0]
        new = GAME.decide(state, seat, chooser.choice(GAME.legal_moves(state, seat)), Rng(seed, len(events)))
        state, events = GAME.fold(state, new), events + new
    assert state.rules_version == "jiangnan-2" and GAME.outcome(state) is not None
    refolded = GAME.fold(GAME.initial(options), events)
    assert msgspec.msgpack.encode(refolded) == msgspec.msgpack.encode(state)


def test_an_unknown_rules_version_is_not_set_up():
    from domain.kernel import InvalidOptions

    with pytest.raises(InvalidOptions):
        rules.setup(JiangnanOptions(players=3), Rng("x", 0), rules_version="jiangnan-1")


# --- the component data file -----------------------------------------------------------------------
def test_the_data_file_decodes_and_every_entry_says_where_its_values_come_from():
    data = C.FILE.load()
    assert data == C.DATA
    provenance = C.provenance()
    entries = [
        v
        for section in provenance.values()
        for v in (section.values() if "source" not in section else [section])
    ]
    assert entries and all(e["source"] for e in entries)
    assert all("assumed" in e["source"] for e in entries if not e["printed"])  # what is assumed, says so
    # the rulebook's counts (Components)
    assert len(C.STARTING_TILES) == 12 and len(C.BASIC_TILES) == 54 and len(C.ADVANCED_TILES) == 24
    assert len(C.PORTFOLIOS) == 45 and len(C.TRAVEL_TILES) == 12 and len(C.TREND_TILES) == 15
    assert C.PORTFOLIO_TITLES["C13"] == "Journey to the West"


def _broken(edit) -> bytes:
    blob = msgspec.json.decode((pathlib.Path(C.__file__).parent / "components.json").read_bytes())
    edit(blob)
    return msgspec.json.encode(blob)


@pytest.mark.parametrize(
    ("edit", "names"),
    [
        (lambda b: b["action_tiles"].append(dict(b["action_tiles"][0])), "S01 more than once"),
        (lambda b: b["action_tiles"][20]["districts"].__setitem__(0, "harbour"), "unknown harbour"),
        (lambda b: b["portfolios"].pop(), "portfolios"),
        (lambda b: b["cities"][1].__setitem__("previous", "Z9"), "city paths"),
        (lambda b: b["boards"][0]["districts"].append("travel"), "each on one board"),
        (lambda b: b["muse_bonus"][0]["bonus"].append("gold"), "unknown gold"),
        (lambda b: b["goals"][0].pop("source"), "source"),
        (lambda b: b["chapters"][0].__setitem__("pointer", "Z"), "chapter 1"),
    ],
)
def test_a_broken_data_file_is_refused_naming_what_is_wrong(edit, names):
    with pytest.raises(ComponentDataError) as refused:
        C.FILE.check(_broken(edit), origin="owner.json")
    assert str(refused.value).startswith("owner.json: ") and names in str(refused.value)


def test_front_ends_get_the_same_component_data_and_its_provenance():
    data = GAME.components()
    assert set(data) >= {"action_tiles", "portfolios", "cities", "chapters", "goal_vp", "talent_powers"}
    assert data["action_tiles"]["S01"] == {"districts": ["society"], "bonus": ["coin"]}
    assert data["portfolios"]["B8"] == {
        "type": "drama",
        "age": 2,
        "cost": 4,
        "payout": {"vp": 5},
        "income": {"coin": 2},
    }
    assert data["boards"] == {
        "1": ["society", "teahouse"],
        "2": ["travel", "temple_fair"],
        "3": ["tavern", "parlour"],
    }
    assert data["provenance"]["portfolios"]["B8"]["printed"] is False
    assert data["provenance"]["spirit_max"] == {"printed": True, "source": C.DATA.spirit_max.source}
    msgspec.json.encode(data)

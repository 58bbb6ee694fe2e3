"""The component data file: every value printed (where) or assumed (why), decoded and validated."""

import json
import pathlib

import msgspec
import pytest

from domain.kernel import ComponentDataError
from domain.pingyao import GAME
from domain.pingyao import components as C

FILE = C.COMPONENT_FILE
RAW = json.loads((pathlib.Path(C.__file__).parent / "components.json").read_text(encoding="utf-8"))


def _check(data: dict) -> None:
    FILE.check(json.dumps(data).encode())


def _edited(path: str, value) -> dict:
    """The file with one value replaced (`path` like "tiles/0/skill")."""
    data = json.loads(json.dumps(RAW))
    *parents, last = path.split("/")
    node = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


def test_the_game_ships_its_data_file_and_it_validates():
    assert GAME.component_file is FILE
    assert FILE.load() == C.DATA
    _check(RAW)
    assert {"PingyaoComponents", "TileEntry", "EventCardEntry"} <= set(FILE.schema()["$defs"])


def test_every_entry_says_where_its_values_come_from():
    provenance = C.components()["provenance"]
    assert all(p["source"] for p in provenance)
    by_name = {p["entry"]: p for p in provenance}
    assert len(by_name) == len(provenance)
    assert by_name["flow"]["printed"] and not by_name["storylines/1"]["printed"]
    assert not by_name["event_cards/E01"]["printed"] and not by_name["resting_areas"]["printed"]
    assert len([p for p in provenance if p["entry"].startswith("tiles/")]) == len(RAW["tiles"])


def test_the_names_the_rules_use_come_from_the_file():
    assert len(C.TILES) == sum(t["copies"] for t in RAW["tiles"]) + len(RAW["starting_branches"])
    assert C.TILES["Moscow#1"].effective == 3 and C.TILES["Lasa#2"].positions == 1
    assert len(C.CARDS) == 18 and len(C.STORYLINES) == 5 and len(C.EVENT_CARDS) == 10
    assert C.BUILD_COST == {1: 6, 2: 12, 3: 24} and C.lending_rate(4) == 3 and C.lending_rate(10) == 5
    assert C.reroll_cost(4) == 1 and C.reroll_cost(5) == 2 and C.tiers_for(3) == (1, 2)
    assert C.STARTING_BY_PLAYERS[3] == ["Taiyuan", "Xinzhou", "Taigu"]


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        ("flow/source", "", "where its values come from"),
        ("tiles/0/skill", "fly", "unknown skill"),
        ("tiles/1/name", "Lasa", "tile names must be unique: Lasa repeated"),
        ("exchange_cards/cards/1/id", "X01", "exchange card ids must be unique: X01 repeated"),
        ("yamen_tiles/0/id", "bribe", "unknown Yamen tile effect 'bribe'"),
        ("exchange_cards/cards/0/deposit", "blue", "colours"),
        ("storylines/0/yamen", "no_tile", "storyline 1: no Yamen tile 'no_tile'"),
        ("event_cards/0/setup", {"bank_escort": "66"}, "'6' or '46'"),
        ("event_cards/0/goal_action", "market", "actions"),
        ("event_cards/1/setup", {"yamen": "46"}, "E02: a resting die fills the resting area of yamen"),
        ("event_card_setups_pingyao_3/by_card/E02", {"market": "6"}, "E02: actions"),
        ("event_card_setups_pingyao_3/by_card", {"E11": {"yamen": "6"}}, r"names \['E11'\]"),
        ("resting_areas/by_action", {"yamen": 1}, "one limit for each action"),
        ("starting_deal/by_players/2", ["Taiyuan", "Atlantis"], "Atlantis"),
        ("months/by_band", [3, 2], "one value per die band"),
        ("flow/rounds", "8", "Expected `int`"),
    ],
)
def test_a_broken_file_is_refused_with_the_entry_named(path, value, says):
    with pytest.raises(ComponentDataError, match=says):
        _check(_edited(path, value))


def test_unknown_fields_are_refused():
    data = _edited("flow/turns", 8)
    with pytest.raises(ComponentDataError, match="turns"):
        _check(data)
    assert msgspec.json.decode(json.dumps(RAW).encode(), type=C.PingyaoComponents) == C.DATA

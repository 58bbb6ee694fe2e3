"""The component data file (``domain/yangtze/components.json``): every value printed (and where)
or assumed (and why), decoded at import, and refused when it breaks what the rules rely on."""

from __future__ import annotations

import importlib.resources
import json

import pytest

from domain.kernel import ComponentDataError
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.data import COMPONENT_FILE, YangtzeComponents

RAW = json.loads(importlib.resources.files("domain.yangtze").joinpath("components.json").read_text())


def _entries(data: dict):
    for value in data.values():
        yield from value if isinstance(value, list) else [value]


def _broken(edit) -> bytes:
    data = json.loads(json.dumps(RAW))
    edit(data)
    return json.dumps(data).encode()


def test_the_game_loads_its_data_file():
    assert GAME.component_file is COMPONENT_FILE
    assert isinstance(C.DATA, YangtzeComponents) and COMPONENT_FILE.load() == C.DATA
    assert "YangtzeComponents" in json.dumps(COMPONENT_FILE.schema())


def test_every_entry_says_where_its_values_come_from():
    sections = (
        "Game Components",
        "Game Setup",
        "1. Sell a Bundle of Goods",
        "Rulers",
        "Special Cards",
        "2. Branches Scoring",
        "3. Liquidation Cards",
    )
    for entry in _entries(RAW):
        if entry["printed"]:
            assert entry["source"].startswith(sections) and '"' in entry["source"], entry
        else:
            assert "assumed:" in entry["source"] or "FACTS.md" in entry["source"], entry


def test_the_rules_read_the_values_of_the_file():
    assert C.PRICES == [10, 10, 9, 8, 7, 6, 5, 4]
    assert (C.START_MONEY, C.TRACK_MAX, C.COIN_VALUE, C.START_GOODS) == (30, 60, 50, 2)
    assert (C.LUXURY_COUNT, C.DAILY_COUNT, C.RULER_FIRST, C.BRANCH_FIRST) == (25, 36, 61, 73)
    assert C.BUNDLE_VALUES["luxury"]["good"][:2] == [3, 15] and C.BUNDLE_VALUES["daily"]["good"][3] == 35
    assert C.SPECIAL_CARDS == [
        "buy_two",
        "sell_anytime",
        "free_good",
        "liquidity_10",
        "liquidity_15",
        "liquidity_20",
    ]
    assert {C.SELL_BUNDLE, C.BUY_BACK_LIQUIDITY, C.EXCHANGE_GOOD, C.REPEAT_ORDER} == C.OPTIONAL_ORDERS
    assert C.ruler_order(61) == (C.BRANCH_INCOME, (0,)) and C.ruler_order(72) == (C.REPEAT_ORDER, ())
    assert [C.branch_dots(t) for t in range(73, 78)] == [1, 2, 3, 5, 8]
    assert (C.SET_VALUES, C.MAJORITY_VALUES, C.BRANCH_INCOME_STEP) == ({2: 15, 3: 30, 4: 50}, (30, 15), 2)
    served = C.components()
    assert (
        served["rulers"][0]["branch_type"] == "harbour" and served["data_file"]["river"]["printed"] is False
    )


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: d["river"]["prices"].pop(), "8 trading houses"),
        (lambda d: d["branches"][4].update(dots=3), "same dots"),
        (lambda d: d["bundle_values"][4].update(value=40), "worth at least"),
        (lambda d: d["rulers"][4].update(optional=True), "question mark"),
        (lambda d: d["rulers"][0].update(branch_types=["pagoda"]), "unknown branch types"),
        (lambda d: d["special_cards"].pop(), "six per player"),
        (lambda d: d["goods"][0].update(colour="red"), "unknown field"),
        (lambda d: d["reigns"][3].update(source=""), "source"),
    ],
)
def test_a_broken_file_is_refused_naming_what_is_wrong(edit, says):
    with pytest.raises(ComponentDataError) as refused:
        COMPONENT_FILE.check(_broken(edit), origin="owner.json")
    assert says.lower() in str(refused.value).lower()


def test_the_command_line_checks_the_file_and_prints_its_schema(capsys):
    from service.cli import main

    assert main(["components", "check", "yangtze"]) == 0
    assert "valid yangtze component data" in capsys.readouterr().out
    assert main(["components", "schema", "yangtze"]) == 0
    assert "YangtzeComponents" in capsys.readouterr().out

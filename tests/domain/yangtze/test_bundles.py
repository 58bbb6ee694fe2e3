"""Rulebook "1. Sell a Bundle of Goods" and "1. Sale of Goods Bundles": bundles, their values
(the rulebook's examples) and the best partition at the end."""

from __future__ import annotations

import itertools
import random

import pytest

from domain.yangtze import components as C
from domain.yangtze.bundles import best_partition, bundle_kind, bundle_value, possible_bundles, sale_refusal

from .helpers import daily, lux


# --- the rulebook's examples ---------------------------------------------------------------------
def test_daily_single_good_is_worth_3():
    assert bundle_value([daily(2, 3)]) == 3


def test_daily_four_same_goods_are_worth_35():
    assert bundle_value([daily(1, c) for c in range(4)]) == 35


def test_daily_three_same_colour_are_worth_20():
    assert bundle_value([daily(g, 4) for g in range(3)]) == 20


def test_luxury_single_good_is_worth_3():
    assert bundle_value([lux(0, 0)]) == 3


def test_luxury_two_same_goods_are_worth_15():
    assert bundle_value([lux(3, 0), lux(3, 4)]) == 15


def test_luxury_three_same_colour_are_worth_20():
    assert bundle_value([lux(0, 2), lux(1, 2), lux(4, 2)]) == 20


# --- what is and is not a bundle -----------------------------------------------------------------
def test_a_single_good_is_a_bundle():
    assert bundle_kind([daily(0, 0)]) == "single"


def test_same_good_or_same_colour_make_a_bundle():
    assert bundle_kind([lux(2, 0), lux(2, 3)]) == "good"
    assert bundle_kind([lux(1, 3), lux(2, 3)]) == "colour"


def test_the_symbol_follows_the_colour():
    goods = [lux(0, 1), lux(3, 1)]
    assert len({C.SYMBOL_NAMES[C.colour(g)] for g in goods}) == 1
    assert bundle_kind(goods) == "colour"


def test_categories_never_mix():
    assert bundle_kind([lux(0, 0), daily(0, 0)]) is None


def test_neither_same_good_nor_same_colour_is_no_bundle():
    assert bundle_kind([lux(0, 0), lux(1, 1)]) is None
    assert bundle_kind([lux(0, 0), lux(0, 1), lux(1, 1)]) is None


def test_goods_are_61_tiles_with_unique_good_and_colour():
    assert len({(C.good_kind(g), C.colour(g)) for g in range(C.GOODS_COUNT)}) == 61
    assert sum(1 for g in range(61) if C.category(g) == C.LUXURY) == 25


def test_value_tables_are_superadditive():
    for cat in C.BUNDLE_VALUES.values():
        for table in cat.values():
            v = [0, *table]
            for a in range(1, len(table) + 1):
                for b in range(1, len(table) + 1 - a):
                    assert v[a + b] >= v[a] + v[b]


def test_possible_bundles_lists_each_distinct_bundle_once():
    hand = [lux(0, 0), lux(0, 1), lux(1, 0), daily(0, 0)]
    bundles = possible_bundles(hand)
    assert sorted(map(tuple, bundles)) == sorted(
        [
            (lux(0, 0),),
            (lux(0, 1),),
            (lux(1, 0),),
            (daily(0, 0),),
            (lux(0, 0), lux(0, 1)),
            (lux(0, 0), lux(1, 0)),
        ]
    )
    assert all(bundle_kind(b) for b in bundles)


def test_possible_bundles_are_exactly_the_sales_the_rules_accept():
    # The generator (possible_bundles) and the checker (sale_refusal) agree on every subset.
    rnd = random.Random("bundles")
    for size in (0, 1, 2, 4, 6, 8):
        for _ in range(8):
            screen = rnd.sample(range(C.GOODS_COUNT), size) if size < 5 else rnd.sample(range(15), size)
            listed = {tuple(b) for b in possible_bundles(screen)}
            assert len(listed) == len(possible_bundles(screen))
            accepted = {
                tuple(sorted(sub))
                for k in range(1, size + 1)
                for sub in itertools.combinations(screen, k)
                if sale_refusal(screen, list(sub)) is None
            }
            assert listed == accepted
            assert all(list(b) == sorted(b) for b in listed)


def test_a_sale_is_refused_for_goods_not_held_or_not_a_bundle():
    screen = [lux(0, 0), lux(0, 1), lux(1, 1)]
    assert sale_refusal(screen, [lux(0, 1), lux(0, 0)]) is None  # any order: a bundle is a set
    for goods in ([], [lux(0, 0), lux(0, 0)], [daily(0, 0)], [-1], [10**9]):
        refusal = sale_refusal(screen, goods)
        assert refusal is not None and refusal.code == "good_not_held", goods
    refusal = sale_refusal(screen, [lux(0, 0), lux(1, 1)])
    assert refusal is not None and refusal.code == "not_a_bundle" and refusal.rule


# --- best partition ------------------------------------------------------------------------------
def _brute_force(goods: list[int]) -> int:
    """Best value over every partition into bundles (exponential; small hands only)."""
    goods = sorted(goods)
    if not goods:
        return 0
    first, rest = goods[0], goods[1:]
    best = 0
    for size in range(len(rest) + 1):
        for others in itertools.combinations(rest, size):
            bundle = [first, *others]
            if bundle_kind(bundle) is None:
                continue
            remaining = [g for g in rest if g not in others]
            best = max(best, bundle_value(bundle) + _brute_force(remaining))
    return best


def test_best_partition_prefers_the_bigger_bundle():
    # four daily goods of one kind (35) beat three of one colour plus a single (23)
    hand = [daily(1, 0), daily(1, 1), daily(1, 2), daily(1, 3), daily(2, 0), daily(3, 0)]
    value, bundles = best_partition(hand)
    assert value == _brute_force(hand)
    assert sorted(g for b in bundles for g in b) == sorted(hand)
    assert all(bundle_kind(b) for b in bundles)
    assert sum(bundle_value(b) for b in bundles) == value


@pytest.mark.parametrize("size", [0, 1, 3, 5, 7, 9])
def test_best_partition_matches_brute_force(size):
    rnd = random.Random(size)
    for _ in range(25):
        hand = (
            rnd.sample(range(C.GOODS_COUNT), size)
            if rnd.random() < 0.5
            else rnd.sample(range(15), min(size, 15))
        )
        value, bundles = best_partition(hand)
        assert value == _brute_force(hand)
        assert sorted(g for b in bundles for g in b) == sorted(hand)
        assert sum(bundle_value(b) for b in bundles) == value


@pytest.mark.parametrize("hand", [list(range(0, 61, 2)), list(range(25, 61)), list(range(61))])
def test_best_partition_of_many_goods_is_fast_and_consistent(hand):
    import time

    start = time.perf_counter()
    value, bundles = best_partition(hand)
    assert time.perf_counter() - start < 2.0
    assert sum(bundle_value(b) for b in bundles) == value
    assert sorted(g for b in bundles for g in b) == sorted(hand) and all(bundle_kind(b) for b in bundles)


def test_best_partition_of_all_daily_goods():
    # 6 x 6 daily goods: six "same good" bundles of 6 (6 x 80) is the best any split can do
    value, bundles = best_partition(list(range(25, 61)))
    assert value == 480 and len(bundles) == 6

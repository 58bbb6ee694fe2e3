"""Bundles of goods (rulebook "1. Sell a Bundle of Goods", "1. Sale of Goods Bundles").

A bundle is one or more goods of the same category that show the same good, or the same colour
(the symbol follows the colour).  A single good is a bundle.  Two different tiles share at most
one of good/colour, so a bundle of two or more is unambiguously a "good" or a "colour" bundle.

The rule for a sale is :func:`sale_refusal`; :func:`possible_bundles` lists what it accepts.
"""

from __future__ import annotations

from itertools import combinations

from domain.kernel.decision import Refusal

from .components import BUNDLE_VALUES, GOODS_COUNT, category, colour, good_kind

R_SELL = "Yangtze: 1. Sell a Bundle of Goods"


def bundle_kind(goods: list[int]) -> str | None:
    """ "good", "colour" (or "single") when *goods* form a bundle, else None."""
    if not goods:
        return None
    if len(goods) == 1:
        return "single"
    if len(set(goods)) != len(goods):
        return None
    cat = category(goods[0])
    if any(category(g) != cat for g in goods):
        return None
    kind = good_kind(goods[0])
    if all(good_kind(g) == kind for g in goods):
        return "good"
    col = colour(goods[0])
    if all(colour(g) == col for g in goods):
        return "colour"
    return None


def sale_refusal(screen: list[int], goods: list[int]) -> Refusal | None:
    """1. Sell a Bundle of Goods: the goods must be behind the seller's screen and form a bundle
    (in any order: a bundle is a set; :func:`possible_bundles` names each one once)."""
    if not goods or len(set(goods)) != len(goods) or any(g not in screen for g in goods):
        return Refusal("good_not_held", "you do not hold all of these goods", R_SELL)
    if bundle_kind(goods) is None:
        return Refusal(
            "not_a_bundle",
            "a bundle is goods of one category showing the same good, colour or symbol",
            R_SELL,
        )
    return None


def bundle_value(goods: list[int]) -> int:
    """The value of a bundle (assumes :func:`bundle_kind` is not None)."""
    kind = bundle_kind(goods)
    assert kind is not None, "not a bundle"
    table = BUNDLE_VALUES[category(goods[0])]["good" if kind == "single" else kind]
    return table[len(goods) - 1]


def _most_from_any() -> list[int]:
    """``MOST_FROM_ANY[n]``: the most any *n* goods could be sold for, whichever they are -- at
    least :func:`best_partition` of every screen of *n* goods."""
    best_of_size: dict[int, int] = {}
    for tables in BUNDLE_VALUES.values():
        for table in tables.values():
            for size, value in enumerate(table, start=1):
                best_of_size[size] = max(best_of_size.get(size, 0), value)
    most = [0] * (GOODS_COUNT + 1)
    for n in range(1, GOODS_COUNT + 1):
        most[n] = max(value + most[n - size] for size, value in best_of_size.items() if size <= n)
    return most


MOST_FROM_ANY = _most_from_any()
"""What a sale of a screen could bring, judged from what every seat sees (how many goods are behind
it, not which): a question that depends on it reveals nothing hidden."""

_GROUPS = [(good_kind(g), 100 + colour(g)) for g in range(GOODS_COUNT)]
"""The two groups each good belongs to: the good it shows, and its colour (numbered apart).  Both
are numbered per category, so a group never mixes luxury and daily goods."""


def possible_bundles(goods: list[int]) -> list[list[int]]:
    """Every distinct bundle that can be made from *goods* (ascending ids): each single good, then
    every subset of two or more goods of one group (good or colour) -- exactly the sales
    :func:`sale_refusal` accepts from a screen holding *goods*."""
    out = [[g] for g in sorted(goods)]
    by: dict[int, list[int]] = {}
    for g in goods:
        shown, col = _GROUPS[g]
        by.setdefault(shown, []).append(g)
        by.setdefault(col, []).append(g)
    for group in by.values():
        if len(group) > 1:
            group.sort()
            for size in range(2, len(group) + 1):
                out.extend(list(c) for c in combinations(group, size))
    return out


def best_partition(goods: list[int]) -> tuple[int, list[list[int]]]:
    """The most valuable way to sell all *goods* as bundles: (value, bundles).

    Every value table is superadditive, so in an optimal sale each good joins either its "good"
    group or its "colour" group, and each group is sold as one bundle.  Per category this is a
    small dynamic programme over the goods rows, keyed by the colour counts so far.
    """
    total = 0
    bundles: list[list[int]] = []
    for cat in ("luxury", "daily"):
        tiles = [g for g in goods if category(g) == cat]
        if not tiles:
            continue
        value, chosen = _best_for_category(cat, tiles)
        total += value
        bundles.extend(chosen)
    return total, bundles


_Key = tuple[tuple[tuple[int, ...], int], ...]
"""A state of :func:`_best_for_category`'s programme: each open colour's later rows and its count."""


def _best_for_category(cat: str, tiles: list[int]) -> tuple[int, list[list[int]]]:
    gtab = [0] + BUNDLE_VALUES[cat]["good"]
    ctab = [0] + BUNDLE_VALUES[cat]["colour"]
    by_good: dict[int, list[int]] = {}
    for t in sorted(tiles):
        by_good.setdefault(good_kind(t), []).append(t)
    rows = list(by_good.values())
    colours = sorted({colour(t) for t in tiles})
    cidx = {c: i for i, c in enumerate(colours)}
    row_cols = [[cidx[colour(t)] for t in row] for row in rows]
    last_row = {}
    for i, cols in enumerate(row_cols):
        for c in cols:
            last_row[c] = i
    # Columns that meet exactly the same rows later on are interchangeable: states that differ only
    # by a permutation of such columns have the same best completion, so they share one key.
    future = [
        {
            c: tuple(j for j in range(i + 1, len(rows)) if c in row_cols[j])
            for c in range(len(colours))
            if last_row[c] > i
        }
        for i in range(len(rows))
    ]
    # state: key -> (value so far, colour counts, chosen masks)
    states: dict[_Key, tuple[int, tuple[int, ...], tuple[int, ...]]] = {(): (0, (0,) * len(colours), ())}
    for i, cols in enumerate(row_cols):
        n = len(cols)
        closing = [c for c in set(cols) if last_row[c] == i]
        sig = future[i]
        nxt: dict[_Key, tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
        for value, counts, picks in states.values():
            for mask in range(1 << n):
                tally = list(counts)
                kept = 0
                for k in range(n):
                    if mask >> k & 1:
                        kept += 1
                    else:
                        tally[cols[k]] += 1
                nv = value + gtab[kept] + sum(ctab[tally[x]] for x in closing)
                key = tuple(sorted((sig[x], tally[x]) for x in sig))
                cur = nxt.get(key)
                if cur is None or nv > cur[0]:
                    nxt[key] = (nv, tuple(tally), (*picks, mask))
        states = nxt
    best_value, _counts, best_picks = max(states.values(), key=lambda entry: entry[0])
    bundles: list[list[int]] = []
    rest: list[int] = []
    for row, mask in zip(rows, best_picks, strict=True):
        bundle = [t for k, t in enumerate(row) if mask >> k & 1]
        if bundle:
            bundles.append(bundle)
        rest.extend(t for k, t in enumerate(row) if not mask >> k & 1)
    by_colour: dict[int, list[int]] = {}
    for t in sorted(rest):
        by_colour.setdefault(colour(t), []).append(t)
    bundles.extend(by_colour[c] for c in sorted(by_colour))
    return best_value, bundles

"""Yangtze's components (rulebook "Game Components", FACTS.md), built from ``components.json``.

The data file (its entries and invariants: :mod:`.data`) holds every value, each one marked
printed (and where) or assumed (and why).  It is decoded once, here, at import; the rules use the
plain module-level names below (lists, tuples, dicts), never the decoded structs.

Token ids are plain ints so that states and events stay small:

* 0..60   goods tiles: luxury first (``5·good + colour``), then daily needs (``25 + 6·good + colour``)
* 61..72  the 12 ruler tokens, in the data file's order
* 73..92  the 20 branch tokens, in the data file's order (per type: 2 green, then 3 brown)
"""

from __future__ import annotations

import msgspec

from .data import COMPONENT_FILE

DATA = COMPONENT_FILE.load()
"""The decoded data file (for provenance; the rules read the names below)."""

# --- the river and the money (rulebook "Game Components", "Game Setup") ---------------------------
PRICES = list(DATA.river.prices)
"""Trading house prices, index 0 = the open (upstream) end, index 7 = Shanghai."""
RIVER_LENGTH = len(PRICES)

START_MONEY = DATA.money.start
TRACK_MAX = DATA.money.track_max
COIN_VALUE = DATA.money.coin_value
START_GOODS = DATA.starting_goods.per_player

# --- goods (rulebook "Game Components", "1. Sell a Bundle of Goods") ------------------------------
LUXURY = "luxury"
DAILY = "daily"
_CATEGORIES = {c.category: c for c in DATA.categories}
LUXURY_COUNT = _CATEGORIES[LUXURY].tiles
DAILY_COUNT = _CATEGORIES[DAILY].tiles
GOODS_COUNT = LUXURY_COUNT + DAILY_COUNT

GOOD_NAMES = [g.name for cat in (LUXURY, DAILY) for g in DATA.goods if g.category == cat]
"""The goods a tile may show: the luxury goods first, then the daily needs."""
COLOUR_NAMES = [c.name for cat in (LUXURY, DAILY) for c in DATA.colours if c.category == cat]
SYMBOL_NAMES = [c.symbol for cat in (LUXURY, DAILY) for c in DATA.colours if c.category == cat]
"""The symbol of each colour: the symbol follows the colour (docs/games/yangtze.md)."""


def _goods_table() -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
    """Category, good and colour of every goods tile, by id: each category's goods in turn, each in
    every colour of its category."""
    cats: list[str] = []
    kinds: list[int] = []
    colours: list[int] = []
    kind_base = colour_base = 0
    for cat in (LUXURY, DAILY):
        entry = _CATEGORIES[cat]
        for k in range(entry.goods):
            for c in range(entry.colours):
                cats.append(cat)
                kinds.append(kind_base + k)
                colours.append(colour_base + c)
        kind_base += entry.goods
        colour_base += entry.colours
    return tuple(cats), tuple(kinds), tuple(colours)


_CATEGORY_OF, _KIND_OF, _COLOUR_OF = _goods_table()

BUNDLE_VALUES: dict[str, dict[str, list[int]]] = {
    cat: {
        bundle: [
            v.value
            for v in sorted(DATA.bundle_values, key=lambda entry: entry.size)
            if (v.category, v.bundle) == (cat, bundle)
        ]
        for bundle in ("good", "colour")
    }
    for cat in (LUXURY, DAILY)
}
"""Bundle values by category, bundle ("good": the same goods; "colour": the same colour or
symbol) and size (index = size - 1)."""


def is_good(token: int) -> bool:
    return 0 <= token < GOODS_COUNT


def category(good: int) -> str:
    return _CATEGORY_OF[good]


def good_kind(good: int) -> int:
    """The good shown on the tile (index into GOOD_NAMES)."""
    return _KIND_OF[good]


def colour(good: int) -> int:
    """The tile's colour (index into COLOUR_NAMES; the symbol follows the colour)."""
    return _COLOUR_OF[good]


def good_name(good: int) -> str:
    return f"{GOOD_NAMES[good_kind(good)]} ({COLOUR_NAMES[colour(good)]})"


# --- special cards (rulebook "Special Cards") -----------------------------------------------------
BUY_TWO = "buy_two"
SELL_ANYTIME = "sell_anytime"
FREE_GOOD = "free_good"
LIQUIDITY = {c.card: c.liquidity for c in DATA.special_cards if c.liquidity}
"""Liquidity cards and their values during the game."""
SPECIAL_CARDS = [c.card for c in DATA.special_cards]
"""Each player's six cards, in the order they are dealt."""
LIQUIDITY_FINAL_VALUE = DATA.liquidity_final_value.value


def liquidity_card(value: int) -> str:
    return f"liquidity_{value}"


# --- rulers (rulebook "Rulers") -------------------------------------------------------------------
RULER_FIRST = GOODS_COUNT
RULER_COUNT = len(DATA.rulers)
REIGNS = [r.name for r in DATA.reigns]
"""The 12 ruler spots; the k-th ruler token drawn is placed at the k-th spot (Nurhaci first)."""

BRANCH_INCOME = "branch_income"
TAX_MONEY = "tax_money"
TAX_GOODS = "tax_goods"
TAX_BRANCHES = "tax_branches"
RETURN_GOOD = "return_good"
SELL_BUNDLE = "sell_bundle"
BUY_BACK_LIQUIDITY = "buy_back_liquidity"
EXCHANGE_GOOD = "exchange_good"
REPEAT_ORDER = "repeat_order"
TAXES = (TAX_MONEY, TAX_GOODS, TAX_BRANCHES)
ORDER_TEXT = {o.order: o.text for o in DATA.orders}
OPTIONAL_ORDERS = {r.order for r in DATA.rulers if r.optional}
"""The orders with a question mark (the data file gives every token of an order the same mark)."""

# --- branches (rulebook "Branches", "2. Branches Scoring") ----------------------------------------
BRANCH_FIRST = RULER_FIRST + RULER_COUNT
BRANCH_COUNT = len(DATA.branches)
GREEN = "green"
BROWN = "brown"
BRANCH_TYPES = [t.name for t in DATA.branch_types]
_TYPE_INDEX = {name: i for i, name in enumerate(BRANCH_TYPES)}
_BRANCH_TYPE = tuple(_TYPE_INDEX[b.type] for b in DATA.branches)
_BRANCH_COLOUR = tuple(b.colour for b in DATA.branches)
_BRANCH_DOTS = tuple(b.dots for b in DATA.branches)
SET_VALUES = {s.types: s.value for s in DATA.branch_sets}
MAJORITY_VALUES = tuple(p.value for p in sorted(DATA.branch_majorities, key=lambda entry: entry.place))
BRANCH_INCOME_STEP = DATA.branch_income.value
"""Rulers: "advanced 2 spaces" for each branch type shown (``yangtze-2``: for each branch token)."""

RULER_ORDERS: list[tuple[str, tuple[int, ...]]] = [
    (r.order, tuple(_TYPE_INDEX[t] for t in r.branch_types)) for r in DATA.rulers
]
"""Each ruler token's order, with the branch types it displays (branch income only)."""


def is_ruler(token: int) -> bool:
    return RULER_FIRST <= token < RULER_FIRST + RULER_COUNT


def ruler_order(token: int) -> tuple[str, tuple[int, ...]]:
    return RULER_ORDERS[token - RULER_FIRST]


def order_text(kind: str, types: tuple[int, ...] = ()) -> str:
    if types:
        return f"{ORDER_TEXT[kind]} ({', '.join(BRANCH_TYPES[t] for t in types)})"
    return ORDER_TEXT[kind]


def is_branch(token: int) -> bool:
    return BRANCH_FIRST <= token < BRANCH_FIRST + BRANCH_COUNT


def branch_type(token: int) -> int:
    return _BRANCH_TYPE[token - BRANCH_FIRST]


def branch_colour(token: int) -> str:
    return _BRANCH_COLOUR[token - BRANCH_FIRST]


def branch_dots(token: int) -> int:
    return _BRANCH_DOTS[token - BRANCH_FIRST]


def branch_name(token: int) -> str:
    return f"{branch_colour(token)} {BRANCH_TYPES[branch_type(token)]} ({branch_dots(token)} dots)"


ALL_TOKENS = list(range(GOODS_COUNT + RULER_COUNT + BRANCH_COUNT))


def token_name(token: int) -> str:
    if is_good(token):
        return good_name(token)
    if is_ruler(token):
        return f"ruler token ({order_text(*ruler_order(token))})"
    return f"branch {branch_name(token)}"


def components() -> dict[str, object]:
    """All component data as plain values for front ends (assumed values are listed in
    ``assumed``; ``data_file`` is the data file itself, each entry with ``printed`` and
    ``source``; see docs/games/yangtze.md)."""
    return {
        "prices": PRICES,
        "start_money": START_MONEY,
        "track_max": TRACK_MAX,
        "coin_value": COIN_VALUE,
        "goods": [
            {
                "id": g,
                "category": category(g),
                "good": GOOD_NAMES[good_kind(g)],
                "colour": COLOUR_NAMES[colour(g)],
                "symbol": SYMBOL_NAMES[colour(g)],
            }
            for g in range(GOODS_COUNT)
        ],
        "bundle_values": BUNDLE_VALUES,
        "special_cards": SPECIAL_CARDS,
        "liquidity_values": LIQUIDITY,
        "liquidity_final_value": LIQUIDITY_FINAL_VALUE,
        "reigns": REIGNS,
        "rulers": [
            {
                "id": RULER_FIRST + i,
                "order": kind,
                "branch_type": BRANCH_TYPES[types[0]] if len(types) == 1 else None,
                "branch_types": [BRANCH_TYPES[t] for t in types],
                "optional": kind in OPTIONAL_ORDERS,
                "text": order_text(kind, types),
            }
            for i, (kind, types) in enumerate(RULER_ORDERS)
        ],
        "branches": [
            {
                "id": t,
                "type": BRANCH_TYPES[branch_type(t)],
                "colour": branch_colour(t),
                "dots": branch_dots(t),
            }
            for t in range(BRANCH_FIRST, BRANCH_FIRST + BRANCH_COUNT)
        ],
        "set_values": SET_VALUES,
        "majority_values": list(MAJORITY_VALUES),
        "assumed": [
            "goods, colour, symbol and branch type names",
            "the ten reigns between Nurhaci and Puyi (the historical Qing emperors)",
            "a tile's symbol follows its colour",
            "bundle values beyond the rulebook's examples",
            "which order each ruler token carries, and which orders are optional",
            "the dots on each branch token",
        ],
        "data_file": msgspec.to_builtins(DATA),
    }

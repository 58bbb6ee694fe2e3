"""Yangtze's components (rulebook "Game Components", FACTS.md).

Token ids are plain ints so that states and events stay small:

* 0..60   goods tiles: 0..24 luxury (5 goods x 5 colours), 25..60 daily needs (6 goods x 6 colours)
* 61..72  the 12 ruler tokens
* 73..92  the 20 branch tokens (4 types, each twice green and three times brown)

Every value that neither the rulebook nor FACTS.md prints is marked ``# assumed:``.
"""

from __future__ import annotations

# --- the river (FACTS.md) ------------------------------------------------------------------------
PRICES = [10, 10, 9, 8, 7, 6, 5, 4]  # FACTS.md; rulebook "Game Components": 8 trading houses, 4 to 10
"""Trading house prices, index 0 = the open (upstream) end, index 7 = Shanghai."""
RIVER_LENGTH = len(PRICES)  # rulebook "Game Components": 8 trading houses

START_MONEY = 30  # rulebook "Game Setup": marking coin on 30
TRACK_MAX = 60  # rulebook: "If a player's money level exceeds 60, he receives a coin with a value of 50"
COIN_VALUE = 50  # rulebook "Game Components": coins with the value 50
START_GOODS = 2  # rulebook "Game Setup": two goods behind the screen

# --- goods (rulebook "Game Components", FACTS.md) ------------------------------------------------
LUXURY = "luxury"
DAILY = "daily"
LUXURY_COUNT = 25  # rulebook "Game Components": 25 luxury goods (5 goods x 5 colours, FACTS.md)
DAILY_COUNT = 36  # rulebook "Game Components": 36 daily needs goods (6 goods x 6 colours, FACTS.md)
GOODS_COUNT = LUXURY_COUNT + DAILY_COUNT  # 61

# assumed: the rulebook names no goods or colours; these names only label the 11 goods / 11 colours.
GOOD_NAMES = [
    # luxury (0..4)
    "silk",
    "porcelain",
    "jade",
    "lacquerware",
    "ivory",
    # daily needs (5..10)
    "rice",
    "tea",
    "salt",
    "cotton",
    "fish",
    "spices",
]
COLOUR_NAMES = [
    # luxury: strong, bright colours (0..4)
    "red",
    "yellow",
    "blue",
    "green",
    "purple",
    # daily needs: pastel colours (5..10)
    "pink",
    "lavender",
    "mint",
    "peach",
    "sky",
    "cream",
]
# assumed: "each color is assigned a symbol" (rulebook) is read literally: the symbol is fixed by
# the colour (an aid for colour-blind players), so "same symbol" bundles are "same colour" bundles.
# assumed: the names of the 11 symbols (the rulebook prints none; only labels).
SYMBOL_NAMES = [
    "sun",
    "moon",
    "cloud",
    "mountain",
    "wave",
    "leaf",
    "flower",
    "star",
    "fan",
    "lantern",
    "bell",
]

# Bundle values by size (index = size - 1).  The rulebook prints only examples:
#   daily:  1 good = 3, 4 same goods = 35, 3 same colour/symbol = 20
#   luxury: 1 good = 3, 2 same goods = 15, 3 same colour/symbol = 20
# assumed: the remaining entries; every table is superadditive (a bigger bundle is never worth
# less than the bundles it could be split into), which every example is consistent with.
BUNDLE_VALUES = {
    LUXURY: {
        "good": [3, 15, 30, 50, 75],  # assumed except 1 = 3 and 2 = 15
        "colour": [3, 10, 20, 35, 55],  # assumed except 1 = 3 and 3 = 20
    },
    DAILY: {
        "good": [3, 10, 20, 35, 55, 80],  # assumed except 1 = 3 and 4 = 35
        "colour": [3, 10, 20, 35, 55, 80],  # assumed except 1 = 3 and 3 = 20
    },
}


def is_good(token: int) -> bool:
    return 0 <= token < GOODS_COUNT


def category(good: int) -> str:
    return LUXURY if good < LUXURY_COUNT else DAILY


def good_kind(good: int) -> int:
    """The good shown on the tile (index into GOOD_NAMES)."""
    return good // 5 if good < LUXURY_COUNT else 5 + (good - LUXURY_COUNT) // 6


def colour(good: int) -> int:
    """The tile's colour (index into COLOUR_NAMES; the symbol follows the colour)."""
    return good % 5 if good < LUXURY_COUNT else 5 + (good - LUXURY_COUNT) % 6


def good_name(good: int) -> str:
    return f"{GOOD_NAMES[good_kind(good)]} ({COLOUR_NAMES[colour(good)]})"


# --- special cards (rulebook "Special Cards", FACTS.md) ------------------------------------------
BUY_TWO = "buy_two"
SELL_ANYTIME = "sell_anytime"
FREE_GOOD = "free_good"
LIQUIDITY = {"liquidity_10": 10, "liquidity_15": 15, "liquidity_20": 20}  # rulebook: 10, 15 or 20
SPECIAL_CARDS = [BUY_TWO, SELL_ANYTIME, FREE_GOOD, *LIQUIDITY]
LIQUIDITY_FINAL_VALUE = 30  # rulebook "3. Liquidation Cards"


def liquidity_card(value: int) -> str:
    return f"liquidity_{value}"


# --- rulers (rulebook "Rulers") ------------------------------------------------------------------
RULER_FIRST = 61
RULER_COUNT = 12  # rulebook "Game Components": 12 ruler tokens, 12 half round fields
# assumed: the rulebook prints only the first and last reign (Nurhaci 1616-1626, Puyi 1908-1912);
# the ten between are the historical Qing emperors in order.
REIGNS = [
    "Nurhaci",
    "Hong Taiji",
    "Shunzhi",
    "Kangxi",
    "Yongzheng",
    "Qianlong",
    "Jiaqing",
    "Daoguang",
    "Xianfeng",
    "Tongzhi",
    "Guangxu",
    "Puyi",
]
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
ORDER_TEXT = {
    BRANCH_INCOME: "advance 2 for each branch of the shown type in front of your screen",
    TAX_MONEY: "pay taxes: 1 for every 10 money on your money track",
    TAX_GOODS: "pay taxes: 1 for every good behind your screen",
    TAX_BRANCHES: "pay taxes: 1 for every branch in front of your screen",
    RETURN_GOOD: "put one of your goods back in the box",
    SELL_BUNDLE: "sell a bundle of goods (?)",
    BUY_BACK_LIQUIDITY: "buy back one of your used liquidity cards at its value (?)",
    EXCHANGE_GOOD: "exchange one of your goods with a good on the river (?)",
    REPEAT_ORDER: "choose a face-up ruler and execute his order (?)",
}
# assumed: which orders carry the question mark (optional per player).  The mandatory ones are
# the taxes and the return of a good ("All other orders must be executed!"); branch income can
# never hurt, so it is applied automatically.
OPTIONAL_ORDERS = {SELL_BUNDLE, BUY_BACK_LIQUIDITY, EXCHANGE_GOOD, REPEAT_ORDER}

# assumed: the order printed on each of the 12 ruler tokens (FACTS.md: "not found anywhere").
# Four tokens show one branch type each; every other order type is on exactly one token.
RULER_ORDERS: list[tuple[str, int]] = [
    (BRANCH_INCOME, 0),
    (BRANCH_INCOME, 1),
    (BRANCH_INCOME, 2),
    (BRANCH_INCOME, 3),
    (TAX_MONEY, -1),
    (TAX_GOODS, -1),
    (TAX_BRANCHES, -1),
    (RETURN_GOOD, -1),
    (SELL_BUNDLE, -1),
    (BUY_BACK_LIQUIDITY, -1),
    (EXCHANGE_GOOD, -1),
    (REPEAT_ORDER, -1),
]
BRANCH_INCOME_PER_TOKEN = 2  # rulebook: "advanced 2 spaces"


def is_ruler(token: int) -> bool:
    return RULER_FIRST <= token < RULER_FIRST + RULER_COUNT


def ruler_order(token: int) -> tuple[str, int]:
    return RULER_ORDERS[token - RULER_FIRST]


def order_text(kind: str, param: int = -1) -> str:
    if kind == BRANCH_INCOME:
        return f"advance 2 for each {BRANCH_TYPES[param]} branch in front of your screen"
    return ORDER_TEXT[kind]


# --- branches (rulebook "Branches", "2. Branches Scoring", FACTS.md) -----------------------------
BRANCH_FIRST = 73
BRANCH_COUNT = 20  # rulebook "Game Components": 20 branch tokens
GREEN = "green"
BROWN = "brown"
# assumed: names of the four branch types (the rulebook names none).
BRANCH_TYPES = ["harbour", "warehouse", "tea house", "bank"]
# Each type: tokens k = 0, 1 are green, k = 2, 3, 4 brown (FACTS.md: twice green, three times brown).
# assumed: the dots on the tokens of every type: 1, 2 (green), 3, 5, 8 (brown).  No two equally
# large sets of different tokens of one type have the same total, so the dots always break a tie.
BRANCH_DOTS = [1, 2, 3, 5, 8]
SET_VALUES = {2: 15, 3: 30, 4: 50}  # rulebook: 15 for 2, 30 for 3, 50 for 4 different types
MAJORITY_VALUES = (30, 15)  # rulebook: 30 for most, 15 for second most


def is_branch(token: int) -> bool:
    return BRANCH_FIRST <= token < BRANCH_FIRST + BRANCH_COUNT


def branch_type(token: int) -> int:
    return (token - BRANCH_FIRST) // 5


def branch_colour(token: int) -> str:
    return GREEN if (token - BRANCH_FIRST) % 5 < 2 else BROWN


def branch_dots(token: int) -> int:
    return BRANCH_DOTS[(token - BRANCH_FIRST) % 5]


def branch_name(token: int) -> str:
    return f"{branch_colour(token)} {BRANCH_TYPES[branch_type(token)]} ({branch_dots(token)} dots)"


ALL_TOKENS = list(range(GOODS_COUNT + RULER_COUNT + BRANCH_COUNT))


def token_name(token: int) -> str:
    if is_good(token):
        return good_name(token)
    if is_ruler(token):
        kind, param = ruler_order(token)
        return f"ruler token ({order_text(kind, param)})"
    return f"branch {branch_name(token)}"


def components() -> dict[str, object]:
    """All component data as plain values for front ends (assumed values are listed in
    ``assumed``; see docs/games/yangtze.md)."""
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
                "branch_type": BRANCH_TYPES[p] if p >= 0 else None,
                "optional": kind in OPTIONAL_ORDERS,
                "text": order_text(kind, p),
            }
            for i, (kind, p) in enumerate(RULER_ORDERS)
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
    }

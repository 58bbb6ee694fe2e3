"""The component data file, ``components.json``: what each entry holds and the invariants the rules
rely on (rulebook "Game Components", FACTS.md).

Every entry says whether the rulebook prints its values (``printed``) and where, or what the
assumption rests on (``source``).  The file is decoded once, when :mod:`.components` is imported;
a value of the wrong type, an unknown field or a broken invariant stops the game from loading
with the entry named.  ``yamen components check yangtze [FILE]`` runs the same validation and
``yamen components schema yangtze`` prints the file's JSON Schema.  A changed value changes how the
game plays: it is a rules change (a new rules version).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from itertools import combinations

import msgspec

from domain.kernel import ComponentFile, Entry

CATEGORIES = ("luxury", "daily")
"""Game Components: the two categories of goods, in token-id order (luxury goods first)."""
BUNDLES = ("good", "colour")
"""1. Sell a Bundle of Goods: "the same goods", or "the same goods color or symbol color"."""
COLOURS = ("green", "brown")
"""Branches: "two green and three brown ones"."""
NAMED_CARDS = ("buy_two", "sell_anytime", "free_good")
"""Special Cards other than the liquidity cards (whose ids are ``liquidity_<value>``)."""
ORDERS = (
    "branch_income",
    "tax_money",
    "tax_goods",
    "tax_branches",
    "return_good",
    "sell_bundle",
    "buy_back_liquidity",
    "exchange_good",
    "repeat_order",
)
"""Rulers: "The ruler orders are" -- the nine orders the rules implement."""
AUTOMATIC = ("branch_income", "tax_money", "tax_goods", "tax_branches")
"""Orders applied without the player's decision: they cannot carry a question mark."""

# Counts the rulebook prints ("Game Components"); the file must agree with them.
PRINTED_COUNTS = {
    "trading houses": 8,
    "luxury goods": 25,
    "daily goods": 36,
    "special cards per player": 6,
    "rulers": 12,
    "branches": 20,
}


def _unique(values: Iterable[Hashable], what: str) -> None:
    repeated = sorted(str(v) for v, n in Counter(values).items() if n > 1)
    if repeated:
        raise ValueError(f"{what} must be unique: {', '.join(repeated)} repeated")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


class River(Entry, frozen=True, forbid_unknown_fields=True):
    prices: list[int]
    """The trading houses' prices, from the open (upstream) end to Shanghai."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(
            len(self.prices) == PRINTED_COUNTS["trading houses"], "river: the board has 8 trading houses"
        )
        _require(all(4 <= p <= 10 for p in self.prices), "river: the houses are numbered 4 to 10")


class Money(Entry, frozen=True, forbid_unknown_fields=True):
    start: int
    """Game Setup: the marking coin starts on this number."""
    track_max: int
    """1. Sell a Bundle of Goods: above this level the player takes a coin."""
    coin_value: int
    coins: int
    """Game Components: how many coins there are (the rules treat them as unlimited)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(0 < self.coin_value <= self.track_max, "money: a coin is worth 1 .. track_max")
        _require(0 <= self.start <= self.track_max, "money: the start is on the track")


class StartingGoods(Entry, frozen=True, forbid_unknown_fields=True):
    per_player: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.per_player >= 0, "starting goods: a count is never negative")


class Category(Entry, frozen=True, forbid_unknown_fields=True):
    category: str
    goods: int
    """Different goods of the category."""
    colours: int
    """Different colours of the category; every good comes once in every colour."""
    tiles: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.category in CATEGORIES, f"category {self.category!r}: one of {CATEGORIES}")
        _require(self.goods > 0 and self.colours > 0, f"category {self.category}: counts are positive")
        _require(
            self.tiles == self.goods * self.colours,
            f"category {self.category}: every good once in every colour makes goods x colours tiles",
        )
        _require(
            self.tiles == PRINTED_COUNTS[f"{self.category} goods"],
            f"category {self.category}: the rulebook prints {PRINTED_COUNTS[f'{self.category} goods']} tiles",
        )


class Good(Entry, frozen=True, forbid_unknown_fields=True):
    category: str
    name: str


class Colour(Entry, frozen=True, forbid_unknown_fields=True):
    category: str
    name: str
    symbol: str
    """The symbol printed with this colour ("each color is assigned a symbol")."""


class BundleValue(Entry, frozen=True, forbid_unknown_fields=True):
    category: str
    bundle: str
    """"good" (the same goods) or "colour" (the same colour or symbol)."""
    size: int
    value: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.bundle in BUNDLES, f"bundle value: bundle is one of {BUNDLES}")
        _require(self.size >= 1 and self.value >= 0, "bundle value: size >= 1, value >= 0")


class SpecialCard(Entry, frozen=True, forbid_unknown_fields=True):
    card: str
    liquidity: int = 0
    """A liquidity card's value during the game (0 for the other cards)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.card in NAMED_CARDS:
            _require(self.liquidity == 0, f"special card {self.card}: not a liquidity card")
        else:
            _require(
                self.liquidity > 0 and self.card == f"liquidity_{self.liquidity}",
                f"special card {self.card!r}: one of {NAMED_CARDS} or liquidity_<value> with that value",
            )


class Amount(Entry, frozen=True, forbid_unknown_fields=True):
    value: int


class Reign(Entry, frozen=True, forbid_unknown_fields=True):
    name: str


class Order(Entry, frozen=True, forbid_unknown_fields=True):
    order: str
    text: str
    """A short narration of the order (the rulebook's wording is quoted in ``source``)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.order in ORDERS, f"order {self.order!r}: one of {ORDERS}")


class Ruler(Entry, frozen=True, forbid_unknown_fields=True):
    order: str
    branch_types: list[str] = msgspec.field(default_factory=list)
    """Branch income: the branch types displayed on the token."""
    optional: bool = False
    """A question mark next to the order: each player may decide whether to execute it."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.order in ORDERS, f"ruler {self.order!r}: the order is one of {ORDERS}")
        if self.order == "branch_income":
            _require(bool(self.branch_types), "ruler branch_income: displays at least one branch type")
            _unique(self.branch_types, "ruler branch_income: the branch types displayed")
        else:
            _require(not self.branch_types, f"ruler {self.order}: only branch income displays branch types")
        _require(
            not (self.optional and self.order in AUTOMATIC),
            f"ruler {self.order}: applied without a decision, it cannot carry a question mark",
        )


class BranchType(Entry, frozen=True, forbid_unknown_fields=True):
    name: str


class Branch(Entry, frozen=True, forbid_unknown_fields=True):
    type: str
    colour: str
    dots: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.colour in COLOURS, f"branch {self.type}: colour is one of {COLOURS}")
        _require(self.dots > 0, f"branch {self.type}: dots are positive")


class SetValue(Entry, frozen=True, forbid_unknown_fields=True):
    types: int
    """Different branch types of one colour."""
    value: int


class PlaceValue(Entry, frozen=True, forbid_unknown_fields=True):
    place: int
    """1 = most tokens of a type, 2 = second most."""
    value: int


class YangtzeComponents(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Every value of Yangtze's board, tiles, tokens and cards."""

    river: River
    money: Money
    starting_goods: StartingGoods
    categories: list[Category]
    goods: list[Good]
    colours: list[Colour]
    bundle_values: list[BundleValue]
    special_cards: list[SpecialCard]
    liquidity_final_value: Amount
    reigns: list[Reign]
    orders: list[Order]
    rulers: list[Ruler]
    """The ruler tokens, in token-id order."""
    branch_types: list[BranchType]
    branches: list[Branch]
    """The branch tokens, in token-id order."""
    branch_income: Amount
    """Rulers: the spaces advanced for each branch type (``yangtze-2``: for each branch token)."""
    branch_sets: list[SetValue]
    branch_majorities: list[PlaceValue]

    def __post_init__(self) -> None:
        self._check_goods()
        self._check_bundles()
        self._check_cards()
        self._check_rulers()
        self._check_branches()

    def _check_goods(self) -> None:
        _require(
            [c.category for c in self.categories] == list(CATEGORIES),
            f"categories: {', '.join(CATEGORIES)}, in this order (token ids)",
        )
        for cat in self.categories:
            goods = [g.name for g in self.goods if g.category == cat.category]
            colours = [c for c in self.colours if c.category == cat.category]
            _require(len(goods) == cat.goods, f"goods: {cat.goods} {cat.category} goods")
            _require(len(colours) == cat.colours, f"colours: {cat.colours} {cat.category} colours")
        _require(
            all(g.category in CATEGORIES for g in self.goods)
            and all(c.category in CATEGORIES for c in self.colours),
            f"goods and colours: the category is one of {CATEGORIES}",
        )
        _unique([g.name for g in self.goods], "goods names")
        _unique([c.name for c in self.colours], "colour names")
        _unique([c.symbol for c in self.colours], "symbols")

    def _check_bundles(self) -> None:
        _unique([(v.category, v.bundle, v.size) for v in self.bundle_values], "bundle values")
        for cat in self.categories:
            # The same good comes in `colours` tiles, a colour on `goods` tiles.
            largest = {"good": cat.colours, "colour": cat.goods}
            tables = {}
            for bundle in BUNDLES:
                table = {
                    v.size: v.value
                    for v in self.bundle_values
                    if (v.category, v.bundle) == (cat.category, bundle)
                }
                _require(
                    sorted(table) == list(range(1, largest[bundle] + 1)),
                    f"bundle values {cat.category}/{bundle}: one value for each size 1..{largest[bundle]}",
                )
                # best_partition relies on it: a bundle is never worth less than the parts it
                # could be split into.
                for a in table:
                    for b in table:
                        if a + b in table:
                            _require(
                                table[a + b] >= table[a] + table[b],
                                f"bundle values {cat.category}/{bundle}: size {a + b} is worth at least "
                                f"sizes {a} + {b}",
                            )
                tables[bundle] = table
            _require(
                tables["good"][1] == tables["colour"][1],
                f"bundle values {cat.category}: a single good is one value, whichever the bundle",
            )
        _require(
            all(v.category in CATEGORIES for v in self.bundle_values),
            f"bundle values: the category is one of {CATEGORIES}",
        )

    def _check_cards(self) -> None:
        cards = [c.card for c in self.special_cards]
        _unique(cards, "special cards")
        _require(len(cards) == PRINTED_COUNTS["special cards per player"], "special cards: six per player")
        _require(all(name in cards for name in NAMED_CARDS), f"special cards: {', '.join(NAMED_CARDS)}")

    def _check_rulers(self) -> None:
        _require(len(self.rulers) == PRINTED_COUNTS["rulers"], "rulers: 12 ruler tokens")
        _require(len(self.reigns) == len(self.rulers), "reigns: one half round field for each ruler")
        _unique([r.name for r in self.reigns], "reigns")
        _require(sorted(o.order for o in self.orders) == sorted(ORDERS), f"orders: each of {ORDERS} once")
        types = {t.name for t in self.branch_types}
        for ruler in self.rulers:
            unknown = [t for t in ruler.branch_types if t not in types]
            _require(not unknown, f"ruler {ruler.order}: unknown branch types {unknown}")
        for order in ORDERS:
            marks = {r.optional for r in self.rulers if r.order == order}
            _require(len(marks) <= 1, f"rulers {order}: the same question mark on every token of the order")

    def _check_branches(self) -> None:
        _require(len(self.branches) == PRINTED_COUNTS["branches"], "branches: 20 branch tokens")
        names = [t.name for t in self.branch_types]
        _unique(names, "branch types")
        for typ in names:
            dots = [b.dots for b in self.branches if b.type == typ]
            _require(bool(dots), f"branches: no token of type {typ}")
            # Branches Scoring: "the dots on the branches of one type break the tie" -- they can only
            # if equally many different tokens of one type never have the same total.
            for k in range(1, len(dots)):
                sums = [sum(c) for c in combinations(dots, k)]
                _require(
                    len(sums) == len(set(sums)),
                    f"branches {typ}: two sets of {k} tokens have the same dots, which leaves a tie",
                )
        unknown = sorted({b.type for b in self.branches} - set(names))
        _require(not unknown, f"branches: unknown types {unknown}")
        _unique([s.types for s in self.branch_sets], "branch sets")
        _require(all(s.types >= 2 for s in self.branch_sets), "branch sets: a set has two types or more")
        places = sorted(p.place for p in self.branch_majorities)
        _require(places == list(range(1, len(places) + 1)), "branch majorities: places 1, 2, ...")


COMPONENT_FILE = ComponentFile(package="domain.yangtze", filename="components.json", type=YangtzeComponents)
"""Yangtze's data file, decoded into :class:`YangtzeComponents` (``Game.component_file``)."""

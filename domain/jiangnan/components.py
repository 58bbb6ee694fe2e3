"""Jiangnan: Life of Gentry — component data (rulebook "Components", "Game Setup", the lists).

Every value lives in ``components.json`` next to this module, one entry per tile, card, track or
table, each saying whether the rulebook prints it (and where) or what the assumption rests on
(``printed`` / ``source``, :class:`domain.kernel.Entry`).  The file is decoded at import into the
typed entries below, whose ``__post_init__`` checks the counts the rulebook prints and every
reference between entries; the names the rules use (``ACTION_TILES``, ``PORTFOLIOS``, ...) are
built from it.  Everything a later chapter switches (board sides, shop sides, pointer side, tile
sets, goal pools, final scoring overlay) is data here, chosen by chapter in :func:`chapter_setup`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any, NotRequired, TypedDict

import msgspec

from domain.kernel import ComponentFile, Entry


# --- the entries of the data file -------------------------------------------------------------
class Names(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A printed vocabulary (Idea types, districts, trends...)."""

    names: list[str]

    def __post_init__(self) -> None:
        super().__post_init__()
        _unique(self.names, "names")


class Number(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    value: int

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.value < 0:
            raise ValueError("a count is never negative")


class PlayerSetup(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What each player starts with (setup steps 10-14)."""

    coins: int
    spirit: int
    ideas: int
    """Idea Tiles of each type."""
    scholars: int
    player_markers: int
    servants: int
    track: int
    """Spaces on the Action Track."""


class Costs(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    costs: dict[str, int]


class Board(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A double-sided District Board: its districts left to right, the rule of its side B."""

    id: str
    districts: list[str]
    side_b: str
    earlier_rules: dict[str, list[str]] = {}  # noqa: RUF012 - msgspec copies a mutable default
    """The board's districts under an earlier rules version (games set up then keep them)."""


class ActionTile(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    age: int
    """0 for a Starting Action Tile."""
    advanced: bool = False
    """Red script (Chapters 3-6)."""
    districts: list[str]
    bonus: list[str]
    """The Discard Bonus icons."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= len(self.districts) <= 2 or not self.bonus:
            raise ValueError(f"action tile {self.id}: 1 or 2 districts and a Discard Bonus")
        if (len(self.districts) == 2) != (self.age >= 3):
            raise ValueError(f"action tile {self.id}: Age 3 and 4 tiles show 2 districts, Ages 1 and 2 one")


class DraftCount(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Action Tiles placed on the Upkeep board, by player count, for one side of the board."""

    side: str
    by_players: dict[int, int]


class ByRound(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ages: dict[int, int] = {}  # noqa: RUF012 - msgspec copies a mutable default
    vp: dict[int, int] = {}  # noqa: RUF012 - msgspec copies a mutable default


class Rounds(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    rounds: list[int]


class PortfolioTypes(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    types: dict[str, str]
    """The letter of a work's id and its type."""


class Portfolio(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    title: str
    age: int
    cost: int
    """Ideas of the Portfolio's type."""
    payout: dict[str, int]
    income: dict[str, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.age not in (1, 2) or self.cost <= 0:
            raise ValueError(f"portfolio {self.id}: Age 1 or 2, a positive cost")


class DisplayTiles(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    per_type: int
    track: int
    """Display Tiles on each Display Track."""


class Character(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A double-sided Character Tile: Talent A<nn> on one side, Muse B<nn> on the other."""

    number: int
    name: str
    talent_power: str | None
    """The key of its Talent Power (``talent_powers``), None for A16-A20."""
    assistant_power: str


class TalentPower(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    key: str
    text: str


class MuseBonus(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    muse: str
    bonus: list[str]


class Pools(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pools: dict[str, list[str]]


class City(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    previous: str | None
    """The city before it on its path from Jinling (None: next to Jinling)."""
    cost: int
    scenery: int


class TravelTile(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    bonus: list[str]
    """The City Bonus."""


class Paths(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    paths: list[list[str]]


class Shop(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str


class Pointer(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    side: str
    offsets: list[int]
    """The Temple Fair spaces it points to, counted clockwise from its position."""


class TrendTiles(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tiles: list[list[str]]
    """The two faces of each double-sided Scoring Trend Tile."""


class Goal(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    kind: str
    """What it counts (``table.metric``)."""
    vp: list[int]
    """VP per item for first and second place."""


class Exam(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    degree: int
    name: str
    portfolios: int
    ideas: int


class Charm(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    requirement: str


class FinalScoring(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    set_vp: int
    assistant_vp: int
    scenery_vp: int
    ideas_per_vp: int
    set_vp_b: int
    """Advanced Final Scoring (overlay side B); assistants N squared, scenery 1+2+...+N."""


class Chapter(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Game Chapter's printed setup (every key but ``chapter`` is a free-configuration option)."""

    chapter: int
    map: str
    talents: str
    action_tiles: str
    mixed_ages: bool
    shops: str
    pointer: str
    goals: str
    upkeep: str
    overlay: str


class JiangnanComponents(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole data file; ``__post_init__`` checks the printed counts and every reference."""

    ideas: Names
    districts: Names
    bonus_icons: Names
    trends: Names
    difficulties: Names
    player: PlayerSetup
    fair_start: Number
    spirit_max: Number
    spirits_tiles: Number
    scholar_spaces: Number
    rest_spaces: Number
    district_cost: Costs
    boards: list[Board]
    action_tiles: list[ActionTile]
    draft_tiles: list[DraftCount]
    refill_ages: ByRound
    rounds: Number
    draft_rounds: Rounds
    bag_refill_rounds: Rounds
    swap_round: Number
    public_scoring: ByRound
    portfolio_types: PortfolioTypes
    portfolios: list[Portfolio]
    display_tiles: DisplayTiles
    characters: list[Character]
    talent_powers: list[TalentPower]
    muse_bonus: list[MuseBonus]
    muse_display: Number
    talent_pools: Pools
    muses_with_talents: Names
    cities: list[City]
    travel_tiles: list[TravelTile]
    fair_spaces: Number
    passing_bonus: Paths
    fair_moves: Costs
    shops: list[Shop]
    pointers: list[Pointer]
    trend_tiles: TrendTiles
    boats: Number
    boat_spaces: Number
    goals: list[Goal]
    goal_pools: Pools
    exams: list[Exam]
    charms: list[Charm]
    final_scoring: FinalScoring
    b1_cost: Number
    b5_coins: Number
    captain_vp: Number
    bot_paths: Paths
    chapters: list[Chapter]

    def __post_init__(self) -> None:
        ideas, districts, icons = self.ideas.names, set(self.districts.names), set(self.bonus_icons.names)
        # District boards: 3 boards, each district on exactly one (in every rules version).
        if sorted(b.id for b in self.boards) != ["1", "2", "3"]:
            raise ValueError("boards: 3 District Boards, ids 1, 2 and 3")
        layouts = [[d for b in self.boards for d in b.districts]]
        layouts += [
            [d for b in self.boards for d in b.earlier_rules.get(v, b.districts)]
            for v in {v for b in self.boards for v in b.earlier_rules}
        ]
        if any(sorted(layout) != sorted(districts) for layout in layouts):
            raise ValueError("boards: the 6 districts, each on one board, in every rules version")
        if sorted(b.side_b for b in self.boards) != ["artisans", "charm", "exam"]:
            raise ValueError("boards: side B gives the exam, the artisans and the charm once each")
        _subset(self.district_cost.costs, districts, "district_cost")
        # Action Tiles (Components): 12 starting, basic 12/12/15/15, advanced 6 per Age.
        _unique([t.id for t in self.action_tiles], "action_tiles")
        counts = Counter((t.age, t.advanced) for t in self.action_tiles)
        expected = {(0, False): 12, (1, False): 12, (2, False): 12, (3, False): 15, (4, False): 15}
        expected |= {(age, True): 6 for age in (1, 2, 3, 4)}
        if counts != Counter(expected):
            raise ValueError(f"action_tiles: the Components count {expected}, the file has {dict(counts)}")
        for t in self.action_tiles:
            _subset(t.districts, districts, f"action tile {t.id}")
            _subset(t.bonus, icons, f"action tile {t.id}")
        for d in self.draft_tiles:
            if sorted(d.by_players) != [1, 2, 3, 4, 5]:
                raise ValueError(f"draft_tiles side {d.side}: a count for 1 to 5 players")
        if sorted(d.side for d in self.draft_tiles) != ["A", "B"]:
            raise ValueError("draft_tiles: side A and side B of the Upkeep board")
        ages = {t.age for t in self.action_tiles}
        if not set(self.refill_ages.ages.values()) <= ages or not set(self.refill_ages.ages) <= set(
            self.draft_rounds.rounds
        ):
            raise ValueError("refill_ages: a refill in a drafting round, with an Age of Action Tiles")
        # Portfolios (Components: 21 Age 1, 24 Age 2; List of Works: A/B/C 1-15).
        _unique([p.id for p in self.portfolios], "portfolios")
        if set(self.portfolio_types.types.values()) != set(ideas):
            raise ValueError("portfolio_types: one letter per Idea type")
        works = {f"{letter}{n}" for letter in self.portfolio_types.types for n in range(1, 16)}
        if {p.id for p in self.portfolios} != works:
            raise ValueError("portfolios: the 45 works of the List of Works")
        if Counter(p.age for p in self.portfolios) != Counter({1: 21, 2: 24}):
            raise ValueError("portfolios: 21 Age 1 and 24 Age 2 (Components)")
        for p in self.portfolios:
            _subset(p.payout, {"coin", "vp"}, f"portfolio {p.id} payout")
            _subset(p.income, {"coin", "vp"}, f"portfolio {p.id} income")
        # Characters A01-A20 / B01-B20, their Talent Powers and Muse bonuses.
        if [c.number for c in self.characters] != list(range(1, 21)):
            raise ValueError("characters: 20 Character Tiles, numbered 1 to 20")
        keys = {t.key for t in self.talent_powers}
        _unique([t.key for t in self.talent_powers], "talent_powers")
        _subset([c.talent_power for c in self.characters if c.talent_power], keys, "characters")
        muses = [f"B{c.number:02d}" for c in self.characters]
        if [m.muse for m in self.muse_bonus] != muses:
            raise ValueError("muse_bonus: one entry per Muse, B01 to B20")
        for m in self.muse_bonus:
            _subset(m.bonus, icons, f"muse {m.muse}")
        talents = {f"A{c.number:02d}" for c in self.characters}
        for name, pool in self.talent_pools.pools.items():
            _subset(pool, talents, f"talent pool {name}")
        _subset(self.muses_with_talents.names, set(muses), "muses_with_talents")
        # Travel: 10 cities on paths from Jinling, 12 Travel Tiles.
        cities = [c.id for c in self.cities]
        _unique(cities, "cities")
        if len(cities) != 10:
            raise ValueError("cities: the 10 cities of the List of Cities")
        _subset([c.previous for c in self.cities if c.previous], set(cities), "city paths")
        _unique([t.id for t in self.travel_tiles], "travel_tiles")
        if len(self.travel_tiles) != 12 or len(self.travel_tiles) < len(cities):
            raise ValueError("travel_tiles: 12 Travel Tiles (Components), one for each city and 2 more")
        for travel in self.travel_tiles:
            _subset(travel.bonus, icons, f"travel tile {travel.id}")
        for path in self.bot_paths.paths:
            _subset(path, set(cities), "bot_paths")
        # Temple Fair: a ring of 6 spaces and paths, 12 Shop sides, 3 pointer sides.
        spaces = self.fair_spaces.value
        if len(self.passing_bonus.paths) != spaces or not 0 <= self.fair_start.value < spaces:
            raise ValueError("temple fair: a Passing Bonus per path, the start on a space")
        for bonus in self.passing_bonus.paths:
            _subset(bonus, icons, "passing_bonus")
        _unique([s.id for s in self.shops], "shops")
        if len(self.shops) != 2 * spaces:
            raise ValueError("shops: 6 double-sided Shop Tiles (sides A and B)")
        if any(not 0 <= o < spaces for p in self.pointers for o in p.offsets):
            raise ValueError("pointers: offsets are Temple Fair spaces")
        # River: 6 boats, 15 double-sided Trend Tiles, 12 Scoring Goal Tiles A-L.
        if len(self.trend_tiles.tiles) != 15:
            raise ValueError("trend_tiles: 15 Public Scoring Trend Tiles (Components)")
        trends = set(self.trends.names)
        for faces in self.trend_tiles.tiles:
            if len(faces) != 2 or faces[0] == faces[1]:
                raise ValueError("trend_tiles: two different trends per tile")
            _subset(faces, trends, "trend_tiles")
        goals = [g.id for g in self.goals]
        _unique(goals, "goals")
        if len(goals) != 12 or any(len(g.vp) != 2 for g in self.goals):
            raise ValueError("goals: 12 Scoring Goal Tiles, VP for first and second place")
        for name, pool in self.goal_pools.pools.items():
            _subset(pool, set(goals), f"goal pool {name}")
            if len(pool) < 5:
                raise ValueError(f"goal pool {name}: 5 tiles are revealed (Game Setup 9a)")
        _unique([c.id for c in self.charms], "charms")
        if len(self.charms) != 6:
            raise ValueError("charms: 6 Charm Tiles (Components)")
        if [e.degree for e in self.exams] != [1, 2]:
            raise ValueError("exams: Juren (1), then Gongshi (2)")
        # Game Chapters 1-6: every value one the free configuration accepts.
        if [c.chapter for c in self.chapters] != list(range(1, 7)):
            raise ValueError("chapters: Chapters 1 to 6")
        for c in self.chapters:
            _subset(
                [c.talents, c.action_tiles, c.shops, c.pointer, c.goals, c.upkeep, c.overlay],
                {*self.talent_pools.pools, "none", "basic", "advanced", "A", "B", "C", "random"}
                | set(self.goal_pools.pools),
                f"chapter {c.chapter}",
            )


def _unique(values: list[Any], what: str) -> None:
    repeated = sorted(str(v) for v, n in Counter(values).items() if n > 1)
    if repeated:
        raise ValueError(f"{what}: {', '.join(repeated)} more than once")


def _subset(values: Any, allowed: set[Any], what: str) -> None:
    unknown = sorted(str(v) for v in values if v not in allowed)
    if unknown:
        raise ValueError(f"{what}: unknown {', '.join(unknown)}")


FILE = ComponentFile(package="domain.jiangnan", filename="components.json", type=JiangnanComponents)
DATA = FILE.load()

# --- the names the rules use, built from the file ------------------------------------------------
IDEAS = tuple(DATA.ideas.names)
"""Idea tiles: Dramas (red), Novels (yellow), Paintings (blue)."""
DISTRICTS = tuple(DATA.districts.names)
"""The six districts (their board positions: ``board_districts``)."""
REST = "rest"
SCHOLAR_SPACES = DATA.scholar_spaces.value
"""Each district's Scholar Track has 4 spaces."""
REST_SPACES = DATA.rest_spaces.value

START_COINS = DATA.player.coins
START_SPIRIT = DATA.player.spirit
START_IDEAS = DATA.player.ideas
SCHOLARS = DATA.player.scholars
PLAYER_MARKERS = DATA.player.player_markers
SERVANTS = DATA.player.servants
TRACK_SIZE = DATA.player.track
SPIRIT_MAX = DATA.spirit_max.value
SPIRITS_TILES = DATA.spirits_tiles.value

DISTRICT_COST = dict(DATA.district_cost.costs)
"""Parlour and Tavern: pay 1 Coin (you must be able to pay it to visit)."""


# --- action tiles ---------------------------------------------------------------------------
class ActionTileFacts(TypedDict):
    """An Action Tile as the rules and front ends read it (``components()["action_tiles"]``)."""

    districts: list[str]
    bonus: list[str]
    age: NotRequired[int]
    """Not given for a Starting Action Tile."""
    advanced: NotRequired[bool]
    """Given (true) for an Advanced Action Tile only."""


STARTING_TILES: dict[str, ActionTileFacts] = {
    t.id: {"districts": list(t.districts), "bonus": list(t.bonus)} for t in DATA.action_tiles if t.age == 0
}
BASIC_TILES: dict[str, ActionTileFacts] = {
    t.id: {"districts": list(t.districts), "bonus": list(t.bonus), "age": t.age}
    for t in DATA.action_tiles
    if t.age > 0 and not t.advanced
}
ADVANCED_TILES: dict[str, ActionTileFacts] = {
    t.id: {"districts": list(t.districts), "bonus": list(t.bonus), "age": t.age, "advanced": True}
    for t in DATA.action_tiles
    if t.advanced
}
ACTION_TILES: dict[str, ActionTileFacts] = {**STARTING_TILES, **BASIC_TILES, **ADVANCED_TILES}


def tiles_of_age(age: int) -> list[str]:
    return [t for t, d in BASIC_TILES.items() if d["age"] == age]


def tile_pool(ages: Collection[int], advanced: bool) -> list[str]:
    """The Action Tiles of the given Ages (basic, plus the advanced ones if used)."""
    out = [t for t, d in BASIC_TILES.items() if d["age"] in ages]
    if advanced:
        out += [t for t, d in ADVANCED_TILES.items() if d["age"] in ages]
    return out


_DRAFT = {d.side: dict(d.by_players) for d in DATA.draft_tiles}
DRAFT_TILES = _DRAFT["A"]
"""Upkeep board side A: Action Tiles placed for drafting by player count."""
DRAFT_TILES_B = _DRAFT["B"]
"""Upkeep board side B (Advanced Action Tiles): Action Tiles placed for drafting."""

# --- portfolio tiles ------------------------------------------------------------------------
PORTFOLIO_TYPE = dict(DATA.portfolio_types.types)
"""ids from the List of Works: A = Paintings, B = Dramas, C = Novels."""


class PortfolioFacts(TypedDict):
    """A Portfolio Tile as the rules and front ends read it (``components()["portfolios"]``)."""

    type: str
    """painting, drama or novel."""
    age: int
    cost: int
    payout: dict[str, int]
    income: dict[str, int]


PORTFOLIOS: dict[str, PortfolioFacts] = {
    p.id: {
        "type": PORTFOLIO_TYPE[p.id[0]],
        "age": p.age,
        "cost": p.cost,
        "payout": dict(p.payout),
        "income": dict(p.income),
    }
    for p in DATA.portfolios
}
PORTFOLIO_TITLES = {p.id: p.title for p in DATA.portfolios}


def portfolios_of_age(age: int) -> list[str]:
    return [p for p, d in PORTFOLIOS.items() if d["age"] == age]


# --- display tiles ----------------------------------------------------------------------------
DISPLAY_TILES_PER_TYPE = DATA.display_tiles.per_type
DISPLAY_LENGTH = DATA.display_tiles.track

# --- characters (muse side, talent side) --------------------------------------------------------
MUSE_BONUS: dict[str, list[str]] = {m.muse: list(m.bonus) for m in DATA.muse_bonus}
MUSE_NAMES = {f"B{c.number:02d}": c.name for c in DATA.characters}
ASSISTANT_POWERS = {f"B{c.number:02d}": c.assistant_power for c in DATA.characters}
MUSE_DISPLAY = DATA.muse_display.value
TALENT_POWER = {f"A{c.number:02d}": c.talent_power for c in DATA.characters if c.talent_power}
TALENT_TEXT = {t.key: t.text for t in DATA.talent_powers}
TALENT_POOLS = {k: list(v) for k, v in DATA.talent_pools.pools.items()}
"""The Talent drafts: four (A01-A04), advanced (A01-A16), characters (A01-A20)."""
MUSES_WITH_TALENTS = list(DATA.muses_with_talents.names)
"""Chapters 2-3: Muse Pool B05-B16 (A01-A04 are the talents)."""

# --- travel -----------------------------------------------------------------------------------
CITIES = tuple(c.id for c in DATA.cities)
CITY_NAMES = {c.id: c.name for c in DATA.cities}
CITY_PREVIOUS = {c.id: c.previous for c in DATA.cities}
CITY_COST = {c.id: c.cost for c in DATA.cities}
CITY_SCENERY = {c.id: c.scenery for c in DATA.cities}
TRAVEL_TILES = {t.id: list(t.bonus) for t in DATA.travel_tiles}

# --- temple fair -------------------------------------------------------------------------------
FAIR_SPACES = DATA.fair_spaces.value
PASSING_BONUS = [list(b) for b in DATA.passing_bonus.paths]
"""The Passing Bonus on path i, between space i and space i+1 clockwise."""
FAIR_START = DATA.fair_start.value
FAIR_MOVES = {int(k): v for k, v in DATA.fair_moves.costs.items()}
"""Temple Fair: move 1 space for 0 Coins, 2 for 1, 3 for 2."""
SHOP_NAMES = {s.id: s.name for s in DATA.shops}
SHOPS_A = tuple(s for s in SHOP_NAMES if s.startswith("A"))
SHOPS_B = tuple(s for s in SHOP_NAMES if s.startswith("B"))
POINTER_OFFSETS = {p.side: list(p.offsets) for p in DATA.pointers}
"""Shops pointed at, from the pointer's position: A straight up; B 12 and 2 o'clock; C 12 and 6."""
B1_COST = DATA.b1_cost.value
B5_COINS = DATA.b5_coins.value

# --- river ------------------------------------------------------------------------------------
TRENDS = tuple(DATA.trends.names)
TREND_TILES = [list(t) for t in DATA.trend_tiles.tiles]
BOATS = DATA.boats.value
BOAT_SPACES = DATA.boat_spaces.value
GOALS = {g.id: g.kind for g in DATA.goals}
"""Scoring Goal Tiles A-L and what they count."""
GOAL_VPS = {g.id: (g.vp[0], g.vp[1]) for g in DATA.goals}
"""First / second place VP per item."""
GOAL_VP = GOAL_VPS["A"]
GOAL_POOLS = {k: list(v) for k, v in DATA.goal_pools.pools.items()}
PUBLIC_SCORING = dict(DATA.public_scoring.vp)
"""Public Scoring in rounds 2/4/6 at 2/3/4 VP per matching item."""
REFILL_AGE = dict(DATA.refill_ages.ages)
"""Refill Action Tiles in rounds 1-3 with the next Age."""
DRAFT_ROUNDS = tuple(DATA.draft_rounds.rounds)
BAG_REFILL_ROUNDS = tuple(DATA.bag_refill_rounds.rounds)
SWAP_ROUND = DATA.swap_round.value
ROUNDS = DATA.rounds.value

# --- final scoring overlay (side A; side B: Advanced Final Scoring) ---------------------------------
FINAL_SET_VP = DATA.final_scoring.set_vp
FINAL_ASSISTANT_VP = DATA.final_scoring.assistant_vp
FINAL_SCENERY_VP = DATA.final_scoring.scenery_vp
FINAL_IDEAS_PER_VP = DATA.final_scoring.ideas_per_vp
FINAL_SET_VP_B = DATA.final_scoring.set_vp_b

# --- chapters 2-6 and the advanced rules ------------------------------------------------------
BOARD_RULE = {b.id: b.side_b for b in DATA.boards}
"""The rule side B of each District Board gives (exam, artisans, charm)."""


def board_districts(rules_version: str) -> dict[str, list[str]]:
    """The districts of each District Board, left to right, for games set up under *rules_version*."""
    return {b.id: list(b.earlier_rules.get(rules_version, b.districts)) for b in DATA.boards}


BOARD_DISTRICTS = board_districts("")
"""The current layout of each District Board."""

_ENTRY_FIELDS = ("chapter", "printed", "source")
CHAPTERS: dict[int, dict[str, Any]] = {
    c.chapter: {k: v for k, v in msgspec.structs.asdict(c).items() if k not in _ENTRY_FIELDS}
    for c in DATA.chapters
}
"""Game Chapters: the printed setup of each chapter (every key is also a free-configuration option)."""
OPTION_VALUES = {
    "talents": ("none", *TALENT_POOLS),
    "action_tiles": ("basic", "advanced"),
    "shops": ("A", "B", "random"),
    "pointer": (*POINTER_OFFSETS, "random"),
    "goals": tuple(GOAL_POOLS),
    "upkeep": ("A", "B", "random"),
    "overlay": ("A", "B", "random"),
}


# Imperial Exam (Society side B): unpublished Portfolios discarded and Ideas paid per degree.
class ExamFacts(TypedDict):
    """An Imperial Degree's exam: its name, the Portfolios discarded and the Ideas paid."""

    name: str
    portfolios: int
    ideas: int


EXAMS: dict[int, ExamFacts] = {
    e.degree: {"name": e.name, "portfolios": e.portfolios, "ideas": e.ideas} for e in DATA.exams
}

# Charming Scholar (Parlour side B): the 6 Charm Tiles.
CHARMS = {c.id: c.requirement for c in DATA.charms}

CAPTAIN_VP = DATA.captain_vp.value
"""Talents A07/A14: 3 VP each time they win first place when a boat is resolved."""
DIFFICULTIES = tuple(DATA.difficulties.names)
BOT_PATHS = [list(p) for p in DATA.bot_paths.paths]
"""The Bot travels Path A, B, C and D in this order, a whole path per Travel action."""


def chapter_setup(chapter: int) -> dict[str, Any]:
    """The printed setup of a chapter."""
    return dict(CHAPTERS[chapter])


def provenance() -> dict[str, Any]:
    """Where each entry's values come from: ``{section: {"printed", "source"}}`` for the single
    entries, ``{section: {id: {...}}}`` for the lists (``assumed`` entries have ``printed`` false)."""
    out: dict[str, Any] = {}
    for name in JiangnanComponents.__struct_fields__:
        value = getattr(DATA, name)
        if isinstance(value, list):
            out[name] = {str(_entry_id(e)): {"printed": e.printed, "source": e.source} for e in value}
        else:
            out[name] = {"printed": value.printed, "source": value.source}
    return out


def _entry_id(entry: Entry) -> Any:
    for field in ("id", "side", "number", "key", "muse", "degree", "chapter"):
        if field in type(entry).__struct_fields__:
            return getattr(entry, field)
    raise AssertionError(type(entry).__name__)  # pragma: no cover - every list entry has an id


def components() -> dict[str, Any]:
    return {
        "ideas": list(IDEAS),
        "districts": list(DISTRICTS),
        "action_tiles": ACTION_TILES,
        "portfolios": PORTFOLIOS,
        "muse_bonus": MUSE_BONUS,
        "muse_names": MUSE_NAMES,
        "assistant_powers": ASSISTANT_POWERS,
        "cities": {
            c: {
                "name": CITY_NAMES[c],
                "previous": CITY_PREVIOUS[c],
                "cost": CITY_COST[c],
                "scenery": CITY_SCENERY[c],
            }
            for c in CITIES
        },
        "travel_tiles": TRAVEL_TILES,
        "passing_bonus": PASSING_BONUS,
        "shops": SHOP_NAMES,
        "trend_tiles": TREND_TILES,
        "goals": GOALS,
        "draft_tiles": DRAFT_TILES,
        "chapters": CHAPTERS,
        "talent_powers": {t: TALENT_TEXT[k] for t, k in TALENT_POWER.items()},
        "charms": CHARMS,
        "exams": EXAMS,
        "goal_vp": GOAL_VPS,
        "assumed": "see docs/games/jiangnan.md",
        "boards": BOARD_DISTRICTS,
        "portfolio_titles": PORTFOLIO_TITLES,
        "provenance": provenance(),
    }

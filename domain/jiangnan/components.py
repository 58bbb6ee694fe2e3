"""Jiangnan: Life of Gentry — component data (rulebook "Components", "Game Setup", lists).

Everything a later chapter switches (board sides, shop sides, pointer side, tile sets, goal pools,
final scoring overlay) is data here, chosen by chapter in :func:`chapter_setup`.  Every value the
rulebook does not print is marked ``# assumed:`` and listed in docs/games/jiangnan.md.
"""

from __future__ import annotations

IDEAS = ("drama", "novel", "painting")
"""Idea tiles: Dramas (red), Novels (yellow), Paintings (blue)."""

DISTRICTS = ("society", "parlour", "teahouse", "travel", "tavern", "temple_fair")
# assumed: left-to-right order of the six districts on boards A1-A2-A3 (the rulebook's District
# Actions list order); the boat below district i is river position i.

REST = "rest"
SCHOLAR_SPACES = 4
"""Each district's Scholar Track has 4 spaces."""
REST_SPACES = 12  # assumed: the Rest Area holds every scholar that could rest (3 per player).

START_COINS = 3
START_SPIRIT = 4
START_IDEAS = 1
SCHOLARS = 3
PLAYER_MARKERS = 5
SERVANTS = 25
TRACK_SIZE = 4
SPIRIT_MAX = 6
SPIRITS_TILES = 6

DISTRICT_COST = {"parlour": 1, "tavern": 1}
"""Parlour and Tavern: pay 1 Coin (you must be able to pay it to visit)."""

# --- action tiles ---------------------------------------------------------------------------
# Bonus tokens: coin, spirit, vp, drama, novel, painting.
# assumed: the 12 starting action tiles (same in every colour): two per district, one bonus each.
STARTING_TILES: dict[str, dict] = {
    "S01": {"districts": ["society"], "bonus": ["coin"]},
    "S02": {"districts": ["society"], "bonus": ["spirit"]},
    "S03": {"districts": ["parlour"], "bonus": ["coin"]},
    "S04": {"districts": ["parlour"], "bonus": ["painting"]},
    "S05": {"districts": ["teahouse"], "bonus": ["novel"]},
    "S06": {"districts": ["teahouse"], "bonus": ["spirit"]},
    "S07": {"districts": ["travel"], "bonus": ["coin"]},
    "S08": {"districts": ["travel"], "bonus": ["drama"]},
    "S09": {"districts": ["tavern"], "bonus": ["coin"]},
    "S10": {"districts": ["tavern"], "bonus": ["drama"]},
    "S11": {"districts": ["temple_fair"], "bonus": ["painting"]},
    "S12": {"districts": ["temple_fair"], "bonus": ["novel"]},
}


def _basic_tiles() -> dict[str, dict]:
    # assumed: Age 1-2 basic tiles show one district (two tiles per district); Age 3-4 tiles show
    # each of the 15 pairs of districts once; discard bonuses grow with the Age.
    tiles: dict[str, dict] = {}
    singles = [d for d in DISTRICTS for _ in range(2)]
    age1 = [
        "coin",
        "spirit",
        "novel",
        "drama",
        "painting",
        "coin",
        "spirit",
        "vp",
        "drama",
        "novel",
        "coin",
        "painting",
    ]
    age2 = [
        ["coin", "spirit"],
        ["novel", "coin"],
        ["drama", "spirit"],
        ["painting", "coin"],
        ["vp", "coin"],
        ["novel", "drama"],
        ["painting", "spirit"],
        ["coin", "coin"],
        ["drama", "painting"],
        ["vp", "spirit"],
        ["novel", "painting"],
        ["coin", "vp"],
    ]
    for i, d in enumerate(singles):
        tiles[f"1-{i + 1:02d}"] = {"districts": [d], "bonus": [age1[i]], "age": 1}
        tiles[f"2-{i + 1:02d}"] = {"districts": [d], "bonus": list(age2[i]), "age": 2}
    pairs = [[a, b] for i, a in enumerate(DISTRICTS) for b in DISTRICTS[i + 1 :]]
    age3 = [
        "coin",
        "spirit",
        "novel",
        "drama",
        "painting",
        "vp",
        "coin",
        "spirit",
        "novel",
        "drama",
        "painting",
        "vp",
        "coin",
        "coin",
        "spirit",
    ]
    age4 = [
        ["coin", "vp"],
        ["spirit", "vp"],
        ["novel", "vp"],
        ["drama", "vp"],
        ["painting", "vp"],
        ["coin", "coin"],
        ["coin", "spirit"],
        ["novel", "coin"],
        ["drama", "coin"],
        ["painting", "coin"],
        ["vp", "vp"],
        ["novel", "drama"],
        ["drama", "painting"],
        ["painting", "novel"],
        ["spirit", "spirit"],
    ]
    for i, pair in enumerate(pairs):
        tiles[f"3-{i + 1:02d}"] = {"districts": list(pair), "bonus": [age3[i]], "age": 3}
        tiles[f"4-{i + 1:02d}"] = {"districts": list(pair), "bonus": list(age4[i]), "age": 4}
    return tiles


BASIC_TILES = _basic_tiles()
ACTION_TILES: dict[str, dict] = {**STARTING_TILES, **BASIC_TILES}


def tiles_of_age(age: int) -> list[str]:
    return [t for t, d in BASIC_TILES.items() if d["age"] == age]


DRAFT_TILES = {1: 6, 2: 6, 3: 9, 4: 12, 5: 15}
"""Upkeep board side A: Action Tiles placed for drafting by player count."""

# --- portfolio tiles ------------------------------------------------------------------------
# ids from the List of Works: A = Paintings, B = Dramas, C = Novels.
PORTFOLIO_TYPE = {"A": "painting", "B": "drama", "C": "novel"}


def _portfolios() -> dict[str, dict]:
    # assumed: works 1-7 of each type are Age 1 (21 tiles), 8-15 Age 2 (24 tiles) — the box's
    # 21 + 24; costs, payouts and incomes below (Dramas: VP payout + Coin income; Novels: Coin
    # payout + VP income paid with 1 Novel Idea; Paintings: Coins and VP, no income).
    out: dict[str, dict] = {}
    age1_cost = [2, 2, 3, 3, 3, 4, 4]
    age2_cost = [4, 4, 5, 5, 5, 6, 6, 6]
    for letter, kind in PORTFOLIO_TYPE.items():
        for n in range(1, 16):
            age = 1 if n <= 7 else 2
            cost = age1_cost[n - 1] if age == 1 else age2_cost[n - 8]
            if kind == "drama":
                payout = {"vp": cost + age - 1}
                income = {"coin": age}
            elif kind == "novel":
                payout = {"coin": cost + age - 1}
                income = {"vp": age + 1}
            else:
                payout = {"coin": age, "vp": cost + age - 2}
                income = {}
            out[f"{letter}{n}"] = {"type": kind, "age": age, "cost": cost, "payout": payout, "income": income}
    return out


PORTFOLIOS = _portfolios()


def portfolios_of_age(age: int) -> list[str]:
    return [p for p, d in PORTFOLIOS.items() if d["age"] == age]


# --- display tiles ----------------------------------------------------------------------------
DISPLAY_TILES_PER_TYPE = 5
DISPLAY_LENGTH = 3

# --- characters (muse side) -------------------------------------------------------------------
# assumed: muse bonuses (resources gained when placing a servant with the bonus).
MUSE_BONUS: dict[str, list[str]] = {
    "B01": ["spirit", "coin"],
    "B02": ["coin", "coin"],
    "B03": ["novel", "coin"],
    "B04": ["painting", "painting"],
    "B05": ["drama", "spirit"],
    "B06": ["novel", "painting"],
    "B07": ["vp", "coin"],
    "B08": ["drama", "novel"],
    "B09": ["drama", "drama"],
    "B10": ["coin", "coin"],
    "B11": ["vp", "vp"],
    "B12": ["painting", "coin"],
    "B13": ["spirit", "spirit"],
    "B14": ["drama", "painting"],
    "B15": ["novel", "spirit"],
    "B16": ["novel", "novel"],
    "B17": ["vp", "spirit"],
    "B18": ["painting", "novel"],
    "B19": ["coin", "vp"],
    "B20": ["drama", "coin"],
}
MUSE_NAMES = {
    "B01": "Tang Bohu",
    "B02": "Xu Zhenqing",
    "B03": "Zhu Zhishan",
    "B04": "Wen Zhengming",
    "B05": "Dong Xiaowan",
    "B06": "Liu Rushi",
    "B07": "Gu Hengbo",
    "B08": "Bian Yujing",
    "B09": "Li Xiangjun",
    "B10": "Kou Baimen",
    "B11": "Chen Yuanyuan",
    "B12": "Ma Xianglan",
    "B13": "Chun Mei",
    "B14": "Xia Qing",
    "B15": "Qiu Xiang",
    "B16": "Dong Rui",
    "B17": "Lin Daiyu",
    "B18": "Xue Baochai",
    "B19": "Qin Keqing",
    "B20": "Jia Baoyu",
}
ASSISTANT_POWERS = {
    "B01": "You may increase your Spirit Level by 2.",
    "B02": "You may gain 1 Coin, plus 1 Coin for each of your Servants in the Teahouse district.",
    "B03": "You may pay 1 Coin to activate a Shop the Special Action Pointer is pointing to.",
    "B04": "You may gain 1 Painting Idea Tile.",
    "B05": "You may move your Servant 1 space in the Temple Fair and gain the Passing Bonus (no Shop).",
    "B06": "You may gain 1 Idea Tile of any type.",
    "B07": "You may pay 2 Coins to place 1 of your Servant Markers on any Boat Tile.",
    "B08": "You may exchange any 2 Idea Tiles you have for 2 Idea Tiles of any type(s).",
    "B09": "You may gain 1 Drama Idea Tile.",
    "B10": "You may gain 2 Coins.",
    "B11": "You may gain 1 VP, plus 1 VP for each of your Servants in the Tavern district.",
    "B12": "You may exchange 1 used or drafted Action Tile with one on your Action Track (or move one down).",
    "B13": "You may pay 1 Coin to travel to a new city without paying the Travel Cost (no City Bonus).",
    "B14": "You may pay 1 Coin to move 1 of your Servant Markers from a Boat Tile to another Boat.",
    "B15": "You may pay 1 Coin to place an extra Servant Marker on any Muse Tile (no Muse Bonus).",
    "B16": "You may gain 1 Novel Idea Tile.",
    "B17": "You may pay 1 Coin to take 1 revealed Portfolio Tile in the Society district.",
    "B18": "You may gain 1 facedown Portfolio Tile from the stack in the Society district.",
    "B19": "You may gain 2 VP.",
    "B20": "You may pay 2 Coins to publish 1 of your unpublished Portfolio Tiles (no Display Track).",
}
MUSE_DISPLAY = 4

# --- travel -----------------------------------------------------------------------------------
CITIES = ("A1", "A2", "A3", "B1", "B2", "C1", "C2", "C3", "D1", "D2")
CITY_NAMES = {
    "A1": "Yangzhou City",
    "A2": "Twenty-Four Bridges",
    "A3": "Tomb of Emperor Yang",
    "B1": "Huangshan Mountains",
    "B2": "Jingdezhen Town",
    "C1": "Hangzhou City",
    "C2": "Lake Xihu",
    "C3": "Qiantang Tidal Bore",
    "D1": "Lake Taihu",
    "D2": "Suzhou City",
}
# Paths from Jinling: A1-A2-A3, B1-B2, C1-C2-C3, D1-D2 (the Travel example: with D1, A1-A3
# travelled the next choices are C1, B1 and D2).  assumed: no links between paths.
CITY_PREVIOUS = {
    "A1": None,
    "A2": "A1",
    "A3": "A2",
    "B1": None,
    "B2": "B1",
    "C1": None,
    "C2": "C1",
    "C3": "C2",
    "D1": None,
    "D2": "D1",
}
CITY_COST = {"A1": 1, "A2": 2, "A3": 3, "B1": 1, "B2": 2, "C1": 1, "C2": 2, "C3": 3, "D1": 1, "D2": 2}
# assumed: travel costs grow with the distance from Jinling.
CITY_SCENERY = dict.fromkeys(CITIES, 1)  # assumed: one Scenery symbol per city.
# assumed: the 12 travel tiles' City Bonuses (10 are placed at random).
TRAVEL_TILES = {
    "T01": ["novel"],
    "T02": ["novel"],
    "T03": ["novel"],
    "T04": ["painting"],
    "T05": ["painting"],
    "T06": ["painting"],
    "T07": ["drama"],
    "T08": ["drama"],
    "T09": ["drama"],
    "T10": ["portfolio"],
    "T11": ["portfolio"],
    "T12": ["special"],
}

# --- temple fair -------------------------------------------------------------------------------
FAIR_SPACES = 6
# assumed: passing bonus on path i, between space i and space i+1 clockwise (the Temple Fair
# example: two paths passed give 1 Spirit and 1 Painting Idea).
PASSING_BONUS = [["spirit"], ["painting"], ["coin"], ["drama"], ["vp"], ["novel"]]
FAIR_START = 0  # assumed: every player's Temple Fair servant starts on space 0 (where pointer A points).
FAIR_MOVES = {1: 0, 2: 1, 3: 2}
"""Temple Fair: move 1 space for 0 Coins, 2 for 1, 3 for 2."""
SHOPS_A = ("A1", "A2", "A3", "A4", "A5", "A6")
SHOP_NAMES = {
    "A1": "Printing Press",
    "A2": "Peddler",
    "A3": "Gift Shop",
    "A4": "Boatman",
    "A5": "Liquor Shop",
    "A6": "Calligraphy Shop",
}

# --- river ------------------------------------------------------------------------------------
TRENDS = ("drama", "assistant", "novel", "gold", "painting", "scenery")
# assumed: the 15 double-sided Scoring Trend Tiles show each pair of the 6 trends once.
TREND_TILES = [[a, b] for i, a in enumerate(TRENDS) for b in TRENDS[i + 1 :]]
BOATS = 6
BOAT_SPACES = (
    4  # assumed: spaces per Boat Tile (the placement example uses 3; one per colour in a 4-player game).
)
GOALS = {
    "A": "drama",
    "B": "gold",
    "C": "painting",
    "D": "novel",
    "E": "assistant",
    "F": "scenery",
}
"""Scoring Goal Tiles A-F: first place 4 VP, second place 2 VP per item."""
GOAL_VP = (4, 2)
PUBLIC_SCORING = {2: 2, 4: 3, 6: 4}
"""Public Scoring in rounds 2/4/6 at 2/3/4 VP per matching item."""
REFILL_AGE = {1: 2, 2: 3, 3: 4}
"""Refill Action Tiles in rounds 1-3 with the next Age (Round 2 -> Age 3 is printed in the Upkeep
Events Example)."""
# assumed: Round 1 refills with Age 2 and Round 3 with Age 4 (the icons are not in the text).
DRAFT_ROUNDS = (1, 2, 3, 4)
BAG_REFILL_ROUNDS = (2, 4)
SWAP_ROUND = 3
ROUNDS = 6

# --- final scoring overlay side A --------------------------------------------------------------
FINAL_SET_VP = 4
FINAL_ASSISTANT_VP = 3
FINAL_SCENERY_VP = 2
FINAL_IDEAS_PER_VP = 3


# --- chapters 2-6 and the advanced rules ------------------------------------------------------
# Boards: the three double-sided District Boards.  assumed: board 1 holds Society and Parlour,
# board 2 Teahouse and Travel, board 3 Tavern and Temple Fair (the Chapter 1 order A1-A2-A3).  The
# side-B rules follow the chapters' texts: side B of board 1 = the Imperial Exam (Society), of
# board 2 = Traveling Artisans (Travel), of board 3 = Charming Scholar (Parlour).
BOARD_DISTRICTS = {"1": ["society", "parlour"], "2": ["teahouse", "travel"], "3": ["tavern", "temple_fair"]}
BOARD_RULE = {"1": "exam", "2": "artisans", "3": "charm"}

CHAPTERS: dict[int, dict] = {
    1: {
        "map": "A1-A2-A3",
        "talents": "none",
        "action_tiles": "basic",
        "mixed_ages": False,
        "shops": "A",
        "pointer": "A",
        "goals": "A-F",
        "upkeep": "A",
        "overlay": "A",
    },
    2: {
        "map": "A1-A2-A3",
        "talents": "four",
        "action_tiles": "basic",
        "mixed_ages": True,
        "shops": "A",
        "pointer": "A",
        "goals": "G-L",
        "upkeep": "A",
        "overlay": "B",
    },
    3: {
        "map": "A2-A3-B1",
        "talents": "four",
        "action_tiles": "advanced",
        "mixed_ages": False,
        "shops": "A",
        "pointer": "A",
        "goals": "A-F",
        "upkeep": "B",
        "overlay": "A",
    },
    4: {
        "map": "A3-A1-B2",
        "talents": "advanced",
        "action_tiles": "advanced",
        "mixed_ages": True,
        "shops": "B",
        "pointer": "B",
        "goals": "A-F",
        "upkeep": "B",
        "overlay": "B",
    },
    5: {
        "map": "A1-A2-B3",
        "talents": "advanced",
        "action_tiles": "advanced",
        "mixed_ages": True,
        "shops": "A",
        "pointer": "C",
        "goals": "G-L",
        "upkeep": "A",
        "overlay": "B",
    },
    6: {
        "map": "B1-B2-B3",
        "talents": "characters",
        "action_tiles": "advanced",
        "mixed_ages": True,
        "shops": "random",
        "pointer": "random",
        "goals": "A-L",
        "upkeep": "random",
        "overlay": "random",
    },
}
"""Game Chapters: the printed setup of each chapter (every key is also a free-configuration option)."""
OPTION_VALUES = {
    "talents": ("none", "four", "advanced", "characters"),
    "action_tiles": ("basic", "advanced"),
    "shops": ("A", "B", "random"),
    "pointer": ("A", "B", "C", "random"),
    "goals": ("A-F", "G-L", "A-L"),
    "upkeep": ("A", "B", "random"),
    "overlay": ("A", "B", "random"),
}
GOAL_POOLS = {"A-F": list("ABCDEF"), "G-L": list("GHIJKL"), "A-L": list("ABCDEFGHIJKL")}

# Talents (the Talent side of the characters): A01-A04 the Four Great Talents; the Advanced Talent
# Draft reveals 4 + N of A01-A16, the Advanced Character Draft 4 + N of A01-A20.
TALENT_POOLS = {
    "four": [f"A{n:02d}" for n in range(1, 5)],
    "advanced": [f"A{n:02d}" for n in range(1, 17)],
    "characters": [f"A{n:02d}" for n in range(1, 21)],
}
TALENT_POWER = {
    "A01": "calm",
    "A02": "patron",
    "A03": "wanderer",
    "A04": "acclaim",
    "A05": "wanderer",
    "A06": "royalty",
    "A07": "captain",
    "A08": "royalty",
    "A09": "acclaim",
    "A10": "frugal",
    "A11": "patron",
    "A12": "wealthy",
    "A13": "charming",
    "A14": "captain",
    "A15": "charming",
}
# assumed: A16-A20 have no Talent Power (the List of Talent Powers stops at A15).
TALENT_TEXT = {
    "calm": "Hired assistants do not lower your Spirit Level during Upkeep.",
    "patron": "Double the Coins (Teahouse) and VP (Tavern) for your Servants there, on visits and in Upkeep.",
    "wanderer": (
        "Double the Coins, Ideas, Spirit and VP of City Bonuses and Passing Bonuses (Travel, Temple Fair)."
    ),
    "acclaim": "Double the payout (Coins, VP) when you publish a Portfolio.",
    "royalty": "Double the Upkeep income of your published Dramas and Novels.",
    "captain": "You win ties on Boat Tiles; 3 VP each time you win first place when a boat is resolved.",
    "frugal": "Pay 0 Coins whenever a district action costs Coins; visit any district with 0 Coins.",
    "wealthy": "Start with 9 Coins and 3 Ideas of each type.",
    "charming": "Society: take 1 more Portfolio or Idea. Parlour: place an extra Servant (no bonus).",
}
MUSES_WITH_TALENTS = [f"B{n:02d}" for n in range(5, 17)]
"""Chapters 2-3: Muse Pool B05-B16 (A01-A04 are the talents)."""


# Advanced Action Tiles (red script): 6 per Age, with the "Gain a Portfolio" and "Activate a Shop"
# discard bonuses.  assumed: districts and bonuses below.
def _advanced_tiles() -> dict[str, dict]:
    tiles: dict[str, dict] = {}
    pairs = [
        ["society", "travel"],
        ["parlour", "tavern"],
        ["teahouse", "temple_fair"],
        ["society", "tavern"],
        ["parlour", "temple_fair"],
        ["teahouse", "travel"],
    ]
    extra = ["coin", "spirit", "vp", "coin", "spirit", "vp"]
    for i, d in enumerate(DISTRICTS):
        icon = "portfolio" if i % 2 == 0 else "special"
        tiles[f"1-A{i + 1}"] = {"districts": [d], "bonus": [icon], "age": 1, "advanced": True}
        tiles[f"2-A{i + 1}"] = {"districts": [d], "bonus": [icon, extra[i]], "age": 2, "advanced": True}
        tiles[f"3-A{i + 1}"] = {"districts": list(pairs[i]), "bonus": [icon], "age": 3, "advanced": True}
        tiles[f"4-A{i + 1}"] = {
            "districts": list(pairs[i]),
            "bonus": [icon, extra[i]],
            "age": 4,
            "advanced": True,
        }
    return tiles


ADVANCED_TILES = _advanced_tiles()
ACTION_TILES.update(ADVANCED_TILES)


def tile_pool(ages, advanced: bool) -> list[str]:
    """The Action Tiles of the given Ages (basic, plus the advanced ones if used)."""
    out = [t for t, d in BASIC_TILES.items() if d["age"] in ages]
    if advanced:
        out += [t for t, d in ADVANCED_TILES.items() if d["age"] in ages]
    return out


DRAFT_TILES_B = {1: 8, 2: 8, 3: 12, 4: 15, 5: 15}
"""Upkeep board side B (Advanced Action Tiles): Action Tiles placed for drafting."""

# Imperial Exam (Society side B): unpublished Portfolios discarded and Ideas paid per degree.
EXAMS = {
    1: {"name": "Juren", "portfolios": 2, "ideas": 6},
    2: {"name": "Gongshi", "portfolios": 3, "ideas": 9},
}

# Charming Scholar (Parlour side B): the 6 Charm Tiles.
CHARMS = {
    "A": "1 or more Servants in the Teahouse district",
    "B": "1 or more Servants in the Tavern district",
    "C": "1 or more Servants on the Boat Tile beneath the Parlour district",
    "D": "your Temple Fair Servant is in a Shop the Special Action Pointer points to",
    "E": "you have traveled at least once",
    "F": "2 or more unpublished Portfolio Tiles",
}

# Temple Fair shops side B and the Special Action Pointer sides.
SHOPS_B = ("B1", "B2", "B3", "B4", "B5", "B6")
SHOP_NAMES.update(
    {
        "B1": "Printing Press",
        "B2": "Peddler",
        "B3": "Gift Shop",
        "B4": "Boatman",
        "B5": "Liquor Shop",
        "B6": "Calligraphy Shop",
    }
)
POINTER_OFFSETS = {"A": [0], "B": [0, 1], "C": [0, 3]}
"""Shops pointed at, from the pointer's position: A straight up; B 12 and 2 o'clock; C 12 and 6."""
B1_COST = 1
B5_COINS = 5

# Scoring Goal Tiles G-L (first / second place VP per item).
GOALS.update(
    {
        "G": "spirit",
        "H": "own_servants",
        "I": "most_type",
        "J": "least_type",
        "K": "all_servants",
        "L": "published",
    }
)
GOAL_VPS = dict.fromkeys("ABCDEFGHI", (4, 2))
GOAL_VPS.update({"J": (5, 3), "K": (3, 1), "L": (3, 1)})

# Final Scoring Overlay side B (Advanced Final Scoring).
FINAL_SET_VP_B = 5

# 2 players: captain talent bonus, solo bot difficulty levels.
CAPTAIN_VP = 3
DIFFICULTIES = ("easy", "normal", "hard", "expert", "master", "nightmare", "inferno")
BOT_PATHS = [["A1", "A2", "A3"], ["B1", "B2"], ["C1", "C2", "C3"], ["D1", "D2"]]
"""The Bot travels Path A, B, C and D in this order, a whole path per Travel action."""


def chapter_setup(chapter: int) -> dict:
    """The printed setup of a chapter."""
    return dict(CHAPTERS[chapter])


def components() -> dict:
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
    }

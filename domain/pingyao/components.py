"""Pingyao component data.  Every value the rulebook does not print is marked ``# assumed:``
(and listed in docs/games/pingyao.md) so that it can be swapped for the printed values later."""

from __future__ import annotations

import msgspec

COLORS = ("red", "yellow", "green")
TIERS = (1, 2, 3)
REGIONS = tuple(f"{t}{c}" for t in TIERS for c in COLORS)  # Player Board 8-9: nine regions, 3 per tier
HEAD_OFFICE = "HO"  # Player Board 3: Pingyao Head Office (West Street: a 3-colour piaohao)

# Actions: the six action spaces.
ACTIONS = ("bank_escort", "confucius_temple", "west_street", "money_house", "city_god_temple", "yamen")
LATE_ACTIONS = ("confucius_temple", "yamen")  # "Action forbidden" tiles until round 3 (Setup).

ROUNDS = 8  # Game Flow: "The game lasts 8 rounds."
# assumed: (FACTS.md, otaku.lol review + the 2-player/solo public dice) the large teller die is
# the four-sided die (values 1-4), the two ordinary teller dice are six-sided.
DIE_SIDES = {True: 4, False: 6}  # assumed: large = four-sided (see above)
DISCARD_BELOW = 5  # Action Phase, Note: "if you hold fewer than 5 copper coins ... discard that die"
DISCARD_COPPER = 3  # ... "in exchange for 3 copper coins"
TRANSFER_FEE = 5  # Emergency Fund Transfer: "a shipping fee of 5 copper coins per silver ingot"
START_COPPER = 10  # Setup: 10 copper coins.
START_HEAD_OFFICE_SILVER = 2  # Setup: 2 silver ingots in the Pingyao Head Office.
START_BRANCH_SILVER = 2  # assumed: the solo rules say the starting branch's capital is 1 "instead of 2".
START_DEPOSIT_AREA_SILVER = 2  # assumed: the Deposit area holds the 2 ingots that "Accepting Deposits" moves.
SILVER_SUPPLY = (
    400  # assumed: the general supply is effectively unlimited; a fixed total keeps silver conserved.
)

ESCORT_DRAW = 4  # Bank Escort: "draw 4 branch tiles of that tier"
BUILD_COST = {1: 6, 2: 12, 3: 24}  # Bank Escort: 6/12/24 copper.
CAPITAL = {1: 1, 2: 2, 3: 3}  # Bank Escort: starting capital 1/2/3 silver from the head office.
INCOME_RATE = {1: 2, 2: 3, 3: 4}  # Income phase: copper per effective silver by tier.
MANAGEMENT = {1: 0, 2: 1, 3: 2}  # Management positions: Tier 2 at most +1, Tier 3 at most +2.
END_POINTS_TIER = {1: 0, 2: 1, 3: 2}  # Scoring step 3.


class Tile(msgspec.Struct, frozen=True):
    name: str
    tier: int  # 0 = starting branch
    skill: str
    effective: int
    positions: int  # branch-teller positions on the tile
    promo: bool = False
    color: str = ""  # starting branches only


# assumed: effective silver 2/3/4 by tier (Moscow prints 3), 1 teller position on every tile whose
# skill "activates once a branch teller is placed", 0 on tiles that "never need a branch teller".
T1_EFF, T2_EFF, T3_EFF, START_EFF = 2, 3, 4, 2  # assumed: not printed (see above)
COPIES = 2  # assumed: two copies of each base tile, one of each crowdfunding promo tile.

_BASE_TILES: list[tuple[str, int, str, int, int, bool]] = [
    # name, tier, skill, effective silver, teller positions, promo
    ("Lasa", 1, "die_minus", T1_EFF, 1, False),
    ("Jiujiang", 1, "recall_silver", T1_EFF, 1, False),
    ("Changde", 1, "die_plus", T1_EFF, 1, False),
    ("Jinzhou", 1, "die_swap", T1_EFF, 1, False),
    ("Xiangyang", 1, "reroll_discount", T1_EFF, 1, False),
    ("Ningxia", 1, "extra_card", T1_EFF, 1, False),
    ("Xinyizhou", 1, "entry_exchange", T1_EFF, 0, True),
    ("Kobe", 1, "entry_rep1", T1_EFF, 0, True),
    ("Suzhou", 2, "entry_teller", T2_EFF, 0, False),
    ("Lu'an", 2, "income_green", T2_EFF, 1, False),
    (
        "Lanzhou",
        2,
        "income_red",
        T2_EFF,
        1,
        False,
    ),  # assumed: skill (the rulebook names Lanzhou only as its Tier-2 red example)
    ("Fenzhou", 2, "income_yellow", T2_EFF, 1, False),  # assumed: name of the yellow twin
    ("Kaifeng", 2, "tricolor", T2_EFF, 0, False),
    ("Guilin", 2, "income_rep", T2_EFF, 1, False),
    ("Liuzhou", 2, "income_exchange", T2_EFF, 1, False),
    ("Incheon", 2, "entry_copper_exchange", T2_EFF, 0, True),
    ("Guangzhou", 3, "end_green", T3_EFF, 1, False),
    ("Hangzhou", 3, "end_red", T3_EFF, 1, False),  # assumed: name of the red twin
    ("Xi'an", 3, "end_yellow", T3_EFF, 1, False),  # assumed: name of the yellow twin
    ("Shuntian", 3, "end_rep", T3_EFF, 1, False),
    ("Taipei", 3, "end_tellers", T3_EFF, 1, False),
    ("Jinan", 3, "end_exchange", T3_EFF, 1, False),
    ("Macau", 3, "end_macau", T3_EFF, 1, False),
    ("Singapore", 3, "entry_rep2", T3_EFF, 0, True),
    ("Tokyo", 3, "entry_reset", T3_EFF, 0, True),
    ("Moscow", 3, "end_flat", 3, 0, True),  # printed: effective silver 3
]

# Starting branches: "treated as a coloured branch"; colours assumed (the rulebook does not say).
STARTING = {
    "Taiyuan": "red",  # assumed: colour not printed
    "Datong": "yellow",  # assumed: colour not printed
    "Xinzhou": "green",  # assumed: colour not printed
    "Yuncheng": "yellow",  # assumed: colour not printed
    "Taigu": "yellow",  # assumed: colour not printed
}
# Game Setup 2 (4 players), Three-Player Game Rules, Two-Player Game Rules (solo: Taiyuan).
STARTING_BY_PLAYERS = {
    4: ["Taiyuan", "Datong", "Xinzhou", "Yuncheng"],
    3: ["Taiyuan", "Xinzhou", "Taigu"],
    2: ["Taiyuan", "Datong"],
}


def _build_tiles() -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    for name, tier, skill, eff, pos, promo in _BASE_TILES:
        for copy in range(1 if promo else COPIES):
            tiles[f"{name}#{copy + 1}"] = Tile(name, tier, skill, eff, pos, promo)
    for name, color in STARTING.items():
        tiles[name] = Tile(name, 0, "starting", START_EFF, 0, False, color)
    return tiles


TILES = _build_tiles()


def stack_tiles(tier: int, crowdfunding: bool) -> list[str]:
    return sorted(k for k, t in TILES.items() if t.tier == tier and (crowdfunding or not t.promo))


# --- Exchange cards ---------------------------------------------------------------------------
class ExchangeCard(msgspec.Struct, frozen=True):
    deposit: str
    withdraw: str
    fee: int
    silver: int = 1


def _build_cards() -> dict[str, ExchangeCard]:
    # assumed: 18 cards, every ordered pair of different colours with base fees 1, 2 and 3,
    # each moving 1 silver (the rulebook's example card has fee 2 and one ingot).
    cards: dict[str, ExchangeCard] = {}
    n = 0
    for fee in (1, 2, 3):
        for dep in COLORS:
            for wd in COLORS:
                if dep != wd:
                    n += 1
                    cards[f"X{n:02d}"] = ExchangeCard(dep, wd, fee)
    return cards


CARDS = _build_cards()
MAX_CARDS = 3  # West Street: at most 3 exchange cards (3 sets of markers).
WITHDRAW_FEE_ADJUST = {0: 0, 1: 0, 2: 1, 3: 2}  # West Street: by tier (0 = starting branch); head office -1
HEAD_OFFICE_FEE_ADJUST = -1  # West Street: "if the withdrawal piaohao is the Head Office, -1"

# --- Tracks -----------------------------------------------------------------------------------
REPUTATION_MAX = (
    15  # Main Board 2 / City God Temple: "Once a player's reputation reaches 15 ... no further effect"
)
EXCHANGE_MAX = 12  # Main Board 1: Exchange progress track 1-12
REPUTATION_TELLER_BONUS = (2, 8, 13)  # City God Temple: above the track, one-time free branch teller
REPUTATION_END_POINTS = {
    12: 1,
    14: 2,
    15: 3,
}  # City God Temple: below the track, cumulative (How to Score 1: 6 at 15)
EXCHANGE_FEE_BONUS = {3: 1, 6: 1}  # West Street: cumulative +1 handling fee from these positions on
EXCHANGE_END_POINTS = {9: 1, 10: 1, 11: 2, 12: 2}  # West Street: cumulative ("position 11 ... +4"; 6 at 12)
REPUTATION_EXTRA_CARD = 6  # City God Temple, below the track: 6 - draw one additional exchange card


def lending_rate(reputation: int) -> int:
    """Money House: 2 copper per lent silver, 3 from reputation 4, 5 from reputation 10."""
    return 5 if reputation >= 10 else 3 if reputation >= 4 else 2


# --- Money House --------------------------------------------------------------------------------
LEND_AMOUNT = 2  # Money House, Lending: "Take 2 silver ingots from your Pingyao Head Office".
LEND_PER_POSITION = 2  # Money House: "At most 2 silver ingots may be placed on each number position"
LEND_TOTAL = 4  # Money House: "the entire lending area may hold at most 4 silver ingots in total"
DEPOSIT_SILVER = 2  # Money House, Accepting Deposits: "Take 2 silver ingots from your ... Deposit area"
DEPOSIT_INTEREST = 2  # ... "you must pay 2 copper coins interest" every Resolution phase


# --- Yamen support tiles ---------------------------------------------------------------------------
class YamenTile(msgspec.Struct, frozen=True):
    text: str
    silver: int
    promo: bool = False


YAMEN_TILES = {
    "tier1_income": YamenTile(
        "+2 copper per Tier-1 effective silver (income)", 2
    ),  # assumed: cost not printed
    "tier2_staffed": YamenTile(
        "+3/+7/+11 copper for 1/2/3 staffed Tier-2 branches (income)", 2
    ),  # assumed: cost not printed
    "any_value": YamenTile(
        "Change a dispatched die to any value, once per round", 1
    ),  # assumed: cost not printed
    "exchange_fee": YamenTile("+3 copper per exchange handling fee", 1),  # assumed: cost not printed
    "reputation_extra": YamenTile(
        "City God Temple with 3-6: pay 1 more copper for +1 reputation", 1
    ),  # assumed: cost not printed
    "lending_income": YamenTile(
        "+3 copper per 2 silver in the lending area (income)", 2
    ),  # assumed: cost not printed
    "tier3_any": YamenTile(
        "Tier-3 branch with any die value; first Tier-3 branch gives a free teller", 1, True
    ),  # assumed: cost; assumed: crowdfunding tile
    "flat_points": YamenTile("4 points at game end", 3, True),  # assumed: cost; assumed: crowdfunding tile
}
YAMEN_COPPER = (0, 2, 4)  # Yamen: copper by die band 1-2 / 3-4 / 5-6


def yamen_copies(players: int) -> int:
    """Three-/Two-Player Game Rules and Solo Setup ("as in the 3-player game"): 1 copy of each."""
    # assumed: 2 copies in the 4-player game (the 3- and 2-player rules say "only 1 copy").
    return 2 if players == 4 else 1


# --- Two-player game: public dice -------------------------------------------------------------
# The two unused colours' dice (ids 6-11: 6 and 9 the large four-sided dice). Rounds 1-2 use the
# two four-sided and two six-sided dice (ids 8 and 11 stay out), rounds 3-8 all six.
PUBLIC_DICE_2P = 6
# Choice order, as offsets from the starting player (0 = starting player, 1 = second player):
DRAFT_ORDER_EARLY = (0, 1, 1, 0)  # rounds 1-2: start 1, second 2, start the last one
# assumed: (reading) "the starting player chooses from the remaining 2 dice" taken as 2 of the
# remaining 3, since "finally, the last 1 is chosen by the second player" (docs/games/pingyao.md).
DRAFT_ORDER = (0, 1, 1, 0, 0, 1)  # rounds 3-8: start 1, second 2, start 2, second the last one
PUBLIC_PER_RESTING_AREA = 1  # "Each action's resting area may hold at most 1 public die."


# --- Solo game ---------------------------------------------------------------------------------
SOLO_START_SILVER = 1  # Solo setup: head office and starting branch 1 silver each ("instead of 2").
SOLO_PUBLIC_DICE = 9  # "The other 9 unused teller dice become public dice" (ids 3-11; 3, 6, 9 four-sided).
SOLO_EVENT_ROUNDS = 8  # 8 of the 10 event cards, one flipped each round.


class Storyline(msgspec.Struct, frozen=True):
    """Top half: the Yamen support tile held all game; bottom half: Normal and Hard conditions
    (every one must be met). Condition keys: score, reputation, exchange, branches (incl. the
    starting branch), tier3 (Tier-3 branches), tellers (branch tellers on branches)."""

    name: str
    yamen: str
    normal: dict[str, int]
    hard: dict[str, int]


# assumed: the five storyline cards' contents (the rulebook names only their layout).
STORYLINES = {
    1: Storyline(
        "Rishengchang Opens Its Doors",
        "tier1_income",
        {"score": 20, "branches": 4},
        {"score": 30, "branches": 6},
    ),  # assumed: card contents not printed
    2: Storyline(
        "Remittances Across the Empire",
        "exchange_fee",
        {"score": 20, "exchange": 7},
        {"score": 30, "exchange": 10},
    ),  # assumed: card contents not printed
    3: Storyline(
        "An Honest Name", "reputation_extra", {"score": 20, "reputation": 10}, {"score": 30, "reputation": 14}
    ),  # assumed: card contents not printed
    4: Storyline(
        "The Money Lender", "lending_income", {"score": 24}, {"score": 34, "reputation": 8}
    ),  # assumed: card contents not printed
    5: Storyline(
        "A House of Talent",
        "tier2_staffed",
        {"score": 20, "tellers": 3},
        {"score": 30, "tellers": 5, "tier3": 1},
    ),  # assumed: card contents not printed
}


class EventCard(msgspec.Struct, frozen=True):
    """Initial setup: per action space "6" (a six-sided public die on the action space) or "46"
    (a four-sided die in the resting area, then a six-sided die on the action space - the die on
    the space is the last one). Round goal: perform `goal_action` `goal_count` times this round.
    Reward: copper / reputation / silver (amount), teller (a free branch teller), exchange (an
    exchange action of up to `amount` months), yamen (take a Yamen support tile), extra_action
    (take back a used teller die, reroll it, act again), income (ongoing: +amount copper every
    Income phase), reroll_discount (ongoing: rerolls cost 1 less)."""

    name: str
    setup: dict[str, str]
    goal_action: str
    goal_count: int
    reward: str
    amount: int = 0
    ongoing: bool = False


# assumed: the ten event cards' set-ups, round goals and rewards (at most 3 four-sided and 6
# six-sided public dice per card; an action whose goal needs 2 uses never has a resting die, so
# that a second bump still finds room in the resting area).
EVENT_CARDS = {
    "E01": EventCard(
        "Bandits on the Road",
        {"bank_escort": "46", "west_street": "6", "money_house": "6", "city_god_temple": "46"},
        "bank_escort",
        1,
        "copper",
        4,
    ),  # assumed: card contents not printed
    "E02": EventCard(
        "Flood Relief",
        {"yamen": "46", "confucius_temple": "6", "money_house": "46"},
        "city_god_temple",
        1,
        "reputation",
        1,
    ),  # assumed: card contents not printed
    "E03": EventCard(
        "Merchants' Rush",
        {"west_street": "6", "bank_escort": "46", "yamen": "6", "city_god_temple": "6"},
        "west_street",
        2,
        "exchange",
        2,
    ),  # assumed: card contents not printed
    "E04": EventCard(
        "Imperial Examination",
        {"confucius_temple": "46", "city_god_temple": "6", "west_street": "6", "yamen": "6"},
        "confucius_temple",
        1,
        "teller",
        1,
    ),  # assumed: card contents not printed
    "E05": EventCard(
        "Silver Shortage",
        {"money_house": "46", "west_street": "46", "bank_escort": "6", "confucius_temple": "6"},
        "money_house",
        1,
        "silver",
        1,
    ),  # assumed: card contents not printed
    "E06": EventCard(
        "The Magistrate's Visit",
        {"yamen": "6", "city_god_temple": "46", "confucius_temple": "6", "bank_escort": "6"},
        "money_house",
        1,
        "yamen",
    ),  # assumed: card contents not printed
    "E07": EventCard(
        "Market Day", dict.fromkeys(ACTIONS, "6"), "city_god_temple", 2, "extra_action"
    ),  # assumed: card contents not printed
    "E08": EventCard(
        "Harvest Festival",
        {"bank_escort": "46", "west_street": "46", "confucius_temple": "46"},
        "money_house",
        1,
        "income",
        2,
        True,
    ),  # assumed: card contents not printed
    "E09": EventCard(
        "A New Trade Route",
        {"city_god_temple": "6", "money_house": "6", "yamen": "46"},
        "west_street",
        1,
        "reroll_discount",
        1,
        True,
    ),  # assumed: card contents not printed
    "E10": EventCard(
        "A Quiet Month", {"bank_escort": "6", "confucius_temple": "6"}, "yamen", 1, "reputation", 2
    ),  # assumed: card contents not printed
}


def band(value: int) -> int:
    """Die value bands used by every action: 1-2 -> 0, 3-4 -> 1, 5-6 -> 2."""
    return (value - 1) // 2


MONTHS_BY_BAND = (3, 2, 1)  # West Street / Money House: 1-2 up to 3 months, 3-4 up to 2, 5-6 up to 1


def tiers_for(value: int) -> tuple[int, ...]:
    """Bank Escort: 1-2 any tier, 3-4 Tier 1 or 2, 5-6 Tier 1 only."""
    return ((1, 2, 3), (1, 2), (1,))[band(value)]


# assumed: the effect area's "at most 3 / at most 2 / at most 1" is by player count (4/3/2); solo
# is set up "as in the 3-player game" (2), which leaves room for an event card's resting die plus
# one bump.
RESTING_CAPACITY = {4: 3, 3: 2, 2: 1, 1: 2}  # assumed: see above


def resting_capacity(players: int) -> int:
    return RESTING_CAPACITY.get(players, 1)


def reroll_cost(value: int) -> int:
    """Reroll: 2 copper for a 5 or 6, 1 copper for 1-4."""
    return 2 if value >= 5 else 1


def region_tier(region: str) -> int:
    return int(region[0])


def region_color(region: str) -> str:
    return region[1:]


def components() -> dict[str, object]:
    return {
        "tiles": {k: msgspec.to_builtins(v) for k, v in TILES.items()},
        "exchange_cards": {k: msgspec.to_builtins(v) for k, v in CARDS.items()},
        "yamen_tiles": {k: msgspec.to_builtins(v) for k, v in YAMEN_TILES.items()},
        "build_cost": BUILD_COST,
        "capital": CAPITAL,
        "income_rate": INCOME_RATE,
        "management_positions": MANAGEMENT,
        "storylines": {k: msgspec.to_builtins(v) for k, v in STORYLINES.items()},
        "event_cards": {k: msgspec.to_builtins(v) for k, v in EVENT_CARDS.items()},
        "assumed": [
            "storyline cards (Yamen tile, Normal and Hard conditions)",
            "event cards (set-ups, round goals, rewards)",
            "tile effective silver and teller positions",
            "tile copies",
            "starting branch colours and capital",
            "exchange cards",
            "Yamen tile costs and which two are crowdfunding tiles",
            "resting-area capacity by player count",
            "deposit area silver",
            "large teller die = the four-sided die (FACTS.md)",
            "2 copies of each Yamen tile in the 4-player game",
            "two-player draft order in rounds 3-8 (reading)",
        ],
    }

"""Pingyao component data: every value of the tiles, cards, tracks and prices, printed or assumed.

The values live in one data file, ``components.json`` next to this module: each entry says
whether the rulebook prints it (``printed``) and where, or what the assumption rests on
(``source``).  It is decoded and validated here, at import (``COMPONENT_FILE``; ``yamen
components check pingyao`` runs the same validation on any file), into the typed entries below,
and this module exposes the names the rules use (``TILES``, ``CARDS``, ``EVENT_CARDS``...).  The
assumed values are listed in docs/games/pingyao.md.  Changing a value changes how the game plays:
it is a rules change, and bumps the rules version (``versions.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.kernel import ComponentFile, Entry

# --- Names the rules are written in (not values: the code's vocabulary) ------------------------
COLORS = ("red", "yellow", "green")
TIERS = (1, 2, 3)
REGIONS = tuple(f"{t}{c}" for t in TIERS for c in COLORS)  # Player Board 8-9: nine regions, 3 per tier
HEAD_OFFICE = "HO"  # Player Board 3: Pingyao Head Office (West Street: a 3-colour piaohao)
# Actions: the six action spaces.
ACTIONS = ("bank_escort", "confucius_temple", "west_street", "money_house", "city_god_temple", "yamen")
SKILLS = (
    "starting",
    "die_minus",
    "recall_silver",
    "die_plus",
    "die_swap",
    "reroll_discount",
    "extra_card",
    "entry_exchange",
    "entry_rep1",
    "entry_teller",
    "income_green",
    "income_red",
    "income_yellow",
    "tricolor",
    "income_rep",
    "income_exchange",
    "entry_copper_exchange",
    "end_green",
    "end_red",
    "end_yellow",
    "end_rep",
    "end_tellers",
    "end_exchange",
    "end_macau",
    "entry_rep2",
    "entry_reset",
    "end_flat",
)
"""The branch skills the rules implement (Branch Skill Reference)."""
REWARDS = (
    "copper",
    "reputation",
    "silver",
    "teller",
    "exchange",
    "yamen",
    "extra_action",
    "income",
    "reroll_discount",
)
"""Solo event-card rewards the rules implement (Round Goals and Rewards; Event Card Reward Notes)."""
CONDITIONS = ("score", "reputation", "exchange", "branches", "tier3", "tellers")
"""Solo storyline conditions the verdict compares (Game End (Solo))."""
YAMEN_EFFECTS = (
    "tier1_income",
    "tier2_staffed",
    "any_value",
    "exchange_fee",
    "reputation_extra",
    "lending_income",
    "tier3_any",
    "flat_points",
)
"""The Yamen support tile effects the rules implement (Yamen Support Tile Reference)."""
PLAYER_COUNTS = (1, 2, 3, 4)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _unique(values: Sequence[object], what: str) -> None:
    repeated = sorted({str(v) for v in values if values.count(v) > 1})
    _require(not repeated, f"{what} must be unique: {', '.join(repeated)} repeated")


def _bands(values: Sequence[object], what: str) -> None:
    """Die value bands 1-2 / 3-4 / 5-6: three values."""
    _require(len(values) == 3, f"{what}: one value per die band (1-2, 3-4, 5-6)")


# --- The data file's entries ---------------------------------------------------------------------
class FlowEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    rounds: int
    late_actions: list[str]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.rounds >= 1, "at least one round")
        _require(set(self.late_actions) <= set(ACTIONS), "late actions must be actions")


class TellerDiceEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    large_sides: int
    ordinary_sides: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(2 <= self.large_sides <= 6 and 2 <= self.ordinary_sides <= 6, "dice have 2 to 6 faces")


class ActionPhaseEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reroll_cost_by_band: list[int]
    discard_below: int
    discard_copper: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _bands(self.reroll_cost_by_band, "reroll_cost_by_band")


class RestingAreasEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How many teller dice an action's resting area holds (rules pingyao-3)."""

    by_action: dict[str, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.by_action) == set(ACTIONS), "one limit for each action")
        _require(all(n >= 1 for n in self.by_action.values()), "a resting area holds at least one die")


class EventSetupsEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Event card set-ups of earlier rules versions, for the cards whose set-up changed since."""

    by_card: dict[str, dict[str, str]]

    def __post_init__(self) -> None:
        super().__post_init__()
        for card, setup in self.by_card.items():
            _require(set(setup) <= set(ACTIONS), f"{card}: actions")
            _require(set(setup.values()) <= {"6", "46"}, f"{card}: set-up '6' or '46' per action")


class RestingAreasByPlayersEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How many teller dice a resting area holds by player count (rules pingyao-2)."""

    by_players: dict[int, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.by_players) == set(PLAYER_COUNTS), "one limit for each player count")
        _require(all(n >= 1 for n in self.by_players.values()), "a resting area holds at least one die")


class FeeEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    fee: int


class StartingResourcesEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    copper: int
    head_office_silver: int


class StartingBranchEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    silver: int
    effective: int


class SilverEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    silver: int


class TierEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tier: int
    build_cost: int
    capital: int
    income_rate: int
    management: int
    end_points: int


class BankEscortEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    draw: int
    tiers_by_band: list[list[int]]

    def __post_init__(self) -> None:
        super().__post_init__()
        _bands(self.tiers_by_band, "tiers_by_band")
        _require(all(set(t) <= set(TIERS) and t for t in self.tiers_by_band), "tiers are 1, 2 or 3")


class TileEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A branch tile: its skill, effective silver, teller positions and copies."""

    name: str
    tier: int
    skill: str
    effective: int
    positions: int
    copies: int
    promo: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.tier in TIERS, f"{self.name}: tier 1, 2 or 3")
        _require(self.skill in SKILLS, f"{self.name}: unknown skill {self.skill!r}")
        _require(self.effective >= 1 and self.positions >= 0 and self.copies >= 1, f"{self.name}: counts")


class StartingTileEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    color: str

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.color in COLORS, f"{self.name}: colour red, yellow or green")


class StartingDealEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    by_players: dict[int, list[str]]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.by_players) == set(PLAYER_COUNTS), "a deal for each player count")
        for n, names in self.by_players.items():
            _require(len(names) == n and len(set(names)) == n, f"{n} players: {n} different tiles")
            _require("Taiyuan" in names, "Taiyuan's holder is the starting player (Game Setup 3)")


class CardValues(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    deposit: str
    withdraw: str
    fee: int
    silver: int = 1

    def __post_init__(self) -> None:
        _require(self.deposit in COLORS and self.withdraw in COLORS, f"{self.id}: colours")
        _require(self.silver >= 1 and self.fee >= 0, f"{self.id}: silver and fee")


class ExchangeCardsEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    cards: list[CardValues]

    def __post_init__(self) -> None:
        super().__post_init__()
        ids = [c.id for c in self.cards]
        _unique(ids, "exchange card ids")
        _require(len(ids) >= 1, "at least one exchange card")


class WestStreetEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_cards: int
    head_office_fee_adjust: int
    withdraw_fee_adjust: dict[int, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.withdraw_fee_adjust) == {0, *TIERS}, "an adjustment per tier (0: starting branch)")


class MonthsEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    by_band: list[int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _bands(self.by_band, "months by_band")


class ReputationTrackEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max: int
    teller_bonus: list[int]
    extra_card: int
    end_points: dict[int, int]
    lending_rates: dict[int, int]
    """Copper per lent silver from each reputation on (Money House)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        spaces = (*self.teller_bonus, self.extra_card, *self.end_points, *self.lending_rates)
        _require(all(0 <= v <= self.max for v in spaces), "track spaces within the track")
        _require(0 in self.lending_rates, "a lending rate from reputation 0")


class ExchangeTrackEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max: int
    fee_bonus: dict[int, int]
    end_points: dict[int, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(all(1 <= v <= self.max for v in (*self.fee_bonus, *self.end_points)), "spaces on the track")


class MoneyHouseEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    lend_amount: int
    lend_per_position: int
    lend_total: int
    deposit_silver: int
    deposit_interest: int


class YamenEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    copper_by_band: list[int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _bands(self.copper_by_band, "copper_by_band")


class YamenCopiesEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    by_players: dict[int, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.by_players) == set(PLAYER_COUNTS), "copies for each player count")


class YamenTileEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    text: str
    silver: int
    promo: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.id in YAMEN_EFFECTS, f"unknown Yamen tile effect {self.id!r}")
        _require(self.silver >= 1, f"{self.id}: the Yamen needs at least 1 silver from the head office")


class TwoPlayerEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    public_dice: int
    per_resting_area: int
    draft_order_early: list[int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.public_dice == 6, "two colours of 3 dice")
        _require(len(self.draft_order_early) == 4, "rounds 1-2: 2 four-sided and 2 six-sided public dice")
        _require(set(self.draft_order_early) <= {0, 1}, "0 the starting player, 1 the second")


class DraftOrderEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    order: list[int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(len(self.order) == 6 and set(self.order) <= {0, 1}, "a chooser for each of the 6 dice")


class SoloEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    start_silver: int
    public_dice: int
    event_rounds: int


class StorylineEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    number: int
    name: str
    yamen: str
    normal: dict[str, int]
    hard: dict[str, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.normal) | set(self.hard) <= set(CONDITIONS), f"storyline {self.number}: conditions")


class EventCardEntry(Entry, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    setup: dict[str, str]
    goal_action: str
    goal_count: int
    reward: str
    amount: int = 0
    ongoing: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(set(self.setup) <= set(ACTIONS) and self.goal_action in ACTIONS, f"{self.id}: actions")
        _require(set(self.setup.values()) <= {"6", "46"}, f"{self.id}: set-up '6' or '46' per action")
        pattern = "".join(self.setup.values())
        _require(
            pattern.count("4") <= 3 and pattern.count("6") <= 6, f"{self.id}: 3 four- and 6 six-sided dice"
        )
        _require(self.reward in REWARDS and self.goal_count >= 1, f"{self.id}: goal and reward")


class PingyaoComponents(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole data file (``components.json``)."""

    flow: FlowEntry
    teller_dice: TellerDiceEntry
    action_phase: ActionPhaseEntry
    resting_areas: RestingAreasEntry
    event_card_setups_pingyao_3: EventSetupsEntry
    resting_areas_pingyao_2: RestingAreasByPlayersEntry
    emergency_transfer: FeeEntry
    starting_resources: StartingResourcesEntry
    starting_branch: StartingBranchEntry
    deposit_area: SilverEntry
    silver_supply: SilverEntry
    tiers: list[TierEntry]
    bank_escort: BankEscortEntry
    tiles: list[TileEntry]
    starting_branches: list[StartingTileEntry]
    starting_deal: StartingDealEntry
    exchange_cards: ExchangeCardsEntry
    west_street: WestStreetEntry
    months: MonthsEntry
    reputation_track: ReputationTrackEntry
    exchange_track: ExchangeTrackEntry
    money_house: MoneyHouseEntry
    yamen: YamenEntry
    yamen_copies: YamenCopiesEntry
    yamen_tiles: list[YamenTileEntry]
    two_player: TwoPlayerEntry
    two_player_draft: DraftOrderEntry
    solo: SoloEntry
    storylines: list[StorylineEntry]
    event_cards: list[EventCardEntry]

    def __post_init__(self) -> None:
        """The invariants across entries: ids unique, references valid, counts consistent."""
        _require(sorted(t.tier for t in self.tiers) == list(TIERS), "tiers: one entry for each of 1, 2, 3")
        _unique([t.name for t in self.tiles] + [t.name for t in self.starting_branches], "tile names")
        _unique([t.skill for t in self.tiles], "tile skills (one tile per skill)")
        for tier in TIERS:
            copies = sum(t.copies for t in self.tiles if t.tier == tier and not t.promo)
            _require(copies >= self.bank_escort.draw, f"Tier {tier}: enough tiles for a Bank Escort draw")
        starting = {t.name for t in self.starting_branches}
        dealt = {n for names in self.starting_deal.by_players.values() for n in names}
        _require(dealt <= starting, f"starting_deal names {sorted(dealt - starting)}: not starting branches")
        yamen = [t.id for t in self.yamen_tiles]
        _unique(yamen, "Yamen tile ids")
        _require(
            sum(not t.promo for t in self.yamen_tiles) == 6, "6 Yamen support tiles (8 with the Pro version)"
        )
        numbers = [s.number for s in self.storylines]
        _require(sorted(numbers) == list(range(1, len(numbers) + 1)), "storylines numbered 1, 2, ...")
        for story in self.storylines:
            _require(story.yamen in yamen, f"storyline {story.number}: no Yamen tile {story.yamen!r}")
        cards = [e.id for e in self.event_cards]
        _unique(cards, "event card ids")
        for e in self.event_cards:  # Solo Rules, Event Cards: a set-up die on a space can be bumped
            full = [a for a, dice in e.setup.items() if dice == "46" and self.resting_areas.by_action[a] < 2]
            _require(not full, f"{e.id}: a resting die fills the resting area of {', '.join(full)}")
        old = set(self.event_card_setups_pingyao_3.by_card)
        _require(old <= set(cards), f"event_card_setups_pingyao_3 names {sorted(old - set(cards))}")
        _require(len(cards) >= self.solo.event_rounds, "an event card for every round")
        _require(self.solo.event_rounds == self.flow.rounds, "one event card per round")
        _require(self.solo.public_dice % 3 == 0, "solo public dice come in colours of 3 dice")


COMPONENT_FILE = ComponentFile(__name__.rpartition(".")[0], "components.json", PingyaoComponents)
DATA = COMPONENT_FILE.load()


# --- The names the rules use, built from the data file ---------------------------------------------
LATE_ACTIONS = tuple(DATA.flow.late_actions)  # "Action forbidden" tiles until round 3 (Setup).
ROUNDS = DATA.flow.rounds  # Game Flow: "The game lasts 8 rounds."
DIE_SIDES = {True: DATA.teller_dice.large_sides, False: DATA.teller_dice.ordinary_sides}  # large: four-sided
DISCARD_BELOW = DATA.action_phase.discard_below  # Note: "if you hold fewer than 5 copper coins"
DISCARD_COPPER = DATA.action_phase.discard_copper  # ... "in exchange for 3 copper coins"
TRANSFER_FEE = DATA.emergency_transfer.fee  # Emergency Fund Transfer: 5 copper per silver
START_COPPER = DATA.starting_resources.copper
START_HEAD_OFFICE_SILVER = DATA.starting_resources.head_office_silver
START_BRANCH_SILVER = DATA.starting_branch.silver
START_EFF = DATA.starting_branch.effective
START_DEPOSIT_AREA_SILVER = DATA.deposit_area.silver
SILVER_SUPPLY = DATA.silver_supply.silver

ESCORT_DRAW = DATA.bank_escort.draw  # Bank Escort: "draw 4 branch tiles of that tier"
_TIERS = {t.tier: t for t in DATA.tiers}
BUILD_COST = {t: _TIERS[t].build_cost for t in TIERS}  # Bank Escort: 6/12/24 copper.
CAPITAL = {t: _TIERS[t].capital for t in TIERS}  # Bank Escort: starting capital 1/2/3 silver.
INCOME_RATE = {t: _TIERS[t].income_rate for t in TIERS}  # Income phase: copper per effective silver.
MANAGEMENT = {t: _TIERS[t].management for t in TIERS}  # Management positions: Tier 2 +1, Tier 3 +2.
END_POINTS_TIER = {t: _TIERS[t].end_points for t in TIERS}  # Scoring step 3.


class Tile(msgspec.Struct, frozen=True):
    name: str
    tier: int  # 0 = starting branch
    skill: str
    effective: int
    positions: int  # branch-teller positions on the tile
    promo: bool = False
    color: str = ""  # starting branches only


STARTING = {t.name: t.color for t in DATA.starting_branches}
# Game Setup 2 (4 players), Three-Player Game Rules, Two-Player Game Rules (solo: Taiyuan).
STARTING_BY_PLAYERS = {n: list(names) for n, names in DATA.starting_deal.by_players.items() if n > 1}


def _build_tiles() -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    for t in DATA.tiles:
        for copy in range(t.copies):
            tiles[f"{t.name}#{copy + 1}"] = Tile(t.name, t.tier, t.skill, t.effective, t.positions, t.promo)
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


CARDS = {c.id: ExchangeCard(c.deposit, c.withdraw, c.fee, c.silver) for c in DATA.exchange_cards.cards}
MAX_CARDS = DATA.west_street.max_cards  # West Street: at most 3 exchange cards (3 sets of markers).
WITHDRAW_FEE_ADJUST = dict(DATA.west_street.withdraw_fee_adjust)  # by tier (0 = starting branch)
HEAD_OFFICE_FEE_ADJUST = DATA.west_street.head_office_fee_adjust  # "if ... the Head Office, -1"

# --- Tracks -----------------------------------------------------------------------------------
REPUTATION_MAX = DATA.reputation_track.max  # "Once a player's reputation reaches 15 ... no further effect"
EXCHANGE_MAX = DATA.exchange_track.max  # Main Board 1: Exchange progress track 1-12
REPUTATION_TELLER_BONUS = tuple(DATA.reputation_track.teller_bonus)  # one-time free branch teller
REPUTATION_END_POINTS = dict(DATA.reputation_track.end_points)  # cumulative (How to Score 1: 6 at 15)
EXCHANGE_FEE_BONUS = dict(DATA.exchange_track.fee_bonus)  # cumulative +1 handling fee from 3 and 6
EXCHANGE_END_POINTS = dict(DATA.exchange_track.end_points)  # cumulative ("position 11 ... +4")
REPUTATION_EXTRA_CARD = DATA.reputation_track.extra_card  # 6: draw one additional exchange card
_LENDING_RATES = sorted(DATA.reputation_track.lending_rates.items(), reverse=True)


def lending_rate(reputation: int) -> int:
    """Money House: 2 copper per lent silver, 3 from reputation 4, 5 from reputation 10."""
    return next(rate for at, rate in _LENDING_RATES if reputation >= at)


# --- Money House --------------------------------------------------------------------------------
LEND_AMOUNT = DATA.money_house.lend_amount  # Lending: "Take 2 silver ingots from your ... Head Office".
LEND_PER_POSITION = DATA.money_house.lend_per_position  # "At most 2 silver ingots ... on each number"
LEND_TOTAL = DATA.money_house.lend_total  # "the entire lending area may hold at most 4 silver ingots"
DEPOSIT_SILVER = DATA.money_house.deposit_silver  # Accepting Deposits: "Take 2 silver ingots"
DEPOSIT_INTEREST = DATA.money_house.deposit_interest  # "you must pay 2 copper coins interest"


# --- Yamen support tiles ---------------------------------------------------------------------------
class YamenTile(msgspec.Struct, frozen=True):
    text: str
    silver: int
    promo: bool = False


YAMEN_TILES = {t.id: YamenTile(t.text, t.silver, t.promo) for t in DATA.yamen_tiles}
YAMEN_COPPER = tuple(DATA.yamen.copper_by_band)  # Yamen: copper by die band 1-2 / 3-4 / 5-6


def yamen_copies(players: int) -> int:
    """Three-/Two-Player Game Rules and Solo Setup ("as in the 3-player game"): 1 copy of each;
    4 players: 2 (assumed)."""
    return DATA.yamen_copies.by_players.get(players, 1)


# --- Two-player game: public dice -------------------------------------------------------------
# The two unused colours' dice (ids 6-11: 6 and 9 the large four-sided dice). Rounds 1-2 use the
# two four-sided and two six-sided dice (ids 8 and 11 stay out), rounds 3-8 all six.
PUBLIC_DICE_2P = DATA.two_player.public_dice
# Choice order, as offsets from the starting player (0 = starting player, 1 = second player):
DRAFT_ORDER_EARLY = tuple(DATA.two_player.draft_order_early)  # rounds 1-2: start 1, second 2, start 1
DRAFT_ORDER = tuple(DATA.two_player_draft.order)  # rounds 3-8 (a reading, see its source)
PUBLIC_PER_RESTING_AREA = DATA.two_player.per_resting_area  # "at most 1 public die" per resting area


# --- Solo game ---------------------------------------------------------------------------------
SOLO_START_SILVER = DATA.solo.start_silver  # head office and starting branch 1 silver ("instead of 2")
SOLO_PUBLIC_DICE = DATA.solo.public_dice  # "The other 9 unused teller dice become public dice"
SOLO_EVENT_ROUNDS = DATA.solo.event_rounds  # 8 of the 10 event cards, one flipped each round.


class Storyline(msgspec.Struct, frozen=True):
    """Top half: the Yamen support tile held all game; bottom half: Normal and Hard conditions
    (every one must be met). Condition keys: score, reputation, exchange, branches (incl. the
    starting branch), tier3 (Tier-3 branches), tellers (branch tellers on branches)."""

    name: str
    yamen: str
    normal: dict[str, int]
    hard: dict[str, int]


STORYLINES = {s.number: Storyline(s.name, s.yamen, dict(s.normal), dict(s.hard)) for s in DATA.storylines}


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


EVENT_CARDS = {
    e.id: EventCard(e.name, dict(e.setup), e.goal_action, e.goal_count, e.reward, e.amount, e.ongoing)
    for e in DATA.event_cards
}
EVENT_SETUPS_PINGYAO_3 = {
    card: dict(setup) for card, setup in DATA.event_card_setups_pingyao_3.by_card.items()
}
"""Rules pingyao-2 and pingyao-3: the set-ups of the event cards that changed in pingyao-4."""


# --- Die values --------------------------------------------------------------------------------
def band(value: int) -> int:
    """Die value bands used by every action: 1-2 -> 0, 3-4 -> 1, 5-6 -> 2."""
    return (value - 1) // 2


MONTHS_BY_BAND = tuple(DATA.months.by_band)  # West Street / Money House: up to 3 / 2 / 1 months
_TIERS_BY_BAND = tuple(tuple(t) for t in DATA.bank_escort.tiers_by_band)
_REROLL_BY_BAND = tuple(DATA.action_phase.reroll_cost_by_band)


def tiers_for(value: int) -> tuple[int, ...]:
    """Bank Escort: 1-2 any tier, 3-4 Tier 1 or 2, 5-6 Tier 1 only."""
    return _TIERS_BY_BAND[band(value)]


def resting_capacity(action: str) -> int:
    """Components 7, effect area: "at most 3 / at most 2 / at most 1" teller dice in the resting
    area, "depending on the action" (rules pingyao-3)."""
    return DATA.resting_areas.by_action[action]


def resting_capacity_pingyao_2(players: int) -> int:
    """Rules pingyao-2: the same three numbers read as by player count (solo as 3 players)."""
    return DATA.resting_areas_pingyao_2.by_players.get(players, 1)


def reroll_cost(value: int) -> int:
    """Reroll: 2 copper for a 5 or 6, 1 copper for 1-4."""
    return _REROLL_BY_BAND[band(value)]


def region_tier(region: str) -> int:
    return int(region[0])


def region_color(region: str) -> str:
    return region[1:]


def _provenance() -> list[dict[str, object]]:
    """Every entry of the data file: printed or assumed, and its source."""
    out: list[dict[str, object]] = []
    for field in msgspec.structs.fields(DATA):
        value = getattr(DATA, field.name)
        entries = value if isinstance(value, list) else [value]
        for entry in entries:
            key = next(
                (getattr(entry, k) for k in ("id", "number", "name", "tier") if hasattr(entry, k)), None
            )
            name = field.name if key is None else f"{field.name}/{key}"
            out.append({"entry": name, "printed": entry.printed, "source": entry.source})
    return out


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
        "resting_capacity": dict(DATA.resting_areas.by_action),
        "reputation_track": msgspec.to_builtins(DATA.reputation_track),
        "exchange_track": msgspec.to_builtins(DATA.exchange_track),
        "assumed": [
            "storyline cards (Yamen tile, Normal and Hard conditions)",
            "event cards (set-ups, round goals, rewards)",
            "tile effective silver and teller positions",
            "tile copies",
            "starting branch colours and capital",
            "exchange cards",
            "Yamen tile costs and which two are crowdfunding tiles",
            "which action's resting area holds 3, 2 or 1 teller dice",
            "deposit area silver",
            "large teller die = the four-sided die (FACTS.md)",
            "2 copies of each Yamen tile in the 4-player game",
            "two-player draft order in rounds 3-8 (reading)",
        ],
        "provenance": _provenance(),
    }

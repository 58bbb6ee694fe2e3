"""The table of a Jiangnan game (msgpack-encodable, mutated in place by ``evolve``)."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from domain.kernel.table import TableState

RULES_VERSION = "jiangnan-3"
"""The rules this code sets new games up under."""
EARLIER_VERSIONS = ("jiangnan-2",)
"""Earlier rules versions this code still judges: a game set up under one finishes under it."""
UNRECORDED = "jiangnan-2"
"""The version of a game whose setup event records none (the field came with jiangnan-3)."""


class Player(msgspec.Struct, kw_only=True, omit_defaults=True):
    # The fields of rules version jiangnan-1 are required (always encoded); the later ones have
    # defaults and are omitted when unused, so a Chapter 1 state encodes exactly as before.
    coins: int
    vp: int
    spirit: int
    ideas: dict[str, int]
    bag: list[str]
    """Draw bag contents, kept sorted: the order is never stored (draws use the Rng)."""
    track: list[str]
    """Action Track, index 0 = the rightmost space."""
    used: list[str]
    drafted: list[str]
    discarded: list[str]
    acquired: int
    """Action tiles ever owned (12 starting + drafted)."""
    scholars: int
    servants: int
    proxies: int
    """Replacement markers in play when the 25 servants ran out ("any suitable replacement")."""
    unpublished: list[str]
    published: list[str]
    assistants: list[str]
    cities: list[str]
    fair: int
    spirits_tiles: int
    society_visited: bool
    refreshed: bool
    income_used: list[str]
    talent: str | None = None
    degree: int = 0
    """Imperial Degree: 0 none, 1 Juren, 2 Gongshi."""


class Config(msgspec.Struct, kw_only=True):
    """The resolved setup of the game (chapter preset and free-configuration options)."""

    exam: bool = False
    """Society side B: the Imperial Exam."""
    artisans: bool = False
    """Travel side B: Traveling Artisans."""
    charm: bool = False
    """Parlour side B: Charming Scholar."""
    talents: str = "none"
    advanced_tiles: bool = False
    mixed_ages: bool = False
    pointer: str = "A"
    upkeep: str = "A"
    overlay: str = "A"
    vassals: bool = False
    variant: bool = False
    bot: int = -1
    """The solo Bot's colour (index into ``State.p``), -1 without a Bot."""
    difficulty: str = "easy"


class Boat(msgspec.Struct, kw_only=True):
    trends: list[str] = []
    """[left, right] Scoring Trend Tiles."""
    goal: str | None = None
    spaces: list[list[int]] = []
    """[seat, count] per space, index 0 = the rightmost space (placed earliest); seat -1 = empty."""


class Frame(msgspec.Struct, kw_only=True):
    """One pending step: a decision for ``seat`` (or an automatic step)."""

    kind: str
    seat: int = -1
    arg: str = ""
    n: int = 0


class State(msgspec.Struct, kw_only=True, omit_defaults=True):
    # The fields of rules version jiangnan-1 are required (always encoded); the later ones have
    # defaults and are omitted when unused, so a Chapter 1 state encodes exactly as before.
    players: int
    table: TableState | UnsetType = UNSET
    """The table around the game: clocks, replaced seats, take-backs (``domain.kernel.table``);
    UNSET until the first table event, so a state without one encodes as it always did."""
    chapter: int
    districts: list[str]
    round: int
    phase: str
    order: list[int]
    next_order: list[int]
    turn_pos: int
    income_pos: int
    draft_queue: list[int]
    mandatory: list[int]
    p: list[Player]
    tracks: dict[str, list[int]]
    """Scholar Tracks (and "rest"): seats in placement order (first = the rightmost space)."""
    offer: list[str]
    display: list[str]
    stack: list[str]
    bottom: list[list[str]]
    portfolio_age: int
    age2_formed: bool
    displays: dict[str, list[list[int | str]]]
    display_supply: dict[str, int]
    shops: list[str]
    pointer: int
    travel: dict[str, str]
    muse_stack: list[str]
    muses: list[str | None]
    muse_servants: dict[str, list[int]]
    upkeep_tiles: list[str]
    boats: list[Boat]
    river: list[int]
    """Boat id at each river position below the districts (-1 = none)."""
    upkeep_boat: int
    goals: list[str]
    """Scoring Goal column; the bottom tile is the last."""
    trend_track: list[str]
    spirits_supply: int
    steps: list[Frame]
    final: list[dict[str, int]]
    finished: bool
    config: Config | None = None
    """The resolved setup; None for a plain Chapter 1 game of 3-4 players."""
    talent_offer: list[str] = []
    charm: str | None = None
    charm_column: list[str] = []
    """Charm Tiles still to come; the bottom one (the last) comes into play next."""
    tile_pool: list[str] = []
    """Mixed Ages Drafting: the silver or gold draw bag of Action Tiles for the Upkeep board."""
    rules_version: str = UNRECORDED
    """The rules version the game was set up under (``GameSetUp.rules_version``); the rules changed since
    read it (``table.since``), so a game finishes under the rules it started with."""

    @property
    def cfg(self) -> Config:
        return self.config if self.config is not None else _PLAIN


_PLAIN = Config()


def new_player(
    *,
    coins: int = 3,
    spirit: int = 4,
    ideas: dict[str, int] | None = None,
    bag: list[str] | None = None,
    acquired: int = 12,
    fair: int = 0,
) -> Player:
    """A Player with the jiangnan-1 defaults."""
    return Player(
        coins=coins,
        vp=0,
        spirit=spirit,
        ideas={} if ideas is None else ideas,
        bag=[] if bag is None else bag,
        track=[],
        used=[],
        drafted=[],
        discarded=[],
        acquired=acquired,
        scholars=3,
        servants=25,
        proxies=0,
        unpublished=[],
        published=[],
        assistants=[],
        cities=[],
        fair=fair,
        spirits_tiles=0,
        society_visited=False,
        refreshed=False,
        income_used=[],
    )


def new_state() -> State:
    """A State with the jiangnan-1 defaults."""
    return State(
        players=0,
        chapter=1,
        districts=[],
        round=0,
        phase="setup",
        order=[],
        next_order=[],
        turn_pos=0,
        income_pos=0,
        draft_queue=[],
        mandatory=[],
        p=[],
        tracks={},
        offer=[],
        display=[],
        stack=[],
        bottom=[],
        portfolio_age=1,
        age2_formed=False,
        displays={},
        display_supply={},
        shops=[],
        pointer=0,
        travel={},
        muse_stack=[],
        muses=[],
        muse_servants={},
        upkeep_tiles=[],
        boats=[],
        river=[],
        upkeep_boat=-1,
        goals=[],
        trend_track=[],
        spirits_supply=6,
        steps=[],
        final=[],
        finished=False,
    )

"""The table of a Jiangnan game (msgpack-encodable, mutated in place by ``evolve``)."""

from __future__ import annotations

import msgspec


class Player(msgspec.Struct, kw_only=True):
    coins: int = 3
    vp: int = 0
    spirit: int = 4
    ideas: dict[str, int] = {}
    bag: list[str] = []
    """Draw bag contents, kept sorted: the order is never stored (draws use the Rng)."""
    track: list[str] = []
    """Action Track, index 0 = the rightmost space."""
    used: list[str] = []
    drafted: list[str] = []
    discarded: list[str] = []
    acquired: int = 12
    """Action tiles ever owned (12 starting + drafted)."""
    scholars: int = 3
    servants: int = 25
    proxies: int = 0
    """Replacement markers in play when the 25 servants ran out ("any suitable replacement")."""
    unpublished: list[str] = []
    published: list[str] = []
    assistants: list[str] = []
    cities: list[str] = []
    fair: int = 0
    spirits_tiles: int = 0
    society_visited: bool = False
    refreshed: bool = False
    income_used: list[str] = []


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


class State(msgspec.Struct, kw_only=True):
    players: int = 0
    chapter: int = 1
    districts: list[str] = []
    round: int = 0
    phase: str = "setup"
    order: list[int] = []
    next_order: list[int] = []
    turn_pos: int = 0
    income_pos: int = 0
    draft_queue: list[int] = []
    mandatory: list[int] = []
    p: list[Player] = []
    tracks: dict[str, list[int]] = {}
    """Scholar Tracks (and "rest"): seats in placement order (first = the rightmost space)."""
    offer: list[str] = []
    display: list[str] = []
    stack: list[str] = []
    bottom: list[list[str]] = []
    portfolio_age: int = 1
    age2_formed: bool = False
    displays: dict[str, list[list[int | str]]] = {}
    display_supply: dict[str, int] = {}
    shops: list[str] = []
    pointer: int = 0
    travel: dict[str, str] = {}
    muse_stack: list[str] = []
    muses: list[str | None] = []
    muse_servants: dict[str, list[int]] = {}
    upkeep_tiles: list[str] = []
    boats: list[Boat] = []
    river: list[int] = []
    """Boat id at each river position below the districts (-1 = none)."""
    upkeep_boat: int = -1
    goals: list[str] = []
    """Scoring Goal column; the bottom tile is the last."""
    trend_track: list[str] = []
    spirits_supply: int = 6
    steps: list[Frame] = []
    final: list[dict[str, int]] = []
    finished: bool = False

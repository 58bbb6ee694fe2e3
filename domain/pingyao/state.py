"""Pingyao state: mutable, msgpack-encodable."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from domain.kernel.table import TableState

from .versions import UNRECORDED


class Die(msgspec.Struct, kw_only=True):
    owner: int
    large: bool
    value: int = 3
    where: str = "storage"
    """storage (round 1-2 third die) | number (number area) | space | rest | done"""
    action: str = ""
    rerolled: bool = False


class Region(msgspec.Struct, kw_only=True):
    tile: str = ""
    silver: int = 0
    tellers: int = 0
    """Branch tellers on the tile's teller positions."""
    managers: int = 0
    """Branch tellers on the region's management positions."""
    waiting: int = 0
    """An idle branch teller on a region without a branch (at most one)."""


class Card(msgspec.Struct, kw_only=True):
    card: str
    months: int
    deposit: str
    withdraw: str


class Player(msgspec.Struct, kw_only=True):
    copper: int = 0
    head_office: int = 0
    regions: dict[str, Region] = {}
    reputation: int = 0
    exchange: int = 0
    lending: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0])
    """Silver on the loan-time track positions 1, 2, 3."""
    deposit_area: int = 0
    deposit_marker: int = 0
    """0 = no deposit accepted; else months left."""
    cards: list[Card] = []
    yamen: list[str] = []
    bonuses: list[str] = []
    """One-time bonuses already taken (rep2, rep8, rep13, tier3_teller)."""
    used_round: list[str] = []
    """Once-per-round effects used this round (skills, any_value)."""
    ongoing: list[str] = []
    """Solo: event cards whose ongoing reward the player keeps."""


class Frame(msgspec.Struct, kw_only=True):
    """A pending sub-decision (nested decisions go to the front of the queue)."""

    kind: str
    seat: int
    region: str = ""
    """place_teller: "" = anywhere, else the new branch the waiting teller may move onto."""
    months: int = 0
    fee: bool = True
    skill: str = ""
    dest: str = ""
    card: str = ""
    cost: int = 0


class State(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The table.  Every field but ``rules_version`` is required (``new_state`` gives the empty
    table) and the struct omits defaults, so a ``pingyao-2`` game's state encodes exactly as it
    did before the version was recorded: the state digests in its records still verify."""

    players: int
    table: TableState | UnsetType = UNSET
    """The table around the game: clocks, replaced seats, take-backs (``domain.kernel.table``);
    UNSET until the first table event, so a state without one encodes as it always did."""
    crowdfunding: bool
    round: int
    phase: str
    """setup | draft | prep | action | resolution | end"""
    start_player: int
    dice: list[Die]
    pl: list[Player]
    acted: dict[str, list[int]]
    """Per die value, how many dice each seat has acted with this round (round-robin)."""
    forced_die: int
    """A rerolled die that must act at once."""
    frames: list[Frame]
    stacks: dict[str, list[str]]
    """Per tier, the face-down unknown part of the stack (drawn at random)."""
    bottoms: dict[str, list[str]]
    """Per tier, tiles returned to the bottom, in order (drawn after the unknown part)."""
    drawn: list[str]
    """Tiles drawn at Bank Escort, seen only by the drawer."""
    drawn_tier: int
    drawn_region: str
    deck: list[str]
    deck_bottom: list[str]
    discards: list[str]
    drawn_cards: list[str]
    yamen_supply: dict[str, int]
    supply_silver: int
    res_index: int
    res_stage: int
    res_owed: int
    due: list[str]
    due_locked: bool
    storyline: int
    """Solo: the storyline card chosen."""
    event_card: str
    """Solo: this round's event card."""
    events_seen: list[str]
    goal_met: bool
    round_actions: dict[str, int]
    """Solo: actions performed this round (round goals)."""
    rules_version: str = UNRECORDED
    """The rules version the game was set up under (``GameSetUp``); each rule changed since reads
    it (``versions.py``)."""


def new_state() -> State:
    """The empty table, before the setup events."""
    return State(
        players=0,
        crowdfunding=False,
        round=0,
        phase="setup",
        start_player=0,
        dice=[],
        pl=[],
        acted={},
        forced_die=-1,
        frames=[],
        stacks={},
        bottoms={},
        drawn=[],
        drawn_tier=0,
        drawn_region="",
        deck=[],
        deck_bottom=[],
        discards=[],
        drawn_cards=[],
        yamen_supply={},
        supply_silver=0,
        res_index=0,
        res_stage=0,
        res_owed=0,
        due=[],
        due_locked=False,
        storyline=0,
        event_card="",
        events_seen=[],
        goal_met=False,
        round_actions={},
    )

"""Pingyao state: mutable, msgpack-encodable."""

from __future__ import annotations

import msgspec


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


class State(msgspec.Struct, kw_only=True):
    players: int = 0
    crowdfunding: bool = False
    round: int = 0
    phase: str = "setup"
    """prep | action | resolution | end"""
    start_player: int = 0
    dice: list[Die] = []
    pl: list[Player] = []
    acted: dict[str, list[int]] = {}
    """Per die value, how many dice each seat has acted with this round (round-robin)."""
    forced_die: int = -1
    """A rerolled die that must act at once."""
    frames: list[Frame] = []
    stacks: dict[str, list[str]] = {}
    """Per tier, the face-down unknown part of the stack (drawn at random)."""
    bottoms: dict[str, list[str]] = {}
    """Per tier, tiles returned to the bottom, in order (drawn after the unknown part)."""
    drawn: list[str] = []
    """Tiles drawn at Bank Escort, seen only by the drawer."""
    drawn_tier: int = 0
    drawn_region: str = ""
    deck: list[str] = []
    deck_bottom: list[str] = []
    discards: list[str] = []
    drawn_cards: list[str] = []
    yamen_supply: dict[str, int] = {}
    supply_silver: int = 0
    res_index: int = 0
    res_stage: int = 0
    res_owed: int = 0
    due: list[str] = []
    due_locked: bool = False
    storyline: int = 0
    """Solo: the storyline card chosen."""
    event_card: str = ""
    """Solo: this round's event card."""
    events_seen: list[str] = []
    goal_met: bool = False
    round_actions: dict[str, int] = {}
    """Solo: actions performed this round (round goals)."""

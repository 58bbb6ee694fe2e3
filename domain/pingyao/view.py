"""What a seat (or a spectator) may see: everything but the stacks' order, the exchange deck and
another seat's drawn tiles/cards.  The view has its own Structs, copied from the state, so that an
internal change of the state never changes the public contract."""

from __future__ import annotations

import msgspec

from domain.kernel import View

from . import board as B
from .state import Die, Frame, Player, Region, State
from .turn import to_act


class PingyaoDieView(msgspec.Struct, kw_only=True):
    """A teller die (ids ``seat*3 + k``, ``k = 0`` the large four-sided die; public dice ``owner = -1``)."""

    owner: int
    large: bool
    value: int = 3
    where: str = "storage"
    """storage | number (number area) | hand (rerolled, acting now) | space | rest | done | pool |
    draft | out"""
    action: str = ""
    rerolled: bool = False


class PingyaoRegionView(msgspec.Struct, kw_only=True):
    """One of the nine regions of a player board and its branch."""

    tile: str = ""
    silver: int = 0
    tellers: int = 0
    """Branch tellers on the tile's teller positions."""
    managers: int = 0
    """Branch tellers on the region's management positions."""
    waiting: int = 0
    """An idle branch teller on a region without a branch (at most one)."""


class PingyaoExchangeView(msgspec.Struct, kw_only=True):
    """An exchange card on the exchange-time track."""

    card: str
    months: int
    deposit: str
    withdraw: str


class PingyaoPlayerView(msgspec.Struct, kw_only=True):
    """A player's board and tracks."""

    copper: int = 0
    head_office: int = 0
    regions: dict[str, PingyaoRegionView] = {}
    reputation: int = 0
    exchange: int = 0
    lending: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0])
    """Silver on the loan-time track positions 1, 2, 3."""
    deposit_area: int = 0
    deposit_marker: int = 0
    """0 = no deposit accepted; else months left."""
    cards: list[PingyaoExchangeView] = []
    yamen: list[str] = []
    bonuses: list[str] = []
    """One-time bonuses already taken (rep2, rep8, rep13, tier3_teller)."""
    used_round: list[str] = []
    """Once-per-round effects used this round (skills, any_value)."""
    ongoing: list[str] = []
    """Solo: event cards whose ongoing reward the player keeps."""


class PingyaoPendingDecision(msgspec.Struct, kw_only=True):
    """The sub-decision being answered now (`kind` and the seat; the other fields as it needs)."""

    kind: str
    seat: int
    region: str = ""
    months: int = 0
    fee: bool = True
    skill: str = ""
    dest: str = ""
    card: str = ""
    cost: int = 0


class PingyaoView(View, tag="pingyao", kw_only=True):
    players: int
    round: int
    phase: str
    start_player: int
    to_act: list[int]
    dice: list[PingyaoDieView]
    boards: list[PingyaoPlayerView]
    pending: PingyaoPendingDecision | None
    stack_counts: dict[str, int]
    deck_count: int
    discards: list[str]
    yamen_supply: dict[str, int]
    drawn_tiles: list[str]
    """The tiles drawn at Bank Escort: only for the drawer."""
    drawn_count: int
    drawn_cards: list[str]
    drawn_cards_count: int
    supply_silver: int
    storyline: int = 0
    """Solo: the storyline card."""
    event_card: str = ""
    """Solo: this round's event card."""
    events_seen: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default
    goal_met: bool = False
    round_actions: dict[str, int] = {}  # noqa: RUF012 - msgspec copies a mutable default


def _die(d: Die) -> PingyaoDieView:
    return PingyaoDieView(
        owner=d.owner, large=d.large, value=d.value, where=d.where, action=d.action, rerolled=d.rerolled
    )


def _region(r: Region) -> PingyaoRegionView:
    return PingyaoRegionView(
        tile=r.tile, silver=r.silver, tellers=r.tellers, managers=r.managers, waiting=r.waiting
    )


def _player(p: Player) -> PingyaoPlayerView:
    return PingyaoPlayerView(
        copper=p.copper,
        head_office=p.head_office,
        regions={k: _region(r) for k, r in p.regions.items()},
        reputation=p.reputation,
        exchange=p.exchange,
        lending=list(p.lending),
        deposit_area=p.deposit_area,
        deposit_marker=p.deposit_marker,
        cards=[
            PingyaoExchangeView(card=c.card, months=c.months, deposit=c.deposit, withdraw=c.withdraw)
            for c in p.cards
        ],
        yamen=list(p.yamen),
        bonuses=list(p.bonuses),
        used_round=list(p.used_round),
        ongoing=list(p.ongoing),
    )


def _pending(f: Frame) -> PingyaoPendingDecision:
    return PingyaoPendingDecision(
        kind=f.kind,
        seat=f.seat,
        region=f.region,
        months=f.months,
        fee=f.fee,
        skill=f.skill,
        dest=f.dest,
        card=f.card,
        cost=f.cost,
    )


def view(s: State, seat: int | None) -> PingyaoView:
    drawer = s.frames[0].seat if s.frames else None
    mine = seat is not None and seat == drawer
    return PingyaoView(
        players=s.players,
        round=s.round,
        phase=s.phase,
        start_player=s.start_player,
        to_act=to_act(s),
        dice=[_die(d) for d in s.dice],
        boards=[_player(p) for p in s.pl],
        pending=_pending(s.frames[0]) if s.frames else None,
        stack_counts={t: B.tiles_left(s, int(t)) for t in s.stacks},
        deck_count=len(s.deck) + len(s.deck_bottom),
        discards=list(s.discards),
        yamen_supply=dict(s.yamen_supply),
        drawn_tiles=list(s.drawn) if mine or s.phase == "end" else [],
        drawn_count=len(s.drawn),
        drawn_cards=list(s.drawn_cards) if mine or len(s.drawn_cards) == 1 else [],
        drawn_cards_count=len(s.drawn_cards),
        supply_silver=s.supply_silver,
        storyline=s.storyline,
        event_card=s.event_card,
        events_seen=list(s.events_seen),
        goal_met=s.goal_met,
        round_actions=dict(s.round_actions),
    )

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


def _die(die: Die) -> PingyaoDieView:
    return PingyaoDieView(
        owner=die.owner,
        large=die.large,
        value=die.value,
        where=die.where,
        action=die.action,
        rerolled=die.rerolled,
    )


def _region(region: Region) -> PingyaoRegionView:
    return PingyaoRegionView(
        tile=region.tile,
        silver=region.silver,
        tellers=region.tellers,
        managers=region.managers,
        waiting=region.waiting,
    )


def _player(player: Player) -> PingyaoPlayerView:
    return PingyaoPlayerView(
        copper=player.copper,
        head_office=player.head_office,
        regions={k: _region(r) for k, r in player.regions.items()},
        reputation=player.reputation,
        exchange=player.exchange,
        lending=list(player.lending),
        deposit_area=player.deposit_area,
        deposit_marker=player.deposit_marker,
        cards=[
            PingyaoExchangeView(card=c.card, months=c.months, deposit=c.deposit, withdraw=c.withdraw)
            for c in player.cards
        ],
        yamen=list(player.yamen),
        bonuses=list(player.bonuses),
        used_round=list(player.used_round),
        ongoing=list(player.ongoing),
    )


def _pending(frame: Frame) -> PingyaoPendingDecision:
    return PingyaoPendingDecision(
        kind=frame.kind,
        seat=frame.seat,
        region=frame.region,
        months=frame.months,
        fee=frame.fee,
        skill=frame.skill,
        dest=frame.dest,
        card=frame.card,
        cost=frame.cost,
    )


def view(state: State, seat: int | None) -> PingyaoView:
    drawer = state.frames[0].seat if state.frames else None
    mine = seat is not None and seat == drawer
    return PingyaoView(
        players=state.players,
        round=state.round,
        phase=state.phase,
        start_player=state.start_player,
        to_act=to_act(state),
        dice=[_die(d) for d in state.dice],
        boards=[_player(p) for p in state.pl],
        pending=_pending(state.frames[0]) if state.frames else None,
        stack_counts={t: B.tiles_left(state, int(t)) for t in state.stacks},
        deck_count=len(state.deck) + len(state.deck_bottom),
        discards=list(state.discards),
        yamen_supply=dict(state.yamen_supply),
        drawn_tiles=list(state.drawn) if mine or state.phase == "end" else [],
        drawn_count=len(state.drawn),
        drawn_cards=list(state.drawn_cards) if mine or len(state.drawn_cards) == 1 else [],
        drawn_cards_count=len(state.drawn_cards),
        supply_silver=state.supply_silver,
        storyline=state.storyline,
        event_card=state.event_card,
        events_seen=list(state.events_seen),
        goal_met=state.goal_met,
        round_actions=dict(state.round_actions),
    )

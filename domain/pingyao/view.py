"""What a seat (or a spectator) may see: everything but the stacks' order, the exchange deck and
another seat's drawn tiles/cards."""

from __future__ import annotations

import msgspec

from domain.kernel import View

from . import board as B
from .rules import to_act
from .state import Die, Frame, Player, State


class PingyaoView(View, tag="pingyao", kw_only=True):
    players: int
    round: int
    phase: str
    start_player: int
    to_act: list[int]
    dice: list[Die]
    boards: list[Player]
    pending: Frame | None
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
    events_seen: list[str] = []
    goal_met: bool = False
    round_actions: dict[str, int] = {}


def view(s: State, seat: int | None) -> PingyaoView:
    drawer = s.frames[0].seat if s.frames else None
    mine = seat is not None and seat == drawer
    return PingyaoView(
        players=s.players,
        round=s.round,
        phase=s.phase,
        start_player=s.start_player,
        to_act=to_act(s),
        dice=[msgspec.structs.replace(d) for d in s.dice],
        boards=msgspec.convert(msgspec.to_builtins(s.pl), list[Player]),
        pending=s.frames[0] if s.frames else None,
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

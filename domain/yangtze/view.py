"""What one seat (or a spectator) may see (OpenSpiel's observer: apart from the state).

``YangtzeView`` is the public contract: a Struct of its own holding plain values copied out of
the state, so a change inside the state never changes what clients receive.  Hidden: the bag's
contents (only its count) and the goods behind the other screens never shown on the table.
"""

from __future__ import annotations

import msgspec

from domain.kernel import Seat, View

from . import components as C
from .state import State, rules_of
from .turn import to_act


class YangtzeView(View, tag="yangtze", kw_only=True):
    rules_version: str
    """The rules the game is played under (docs/rules-versions.md)."""
    players: int
    seat: int | None
    phase: str
    stage: str
    active: int
    to_act: list[int]
    river: list[int | None]
    prices: list[int]
    bag_count: int
    rulers: list[int]
    """Ruler tokens placed so far, in spot order (see components: reigns, rulers)."""
    ruler_queue: list[int]
    ruler_current: int | None
    track: list[int]
    coins: list[int]
    cards: list[list[str]]
    liquidity_used: list[list[int]]
    branches: list[list[int]]
    screen_counts: list[int]
    known_goods: list[list[int]]
    """The goods behind each screen this viewer knows: all of its own, the purchased (public)
    ones of the others; everything once the game is over."""
    box: list[int]
    removed_branches: list[int]
    auction_token: int | None
    auction_in: list[int]
    auction_turn: int | None
    high_bid: int
    high_bidder: int | None
    window: int | None
    idle: int
    final_reason: str = ""
    final_bundles: list[list[list[int]]] = msgspec.field(default_factory=list)
    final_breakdown: list[dict[str, int]] = msgspec.field(default_factory=list)
    final_totals: list[int] = msgspec.field(default_factory=list)


def view(state: State, seat: Seat | None) -> YangtzeView:
    over = state.phase == "over"
    known = []
    for other in range(state.players):
        if over or other == seat:
            known.append(sorted(state.screens[other]))
        else:
            known.append(sorted(state.public[other]))
    return YangtzeView(
        rules_version=rules_of(state),
        players=state.players,
        seat=seat,
        phase=state.phase,
        stage=state.stage,
        active=state.active,
        to_act=to_act(state),
        river=list(state.river),
        prices=list(C.PRICES),
        bag_count=len(state.bag),
        rulers=list(state.rulers),
        ruler_queue=list(state.ruler_queue),
        ruler_current=state.ruler_current,
        track=list(state.track),
        coins=list(state.coins),
        cards=[list(c) for c in state.cards],
        liquidity_used=[list(c) for c in state.liquidity_used],
        branches=[list(b) for b in state.branches],
        screen_counts=[len(x) for x in state.screens],
        known_goods=known,
        box=list(state.box),
        removed_branches=list(state.removed_branches),
        auction_token=state.auction_token,
        auction_in=list(state.auction_in),
        auction_turn=state.auction_turn,
        high_bid=state.high_bid,
        high_bidder=state.high_bidder,
        window=state.window,
        idle=state.idle,
        final_reason=state.final_reason,
        final_bundles=[[list(b) for b in x] for x in state.final_bundles],
        final_breakdown=[dict(b) for b in state.final_breakdown],
        final_totals=list(state.final_totals),
    )

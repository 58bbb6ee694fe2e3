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
    s = state
    over = s.phase == "over"
    known = []
    for other in range(s.players):
        if over or other == seat:
            known.append(sorted(s.screens[other]))
        else:
            known.append(sorted(s.public[other]))
    return YangtzeView(
        rules_version=rules_of(s),
        players=s.players,
        seat=seat,
        phase=s.phase,
        stage=s.stage,
        active=s.active,
        to_act=to_act(s),
        river=list(s.river),
        prices=list(C.PRICES),
        bag_count=len(s.bag),
        rulers=list(s.rulers),
        ruler_queue=list(s.ruler_queue),
        ruler_current=s.ruler_current,
        track=list(s.track),
        coins=list(s.coins),
        cards=[list(c) for c in s.cards],
        liquidity_used=[list(c) for c in s.liquidity_used],
        branches=[list(b) for b in s.branches],
        screen_counts=[len(x) for x in s.screens],
        known_goods=known,
        box=list(s.box),
        removed_branches=list(s.removed_branches),
        auction_token=s.auction_token,
        auction_in=list(s.auction_in),
        auction_turn=s.auction_turn,
        high_bid=s.high_bid,
        high_bidder=s.high_bidder,
        window=s.window,
        idle=s.idle,
        final_reason=s.final_reason,
        final_bundles=[[list(b) for b in x] for x in s.final_bundles],
        final_breakdown=[dict(b) for b in s.final_breakdown],
        final_totals=list(s.final_totals),
    )

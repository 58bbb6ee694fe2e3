"""What a seat (or a spectator) may see: everything on the boards and player boards; a draw
bag's contents only to its owner (never an order: none is stored); stacks only as counts."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.kernel import View

from .state import State


class JiangnanView(View, tag="jiangnan", kw_only=True):
    players: int
    round: int
    phase: str
    order: list[int]
    next_order: list[int]
    to_act: list[int]
    step: dict[str, Any] | None
    you: int | None
    player_boards: list[dict[str, Any]]
    board: dict[str, Any]
    finished: bool


def view(state: State, seat: int | None) -> JiangnanView:
    from .rules import pointed

    s = state
    boards = []
    for i, p in enumerate(s.p):
        d = msgspec.to_builtins(p)
        d["bag_count"] = len(p.bag)
        d["bag"] = sorted(p.bag) if (seat == i or s.finished) else None
        boards.append(d)
    board = {
        "districts": list(s.districts),
        "scholar_tracks": {k: list(v) for k, v in s.tracks.items()},
        "portfolio_offer": list(s.offer),
        "portfolio_display": list(s.display),
        "portfolio_stack_count": len(s.stack) + sum(len(b) for b in s.bottom),
        "portfolio_age": s.portfolio_age,
        "display_tracks": msgspec.to_builtins(s.displays),
        "display_supply": dict(s.display_supply),
        "shops": list(s.shops),
        "pointer": s.pointer,
        "travel_tiles": dict(s.travel),
        "muses": list(s.muses),
        "muse_servants": {k: list(v) for k, v in s.muse_servants.items()},
        "muse_stack_count": len(s.muse_stack),
        "upkeep_tiles": list(s.upkeep_tiles),
        "boats": msgspec.to_builtins(s.boats),
        "river": list(s.river),
        "upkeep_boat": s.upkeep_boat,
        "goal_column": list(s.goals),
        "trend_track": list(s.trend_track),
        "spirits_supply": s.spirits_supply,
        "draft_queue": list(s.draft_queue),
        "final": [dict(b) for b in s.final],
        "config": msgspec.to_builtins(s.cfg),
        "talent_offer": list(s.talent_offer),
        "charm": s.charm,
        "charm_column": list(s.charm_column),
        "pointed_shops": [s.shops[i] for i in pointed(s)] if s.shops else [],
        "bot": s.cfg.bot if s.cfg.bot >= 0 else None,
        "vassals": {seat: seat + s.players for seat in range(s.players)} if s.cfg.vassals else {},
    }
    from .rules import to_act

    return JiangnanView(
        players=s.players, round=s.round, phase=s.phase, order=list(s.order), next_order=list(s.next_order),
        to_act=to_act(s), step=msgspec.to_builtins(s.steps[-1]) if s.steps else None, you=seat,
        player_boards=boards, board=board, finished=s.finished,
    )

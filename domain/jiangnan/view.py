"""What a seat (or a spectator) may see: everything on the boards and player boards; a draw
bag's contents only to its owner (never an order: none is stored); stacks only as counts.

The view has its own Structs, copied from the state field by field, so that the state can change
shape without changing the public contract.
"""

from __future__ import annotations

import msgspec

from domain.kernel import View

from .state import Boat, Config, Frame, Player, State
from .table import pointed, to_act


class JiangnanPlayerView(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One colour's player board (seats, then vassal colours or the Bot)."""

    coins: int
    vp: int
    spirit: int
    ideas: dict[str, int]
    bag: list[str] | None
    """The draw bag's contents, sorted: to its owner (everybody once the game is over), else null."""
    track: list[str]
    """Action Track, index 0 = the rightmost space."""
    used: list[str]
    drafted: list[str]
    discarded: list[str]
    acquired: int
    scholars: int
    servants: int
    proxies: int
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
    bag_count: int


class JiangnanStepView(msgspec.Struct, kw_only=True):
    """The pending decision: its kind, the seat to answer, its argument and repeat count."""

    kind: str
    seat: int
    arg: str
    n: int


class JiangnanBoatView(msgspec.Struct, kw_only=True):
    trends: list[str]
    """[left, right] Scoring Trend Tiles."""
    goal: str | None
    spaces: list[list[int]]
    """[colour, count] per space, index 0 = the rightmost space; colour -1 = empty."""


class JiangnanConfigView(msgspec.Struct, kw_only=True):
    """The resolved setup (chapter preset and free configuration)."""

    exam: bool
    artisans: bool
    charm: bool
    talents: str
    advanced_tiles: bool
    mixed_ages: bool
    pointer: str
    upkeep: str
    overlay: str
    vassals: bool
    variant: bool
    bot: int
    difficulty: str


class JiangnanBoardView(msgspec.Struct, kw_only=True):
    districts: list[str]
    scholar_tracks: dict[str, list[int]]
    portfolio_offer: list[str]
    portfolio_display: list[str]
    portfolio_stack_count: int
    portfolio_age: int
    display_tracks: dict[str, list[list[int | str]]]
    display_supply: dict[str, int]
    shops: list[str]
    pointer: int
    travel_tiles: dict[str, str]
    muses: list[str | None]
    muse_servants: dict[str, list[int]]
    muse_stack_count: int
    upkeep_tiles: list[str]
    boats: list[JiangnanBoatView]
    river: list[int]
    upkeep_boat: int
    goal_column: list[str]
    trend_track: list[str]
    spirits_supply: int
    draft_queue: list[int]
    final: list[dict[str, int]]
    config: JiangnanConfigView
    talent_offer: list[str]
    charm: str | None
    charm_column: list[str]
    pointed_shops: list[str]
    bot: int | None
    vassals: dict[int, int]
    """2 players: each seat's vassal colour."""


class JiangnanView(View, tag="jiangnan", kw_only=True):
    players: int
    round: int
    phase: str
    order: list[int]
    next_order: list[int]
    to_act: list[int]
    step: JiangnanStepView | None
    you: int | None
    player_boards: list[JiangnanPlayerView]
    board: JiangnanBoardView
    finished: bool
    rules_version: str
    """The rules the game is played under (the version it was set up under)."""


def view(state: State, seat: int | None) -> JiangnanView:
    s = state
    return JiangnanView(
        players=s.players,
        round=s.round,
        phase=s.phase,
        order=list(s.order),
        next_order=list(s.next_order),
        to_act=to_act(s),
        step=_step(s.steps[-1]) if s.steps else None,
        you=seat,
        player_boards=[_player(p, seat == i or s.finished) for i, p in enumerate(s.p)],
        board=_board(s),
        finished=s.finished,
        rules_version=s.rules_version,
    )


def _player(p: Player, open_bag: bool) -> JiangnanPlayerView:
    return JiangnanPlayerView(
        coins=p.coins,
        vp=p.vp,
        spirit=p.spirit,
        ideas=dict(p.ideas),
        bag=sorted(p.bag) if open_bag else None,
        track=list(p.track),
        used=list(p.used),
        drafted=list(p.drafted),
        discarded=list(p.discarded),
        acquired=p.acquired,
        scholars=p.scholars,
        servants=p.servants,
        proxies=p.proxies,
        unpublished=list(p.unpublished),
        published=list(p.published),
        assistants=list(p.assistants),
        cities=list(p.cities),
        fair=p.fair,
        spirits_tiles=p.spirits_tiles,
        society_visited=p.society_visited,
        refreshed=p.refreshed,
        income_used=list(p.income_used),
        talent=p.talent,
        degree=p.degree,
        bag_count=len(p.bag),
    )


def _step(f: Frame) -> JiangnanStepView:
    return JiangnanStepView(kind=f.kind, seat=f.seat, arg=f.arg, n=f.n)


def _boat(b: Boat) -> JiangnanBoatView:
    return JiangnanBoatView(trends=list(b.trends), goal=b.goal, spaces=[list(sp) for sp in b.spaces])


def _config(cfg: Config) -> JiangnanConfigView:
    return JiangnanConfigView(
        exam=cfg.exam,
        artisans=cfg.artisans,
        charm=cfg.charm,
        talents=cfg.talents,
        advanced_tiles=cfg.advanced_tiles,
        mixed_ages=cfg.mixed_ages,
        pointer=cfg.pointer,
        upkeep=cfg.upkeep,
        overlay=cfg.overlay,
        vassals=cfg.vassals,
        variant=cfg.variant,
        bot=cfg.bot,
        difficulty=cfg.difficulty,
    )


def _board(s: State) -> JiangnanBoardView:
    cfg = s.cfg
    return JiangnanBoardView(
        districts=list(s.districts),
        scholar_tracks={k: list(v) for k, v in s.tracks.items()},
        portfolio_offer=list(s.offer),
        portfolio_display=list(s.display),
        portfolio_stack_count=len(s.stack) + sum(len(b) for b in s.bottom),
        portfolio_age=s.portfolio_age,
        display_tracks={d: [list(tile) for tile in track] for d, track in s.displays.items()},
        display_supply=dict(s.display_supply),
        shops=list(s.shops),
        pointer=s.pointer,
        travel_tiles=dict(s.travel),
        muses=list(s.muses),
        muse_servants={k: list(v) for k, v in s.muse_servants.items()},
        muse_stack_count=len(s.muse_stack),
        upkeep_tiles=list(s.upkeep_tiles),
        boats=[_boat(b) for b in s.boats],
        river=list(s.river),
        upkeep_boat=s.upkeep_boat,
        goal_column=list(s.goals),
        trend_track=list(s.trend_track),
        spirits_supply=s.spirits_supply,
        draft_queue=list(s.draft_queue),
        final=[dict(b) for b in s.final],
        config=_config(cfg),
        talent_offer=list(s.talent_offer),
        charm=s.charm,
        charm_column=list(s.charm_column),
        pointed_shops=[s.shops[i] for i in pointed(s)] if s.shops else [],
        bot=cfg.bot if cfg.bot >= 0 else None,
        vassals={seat: seat + s.players for seat in range(s.players)} if cfg.vassals else {},
    )

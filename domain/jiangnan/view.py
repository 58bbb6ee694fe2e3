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
    return JiangnanView(
        players=state.players,
        round=state.round,
        phase=state.phase,
        order=list(state.order),
        next_order=list(state.next_order),
        to_act=to_act(state),
        step=_step(state.steps[-1]) if state.steps else None,
        you=seat,
        player_boards=[_player(p, seat == i or state.finished) for i, p in enumerate(state.p)],
        board=_board(state),
        finished=state.finished,
        rules_version=state.rules_version,
    )


def _player(player: Player, open_bag: bool) -> JiangnanPlayerView:
    return JiangnanPlayerView(
        coins=player.coins,
        vp=player.vp,
        spirit=player.spirit,
        ideas=dict(player.ideas),
        bag=sorted(player.bag) if open_bag else None,
        track=list(player.track),
        used=list(player.used),
        drafted=list(player.drafted),
        discarded=list(player.discarded),
        acquired=player.acquired,
        scholars=player.scholars,
        servants=player.servants,
        proxies=player.proxies,
        unpublished=list(player.unpublished),
        published=list(player.published),
        assistants=list(player.assistants),
        cities=list(player.cities),
        fair=player.fair,
        spirits_tiles=player.spirits_tiles,
        society_visited=player.society_visited,
        refreshed=player.refreshed,
        income_used=list(player.income_used),
        talent=player.talent,
        degree=player.degree,
        bag_count=len(player.bag),
    )


def _step(frame: Frame) -> JiangnanStepView:
    return JiangnanStepView(kind=frame.kind, seat=frame.seat, arg=frame.arg, n=frame.n)


def _boat(boat: Boat) -> JiangnanBoatView:
    return JiangnanBoatView(trends=list(boat.trends), goal=boat.goal, spaces=[list(sp) for sp in boat.spaces])


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


def _board(state: State) -> JiangnanBoardView:
    cfg = state.cfg
    return JiangnanBoardView(
        districts=list(state.districts),
        scholar_tracks={k: list(v) for k, v in state.tracks.items()},
        portfolio_offer=list(state.offer),
        portfolio_display=list(state.display),
        portfolio_stack_count=len(state.stack) + sum(len(b) for b in state.bottom),
        portfolio_age=state.portfolio_age,
        display_tracks={d: [list(tile) for tile in track] for d, track in state.displays.items()},
        display_supply=dict(state.display_supply),
        shops=list(state.shops),
        pointer=state.pointer,
        travel_tiles=dict(state.travel),
        muses=list(state.muses),
        muse_servants={k: list(v) for k, v in state.muse_servants.items()},
        muse_stack_count=len(state.muse_stack),
        upkeep_tiles=list(state.upkeep_tiles),
        boats=[_boat(b) for b in state.boats],
        river=list(state.river),
        upkeep_boat=state.upkeep_boat,
        goal_column=list(state.goals),
        trend_track=list(state.trend_track),
        spirits_supply=state.spirits_supply,
        draft_queue=list(state.draft_queue),
        final=[dict(b) for b in state.final],
        config=_config(cfg),
        talent_offer=list(state.talent_offer),
        charm=state.charm,
        charm_column=list(state.charm_column),
        pointed_shops=[state.shops[i] for i in pointed(state)] if state.shops else [],
        bot=cfg.bot if cfg.bot >= 0 else None,
        vassals={seat: seat + state.players for seat in range(state.players)} if cfg.vassals else {},
    )

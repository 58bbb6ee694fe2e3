"""Game Setup: the table (steps 1-9), the players (10-14, not printed: see docs), the chapter's
Additional Rules, the Solo Bot; then the starting Portfolios and the Talent draft."""

from __future__ import annotations

from typing import Any

from domain.kernel import Rng
from domain.kernel.decision import Decision, Refusal

from . import components as C
from .commands import ChooseStartingPortfolio, ChooseTalent
from .events import (
    Configured,
    DegreeEarned,
    DisplayFormed,
    GameSetUp,
    MusesFormed,
    PhaseBegan,
    PortfolioPublished,
    PortfolioRevealed,
    PortfolioTaken,
    StartingPortfolioChosen,
    TalentChosen,
)
from .options import JiangnanOptions, resolve
from .play import Play, draw_tile, refusal
from .state import RULES_VERSION, Config, Frame, State, new_state


def initial(options: JiangnanOptions) -> State:
    """The empty table before Game Setup."""
    return new_state()


def opening(options: JiangnanOptions, rng: Rng, rules_version: str = RULES_VERSION) -> Play:
    """Game Setup: District Boards (1), Portfolio Tiles 4 + N revealed (2), Display Tiles 3 + 3 (3),
    Shop Tiles and Pointer (4), Travel Tiles (5), Muse stack and 4 Muses (6), Upkeep Board Action
    Tiles 6/9/12 (7), River Boards, Scoring Goal Tiles and Boat trends (9a-c); the players (10-14);
    the chapter's Additional Rules (Game Chapters) and the Solo Bot setup.  *rules_version* (the
    current one, or an earlier one to re-create an old game's opening) is recorded in ``GameSetUp``."""
    r = resolve(options, rules_version)
    n = options.players
    # Random sides are drawn first (never in a printed chapter 1-5 setup).
    upkeep = r["upkeep"] if r["upkeep"] != "random" else "AB"[rng.below(2)]
    overlay = r["overlay"] if r["overlay"] != "random" else "AB"[rng.below(2)]
    pointer = r["pointer"] if r["pointer"] != "random" else "BC"[rng.below(2)]  # Chapter 6: random B/C
    advanced = r["action_tiles"] == "advanced"
    cfg = Config(
        exam=r["sides"]["exam"],
        artisans=r["sides"]["artisans"],
        charm=r["sides"]["charm"],
        talents=r["talents"],
        advanced_tiles=advanced,
        mixed_ages=r["mixed_ages"],
        pointer=pointer,
        upkeep=upkeep,
        overlay=overlay,
        vassals=n == 2,
        variant=options.variant,
        bot=1 if n == 1 else -1,
        difficulty=options.difficulty if n == 1 else "easy",
    )
    kinds = [k for k in C.IDEAS for _ in range(2)]
    rng.shuffle(kinds)
    if r["talents"] in ("advanced", "characters"):
        muse_pool: list[str] = []  # formed from the characters left after the talent draft
    elif r["talents"] == "four":
        muse_pool = list(C.MUSES_WITH_TALENTS)
    else:
        muse_pool = [f"B{k:02d}" for k in range(1, 17)]
    muses = rng.sample(muse_pool, C.MUSE_DISPLAY) if muse_pool else []
    if r["shops"] == "random":
        shops = [("AB"[rng.below(2)]) + str(k) for k in rng.shuffled(list(range(1, 7)))]
    else:
        shops = rng.shuffled(C.SHOPS_A if r["shops"] == "A" else C.SHOPS_B)
    travel = dict(zip(C.CITIES, rng.sample(sorted(C.TRAVEL_TILES), len(C.CITIES)), strict=True))
    count = (C.DRAFT_TILES if upkeep == "A" else C.DRAFT_TILES_B)[n]
    pool = C.tile_pool([1, 2] if cfg.mixed_ages else [1], advanced)
    upkeep_tiles = rng.sample(pool, min(count, len(pool)))
    scratch = Play(initial(options), rng)
    scratch.emit(
        GameSetUp(
            players=n,
            chapter=options.chapter,
            districts=list(r["districts"]),
            # assumed: round 1 turn order is seat order; solo: the human starts, then the Bot
            order=list(range(n + (1 if n == 1 else 0))),
            shops=shops,
            pointer=0,
            travel=travel,
            displays={"teahouse": kinds[:3], "tavern": kinds[3:]},
            muses=muses,
            muse_stack=sorted(m for m in muse_pool if m not in muses),
            upkeep_tiles=sorted(upkeep_tiles),
            goals=rng.sample(C.GOAL_POOLS[r["goals"]], 5),
            boat_trends=_boat_trends(rng),
            portfolio_stack=C.portfolios_of_age(1),
            rules_version=rules_version,
        )
    )
    if cfg != Config() or n not in (3, 4):  # a plain Chapter 1 game of 3-4 players encodes as jiangnan-1
        offer = (
            rng.sample(C.TALENT_POOLS[cfg.talents], 4 if cfg.talents == "four" else 4 + n)
            if cfg.talents != "none"
            else []
        )
        charms = rng.shuffled(list(C.CHARMS)) if cfg.charm else []
        rest = [t for t in pool if t not in upkeep_tiles] if cfg.mixed_ages else []
        scratch.emit(
            Configured(
                cfg=cfg,
                colours=2 * n if n == 2 else n + (1 if n == 1 else 0),  # vassal colours / the Bot
                talent_offer=sorted(offer),
                charm=charms[0] if charms else None,
                charm_column=charms[1:],
                tile_pool=sorted(rest),
            )
        )
    for seat in range(n):
        for _ in range(C.TRACK_SIZE):
            draw_tile(scratch, seat)
    for _ in range(4 + n):
        scratch.emit(PortfolioRevealed(portfolio=rng.choice(scratch.state.stack), to="offer"))
    if cfg.bot >= 0:  # Solo: a random starting Portfolio for the Bot, published at the start
        pid = rng.choice(scratch.state.stack)
        scratch.emit(
            PortfolioTaken(seat=cfg.bot, portfolio=pid, source="stack"),
            PortfolioPublished(seat=cfg.bot, portfolio=pid, where="start"),
        )
        degree = {"nightmare": 1, "inferno": 2}.get(cfg.difficulty, 0)  # an Imperial Degree Tile
        if degree:
            scratch.emit(DegreeEarned(seat=cfg.bot, degree=degree))
    scratch.emit(PhaseBegan(phase="start", round=0))
    return scratch


def _boat_trends(rng: Rng) -> list[list[str]]:
    """Setup 9c: 2 random trend tiles per boat, flipped so that no boat shows the same trend twice
    and no two boats show the same combination (a search over the flips; a new draw if none)."""
    while True:
        tiles = rng.sample(C.TREND_TILES, 2 * C.BOATS)
        faces = [rng.below(2) for _ in tiles]
        found = _flips(tiles, faces, [])
        if found is not None:
            return found


def _flips(tiles: list[Any], faces: list[int], shown: list[list[str]]) -> list[list[str]] | None:
    """The trends shown by the next boats, trying the drawn faces first (backtracking)."""
    boat = len(shown)
    if boat == C.BOATS:
        return shown
    a, b = tiles[2 * boat], tiles[2 * boat + 1]
    fa, fb = faces[2 * boat], faces[2 * boat + 1]
    for da, db in ((0, 0), (1, 0), (0, 1), (1, 1)):
        left, right = a[fa ^ da], b[fb ^ db]
        if left != right and {left, right} not in [set(pair) for pair in shown]:
            found = _flips(tiles, faces, [*shown, [left, right]])
            if found is not None:
                return found
    return None


# --- setup steps 13-14: starting Portfolios, then the Talent draft -----------------------------------
def phase_start(scratch: Play) -> None:
    """Each player keeps 1 of the 4 + N revealed Portfolios (assumed: in reverse turn order); then
    the Talent draft in reverse player order (Chapters 2-6); the advanced drafts form the Muse stack
    from the characters not taken as Talents; the rest of the offer becomes the Society display."""
    state = scratch.state
    for seat in reversed(state.order):
        if seat < state.players and not state.p[seat].unpublished:
            scratch.push("pick_start", seat)
            return
    if state.talent_offer:
        for seat in reversed(state.order):
            if seat < state.players and state.p[seat].talent is None:
                scratch.push("pick_talent", seat)
                return
    if state.cfg.talents in ("advanced", "characters") and not any(state.muses):
        taken = {p.talent for p in state.p if p.talent}
        pool = ["B" + t[1:] for t in C.TALENT_POOLS[state.cfg.talents] if t not in taken]
        muses = scratch.rng.sample(pool, C.MUSE_DISPLAY)
        scratch.emit(MusesFormed(muses=muses, muse_stack=sorted(m for m in pool if m not in muses)))
    scratch.emit(DisplayFormed(), PhaseBegan(phase="actions", round=1))


def _pick_start_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [ChooseStartingPortfolio(portfolio=pid) for pid in state.offer]


def _pick_start_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.portfolio in state.offer:
        return None
    return refusal("illegal_move", "choose one of the revealed starting Portfolio Tiles", "Game Setup")


def _pick_start_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(StartingPortfolioChosen(seat=seat, portfolio=cmd.portfolio))


def _pick_talent_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [ChooseTalent(talent=t) for t in state.talent_offer]


def _pick_talent_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.talent in state.talent_offer:
        return None
    return refusal("talent_not_available", "that Talent is not in the draft", "Talent Draft")


def _pick_talent_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(TalentChosen(seat=seat, talent=cmd.talent))


STEPS = {
    "pick_start": Decision(
        "Game Setup", (ChooseStartingPortfolio,), _pick_start_candidates, _pick_start_check, _pick_start_play
    ),
    "pick_talent": Decision(
        "Talent Draft", (ChooseTalent,), _pick_talent_candidates, _pick_talent_check, _pick_talent_play
    ),
}

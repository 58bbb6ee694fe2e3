"""Jiangnan rules: setup, the flow of a round, ``decide``, ``legal_moves`` and ``to_act``.

``decide`` validates a command against :func:`legal_moves` (the single source of what is
allowed), then plays it on a scratch copy (``Ctx``), emitting events and folding each one, and
runs the automatic steps (:func:`advance`) until somebody must decide again.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from typing import Annotated, Literal

from msgspec import Meta

from domain.kernel import GameOver, InvalidOptions, NotYourTurn, Options, Rng, RuleViolation, clone

from . import components as C
from .commands import *  # noqa: F403
from .events import *  # noqa: F403
from .evolve import evolve
from .state import Config, Frame, State, new_state


class JiangnanOptions(Options, frozen=True, kw_only=True):
    """Players 1 (solo against the Bot), 2 (with vassals), 3 or 4.  ``chapter`` (1-6) gives the
    printed setup; every other option left unset takes the chapter's value (free configuration)."""

    players: Annotated[int, Meta(ge=1, le=4, description="1 (solo against the Bot), 2 (with vassals), 3 or 4")] = 4
    chapter: Annotated[int, Meta(ge=1, le=6, description="Game Chapter 1-6: its printed setup")] = 1
    map: (
        Annotated[
            str,
            Meta(
                pattern="^[AB][1-3]-[AB][1-3]-[AB][1-3]$",
                description='District boards and sides in order, e.g. "A2-A3-B1" (side B of board 1/2/3: '
                "Imperial Exam / Traveling Artisans / Charming Scholar)",
            ),
        ]
        | None
    ) = None
    talents: Annotated[
        Literal["none", "four", "advanced", "characters"] | None,
        Meta(description="four (A01-A04), advanced (4+N of A01-A16), characters (4+N of A01-A20)"),
    ] = None
    action_tiles: Annotated[
        Literal["basic", "advanced"] | None, Meta(description="advanced: 6 Advanced Action Tiles added to each Age")
    ] = None
    mixed_ages: Annotated[bool | None, Meta(description="Mixed Ages Drafting (silver Ages 1+2, gold Ages 3+4)")] = None
    shops: Annotated[Literal["A", "B", "random"] | None, Meta(description="Shop Tile sides")] = None
    pointer: Annotated[
        Literal["A", "B", "C", "random"] | None, Meta(description="Special Action Pointer side (random: B or C)")
    ] = None
    goals: Annotated[Literal["A-F", "G-L", "A-L"] | None, Meta(description="Scoring Goal Tile pool")] = None
    upkeep: Annotated[Literal["A", "B", "random"] | None, Meta(description="Upkeep board side")] = None
    overlay: Annotated[Literal["A", "B", "random"] | None, Meta(description="Final Scoring Overlay side")] = None
    variant: Annotated[
        bool, Meta(description="2 players: the advanced variant (discard any Action Tile instead of the rightmost)")
    ] = False
    difficulty: Annotated[
        Literal["easy", "normal", "hard", "expert", "master", "nightmare", "inferno"],
        Meta(description="Solo Bot difficulty"),
    ] = "easy"


def resolve(options: JiangnanOptions) -> dict:
    """The chapter's setup with the free-configuration overrides, checked (rulebook constraints)."""
    if options.players not in (1, 2, 3, 4):
        raise InvalidOptions("Jiangnan is played by 1 to 4 players")
    if options.chapter not in C.CHAPTERS:
        raise InvalidOptions("chapter must be 1 to 6")
    out = C.chapter_setup(options.chapter)
    for key in ("map", "talents", "action_tiles", "mixed_ages", "shops", "pointer", "goals", "upkeep", "overlay"):
        value = getattr(options, key)
        if value is not None:
            out[key] = value
    for key, values in C.OPTION_VALUES.items():
        if out[key] not in values:
            raise InvalidOptions(f"{key} must be one of {', '.join(values)}")
    parts = out["map"].split("-") if isinstance(out["map"], str) else []
    if len(parts) != 3 or any(len(x) != 2 or x[0] not in "AB" for x in parts) or sorted(x[1] for x in parts) != ["1", "2", "3"]:
        raise InvalidOptions("map must name the 3 district boards with their sides, e.g. A2-A3-B1")
    out["districts"] = [d for x in parts for d in C.BOARD_DISTRICTS[x[1]]]
    out["sides"] = {C.BOARD_RULE[x[1]]: x[0] == "B" for x in parts}
    if options.variant and options.players != 2:
        raise InvalidOptions("the advanced variant is a 2-player rule")
    if options.difficulty not in C.DIFFICULTIES:
        raise InvalidOptions(f"difficulty must be one of {', '.join(C.DIFFICULTIES)}")
    if options.difficulty != "easy" and options.players != 1:
        raise InvalidOptions("difficulty levels are for the solo Bot")
    if out["talents"] == "four" and options.players > 4:  # pragma: no cover - 4 talents for up to 4 players
        raise InvalidOptions("the Four Great Talents are for up to 4 players")
    return out


class Ctx:
    """A scratch copy of the state that folds every emitted event."""

    __slots__ = ("s", "events", "rng")

    def __init__(self, state: State, rng: Rng) -> None:
        self.s = state
        self.events: list = []
        self.rng = rng

    def emit(self, *events) -> None:
        for event in events:
            self.events.append(event)
            evolve(self.s, event)

    def push(self, kind: str, seat: int, arg: str = "", n: int = 0) -> None:
        self.emit(StepBegan(step=Frame(kind=kind, seat=seat, arg=arg, n=n)))


def violation(code: str, message: str, rule: str) -> RuleViolation:
    return RuleViolation(code, message, rule=rule)


# --- setup ("Game Setup") ----------------------------------------------------------------------
def initial(options: JiangnanOptions) -> State:
    """The empty table before Game Setup."""
    return new_state()


def _boat_trends(rng: Rng) -> list[list[str]]:
    """Setup 9c: 2 random trend tiles per boat, flipped so that no boat shows the same trend twice
    and no two boats show the same combination."""
    while True:
        tiles = rng.sample(C.TREND_TILES, 2 * C.BOATS)
        faces = [rng.below(2) for _ in tiles]
        found: list[list[str]] = []

        def search(boat: int, used: list[frozenset]) -> bool:
            if boat == C.BOATS:
                return True
            a, b = tiles[2 * boat], tiles[2 * boat + 1]
            fa, fb = faces[2 * boat], faces[2 * boat + 1]
            for da, db in ((0, 0), (1, 0), (0, 1), (1, 1)):
                left, right = a[fa ^ da], b[fb ^ db]
                combo = frozenset((left, right))
                if left != right and combo not in used:
                    found.append([left, right])
                    if search(boat + 1, used + [combo]):
                        return True
                    found.pop()
            return False

        if search(0, []):
            return found


def setup(options: JiangnanOptions, rng: Rng) -> list:
    """Game Setup: District Boards (1), Portfolio Tiles 4 + N revealed (2), Display Tiles 3 + 3 (3),
    Shop Tiles and Pointer (4), Travel Tiles (5), Muse stack and 4 Muses (6), Upkeep Board Action
    Tiles 6/9/12 (7), River Boards, Scoring Goal Tiles and Boat trends (9a-c); player setup (10-14,
    not printed: see docs); the chapter's Additional Rules (Game Chapters) and Solo Bot setup."""
    r = resolve(options)
    n = options.players
    # Random sides are drawn first (never in a printed chapter 1-5 setup).
    upkeep = r["upkeep"] if r["upkeep"] != "random" else "AB"[rng.below(2)]
    overlay = r["overlay"] if r["overlay"] != "random" else "AB"[rng.below(2)]
    pointer = r["pointer"] if r["pointer"] != "random" else "BC"[rng.below(2)]  # Chapter 6: random B/C
    advanced = r["action_tiles"] == "advanced"
    cfg = Config(
        exam=r["sides"]["exam"], artisans=r["sides"]["artisans"], charm=r["sides"]["charm"], talents=r["talents"],
        advanced_tiles=advanced, mixed_ages=r["mixed_ages"], pointer=pointer, upkeep=upkeep, overlay=overlay,
        vassals=n == 2, variant=options.variant, bot=1 if n == 1 else -1,
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
    travel = dict(zip(C.CITIES, rng.sample(sorted(C.TRAVEL_TILES), len(C.CITIES))))
    count = (C.DRAFT_TILES if upkeep == "A" else C.DRAFT_TILES_B)[n]
    pool = C.tile_pool([1, 2] if cfg.mixed_ages else [1], advanced)
    upkeep_tiles = rng.sample(pool, min(count, len(pool)))
    c = Ctx(initial(options), rng)
    c.emit(GameSetUp(
        players=n,
        chapter=options.chapter,
        districts=list(r["districts"]),
        order=list(range(n + (1 if n == 1 else 0))),  # assumed: round 1 turn order is seat order; solo: the human starts
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
    ))
    if cfg != Config() or n not in (3, 4):
        offer = rng.sample(C.TALENT_POOLS[cfg.talents], 4 if cfg.talents == "four" else 4 + n) if cfg.talents != "none" else []
        charms = rng.shuffled(list(C.CHARMS)) if cfg.charm else []
        rest = [t for t in pool if t not in upkeep_tiles] if cfg.mixed_ages else []
        c.emit(Configured(cfg=cfg, colours=2 * n if n == 2 else n + (1 if n == 1 else 0), talent_offer=sorted(offer),
                          charm=charms[0] if charms else None, charm_column=charms[1:], tile_pool=sorted(rest)))
    for seat in range(n):
        for _ in range(C.TRACK_SIZE):
            draw_tile(c, seat)
    for _ in range(4 + n):
        c.emit(PortfolioRevealed(portfolio=rng.choice(c.s.stack), to="offer"))
    if cfg.bot >= 0:  # Solo: a random starting Portfolio for the Bot, published at the start
        pid = rng.choice(c.s.stack)
        c.emit(PortfolioTaken(seat=cfg.bot, portfolio=pid, source="stack"), PortfolioPublished(seat=cfg.bot, portfolio=pid, where="start"))
        degree = {"nightmare": 1, "inferno": 2}.get(cfg.difficulty, 0)
        if degree:
            c.emit(DegreeEarned(seat=cfg.bot, degree=degree))
    c.emit(PhaseBegan(phase="start", round=0))
    advance(c)
    return c.events


# --- small helpers -------------------------------------------------------------------------------
def draw_tile(c: Ctx, seat: int) -> None:
    """Player Turn 4, Replenish Action Tiles: draw 1 Action Tile at a time from the bag into the
    rightmost empty space (the tile is seen by its owner only: "The contents of your draw bag is
    hidden information")."""
    p = c.s.p[seat]
    if p.bag and len(p.track) < C.TRACK_SIZE:
        c.emit(ActionTileDrawn(seat=seat, tile=c.rng.choice(p.bag)))


def gain(c: Ctx, seat: int, tokens, why: str) -> None:
    """Gain (or pay, with negative counts) resources; Spirit Level Track: "It cannot go above 6 or
    below 0"."""
    if isinstance(tokens, dict):
        counts = dict(tokens)
    else:
        counts: dict[str, int] = {}
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
    p = c.s.p[seat]
    spirit = counts.get("spirit", 0)
    spirit = max(0, min(C.SPIRIT_MAX, p.spirit + spirit)) - p.spirit
    delta = dict(coins=counts.get("coin", 0), vp=counts.get("vp", 0), spirit=spirit, drama=counts.get("drama", 0),
                 novel=counts.get("novel", 0), painting=counts.get("painting", 0))
    if any(delta.values()):
        c.emit(ResourcesChanged(seat=seat, why=why, **delta))


def coins_in(tokens: list[str]) -> int:
    """Coins among Bonus Icons (Player Turn 2: the Discard Bonus may pay this turn's visit)."""
    return sum(1 for t in tokens if t == "coin")


def servants_on_display(s: State, district: str, seat: int) -> int:
    """Teahouse 1 / Tavern 3 / Upkeep 1d-1e: your Servants on the district's Display Track."""
    return sum(1 for _, owner in s.displays[district] if owner == seat)


def reachable_cities(s: State, seat: int) -> list[str]:
    """Travel: a city not travelled to before, next to Jinling or to a city travelled to."""
    mine = s.p[seat].cities
    return [city for city in C.CITIES if city not in mine and (C.CITY_PREVIOUS[city] is None or C.CITY_PREVIOUS[city] in mine)]


def affordable(s: State, seat: int) -> list[str]:
    """Publish a Portfolio i: unpublished Portfolios whose Ideas cost (of their type) you can pay."""
    p = s.p[seat]
    return [pid for pid in p.unpublished if p.ideas[C.PORTFOLIOS[pid]["type"]] >= C.PORTFOLIOS[pid]["cost"]]


def muses_shown(s: State) -> list[str]:
    """Parlour: the Muse Tiles on display (a hired Muse's space is refilled from the stack)."""
    return [m for m in s.muses if m is not None]


def river_boats(s: State) -> list[int]:
    """Boat Tiles on the Long River Boards (below the districts)."""
    return [b for b in s.river if b >= 0]


def stack_available(s: State) -> bool:
    """Society 5: a Portfolio can still be drawn (an exhausted Age 1 stack gives the Age 2 one)."""
    return bool(s.stack or s.bottom or (s.portfolio_age == 1 and not s.age2_formed))


def metric(s: State, seat: int, kind: str) -> int:
    """What a Scoring Trend / Scoring Goal counts for a player."""
    p = s.p[seat]
    if kind in ("drama", "novel", "painting"):
        # Imperial Degree: counts as 1 (Juren) or 2 (Gongshi) published Portfolios of each type.
        return sum(1 for pid in p.published if C.PORTFOLIOS[pid]["type"] == kind) + p.degree
    if kind == "gold":
        return p.coins // 5
    if kind == "assistant":
        return len(p.assistants)
    if kind == "scenery":
        return sum(C.CITY_SCENERY[city] for city in p.cities)
    if kind == "spirit":
        return p.spirit
    if kind == "most_type":
        return max(metric(s, seat, k) for k in ("drama", "novel", "painting"))
    if kind == "least_type":
        return min(metric(s, seat, k) for k in ("drama", "novel", "painting"))
    if kind == "published":
        return sum(metric(s, seat, k) for k in ("drama", "novel", "painting"))
    return 0


def power(s: State, seat: int) -> str | None:
    """The Talent Power of a player (List of Talent Powers), if any."""
    t = s.p[seat].talent
    return C.TALENT_POWER.get(t) if t else None


def cost(s: State, seat: int, coins: int) -> int:
    """A district action's cost in Coins (Kou Baimen, A10: pay 0 Coins instead)."""
    return 0 if s.config is not None and power(s, seat) == "frugal" else coins


def owner(s: State, colour: int) -> int:
    """The player a colour counts for (2 players: a vassal counts for its main colour)."""
    return colour - s.players if s.cfg.vassals and colour >= s.players else colour


def scorers(s: State) -> int:
    """Colours that score VP: the seats, plus the solo Bot."""
    return s.players + (1 if s.cfg.bot >= 0 else 0)


def pointed(s: State) -> list[int]:
    """Temple Fair spaces the Special Action Pointer points to (side B/C: two Shops)."""
    return [(s.pointer + k) % C.FAIR_SPACES for k in C.POINTER_OFFSETS[s.cfg.pointer]]


def level(s: State) -> int:
    """The solo Bot's difficulty level (0 Easy ... 6 Inferno)."""
    return C.DIFFICULTIES.index(s.cfg.difficulty)


def charm_met(s: State, seat: int) -> bool:
    """Charming Scholar: the requirement of this round's Charm Tile."""
    p = s.p[seat]
    ch = s.charm
    if ch == "A":
        return servants_on_display(s, "teahouse", seat) > 0
    if ch == "B":
        return servants_on_display(s, "tavern", seat) > 0
    if ch == "C":
        boat = s.river[s.districts.index("parlour")]
        return boat >= 0 and any(sp[0] == seat for sp in s.boats[boat].spaces)
    if ch == "D":
        return p.fair in pointed(s)
    if ch == "E":
        return bool(p.cities)
    if ch == "F":
        return len(p.unpublished) >= 2
    return False


def public_points(s: State, seat: int, per_match: int) -> int:
    """Public Scoring: every Scoring Trend Tile on the track scores (duplicates score twice)."""
    return per_match * sum(metric(s, seat, t) for t in s.trend_track)


def boat_ranking(s: State, boat: int) -> list[int]:
    """Seats by most servants; ties go to the servants further right (placed earlier).  2 players:
    vassal servants count for their main colour (and win its ties from the rightmost space); the
    Talents A07/A14 win ties."""
    if s.config is None:
        spaces = [(-count, index, seat) for index, (seat, count) in enumerate(s.boats[boat].spaces) if seat >= 0 and count > 0]
        return [seat for _, _, seat in sorted(spaces)]
    counts: dict[int, int] = {}
    first: dict[int, int] = {}
    for index, (colour, count) in enumerate(s.boats[boat].spaces):
        if colour >= 0 and count > 0:
            o = owner(s, colour)
            counts[o] = counts.get(o, 0) + count
            first.setdefault(o, index)
    return sorted(counts, key=lambda o: (-counts[o], 0 if power(s, o) == "captain" else 1, first[o]))


def boat_servants(s: State, boat: int, seat: int | None = None) -> int:
    """Servants on a boat (of one player, vassal included, or of everybody)."""
    return sum(count for colour, count in s.boats[boat].spaces if colour >= 0 and (seat is None or owner(s, colour) == seat))


# --- Society display ----------------------------------------------------------------------------
def replenish_display(c: Ctx) -> None:
    """Replenish the 4 Portfolio spaces from the stack; an exhausted Age 1 stack before the Round 3
    swap is replaced by the shuffled Age 2 tiles; after that, no more tiles."""
    s = c.s
    while len(s.display) < 4:
        if not s.stack and not s.bottom:
            if s.portfolio_age == 1 and not s.age2_formed:
                c.emit(Age2StackFormed(stack=C.portfolios_of_age(2)))
            else:
                return
        pool = s.stack if s.stack else s.bottom[0]
        c.emit(PortfolioRevealed(portfolio=c.rng.choice(pool)))


def draw_from_stack(c: Ctx) -> str | None:
    """The top (random: the stack is unordered) Portfolio Tile of the stack, refreshed tiles last
    ("discard them facedown ... to the bottom"); B6, B18 and the Bot draw this way."""
    s = c.s
    if not s.stack and not s.bottom:
        if s.portfolio_age == 1 and not s.age2_formed:
            c.emit(Age2StackFormed(stack=C.portfolios_of_age(2)))
        else:
            return None
    pool = s.stack if s.stack else s.bottom[0]
    return c.rng.choice(pool)


# --- shared actions -----------------------------------------------------------------------------
def publish(c: Ctx, seat: int, pid: str, where: str) -> None:
    """Publish a Portfolio: pay its Ideas cost, gain its payout; in the Teahouse or Tavern slide a
    matching Display Tile onto the Display Track with one of your Servants."""
    d = C.PORTFOLIOS[pid]
    gain(c, seat, {d["type"]: -d["cost"]}, "publishing cost")
    c.emit(PortfolioPublished(seat=seat, portfolio=pid, where=where))
    payout = d["payout"]
    if s_power(c, seat) == "acclaim":  # A04/A09: double payout
        payout = {k: 2 * v for k, v in payout.items()}
    gain(c, seat, payout, "publishing payout")
    if c.s.phase == "income" and d["income"].get("coin"):
        # Upkeep 1a: a Drama published during your Personal Income (B03 -> Shop A1/B1, B20) has
        # not given its income yet ("any order to your benefit"): its Coins come at once.
        x = 2 if s_power(c, seat) == "royalty" else 1  # A06/A08: double income
        gain(c, seat, {"coin": x * d["income"]["coin"]}, "drama income")
    if where in ("teahouse", "tavern") and c.s.display_supply[d["type"]] > 0:
        c.emit(DisplayTileAdded(district=where, kind=d["type"], seat=seat))


def s_power(c: Ctx, seat: int) -> str | None:
    """List of Talent Powers: the player's power (never in a plain Chapter 1 game)."""
    return power(c.s, seat) if c.s.config is not None else None


def start_special(c: Ctx, seat: int, visit: bool = False) -> None:
    """Activate Special Action: the Shop the pointer points to (side B/C: choose one of two).
    ``visit``: during a visit of the Travel or Temple Fair district (A03/A05 double a City Bonus)."""
    s = c.s
    spaces = pointed(s)
    if len(spaces) == 1:
        start_shop(c, seat, s.shops[spaces[0]], visit)
    else:
        c.push("pick_shop", seat, "visit" if visit else "")


def place_on_muse(c: Ctx, seat: int, muse: str, bonus: bool) -> None:
    """Parlour: place a Servant on a Muse (gain the bonus); the second Servant of a colour hires
    the Muse as an Assistant, wherever it was placed from."""
    c.emit(ServantOnMuse(seat=seat, muse=muse))
    if bonus:
        gain(c, seat, C.MUSE_BONUS[muse], "muse bonus")
    if c.s.muse_servants.get(muse, []).count(seat) >= 2:
        c.emit(MuseHired(seat=seat, muse=muse))
        if c.s.muse_stack:
            c.emit(MuseRevealed(muse=c.rng.choice(c.s.muse_stack)))


def start_shop(c: Ctx, seat: int, shop: str, visit: bool = True) -> None:
    """Shop Actions A1-A6 and Advanced Shop Actions B1-B6 (every optional one can be passed)."""
    s = c.s
    if shop == "A1":  # Printing Press: may take 1 Idea, then may publish (no Display Track)
        c.push("publish", seat, "A1")
        c.push("idea", seat, "A1")
    elif shop == "A2":  # Peddler: the Travel action without cost, only Idea City Bonuses
        if reachable_cities(s, seat):  # "peddler": within a Travel / Temple Fair visit (A03/A05)
            c.push("travel", seat, "peddler" if visit else "peddler_away")
    elif shop == "A3":  # Gift Shop: a Servant on any Muse (no bonus), then its Assistant Power
        if muses_shown(s):
            c.push("muse", seat, "gift")
    elif shop == "A4":  # Boatman: may pay 1 Coin for a Servant on any Boat Tile
        if s.p[seat].coins >= cost(s, seat, 1) and river_boats(s):
            c.push("boat", seat, "A4")
    elif shop == "A5":  # Liquor Shop: gain 1 Spirits Tile (6 in the box)
        if s.spirits_supply > 0:
            c.emit(SpiritsTileTaken(seat=seat))
    elif shop == "A6":  # Calligraphy Shop: may refresh for free, may take 1 revealed Portfolio
        if s.display or stack_available(s):
            c.push("take_portfolio", seat, "A6")
    elif shop == "B1":  # Printing Press: may pay 1 Coin to publish in the Teahouse or Tavern
        if s.p[seat].coins >= cost(s, seat, C.B1_COST) and affordable(s, seat):
            c.push("publish", seat, "B1")
    elif shop == "B2":  # Peddler: exchange up to 2 used/drafted tiles with track tiles
        if s.p[seat].used or s.p[seat].drafted:
            c.push("swap_tile", seat, "B2", 2)
    elif shop == "B3":  # Gift Shop: exchange up to 3 Idea Tiles
        if sum(s.p[seat].ideas.values()) > 0:
            c.push("exchange", seat, "B3", 3)
    elif shop == "B4":  # Boatman: move 1 of your Servants to another Boat Tile
        if my_boats(s, seat) and len(river_boats(s)) > 1:
            c.push("boat_move", seat, "B4")
    elif shop == "B5":  # Liquor Shop: gain 5 Coins
        gain(c, seat, {"coin": C.B5_COINS}, "liquor shop")
    elif shop == "B6":  # Calligraphy Shop: up to 2 Portfolio Tiles from the top of the stack
        if stack_available(s):
            c.push("stack_draw", seat, "B6", 2)


def my_boats(s: State, seat: int) -> list[int]:
    """Boat Tiles with a Servant of yours (Shop B4, Assistant B14)."""
    return [b for b in river_boats(s) if any(sp[0] == seat for sp in s.boats[b].spaces)]


def can_take_exam(s: State, seat: int) -> bool:
    """Imperial Exam: Juren without a degree, Gongshi as a Juren; enough Portfolios and Ideas."""
    p = s.p[seat]
    exam = C.EXAMS.get(p.degree + 1)
    return exam is not None and len(p.unpublished) >= exam["portfolios"] and sum(p.ideas.values()) >= exam["ideas"]


def can_activate(s: State, seat: int, a: str) -> bool:
    """List of Assistant Powers: whether the power can be used now (its Coins payable, a target)."""
    p = s.p[seat]
    if a == "B03":
        return p.coins >= 1
    if a == "B07":
        return p.coins >= 2 and bool(river_boats(s))
    if a == "B08":
        return sum(p.ideas.values()) >= 2
    if a == "B12":
        return bool(p.used or p.drafted)
    if a == "B13":
        return p.coins >= 1 and bool(reachable_cities(s, seat))
    if a == "B14":
        return p.coins >= 1 and len(river_boats(s)) > 1 and any(
            sp[0] == seat for b in river_boats(s) for sp in s.boats[b].spaces)
    if a == "B15":
        return p.coins >= 1 and bool(muses_shown(s))
    if a == "B17":
        return p.coins >= 1 and bool(s.display)
    if a == "B18":
        return stack_available(s)
    if a == "B20":
        return p.coins >= 2 and bool(affordable(s, seat))
    return True


def activate(c: Ctx, seat: int, a: str, income: bool) -> None:
    """List of Assistant Powers B01-B20."""
    s = c.s
    c.emit(AssistantActivated(seat=seat, assistant=a, income=income))
    why = f"assistant {a}"
    if a == "B01":
        gain(c, seat, {"spirit": 2}, why)
    elif a == "B02":
        gain(c, seat, {"coin": 1 + servants_on_display(s, "teahouse", seat)}, why)
    elif a == "B03":
        gain(c, seat, {"coin": -1}, why)
        start_special(c, seat)
    elif a == "B04":
        gain(c, seat, ["painting"], why)
    elif a == "B05":
        c.push("fair", seat, "B05")
    elif a == "B06":
        c.push("idea", seat, "B06")
    elif a == "B07":
        gain(c, seat, {"coin": -2}, why)
        c.push("boat", seat, "B07")
    elif a == "B08":
        c.push("exchange", seat)
    elif a == "B09":
        gain(c, seat, ["drama"], why)
    elif a == "B10":
        gain(c, seat, {"coin": 2}, why)
    elif a == "B11":
        gain(c, seat, {"vp": 1 + servants_on_display(s, "tavern", seat)}, why)
    elif a == "B12":
        c.push("swap_tile", seat)
    elif a == "B13":
        gain(c, seat, {"coin": -1}, why)
        c.push("travel", seat, "free")
    elif a == "B14":
        gain(c, seat, {"coin": -1}, why)
        c.push("boat_move", seat)
    elif a == "B15":
        gain(c, seat, {"coin": -1}, why)
        c.push("muse", seat, "extra")
    elif a == "B16":
        gain(c, seat, ["novel"], why)
    elif a == "B17":
        gain(c, seat, {"coin": -1}, why)
        c.push("take_portfolio", seat, "B17")
    elif a == "B18":
        pid = draw_from_stack(c)
        if pid is not None:
            c.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
    elif a == "B19":
        gain(c, seat, {"vp": 2}, why)
    elif a == "B20":
        gain(c, seat, {"coin": -2}, why)
        c.push("publish", seat, "B20")


def discard_rightmost(c: Ctx, seat: int, slot: int = 0, visit: bool = False) -> None:
    """Player Turn 2: discard the rightmost Action Tile (2-player variant: any) and gain its
    Discard Bonus (Advanced Action Tiles: a Portfolio from the Society, a Special Action)."""
    p = c.s.p[seat]
    if p.track:
        tile = p.track[slot]
        c.emit(TileDiscarded(seat=seat, tile=tile))
        bonus = C.ACTION_TILES[tile]["bonus"]
        gain(c, seat, bonus, "discard bonus")
        for icon in reversed(bonus):
            if icon == "portfolio" and c.s.display:
                c.push("take_portfolio", seat, "bonus")
            elif icon == "special":
                start_special(c, seat, visit)


def needs_frames(tile: str | None) -> bool:
    """Advanced Action Tiles: a "Gain 1 Portfolio" / "Activate Special Action" Discard Bonus."""
    return tile is not None and any(b in ("portfolio", "special") for b in C.ACTION_TILES[tile]["bonus"])


def place_vassal(c: Ctx, seat: int, tile: str | None) -> None:
    """2 players: the vassal's Scholar goes below the district on the discarded tile (a choice on
    two-district tiles); to the Rest Area when that district is full."""
    if not c.s.cfg.vassals or tile is None:
        return
    districts = C.ACTION_TILES[tile]["districts"]
    if len(districts) > 1:
        c.push("vassal", seat, tile)
    else:
        send_vassal(c, seat, districts[0])


def send_vassal(c: Ctx, seat: int, d: str) -> None:
    """2-Player Rules: "If the district is full, place the vassal's Scholar in the Rest Area"."""
    full = len(c.s.tracks[d]) >= C.SCHOLAR_SPACES
    c.emit(ScholarPlaced(seat=seat + c.s.players, district=C.REST if full else d))


def after_choice(c: Ctx, seat: int, d: str, slot: int) -> None:
    """Player Turn 2-3 after the tile is chosen (``d`` may be the Rest Area): discard for the bonus,
    place the Scholar (then the vassal's), perform the district action.  Decisions of the bonus or
    the vassal come first, before the district action (an automatic "district" step)."""
    s = c.s
    p = s.p[seat]
    tile = p.track[slot] if p.track else None
    if d == C.REST:
        c.emit(ScholarPlaced(seat=seat, district=C.REST))
        discard_rightmost(c, seat, slot)
        gain(c, seat, {"coin": 2, "spirit": 4}, "rest")
        place_vassal(c, seat, tile)
        return
    defer = needs_frames(tile) or (s.cfg.vassals and tile is not None and len(C.ACTION_TILES[tile]["districts"]) > 1)
    if defer:
        c.push("district", seat, d)
    discard_rightmost(c, seat, slot, d in ("travel", "temple_fair"))
    c.emit(ScholarPlaced(seat=seat, district=d))
    place_vassal(c, seat, tile)
    if not defer:
        start_district(c, seat, d)


def start_district(c: Ctx, seat: int, d: str) -> None:
    """Player Turn 3, Perform District Action (District Actions; side B extras are in the frames)."""
    s = c.s
    if d == "society":  # Society 1: Player Marker on the Next Round Turn Order Track (once a round)
        if not s.p[seat].society_visited:
            c.emit(OrderMarkerPlaced(seat=seat))
        c.push("society", seat)
    elif d == "teahouse":  # Teahouse 1: 1 Coin per Servant on its Display Track; then 2a / 2b
        x = 2 if s_power(c, seat) == "patron" else 1  # A02/A11: double
        gain(c, seat, {"coin": x * servants_on_display(s, "teahouse", seat)}, "teahouse servants")
        c.push("publish_or_inspire", seat, "teahouse")
    elif d == "tavern":  # Tavern 1-3: pay 1 Coin, Spirit +1, 1 VP per Servant; then 4a / 4b
        x = 2 if s_power(c, seat) == "patron" else 1
        gain(c, seat, {"coin": -cost(s, seat, 1), "spirit": 1}, "tavern")
        gain(c, seat, {"vp": x * servants_on_display(s, "tavern", seat)}, "tavern servants")
        c.push("publish_or_inspire", seat, "tavern")
    elif d == "parlour":  # Parlour 1-3: pay 1 Coin, Spirit +1, a Servant on a Muse
        gain(c, seat, {"coin": -cost(s, seat, 1), "spirit": 1}, "parlour")
        c.push("muse", seat, "parlour")
    elif d == "travel":  # Travel 1-4
        c.push("travel", seat, "district")
    elif d == "temple_fair":  # Temple Fair: move, Passing Bonus, Shop
        c.push("fair", seat, "district")


def can_visit(s: State, seat: int, slot: int, district: str) -> str | None:
    """Player Turn 1: why the district cannot be visited with the tile in ``slot`` (None if it can):
    a full Scholar Track, or Coins (Discard Bonus included, Player Turn 2) short of the Parlour,
    Tavern or Travel cost."""
    p = s.p[seat]
    if len(s.tracks[district]) >= C.SCHOLAR_SPACES:
        return "district_full"
    rest = p.track[:slot] + p.track[slot + 1:]
    if s.cfg.variant and rest:  # 2-player variant: any tile may be discarded
        coins = p.coins + max(coins_in(C.ACTION_TILES[t]["bonus"]) for t in rest)
    else:
        coins = p.coins + (coins_in(C.ACTION_TILES[rest[0]]["bonus"]) if rest else 0)
    return can_visit_with(s, seat, district, coins)


def can_visit_with(s: State, seat: int, district: str, coins: int) -> str | None:
    """Player Turn 1: "You can not visit the Parlour, Tavern, or Travel districts if you do not
    have enough coins" (A10 Kou Baimen: any district with 0 Coins)."""
    if coins < cost(s, seat, C.DISTRICT_COST.get(district, 0)):
        return "insufficient_coins"
    if district == "parlour" and not muses_shown(s):
        return "no_muse"
    if district == "travel":
        cities = reachable_cities(s, seat)
        if not cities:
            return "no_city"
        if min(cost(s, seat, C.CITY_COST[city]) for city in cities) > coins and not (s.cfg.artisans and affordable(s, seat)):
            return "insufficient_coins"
    return None


# --- the flow of a round ------------------------------------------------------------------------
def _after_turn(c: Ctx, f: Frame) -> None:
    """Player Turn 4: slide and replenish from the bag one tile at a time."""
    p = c.s.p[f.seat]
    while p.bag and len(p.track) < C.TRACK_SIZE:
        draw_tile(c, f.seat)
    c.emit(TurnEnded(seat=f.seat), StepEnded())


def _district(c: Ctx, f: Frame) -> None:
    """Player Turn 3, after the Discard Bonus / vassal decisions were made."""
    c.emit(StepEnded())
    start_district(c, f.seat, f.arg)


AUTO = {"after_turn": _after_turn, "district": _district}


def _phase_start(c: Ctx) -> None:
    """Game Setup steps 13-14: starting Portfolios, then the Talent draft (chapters 2-6)."""
    s = c.s
    for seat in reversed(s.order):  # assumed: starting portfolios are chosen in reverse turn order
        if seat < s.players and not s.p[seat].unpublished:
            c.push("pick_start", seat)
            return
    if s.talent_offer:  # step 14: the talent draft, in reverse player order
        for seat in reversed(s.order):
            if seat < s.players and s.p[seat].talent is None:
                c.push("pick_talent", seat)
                return
    if s.cfg.talents in ("advanced", "characters") and not any(s.muses):
        # Advanced drafts: the characters not taken as Talents form the Muse stack.
        taken = {p.talent for p in s.p if p.talent}
        pool = ["B" + t[1:] for t in C.TALENT_POOLS[s.cfg.talents] if t not in taken]
        muses = c.rng.sample(pool, C.MUSE_DISPLAY)
        c.emit(MusesFormed(muses=muses, muse_stack=sorted(m for m in pool if m not in muses)))
    c.emit(DisplayFormed(), PhaseBegan(phase="actions", round=1))


def _phase_actions(c: Ctx) -> None:
    """I. Action Phase: in Turn Order, a turn each until everyone has taken 3 turns or has no
    unused Scholar (a Mandatory Rest skips the 3rd); Player Turn 5, Next Player."""
    s = c.s
    n = len(s.order)
    for pos in range(s.turn_pos, 3 * n):
        seat = s.order[pos % n]
        p = s.p[seat]
        if seat == s.cfg.bot:
            if p.scholars > 0 and p.bag:
                c.emit(TurnBegan(seat=seat, pos=pos))
                from .bot import bot_turn

                bot_turn(c, seat)
            continue
        if p.scholars > 0 and p.track:
            c.emit(TurnBegan(seat=seat, pos=pos))
            c.push("turn", seat)
            return
    c.emit(PhaseBegan(phase="income", round=s.round))


def _phase_income(c: Ctx) -> None:
    """Upkeep 1, Personal Income; the automatic incomes are taken first (never a disadvantage)."""
    s = c.s
    if s.income_pos >= len(s.order):
        c.emit(PhaseBegan(phase="boats", round=s.round))
        return
    seat = s.order[s.income_pos]
    c.emit(IncomeBegan(seat=seat))
    p = s.p[seat]
    if seat == s.cfg.bot:
        from .bot import bot_income

        bot_income(c, seat)
        return
    royal = 2 if s_power(c, seat) == "royalty" else 1  # A06/A08: double Drama and Novel income
    patron = 2 if s_power(c, seat) == "patron" else 1  # A02/A11: double servant income
    coins = sum(C.PORTFOLIOS[pid]["income"].get("coin", 0) for pid in p.published)
    gain(c, seat, {"coin": royal * coins}, "drama income")
    gain(c, seat, {"coin": patron * servants_on_display(s, "teahouse", seat)}, "teahouse servants")
    gain(c, seat, {"vp": patron * servants_on_display(s, "tavern", seat)}, "tavern servants")
    if _income_moves(s, seat):
        c.push("income", seat)


def _income_moves(s: State, seat: int) -> list:
    """Upkeep 1b (Novels, 1 Novel Idea each) and 1c (Assistant Powers), each once per round."""
    p = s.p[seat]
    moves: list = []
    if p.ideas["novel"] >= 1:
        moves += [ActivateNovel(portfolio=pid) for pid in p.published
                  if C.PORTFOLIOS[pid]["type"] == "novel" and pid not in p.income_used]
    moves += [ActivateAssistant(assistant=a) for a in p.assistants if a not in p.income_used and can_activate(s, seat, a)]
    return moves


def _phase_boats(c: Ctx) -> None:
    """Upkeep 2, Resolve Boats: Servants from each Scholar Track, right to left (not the Rest
    Area); slide the boats; the majority (ties: further right) chooses the Scoring Trend."""
    s = c.s
    for i, d in enumerate(s.districts):
        boat = s.river[i]
        if boat >= 0:
            for seat in list(s.tracks[d]):
                c.emit(BoatServantPlaced(seat=seat, boat=boat))
    c.emit(BoatsSlid())
    ranking = boat_ranking(s, s.upkeep_boat)
    if ranking and s_power(c, ranking[0]) == "captain":  # A07/A14: 3 VP for first place
        gain(c, ranking[0], {"vp": C.CAPTAIN_VP}, "first place on the boat")
    if ranking and ranking[0] == s.cfg.bot:  # assumed: the Bot takes the rightmost Scoring Trend
        c.emit(TrendChosen(seat=ranking[0], trend=s.boats[s.upkeep_boat].trends[-1]))
        c.emit(PhaseBegan(phase="draft", round=s.round))
    elif ranking:
        c.emit(PhaseBegan(phase="trend", round=s.round))
        c.push("trend", ranking[0])
    else:
        c.emit(TrendChosen(seat=-1, trend=s.boats[s.upkeep_boat].trends[-1]))
        c.emit(PhaseBegan(phase="draft", round=s.round))


def _phase_trend(c: Ctx) -> None:
    """Upkeep 2: the trend was chosen; on to Draft New Action Tiles."""
    c.emit(PhaseBegan(phase="draft", round=c.s.round))


def draft_order(s: State) -> list[int]:
    """Upkeep 3: the Scholar Markers form a row left to right (Rest Area last)."""
    queue: list[int] = []
    for d in [*s.districts, C.REST]:
        queue += [seat for seat in reversed(s.tracks[d]) if seat < s.players]  # main colours only
    return queue


def _phase_draft(c: Ctx) -> None:
    """Upkeep 3, Draft New Action Tiles (Rounds 1-4; in Rounds 5-6 the Scholars just return)."""
    s = c.s
    if s.round in C.DRAFT_ROUNDS:
        c.emit(PhaseBegan(phase="drafting", round=s.round, queue=draft_order(s)))
    else:
        c.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=s.round))


def _phase_drafting(c: Ctx) -> None:
    """Upkeep 3: the leftmost Scholar's player drafts, until every Scholar is recovered."""
    s = c.s
    if s.draft_queue and s.upkeep_tiles:
        c.push("draft", s.draft_queue[0])
    else:
        c.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=s.round))


def _phase_events(c: Ctx) -> None:
    """Upkeep 4, Upkeep Events: a. Refill Action Tiles (Rounds 1-3), b. Public Scoring (2, 4, 6),
    c. Refill Draw Bags (2, 4), d. Swap Age 2 Portfolio Tiles (3), e. Game Ends (6)."""
    s = c.s
    r = s.round
    if r in C.REFILL_AGE:
        count = (C.DRAFT_TILES if s.cfg.upkeep == "A" else C.DRAFT_TILES_B)[s.players]
        if s.cfg.mixed_ages:  # Mixed Ages Drafting: the silver bag in Round 1, the gold bag in Rounds 2-3
            pool = list(s.tile_pool) if r != 2 else C.tile_pool([3, 4], s.cfg.advanced_tiles)
            tiles = c.rng.sample(pool, min(count, len(pool)))
            c.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
            c.emit(TilePoolSet(pool=sorted(t for t in pool if t not in tiles) if r == 2 else []))
        else:
            pool = C.tile_pool([C.REFILL_AGE[r]], s.cfg.advanced_tiles)
            tiles = c.rng.sample(pool, min(count, len(pool)))
            c.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
    if r in C.PUBLIC_SCORING:
        c.emit(PublicScored(vp=[public_points(s, seat, C.PUBLIC_SCORING[r]) for seat in range(scorers(s))]))
    if r in C.BAG_REFILL_ROUNDS:
        for seat in s.order:
            c.emit(BagRefilled(seat=seat))
            if seat != s.cfg.bot:
                for _ in range(C.TRACK_SIZE):
                    draw_tile(c, seat)
    if r == C.SWAP_ROUND:
        held = {pid for p in s.p for pid in p.unpublished + p.published}
        c.emit(Age2Swapped(stack=[pid for pid in C.portfolios_of_age(2) if pid not in held]))
        replenish_display(c)
    if r == C.ROUNDS:
        from .scoring import final_scoring

        if any(s.boats[b].goal == "G" for b in river_boats(s)):
            # Spirits Tiles ("anytime") before Final Scoring when Goal G scores the Spirit Level:
            # using them can only raise the holder's score (none is wasted at Spirit 6).
            for seat in range(scorers(s)):
                while s.p[seat].spirits_tiles > 0 and s.p[seat].spirit < C.SPIRIT_MAX:
                    c.emit(SpiritsTileUsed(seat=seat))
                    gain(c, seat, {"spirit": 3}, "spirits tile")
        c.emit(FinalScored(breakdown=final_scoring(s)))
        return
    c.emit(PhaseBegan(phase="board", round=r))


def _phase_board(c: Ctx) -> None:
    """Upkeep 5, Update Board Status: rotate the pointer, adjust the turn order."""
    s = c.s
    c.emit(PointerRotated(pointer=(s.pointer + 1) % C.FAIR_SPACES))
    order = list(s.next_order) + [seat for seat in s.order if seat not in s.next_order]
    c.emit(TurnOrderAdjusted(order=order))
    if s.cfg.charm and s.charm_column:  # New Charm Tile: the bottom one of the column
        c.emit(CharmReplaced(charm=s.charm_column[-1]))
    c.emit(PhaseBegan(phase="spirits", round=s.round))


def _phase_spirits(c: Ctx) -> None:
    """Upkeep 6, Consume Spirits: 1, plus 1 per unpublished Portfolio and per Assistant."""
    s = c.s
    for seat in s.order:
        if seat == s.cfg.bot:  # the Bot's Spirit Level never changes
            continue
        p = s.p[seat]
        assistants = 0 if s_power(c, seat) == "calm" else len(p.assistants)  # A01: assistants do not lower it
        amount = min(p.spirit, 1 + len(p.unpublished) + assistants)
        c.emit(SpiritConsumed(seat=seat, amount=amount))
    queue = [seat for seat in s.order if seat != s.cfg.bot and s.p[seat].spirit == 0]
    c.emit(PhaseBegan(phase="mandatory", round=s.round, queue=queue))


def _phase_mandatory(c: Ctx) -> None:
    """Upkeep 6 / Mandatory Rest: at Spirit 0 a Rest action at once (a Spirits Tile may prevent it)."""
    s = c.s
    if s.mandatory:
        seat = s.mandatory[0]
        if s.p[seat].track and s.p[seat].spirit == 0:
            c.push("mandatory_rest", seat)
        else:  # pragma: no cover - defensive: nothing to rest with
            c.emit(PhaseBegan(phase="mandatory", round=s.round, queue=s.mandatory[1:]))
        return
    c.emit(PhaseBegan(phase="actions", round=s.round + 1))


PHASES = {
    "start": _phase_start, "actions": _phase_actions, "income": _phase_income, "boats": _phase_boats,
    "trend": _phase_trend, "draft": _phase_draft, "drafting": _phase_drafting, "events": _phase_events,
    "board": _phase_board, "spirits": _phase_spirits, "mandatory": _phase_mandatory,
}


def advance(c: Ctx) -> None:
    """Run automatic steps until a decision is needed or the game is over."""
    s = c.s
    while not s.finished:
        if s.steps:
            top = s.steps[-1]
            auto = AUTO.get(top.kind)
            if auto is None:
                return
            auto(c, top)
        else:
            PHASES[s.phase](c)


# --- who acts, what is legal ----------------------------------------------------------------------
def to_act(state: State) -> list[int]:
    """The seat of the pending decision (one decision at a time)."""
    if state.finished or not state.steps:
        return []
    return [state.steps[-1].seat]


IDEA_PAIRS = [list(p) for p in combinations_with_replacement(C.IDEAS, 2)]


def frame_moves(s: State, seat: int, f: Frame) -> list:  # noqa: C901
    """Every legal answer to the pending step (each branch names its rulebook section)."""
    p = s.p[seat]
    k = f.kind
    if k == "pick_start":  # Game Setup: starting Portfolio
        return [ChooseStartingPortfolio(portfolio=pid) for pid in s.offer]
    if k == "turn":  # Player Turn 1 (a visit) or Rest (always allowed: "or you do not wish to")
        moves: list = []
        for slot, tile in enumerate(p.track):
            for d in C.ACTION_TILES[tile]["districts"]:
                if can_visit(s, seat, slot, d) is None:
                    moves.append(VisitDistrict(slot=slot, district=d))
        return moves + [Rest(slot=slot) for slot in range(len(p.track))]
    if k == "mandatory_rest":  # Mandatory Rest
        return [Rest(slot=slot) for slot in range(len(p.track))]
    if k == "society":  # Society 2 (refresh) and 3a-3d
        moves = []
        if p.coins >= cost(s, seat, 1) and not p.refreshed and s.display:
            moves.append(RefreshPortfolios())
        moves += [TakePortfolios(portfolios=sorted(pair)) for pair in combinations(s.display, 2)]
        moves += [TakePortfolioAndIdea(portfolio=pid, idea=i) for pid in s.display for i in C.IDEAS]
        moves += [TakeIdeas(ideas=pair) for pair in IDEA_PAIRS]
        if s.cfg.exam and can_take_exam(s, seat):
            moves.append(TakeExam())
        return moves
    if k == "society_extra":  # A13/A15: 1 more Portfolio or Idea Tile
        return [TakePortfolio(portfolio=pid) for pid in s.display] + [TakeIdea(idea=i) for i in C.IDEAS] + [Pass()]
    if k == "exam_portfolios":  # Imperial Exam
        return [DiscardPortfolio(portfolio=pid) for pid in sorted(set(p.unpublished))]
    if k == "exam_ideas":
        return [PayIdea(idea=i) for i in C.IDEAS if p.ideas[i] > 0]
    if k == "pick_talent":  # Talent draft (setup step 14)
        return [ChooseTalent(talent=t) for t in s.talent_offer]
    if k == "pick_shop":  # Special Action Pointer B & C
        return [ChooseShop(shop=s.shops[i]) for i in pointed(s)]
    if k == "vassal":  # 2-Player Rules: vassal district on a two-district tile
        return [SendVassal(district=d) for d in C.ACTION_TILES[f.arg]["districts"]]
    if k == "discard":  # 2P Advance Variant: tiles whose bonus still pays the visit
        if f.arg == C.REST:
            return [DiscardTile(slot=slot) for slot in range(len(p.track))]
        return [DiscardTile(slot=slot) for slot, t in enumerate(p.track)
                if can_visit_with(s, seat, f.arg, p.coins + coins_in(C.ACTION_TILES[t]["bonus"])) is None]
    if k == "stack_draw":  # Shop B6
        return [DrawPortfolio(), Pass()] if stack_available(s) else [Pass()]
    if k == "publish_or_inspire":  # Teahouse 2 / Tavern 4: a. Publish or b. Draw Inspiration
        return [Publish(portfolio=pid) for pid in affordable(s, seat)] + [DrawInspiration()]
    if k == "muse":  # Parlour 3 (mandatory); Charm, A13/A15, Gift Shop optional
        moves = [PlaceServant(muse=m) for m in muses_shown(s)]
        return moves + [Pass()] if f.arg in ("gift", "charm", "talent") or not moves else moves
    if k == "assistant_offer":  # Shop A3 Gift Shop: may activate the Assistant Power
        return ([ActivateAssistant(assistant=f.arg)] if can_activate(s, seat, f.arg) else []) + [Pass()]
    if k == "travel":  # Travel 1a/1b (cost payable), Peddler (optional), B13
        cities = reachable_cities(s, seat)
        if f.arg == "district":
            cities = [city for city in cities if cost(s, seat, C.CITY_COST[city]) <= p.coins]
        moves = [TravelTo(city=city) for city in cities]
        if f.arg == "district" and s.cfg.artisans and reachable_cities(s, seat):  # Traveling Artisans
            moves += [PublishToTravel(portfolio=pid) for pid in affordable(s, seat)]
        return moves or [Pass()]  # Shop A2 Peddler: "Take the Travel district action" (not optional)
    if k == "take_portfolio":  # Gain 1 Portfolio icon, City Bonus, Shop A6, B17
        moves = [TakePortfolio(portfolio=pid) for pid in s.display]
        if f.arg == "A6":
            if f.n == 0 and (s.display or stack_available(s)):
                moves.insert(0, RefreshPortfolios())
            moves.append(Pass())
        return moves or [Pass()]
    if k == "fair":  # Temple Fair a-c (one direction); B05: 1 space
        if f.arg == "B05":
            return [MoveServant(distance=1, clockwise=True), MoveServant(distance=1, clockwise=False)]
        return [MoveServant(distance=d, clockwise=cw) for d, price in C.FAIR_MOVES.items()
                if cost(s, seat, price) <= p.coins for cw in (True, False)]
    if k == "idea":  # Shop A1 / Assistant B06: 1 Idea of any type
        return [TakeIdea(idea=i) for i in C.IDEAS]
    if k == "publish" and f.arg == "B1":  # Advanced Shop B1 Printing Press
        if p.coins < cost(s, seat, C.B1_COST):
            return [Pass()]
        return [PublishIn(portfolio=pid, district=d) for pid in affordable(s, seat) for d in ("teahouse", "tavern")] + [Pass()]
    if k == "publish":  # Shop A1 (optional) / Assistant B20
        moves = [Publish(portfolio=pid) for pid in affordable(s, seat)]
        return moves + [Pass()] if f.arg == "A1" or not moves else moves
    if k == "boat":  # Shop A4 (optional) / B07: any Boat Tile on the river
        moves = [PlaceOnBoat(boat=b) for b in sorted(river_boats(s))]
        return moves + [Pass()] if f.arg == "A4" or not moves else moves
    if k == "boat_move":  # Shop B4 / Assistant B14
        mine = [b for b in river_boats(s) if any(sp[0] == seat for sp in s.boats[b].spaces)]
        moves = [MoveBoatServant(from_boat=a, to_boat=b) for a in sorted(mine) for b in sorted(river_boats(s)) if a != b]
        return moves + [Pass()] if f.arg == "B4" or not moves else moves
    if k == "exchange" and f.arg == "B3":  # Advanced Shop B3 Gift Shop
        return [ExchangeIdeas(give=[g], take=[t]) for g in C.IDEAS if p.ideas[g] > 0 for t in C.IDEAS if t != g] + [Pass()]
    if k == "exchange":  # Assistant B08: any 2 Ideas for 2 of any type(s)
        owned = [i for i in C.IDEAS for _ in range(min(2, p.ideas[i]))]
        gives = sorted({tuple(sorted(g)) for g in combinations(owned, 2)})
        return [ExchangeIdeas(give=list(g), take=t) for g in gives for t in IDEA_PAIRS] or [Pass()]
    if k == "swap_tile":  # Assistant B12 / Advanced Shop B2 Peddler
        tiles = sorted(set(p.used + p.drafted))
        if not p.track:
            moves = [SwapActionTile(tile=t, slot=-1) for t in tiles]
        else:
            moves = [SwapActionTile(tile=t, slot=slot) for t in tiles for slot in range(len(p.track))]
        return moves + [Pass()] if f.arg == "B2" or not moves else moves
    if k == "income":  # Upkeep 1, Personal Income
        return _income_moves(s, seat) + [EndIncome()]
    if k == "trend":  # Upkeep 2: the boat winner chooses
        return [ChooseTrend(trend=t) for t in s.boats[s.upkeep_boat].trends]
    if k == "draft":  # Upkeep 3: any tile on the Upkeep board
        return [DraftTile(tile=t) for t in sorted(set(s.upkeep_tiles))]
    return []


def legal_moves(state: State, seat: int) -> list:
    """The pending step's answers, plus a Spirits Tile ("anytime"; not at Spirit 6)."""
    if state.finished or not state.steps:
        return []
    top = state.steps[-1]
    if top.seat != seat:
        return []
    moves = frame_moves(state, seat, top)
    p = state.p[seat]
    if p.spirits_tiles > 0 and p.spirit < C.SPIRIT_MAX:
        moves.append(UseSpiritsTile())
    return moves


def _normalize(command):
    if isinstance(command, TakePortfolios):
        return TakePortfolios(portfolios=sorted(command.portfolios))
    if isinstance(command, TakeIdeas):
        return TakeIdeas(ideas=sorted(command.ideas))
    if isinstance(command, ExchangeIdeas):
        return ExchangeIdeas(give=sorted(command.give), take=sorted(command.take))
    return command


# --- decide -----------------------------------------------------------------------------------
def decide(state: State, seat: int, command, rng: Rng) -> list:
    if state.finished:
        raise GameOver()
    if not state.steps or state.steps[-1].seat != seat:
        raise NotYourTurn()
    command = _normalize(command)
    top = state.steps[-1]
    if command not in legal_moves(state, seat):
        raise diagnose(state, seat, top, command)
    c = Ctx(clone(state), rng)
    from .handlers import handle

    handle(c, seat, c.s.steps[-1], command)
    advance(c)
    return c.events


STEP_COMMANDS = {
    "pick_start": (ChooseStartingPortfolio,),
    "turn": (VisitDistrict, Rest),
    "mandatory_rest": (Rest,),
    "society": (RefreshPortfolios, TakePortfolios, TakePortfolioAndIdea, TakeIdeas, TakeExam),
    "publish_or_inspire": (Publish, DrawInspiration),
    "muse": (PlaceServant, Pass),
    "assistant_offer": (ActivateAssistant, Pass),
    "travel": (TravelTo, PublishToTravel, Pass),
    "take_portfolio": (TakePortfolio, RefreshPortfolios, Pass),
    "fair": (MoveServant,),
    "idea": (TakeIdea,),
    "publish": (Publish, PublishIn, Pass),
    "boat": (PlaceOnBoat, Pass),
    "boat_move": (MoveBoatServant, Pass),
    "exchange": (ExchangeIdeas, Pass),
    "swap_tile": (SwapActionTile, Pass),
    "income": (ActivateNovel, ActivateAssistant, EndIncome),
    "trend": (ChooseTrend,),
    "draft": (DraftTile,),
    "society_extra": (TakePortfolio, TakeIdea, Pass),
    "exam_portfolios": (DiscardPortfolio,),
    "exam_ideas": (PayIdea,),
    "pick_talent": (ChooseTalent,),
    "pick_shop": (ChooseShop,),
    "vassal": (SendVassal,),
    "discard": (DiscardTile,),
    "stack_draw": (DrawPortfolio, Pass),
}


def diagnose(s: State, seat: int, f: Frame, command) -> RuleViolation:  # noqa: C901
    """The rule a rejected command breaks (messages never reveal hidden information)."""
    p = s.p[seat]
    if isinstance(command, UseSpiritsTile):
        if p.spirits_tiles == 0:
            return violation("no_spirits_tile", "you have no Spirits Tile", "Spirit Level Track")
        return violation("spirit_full", "your Spirit Level is already 6", "Spirit Level Track")
    if not isinstance(command, STEP_COMMANDS.get(f.kind, ())):
        return violation("not_now", f"that is not a decision of the current step ({f.kind})", "Gameplay")
    if isinstance(command, (VisitDistrict, Rest)):
        if not 0 <= command.slot < len(p.track):
            return violation("no_such_tile", "there is no Action Tile in that space", "Player Turn 1")
        if isinstance(command, VisitDistrict):
            if command.district not in C.ACTION_TILES[p.track[command.slot]]["districts"]:
                return violation("wrong_district", "the Action Tile does not show that district", "Player Turn 1")
            why = can_visit(s, seat, command.slot, command.district) or "illegal_move"
            return violation(why, f"you cannot visit {command.district} now ({why})", "Player Turn 1")
    if isinstance(command, (TakePortfolios, TakePortfolioAndIdea, TakePortfolio)):
        return violation("portfolio_not_displayed", "choose face-up Portfolio Tiles of the Society district", "Society")
    if isinstance(command, RefreshPortfolios):
        if p.refreshed:
            return violation("already_refreshed", "you may refresh only once per turn", "Society")
        if p.coins < 1:
            return violation("insufficient_coins", "refreshing costs 1 Coin", "Society")
    if isinstance(command, (TakeIdeas, TakeIdea, ExchangeIdeas)):
        return violation("bad_idea", "choose Idea types among drama, novel and painting you can pay", "Idea Tiles")
    if isinstance(command, Publish):
        if command.portfolio not in p.unpublished:
            return violation("not_your_portfolio", "you have no such unpublished Portfolio", "Publish a Portfolio")
        return violation("insufficient_ideas", "you cannot pay the Ideas cost", "Publish a Portfolio")
    if isinstance(command, PlaceServant):
        return violation("no_such_muse", "that Muse is not in the Parlour", "Parlour")
    if isinstance(command, TravelTo):
        if command.city in p.cities:
            return violation("already_travelled", "you travelled to that city before", "Travel")
        if command.city in reachable_cities(s, seat):
            return violation("insufficient_coins", "you cannot pay the Travel Cost", "Travel")
        return violation("not_adjacent", "the city is not next to Jinling or a city you travelled to", "Travel")
    if isinstance(command, MoveServant):
        if command.distance not in C.FAIR_MOVES:
            return violation("bad_distance", "move 1, 2 or 3 spaces", "Temple Fair")
        return violation("insufficient_coins", "you cannot pay for that distance", "Temple Fair")
    if isinstance(command, (PlaceOnBoat, MoveBoatServant)):
        return violation("no_such_boat", "choose a Boat Tile on the River boards", "Resolve Boats")
    if isinstance(command, ActivateNovel):
        return violation("cannot_activate", "pay 1 Novel Idea for a published Novel, once per round", "Personal Income")
    if isinstance(command, ActivateAssistant):
        return violation("cannot_activate", "that Assistant Power cannot be activated now", "List of Assistant Powers")
    if isinstance(command, ChooseTrend):
        return violation("no_such_trend", "choose one of the 2 Scoring Trends on the boat", "Resolve Boats")
    if isinstance(command, DraftTile):
        return violation("tile_not_available", "that Action Tile is not on the Upkeep board", "Draft New Action Tiles")
    if isinstance(command, TakeExam):
        return violation("cannot_take_exam", "the exam needs unpublished Portfolios and Ideas you do not have (or you are a Gongshi)", "Imperial Exam")
    if isinstance(command, (DiscardPortfolio, PublishToTravel, PublishIn)):
        rule = {DiscardPortfolio: "Imperial Exam", PublishToTravel: "Traveling Artisans"}.get(type(command), "Shop Actions B1")
        return violation("not_your_portfolio", "choose an unpublished Portfolio you can use", rule)
    if isinstance(command, PayIdea):
        return violation("insufficient_ideas", "you have no Idea of that type", "Imperial Exam")
    if isinstance(command, ChooseTalent):
        return violation("talent_not_available", "that Talent is not in the draft", "Talent Draft")
    if isinstance(command, ChooseShop):
        return violation("shop_not_pointed", "choose a Shop the Special Action Pointer points to", "Temple Fair")
    if isinstance(command, SendVassal):
        return violation("wrong_district", "the vassal goes to a district of the discarded tile", "2-Player Rules")
    if isinstance(command, DiscardTile):
        return violation("cannot_discard", "that tile is not on your track or would leave the visit unpaid", "2-Player Rules")
    if isinstance(command, Pass):
        return violation("not_optional", "this action is not optional", "Gameplay")
    return violation("illegal_move", "that move is not legal now", "Gameplay")

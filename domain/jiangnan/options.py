"""Options: the player count, the Game Chapter (its printed setup) and the free configuration
that overrides it (Game Chapters, 2-Player Rules, Solo Bot Rules - Difficulty Settings)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from domain.kernel import InvalidOptions, Options

from . import components as C
from .state import RULES_VERSION


class JiangnanOptions(Options, frozen=True, kw_only=True):
    """Players 1 (solo against the Bot), 2 (with vassals), 3 or 4.  ``chapter`` (1-6) gives the
    printed setup; every other option left unset takes the chapter's value (free configuration)."""

    players: Annotated[
        int, Meta(ge=1, le=4, description="1 (solo against the Bot), 2 (with vassals), 3 or 4")
    ] = 4
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
        Literal["basic", "advanced"] | None,
        Meta(description="advanced: 6 Advanced Action Tiles added to each Age"),
    ] = None
    mixed_ages: Annotated[
        bool | None, Meta(description="Mixed Ages Drafting (silver Ages 1+2, gold Ages 3+4)")
    ] = None
    shops: Annotated[Literal["A", "B", "random"] | None, Meta(description="Shop Tile sides")] = None
    pointer: Annotated[
        Literal["A", "B", "C", "random"] | None,
        Meta(description="Special Action Pointer side (random: B or C)"),
    ] = None
    goals: Annotated[Literal["A-F", "G-L", "A-L"] | None, Meta(description="Scoring Goal Tile pool")] = None
    upkeep: Annotated[Literal["A", "B", "random"] | None, Meta(description="Upkeep board side")] = None
    overlay: Annotated[Literal["A", "B", "random"] | None, Meta(description="Final Scoring Overlay side")] = (
        None
    )
    variant: Annotated[
        bool,
        Meta(
            description="2 players: the advanced variant (discard any Action Tile instead of the rightmost)"
        ),
    ] = False
    difficulty: Annotated[
        Literal["easy", "normal", "hard", "expert", "master", "nightmare", "inferno"],
        Meta(description="Solo Bot difficulty"),
    ] = "easy"


def resolve(options: JiangnanOptions, rules_version: str = RULES_VERSION) -> dict[str, Any]:
    """The chapter's setup with the free-configuration overrides, checked (rulebook constraints);
    the District Boards laid out as *rules_version* lays them out."""
    if options.players not in (1, 2, 3, 4):
        raise InvalidOptions("Jiangnan is played by 1 to 4 players")
    if options.chapter not in C.CHAPTERS:
        raise InvalidOptions("chapter must be 1 to 6")
    out = C.chapter_setup(options.chapter)
    for key in (
        "map",
        "talents",
        "action_tiles",
        "mixed_ages",
        "shops",
        "pointer",
        "goals",
        "upkeep",
        "overlay",
    ):
        value = getattr(options, key)
        if value is not None:
            out[key] = value
    for key, values in C.OPTION_VALUES.items():
        if out[key] not in values:
            raise InvalidOptions(f"{key} must be one of {', '.join(values)}")
    parts = out["map"].split("-") if isinstance(out["map"], str) else []
    if (
        len(parts) != 3
        or any(len(x) != 2 or x[0] not in "AB" for x in parts)
        or sorted(x[1] for x in parts) != ["1", "2", "3"]
    ):
        raise InvalidOptions("map must name the 3 district boards with their sides, e.g. A2-A3-B1")
    boards = C.board_districts(rules_version)
    out["districts"] = [d for x in parts for d in boards[x[1]]]
    out["sides"] = {C.BOARD_RULE[x[1]]: x[0] == "B" for x in parts}
    if options.variant and options.players != 2:
        raise InvalidOptions("the advanced variant is a 2-player rule")
    if options.difficulty not in C.DIFFICULTIES:
        raise InvalidOptions(f"difficulty must be one of {', '.join(C.DIFFICULTIES)}")
    if options.difficulty != "easy" and options.players != 1:
        raise InvalidOptions("difficulty levels are for the solo Bot")
    if rules_version != "jiangnan-2":  # jiangnan-3: refuse what cannot be set up as printed
        for side in ("A", "B") if out["upkeep"] == "random" else (out["upkeep"],):
            why = draft_shortfall(options.players, out["action_tiles"] == "advanced", out["mixed_ages"], side)
            if why is not None:
                prefix = f"upkeep random may draw side {side}: " if out["upkeep"] == "random" else ""
                raise InvalidOptions(prefix + why)
    return out


def draft_shortfall(players: int, advanced: bool, mixed_ages: bool, side: str) -> str | None:
    """Why such a game cannot be set up as printed, or None.  Draft New Action Tiles: "Each player
    will draft 3 new Action Tiles per round" (one per Scholar, Rounds 1-4; not the vassals nor the
    Bot), from the Upkeep board.  It is filled at setup (Game Setup 7) and at the refills of Rounds
    1-3 (Upkeep Events a) with the board's number of tiles (side A 6/9/12, side B 8/12/15 for 1-2/3/4
    players) of the Age, all of them when fewer are left; Mixed Ages Drafting draws the setup and
    Round 1 fills from one silver bag (Ages 1+2), the Round 2 and 3 fills from one gold bag (Ages
    3+4), so the second fill of a bag gets what the first left.  A fill of fewer tiles than the
    round's drafts is the one thing that cannot be played: at 4 players, side B (15) with the basic
    tiles and Mixed Ages leaves 9 of the 24 silver tiles for the 12 drafts of Round 2.  Side B with
    the basic tiles and no Mixed Ages places all 12 Age 1 (and Age 2) tiles, which the 12 drafts
    take (jiangnan-2 played it so)."""
    count = (C.DRAFT_TILES if side == "A" else C.DRAFT_TILES_B)[players]
    drafts = C.SCHOLARS * players
    fills = [(1, 1), *((r + 1, age) for r, age in sorted(C.REFILL_AGE.items()))]  # (draft round, Age)
    left: dict[tuple[int, ...], int] = {}
    for draft_round, age in fills:
        ages: tuple[int, ...] = ((1, 2) if age <= 2 else (3, 4)) if mixed_ages else (age,)
        size = len(C.tile_pool(list(ages), advanced))
        placed = min(count, left.setdefault(ages, size))
        left[ages] -= placed
        if placed >= drafts:
            continue
        tiles = "basic and advanced" if advanced else "basic"
        if mixed_ages:
            bag = "silver" if ages == (1, 2) else "gold"
            source = f"Mixed Ages Drafting's {bag} bag of {size} {tiles} Age {ages[0]} and {ages[1]} tiles"
            source += f" has {placed} left"
        else:
            source = f"there are {placed} {tiles} Age {age} tiles"
        remedies = [
            name
            for name, other in (("side A", ("A", advanced)), ("the advanced tiles", (side, True)))
            if other != (side, advanced) and draft_shortfall(players, other[1], mixed_ages, other[0]) is None
        ]
        who = f"{players} player{'s' if players > 1 else ''}"
        return (
            f"cannot be set up as printed: side {side} of the Upkeep board takes {count} Action Tiles at "
            f"{who}, and {source} for the Round {draft_round} draft, where the {who} draft {drafts} "
            f"({C.SCHOLARS} each)" + (f"; with {' or '.join(remedies)} it can be" if remedies else "")
        )
    return None

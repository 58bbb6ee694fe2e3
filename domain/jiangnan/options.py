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
    if rules_version != "jiangnan-2":  # jiangnan-3: a configuration whose Upkeep board cannot be filled
        for side in ("A", "B") if out["upkeep"] == "random" else (out["upkeep"],):
            why = unfillable(options.players, out["action_tiles"] == "advanced", out["mixed_ages"], side)
            if why is not None:
                prefix = "upkeep random may draw side B: " if out["upkeep"] == "random" else ""
                raise InvalidOptions(prefix + why)
    return out


def unfillable(players: int, advanced: bool, mixed_ages: bool, side: str) -> str | None:
    """Why the Upkeep board cannot be filled as the rules say, or None.  Game Setup 7 and Upkeep
    Events a place a fixed number of Action Tiles (side A 6/9/12, side B 8/12/15 for 1-2/3/4
    players) at setup and in Rounds 1-3, so that "Each player will draft 3 new Action Tiles per
    round"; Mixed Ages Drafting takes the setup and Round 1 tiles from one silver bag (Ages 1+2) and
    the Round 2 and 3 tiles from one gold bag (Ages 3+4)."""
    count = (C.DRAFT_TILES if side == "A" else C.DRAFT_TILES_B)[players]
    fills = [1, *(C.REFILL_AGE[r] for r in sorted(C.REFILL_AGE))]  # the Age of each fill
    tiles = "basic and advanced" if advanced else "basic"
    if mixed_ages:
        for name, ages in (("silver", [1, 2]), ("gold", [3, 4])):
            needed = count * sum(1 for age in fills if age in ages)
            have = len(C.tile_pool(ages, advanced))
            if have < needed:
                return (
                    f"Mixed Ages Drafting: side {side} of the Upkeep board places {count} Action Tiles "
                    f"at {players} players, {needed} from the {name} bag, which holds {have} {tiles} "
                    "tiles (use side A, or the advanced tiles)"
                )
        return None
    for age in sorted(set(fills)):
        have = len(C.tile_pool([age], advanced))
        if have < count:
            return (
                f"side {side} of the Upkeep board places {count} Action Tiles at {players} players, "
                f"but there are {have} {tiles} Age {age} tiles (use side A, or the advanced tiles)"
            )
    return None

"""Options: the player count, the Game Chapter (its printed setup) and the free configuration
that overrides it (Game Chapters, 2-Player Rules, Solo Bot Rules - Difficulty Settings)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from domain.kernel import InvalidOptions, Options

from . import components as C


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


def resolve(options: JiangnanOptions) -> dict[str, Any]:
    """The chapter's setup with the free-configuration overrides, checked (rulebook constraints)."""
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
    out["districts"] = [d for x in parts for d in C.BOARD_DISTRICTS[x[1]]]
    out["sides"] = {C.BOARD_RULE[x[1]]: x[0] == "B" for x in parts}
    if options.variant and options.players != 2:
        raise InvalidOptions("the advanced variant is a 2-player rule")
    if options.difficulty not in C.DIFFICULTIES:
        raise InvalidOptions(f"difficulty must be one of {', '.join(C.DIFFICULTIES)}")
    if options.difficulty != "easy" and options.players != 1:
        raise InvalidOptions("difficulty levels are for the solo Bot")
    return out

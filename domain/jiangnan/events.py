"""Jiangnan events: facts in the past tense.  Random outcomes are in the events.  Every event is
public: "The contents of your draw bag is hidden information. Everything else you have is public",
and a tile drawn from a bag lies on the Action Track at once (the views still show a bag's
contents to its owner only)."""

from __future__ import annotations

from domain.kernel import Event

from .state import UNRECORDED, Config, Frame


class JiangnanEvent(Event, frozen=True, tag=lambda name: f"jiangnan.{name}"):
    pass


class GameSetUp(JiangnanEvent, frozen=True):
    players: int
    chapter: int
    districts: list[str]
    order: list[int]
    shops: list[str]
    pointer: int
    travel: dict[str, str]
    displays: dict[str, list[str]]
    muses: list[str]
    muse_stack: list[str]
    upkeep_tiles: list[str]
    goals: list[str]
    boat_trends: list[list[str]]
    portfolio_stack: list[str]
    rules_version: str = UNRECORDED
    """The rules version the game is set up under (absent from jiangnan-2 records)."""


class ActionTileDrawn(JiangnanEvent, frozen=True):
    """A tile drawn from the owner's bag onto the Action Track (Player Turn 4), public like the
    track ("Everything else you have is public information").  jiangnan-2 recorded it as the
    owner's only, redacted to ``tile=None``: old records still hold that form."""

    seat: int
    tile: str | None = None


class PortfolioRevealed(JiangnanEvent, frozen=True):
    """Drawn from the stack at random and placed face up (``to``: offer or display)."""

    portfolio: str
    to: str = "display"


class StartingPortfolioChosen(JiangnanEvent, frozen=True):
    seat: int
    portfolio: str


class DisplayFormed(JiangnanEvent, frozen=True):
    """The starting offer's remaining tiles become the Society display."""


class StepBegan(JiangnanEvent, frozen=True):
    step: Frame


class StepEnded(JiangnanEvent, frozen=True):
    pass


class PhaseBegan(JiangnanEvent, frozen=True):
    phase: str
    round: int
    queue: list[int] = []  # noqa: RUF012 - msgspec copies a mutable default


class IncomeBegan(JiangnanEvent, frozen=True):
    seat: int


class TurnBegan(JiangnanEvent, frozen=True):
    seat: int
    pos: int


class ResourcesChanged(JiangnanEvent, frozen=True):
    seat: int
    coins: int = 0
    vp: int = 0
    spirit: int = 0
    drama: int = 0
    novel: int = 0
    painting: int = 0
    why: str = ""


class TileChosen(JiangnanEvent, frozen=True):
    seat: int
    tile: str
    district: str


class TileDiscarded(JiangnanEvent, frozen=True):
    seat: int
    tile: str


class ScholarPlaced(JiangnanEvent, frozen=True):
    seat: int
    district: str


class OrderMarkerPlaced(JiangnanEvent, frozen=True):
    seat: int


class TurnEnded(JiangnanEvent, frozen=True):
    seat: int


class PortfoliosRefreshed(JiangnanEvent, frozen=True):
    seat: int
    returned: list[str]
    paid: bool = True


class Age2StackFormed(JiangnanEvent, frozen=True):
    stack: list[str]


class PortfolioTaken(JiangnanEvent, frozen=True):
    seat: int
    portfolio: str
    source: str = "display"


class PortfolioPublished(JiangnanEvent, frozen=True):
    seat: int
    portfolio: str
    where: str


class DisplayTileAdded(JiangnanEvent, frozen=True):
    district: str
    kind: str
    seat: int


class ServantOnMuse(JiangnanEvent, frozen=True):
    seat: int
    muse: str


class MuseHired(JiangnanEvent, frozen=True):
    seat: int
    muse: str


class MuseRevealed(JiangnanEvent, frozen=True):
    muse: str


class Travelled(JiangnanEvent, frozen=True):
    seat: int
    city: str


class FairMoved(JiangnanEvent, frozen=True):
    seat: int
    to: int


class SpiritsTileTaken(JiangnanEvent, frozen=True):
    seat: int


class SpiritsTileUsed(JiangnanEvent, frozen=True):
    seat: int


class BoatServantPlaced(JiangnanEvent, frozen=True):
    seat: int
    boat: int


class BoatServantMoved(JiangnanEvent, frozen=True):
    seat: int
    from_boat: int
    to_boat: int


class BoatsSlid(JiangnanEvent, frozen=True):
    pass


class TrendChosen(JiangnanEvent, frozen=True):
    seat: int
    """-1 when nobody had servants on the boat (the rightmost trend is taken)."""
    trend: str


class AssistantActivated(JiangnanEvent, frozen=True):
    seat: int
    assistant: str
    income: bool = True


class NovelIncomeActivated(JiangnanEvent, frozen=True):
    seat: int
    portfolio: str


class ServantIncomeTaken(JiangnanEvent, frozen=True):
    """Personal Income d./e.: the Teahouse Coins or the Tavern VP for the player's Servants on that
    Display Track, at the moment the player chose (jiangnan-3)."""

    seat: int
    district: str


class ActionTileSwapped(JiangnanEvent, frozen=True):
    seat: int
    tile: str
    slot: int


class ActionTileDrafted(JiangnanEvent, frozen=True):
    seat: int
    tile: str


class ScholarsRecovered(JiangnanEvent, frozen=True):
    pass


class UpkeepTilesRefilled(JiangnanEvent, frozen=True):
    tiles: list[str]


class PublicScored(JiangnanEvent, frozen=True):
    vp: list[int]


class BagRefilled(JiangnanEvent, frozen=True):
    seat: int


class Age2Swapped(JiangnanEvent, frozen=True):
    stack: list[str]


class PointerRotated(JiangnanEvent, frozen=True):
    pointer: int


class TurnOrderAdjusted(JiangnanEvent, frozen=True):
    order: list[int]


class SpiritConsumed(JiangnanEvent, frozen=True):
    seat: int
    amount: int


class FinalScored(JiangnanEvent, frozen=True):
    breakdown: list[dict[str, int]]


# --- chapters 2-6, 2 players, solo -------------------------------------------------------------


class Configured(JiangnanEvent, frozen=True):
    """The resolved chapter / free configuration (not emitted for a plain Chapter 1 game)."""

    cfg: Config
    colours: int
    """Player colours in play: the seats plus vassals (2 players) or the Bot (solo)."""
    talent_offer: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default
    charm: str | None = None
    charm_column: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default
    tile_pool: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default


class TalentChosen(JiangnanEvent, frozen=True):
    seat: int
    talent: str


class MusesFormed(JiangnanEvent, frozen=True):
    muses: list[str]
    muse_stack: list[str]


class DegreeEarned(JiangnanEvent, frozen=True):
    seat: int
    degree: int


class PortfolioDiscarded(JiangnanEvent, frozen=True):
    seat: int
    portfolio: str


class CharmReplaced(JiangnanEvent, frozen=True):
    charm: str


class TilePoolSet(JiangnanEvent, frozen=True):
    pool: list[str]


class BotTileDrawn(JiangnanEvent, frozen=True):
    """The Bot draws an Action Tile from its bag and uses it at once (public)."""

    seat: int
    tile: str


class BotMuseHired(JiangnanEvent, frozen=True):
    seat: int
    muse: str


EVENTS = (
    GameSetUp,
    ActionTileDrawn,
    PortfolioRevealed,
    StartingPortfolioChosen,
    DisplayFormed,
    StepBegan,
    StepEnded,
    PhaseBegan,
    IncomeBegan,
    TurnBegan,
    ResourcesChanged,
    TileChosen,
    TileDiscarded,
    ScholarPlaced,
    OrderMarkerPlaced,
    TurnEnded,
    PortfoliosRefreshed,
    Age2StackFormed,
    PortfolioTaken,
    PortfolioPublished,
    DisplayTileAdded,
    ServantOnMuse,
    MuseHired,
    MuseRevealed,
    Travelled,
    FairMoved,
    SpiritsTileTaken,
    SpiritsTileUsed,
    BoatServantPlaced,
    BoatServantMoved,
    BoatsSlid,
    TrendChosen,
    AssistantActivated,
    NovelIncomeActivated,
    ServantIncomeTaken,
    ActionTileSwapped,
    ActionTileDrafted,
    ScholarsRecovered,
    UpkeepTilesRefilled,
    PublicScored,
    BagRefilled,
    Age2Swapped,
    PointerRotated,
    TurnOrderAdjusted,
    SpiritConsumed,
    FinalScored,
    Configured,
    TalentChosen,
    MusesFormed,
    DegreeEarned,
    PortfolioDiscarded,
    CharmReplaced,
    TilePoolSet,
    BotTileDrawn,
    BotMuseHired,
)

REVEALING: frozenset[type] = frozenset(
    {
        FinalScored,
        ActionTileDrawn,
        BotTileDrawn,
        PortfolioRevealed,
        PortfolioTaken,
        MuseRevealed,
        BotMuseHired,
        MusesFormed,
        UpkeepTilesRefilled,
        TilePoolSet,
        Age2StackFormed,
        Age2Swapped,
        GameSetUp,
        Configured,
    }
)
"""Public events that reveal information some seat could not see before (take-backs: a command
with one of these cannot be undone).  Hidden in Jiangnan: each draw bag's contents (to all but its
owner; the Bot's to everybody), the order and contents of the face-down stacks (Portfolio, Muse) and
of the box / Mixed Ages bag the Upkeep tiles come from.
FinalScored: the game ends and the view opens every draw bag to everybody.
ActionTileDrawn: a tile leaves a hidden draw bag for the Action Track.
BotTileDrawn: a tile leaves the Bot's hidden draw bag.
PortfolioRevealed: a Portfolio Tile of the face-down stack turns face up (display or offer).
PortfolioTaken: source "stack" (Shop B6, Assistant B18, the Bot's start) takes a face-down tile.
MuseRevealed: a Muse of the face-down stack turns face up.
BotMuseHired: the Bot hires a Muse from the face-down stack.
MusesFormed: a new Muse display (and the stack's contents) from the face-down Muses.
UpkeepTilesRefilled: Action Tiles drawn at random (box / silver or gold bag) turned face up.
TilePoolSet: names the contents of the Mixed Ages bag, which no view shows.
Age2StackFormed: names the contents of the new face-down Age 2 stack.
Age2Swapped: names the contents of the reshuffled face-down Age 2 stack.
GameSetUp: the setup's random draws, with the face-down Portfolio and Muse stacks' contents.
Configured: the chapter setup's random draws (talent offer, Charm Tiles, the Mixed Ages bag).
Not revealing: CharmReplaced (the Charm column is face up and in every view), PortfoliosRefreshed
and BagRefilled (they hide public tiles, revealing none), every other event (public moves)."""

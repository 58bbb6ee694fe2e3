"""One-line narration of an event, for ``yamen replay``."""

from __future__ import annotations

import msgspec

from domain.kernel import Event

from .events import (
    ActionTileDrafted,
    ActionTileDrawn,
    ActionTileSwapped,
    Age2StackFormed,
    Age2Swapped,
    AssistantActivated,
    BagRefilled,
    BoatServantMoved,
    BoatServantPlaced,
    BoatsSlid,
    BotMuseHired,
    BotTileDrawn,
    CharmReplaced,
    Configured,
    DegreeEarned,
    DisplayTileAdded,
    FairMoved,
    FinalScored,
    GameSetUp,
    MuseHired,
    MuseRevealed,
    MusesFormed,
    NovelIncomeActivated,
    OrderMarkerPlaced,
    PhaseBegan,
    PointerRotated,
    PortfolioDiscarded,
    PortfolioPublished,
    PortfolioRevealed,
    PortfoliosRefreshed,
    PortfolioTaken,
    PublicScored,
    ResourcesChanged,
    ScholarPlaced,
    ScholarsRecovered,
    ServantIncomeTaken,
    ServantOnMuse,
    SpiritConsumed,
    SpiritsTileTaken,
    SpiritsTileUsed,
    StartingPortfolioChosen,
    StepBegan,
    TalentChosen,
    TileChosen,
    TileDiscarded,
    TilePoolSet,
    Travelled,
    TrendChosen,
    TurnBegan,
    TurnOrderAdjusted,
    UpkeepTilesRefilled,
)
from .state import State


def describe(state: State, event: Event) -> str:
    who = f"Seat {getattr(event, 'seat', '?')}"
    match event:
        case GameSetUp(players=n, chapter=ch, rules_version=rules):
            return f"Chapter {ch} set up for {n} player{'s' if n > 1 else ''} (rules {rules})"
        case Configured():
            return "Setup configured: " + ", ".join(
                f"{k}={v}" for k, v in msgspec.structs.asdict(event.cfg).items()
            )
        case TalentChosen(talent=t):
            return f"{who} takes Talent {t}"
        case MusesFormed(muses=m):
            return f"The Muse stack is formed; Muses {', '.join(m)} are revealed"
        case DegreeEarned(degree=d):
            return f"{who} earns the {'Juren' if d == 1 else 'Gongshi'} degree"
        case PortfolioDiscarded(portfolio=pid):
            return f"{who} discards Portfolio {pid}"
        case CharmReplaced(charm=ch):
            return f"Charm Tile {ch} comes into play"
        case TilePoolSet(pool=pool):
            return f"{len(pool)} Action Tiles left in the drafting bag"
        case BotTileDrawn(tile=tile):
            return f"The Bot draws {tile}"
        case BotMuseHired(muse=m):
            return f"The Bot hires {m}"
        case ActionTileDrawn(tile=tile):
            return f"{who} draws an Action Tile" + (f" ({tile})" if tile else "")
        case PortfolioRevealed(portfolio=pid, to=to):
            return f"Portfolio {pid} is revealed ({to})"
        case StartingPortfolioChosen(portfolio=pid):
            return f"{who} keeps starting Portfolio {pid}"
        case PhaseBegan(phase=phase, round=r):
            return f"Round {r}: {phase}"
        case TurnBegan():
            return f"{who} takes a turn"
        case ResourcesChanged(why=why):
            parts = [
                f"{v:+d} {k}"
                for k, v in (
                    ("coins", event.coins),
                    ("VP", event.vp),
                    ("spirit", event.spirit),
                    ("drama", event.drama),
                    ("novel", event.novel),
                    ("painting", event.painting),
                )
                if v
            ]
            return f"{who}: {', '.join(parts)} ({why})"
        case TileChosen(tile=tile, district=d):
            return f"{who} uses Action Tile {tile} for {d}"
        case TileDiscarded(tile=tile):
            return f"{who} discards {tile} for its bonus"
        case ScholarPlaced(district=d):
            return f"{who} places a Scholar at {d}"
        case OrderMarkerPlaced():
            return f"{who} claims the next turn order space"
        case PortfoliosRefreshed():
            return "The Society Portfolios are refreshed"
        case Age2StackFormed():
            return "Age 1 Portfolios exhausted: Age 2 stack formed"
        case PortfolioTaken(portfolio=pid):
            return f"{who} takes Portfolio {pid}"
        case PortfolioPublished(portfolio=pid, where=where):
            return f"{who} publishes {pid} ({where})"
        case DisplayTileAdded(district=d, kind=kind):
            return f"A {kind} Display Tile slides onto the {d} track"
        case ServantOnMuse(muse=m):
            return f"{who} places a Servant on Muse {m}"
        case MuseHired(muse=m):
            return f"{who} hires {m} as an Assistant"
        case MuseRevealed(muse=m):
            return f"Muse {m} is revealed"
        case Travelled(city=city):
            return f"{who} travels to {city}"
        case FairMoved(to=to):
            return f"{who} moves to Temple Fair space {to}"
        case SpiritsTileTaken():
            return f"{who} gains a Spirits Tile"
        case SpiritsTileUsed():
            return f"{who} uses a Spirits Tile"
        case BoatServantPlaced(boat=b):
            return f"{who} places a Servant on boat {b}"
        case BoatServantMoved(from_boat=a, to_boat=b):
            return f"{who} moves a Servant from boat {a} to boat {b}"
        case BoatsSlid():
            return "The boats slide down the river"
        case TrendChosen(trend=t):
            return f"{who if event.seat >= 0 else 'Nobody'} chooses the {t} trend"
        case AssistantActivated(assistant=a):
            return f"{who} activates {a}"
        case NovelIncomeActivated(portfolio=pid):
            return f"{who} activates the income of {pid}"
        case ServantIncomeTaken(district=d):
            return f"{who} takes the income of their Servants in the {d}"
        case ActionTileSwapped(tile=tile):
            return f"{who} moves {tile} to the Action Track"
        case ActionTileDrafted(tile=tile):
            return f"{who} drafts {tile}"
        case ScholarsRecovered():
            return "Scholars return to their players"
        case UpkeepTilesRefilled(tiles=tiles):
            return f"{len(tiles)} new Action Tiles on the Upkeep board"
        case PublicScored(vp=vp):
            return "Public Scoring: " + ", ".join(f"seat {i} +{v}" for i, v in enumerate(vp))
        case BagRefilled():
            return f"{who} refills the draw bag"
        case Age2Swapped():
            return "Age 2 Portfolios replace Age 1"
        case PointerRotated(pointer=ptr):
            return f"The Special Action Pointer turns to space {ptr}"
        case TurnOrderAdjusted(order=order):
            return f"Turn order: {order}"
        case SpiritConsumed(amount=a):
            return f"{who} consumes {a} spirit"
        case FinalScored():
            return "Final Scoring"
        case StepBegan(step=step):
            return f"Seat {step.seat}: {step.kind}"
    return ""

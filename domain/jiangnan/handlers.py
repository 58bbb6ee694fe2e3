"""What each accepted decision does (the command was already checked by ``legal_moves``)."""

from __future__ import annotations

from . import components as C
from .commands import *  # noqa: F403
from .events import *  # noqa: F403
from .rules import Ctx, activate, discard_rightmost, gain, place_on_muse, publish, replenish_display, start_district, start_shop
from .state import Frame


def _end(c: Ctx) -> None:
    c.emit(StepEnded())


def _rest(c: Ctx, seat: int, slot: int) -> None:
    """Rest: use a tile without visiting, scholar to the Rest Area, discard the rightmost tile
    for its bonus, gain 2 Coins and 4 Spirit, then replenish."""
    tile = c.s.p[seat].track[slot]
    c.push("after_turn", seat)
    c.emit(TileChosen(seat=seat, tile=tile, district=C.REST), ScholarPlaced(seat=seat, district=C.REST))
    discard_rightmost(c, seat)
    gain(c, seat, {"coin": 2, "spirit": 4}, "rest")


def _move_on_fair(c: Ctx, seat: int, distance: int, clockwise: bool) -> int:
    """Temple Fair: gain the Passing Bonus of each path passed, in one direction."""
    pos = c.s.p[seat].fair
    for _ in range(distance):
        if clockwise:
            path, pos = pos, (pos + 1) % C.FAIR_SPACES
        else:
            pos = (pos - 1) % C.FAIR_SPACES
            path = pos
        gain(c, seat, C.PASSING_BONUS[path], "passing bonus")
    c.emit(FairMoved(seat=seat, to=pos))
    return pos


def handle(c: Ctx, seat: int, f: Frame, cmd) -> None:  # noqa: C901
    s = c.s
    p = s.p[seat]
    k = f.kind
    match cmd:
        case UseSpiritsTile():
            c.emit(SpiritsTileUsed(seat=seat))
            gain(c, seat, {"spirit": 3}, "spirits tile")
            if k == "mandatory_rest" and p.spirit > 0:
                _end(c)
        case ChooseStartingPortfolio(portfolio=pid):
            _end(c)
            c.emit(StartingPortfolioChosen(seat=seat, portfolio=pid))
        case VisitDistrict(slot=slot, district=d):
            tile = p.track[slot]
            _end(c)
            c.push("after_turn", seat)
            c.emit(TileChosen(seat=seat, tile=tile, district=d))
            discard_rightmost(c, seat)
            c.emit(ScholarPlaced(seat=seat, district=d))
            start_district(c, seat, d)
        case Rest(slot=slot):
            _end(c)
            _rest(c, seat, slot)
        case RefreshPortfolios():
            if k == "society":
                gain(c, seat, {"coin": -1}, "refresh")
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=True))
            else:
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=False))
                _end(c)
                c.push(k, seat, f.arg, 1)
            replenish_display(c)
        case TakePortfolios(portfolios=pids):
            _end(c)
            for pid in pids:
                c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(c)
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):
            _end(c)
            c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            gain(c, seat, [idea], "society")
            replenish_display(c)
        case TakeIdeas(ideas=ideas):
            _end(c)
            gain(c, seat, ideas, "society")
        case TakePortfolio(portfolio=pid):
            _end(c)
            c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(c)
        case TakeIdea(idea=idea):
            _end(c)
            gain(c, seat, [idea], "idea")
        case Publish(portfolio=pid):
            _end(c)
            where = f.arg if k == "publish_or_inspire" else ("printing_press" if f.arg == "A1" else "assistant")
            publish(c, seat, pid, where)
        case DrawInspiration():
            _end(c)
            gain(c, seat, [str(kind) for kind, _ in s.displays[f.arg]], "inspiration")
        case PlaceServant(muse=muse):
            _end(c)
            place_on_muse(c, seat, muse, bonus=f.arg == "parlour")
            if f.arg == "gift":
                c.push("assistant_offer", seat, muse)
        case ActivateAssistant(assistant=a):
            if k == "assistant_offer":
                _end(c)
                activate(c, seat, a, income=False)
            else:
                activate(c, seat, a, income=True)
        case TravelTo(city=city):
            _end(c)
            if f.arg == "district":
                gain(c, seat, {"coin": -C.CITY_COST[city]}, "travel cost")
            if f.arg in ("district", "peddler"):
                gain(c, seat, {"spirit": 1}, "travel")
            c.emit(Travelled(seat=seat, city=city))
            bonus = C.TRAVEL_TILES[s.travel[city]]
            ideas = [t for t in bonus if t in C.IDEAS]
            if f.arg in ("district", "peddler"):
                gain(c, seat, ideas, "city bonus")
            if f.arg == "district":
                if "portfolio" in bonus and s.display:
                    c.push("take_portfolio", seat, "bonus")
                if "special" in bonus:
                    start_shop(c, seat, s.shops[s.pointer])
        case MoveServant(distance=distance, clockwise=clockwise):
            _end(c)
            if f.arg == "district":
                gain(c, seat, {"coin": -C.FAIR_MOVES[distance]}, "temple fair")
            pos = _move_on_fair(c, seat, distance, clockwise)
            if f.arg == "district":
                start_shop(c, seat, s.shops[pos])
        case PlaceOnBoat(boat=boat):
            _end(c)
            if f.arg == "A4":
                gain(c, seat, {"coin": -1}, "boatman")
            c.emit(BoatServantPlaced(seat=seat, boat=boat))
        case MoveBoatServant(from_boat=a, to_boat=b):
            _end(c)
            c.emit(BoatServantMoved(seat=seat, from_boat=a, to_boat=b))
        case ExchangeIdeas(give=give, take=take):
            _end(c)
            counts: dict[str, int] = {}
            for i in give:
                counts[i] = counts.get(i, 0) - 1
            for i in take:
                counts[i] = counts.get(i, 0) + 1
            gain(c, seat, counts, "exchange")
        case SwapActionTile(tile=tile, slot=slot):
            _end(c)
            c.emit(ActionTileSwapped(seat=seat, tile=tile, slot=slot))
        case ActivateNovel(portfolio=pid):
            gain(c, seat, {"novel": -1}, "novel income")
            c.emit(NovelIncomeActivated(seat=seat, portfolio=pid))
            gain(c, seat, C.PORTFOLIOS[pid]["income"], "novel income")
        case EndIncome():
            _end(c)
        case ChooseTrend(trend=trend):
            _end(c)
            c.emit(TrendChosen(seat=seat, trend=trend))
        case DraftTile(tile=tile):
            _end(c)
            c.emit(ActionTileDrafted(seat=seat, tile=tile))
        case Pass():
            _end(c)

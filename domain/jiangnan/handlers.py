"""What each accepted decision does (the command was already checked by ``legal_moves``)."""

from __future__ import annotations

from . import components as C
from .commands import *  # noqa: F403
from .events import *  # noqa: F403
from .rules import (
    Ctx, activate, after_choice, charm_met, cost, draw_from_stack, gain, muses_shown, place_on_muse, publish,
    replenish_display, s_power, send_vassal, stack_available, start_shop, start_special,
)
from .state import Frame


def _end(c: Ctx) -> None:
    c.emit(StepEnded())


def _choose(c: Ctx, seat: int, slot: int, d: str) -> None:
    """Player Turn 1 (or Rest): use the tile; then discard (2-player variant: choose which)."""
    p = c.s.p[seat]
    tile = p.track[slot]
    c.push("after_turn", seat)
    c.emit(TileChosen(seat=seat, tile=tile, district=d))
    if c.s.cfg.variant and len(p.track) > 1:
        c.push("discard", seat, d)
    else:
        after_choice(c, seat, d, 0)


def _rest(c: Ctx, seat: int, slot: int) -> None:
    """Rest: use a tile without visiting, scholar to the Rest Area, discard the rightmost tile
    for its bonus, gain 2 Coins and 4 Spirit, then replenish."""
    _choose(c, seat, slot, C.REST)


def _society_extra(c: Ctx, seat: int, f: Frame) -> None:
    """A13/A15: at the Society, 1 more Portfolio or Idea Tile."""
    if f.kind == "society" and s_power(c, seat) == "charming":
        c.push("society_extra", seat)


def _move_on_fair(c: Ctx, seat: int, distance: int, clockwise: bool, double: bool = False) -> int:
    """Temple Fair: gain the Passing Bonus of each path passed, in one direction."""
    pos = c.s.p[seat].fair
    for _ in range(distance):
        if clockwise:
            path, pos = pos, (pos + 1) % C.FAIR_SPACES
        else:
            pos = (pos - 1) % C.FAIR_SPACES
            path = pos
        gain(c, seat, C.PASSING_BONUS[path] * (2 if double else 1), "passing bonus")
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
            _end(c)
            _choose(c, seat, slot, d)
        case DiscardTile(slot=slot):
            _end(c)
            after_choice(c, seat, f.arg, slot)
        case SendVassal(district=d):
            _end(c)
            send_vassal(c, seat, d)
        case ChooseTalent(talent=t):
            _end(c)
            c.emit(TalentChosen(seat=seat, talent=t))
        case TakeExam():
            _end(c)
            _society_extra(c, seat, f)
            exam = C.EXAMS[p.degree + 1]
            c.emit(DegreeEarned(seat=seat, degree=p.degree + 1))
            c.push("exam_ideas", seat, "", exam["ideas"])
            c.push("exam_portfolios", seat, "", exam["portfolios"])
        case DiscardPortfolio(portfolio=pid):
            _end(c)
            c.emit(PortfolioDiscarded(seat=seat, portfolio=pid))
            if f.n > 1:
                c.push(k, seat, f.arg, f.n - 1)
        case PayIdea(idea=idea):
            _end(c)
            gain(c, seat, {idea: -1}, "imperial exam")
            if f.n > 1:
                c.push(k, seat, f.arg, f.n - 1)
        case PublishToTravel(portfolio=pid):
            _end(c)
            publish(c, seat, pid, "travel")
            c.push("travel", seat, "artisan")
        case PublishIn(portfolio=pid, district=d):
            _end(c)
            gain(c, seat, {"coin": -cost(s, seat, C.B1_COST)}, "printing press")
            publish(c, seat, pid, d)
        case DrawPortfolio():
            _end(c)
            pid = draw_from_stack(c)
            if pid is not None:
                c.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
            if f.n > 1 and stack_available(c.s):
                c.push(k, seat, f.arg, f.n - 1)
        case ChooseShop(shop=shop):
            _end(c)
            start_shop(c, seat, shop)
        case Rest(slot=slot):
            _end(c)
            _rest(c, seat, slot)
        case RefreshPortfolios():
            if k == "society":
                gain(c, seat, {"coin": -cost(s, seat, 1)}, "refresh")
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=True))
            else:
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=False))
                _end(c)
                c.push(k, seat, f.arg, 1)
            replenish_display(c)
        case TakePortfolios(portfolios=pids):
            _end(c)
            _society_extra(c, seat, f)
            for pid in pids:
                c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(c)
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):
            _end(c)
            _society_extra(c, seat, f)
            c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            gain(c, seat, [idea], "society")
            replenish_display(c)
        case TakeIdeas(ideas=ideas):
            _end(c)
            _society_extra(c, seat, f)
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
            if f.arg == "parlour" and muses_shown(s):
                if s.cfg.charm and charm_met(s, seat):  # Charming Scholar: another Servant, no bonus
                    c.push("muse", seat, "charm")
                if s_power(c, seat) == "charming":  # A13/A15: an extra Servant, no bonus
                    c.push("muse", seat, "talent")
        case ActivateAssistant(assistant=a):
            if k == "assistant_offer":
                _end(c)
                activate(c, seat, a, income=False)
            else:
                activate(c, seat, a, income=True)
        case TravelTo(city=city):
            _end(c)
            if f.arg == "district":
                gain(c, seat, {"coin": -cost(s, seat, C.CITY_COST[city])}, "travel cost")
            if f.arg in ("district", "peddler", "artisan"):
                gain(c, seat, {"spirit": 1}, "travel")
            c.emit(Travelled(seat=seat, city=city))
            bonus = C.TRAVEL_TILES[s.travel[city]]
            ideas = [t for t in bonus if t in C.IDEAS]
            if s_power(c, seat) == "wanderer":  # A03/A05: double the City Bonus
                ideas = ideas * 2
            if f.arg in ("district", "peddler"):
                gain(c, seat, ideas, "city bonus")
            if f.arg == "district":
                if "portfolio" in bonus and s.display:
                    c.push("take_portfolio", seat, "bonus")
                if "special" in bonus:
                    start_special(c, seat)
        case MoveServant(distance=distance, clockwise=clockwise):
            _end(c)
            if f.arg == "district":
                gain(c, seat, {"coin": -cost(s, seat, C.FAIR_MOVES[distance])}, "temple fair")
            double = f.arg == "district" and s_power(c, seat) == "wanderer"  # A03/A05
            pos = _move_on_fair(c, seat, distance, clockwise, double)
            if f.arg == "district":
                start_shop(c, seat, s.shops[pos])
        case PlaceOnBoat(boat=boat):
            _end(c)
            if f.arg == "A4":
                gain(c, seat, {"coin": -cost(s, seat, 1)}, "boatman")
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
            if f.arg == "B3" and f.n > 1 and sum(p.ideas.values()) > 0:  # up to 3, one at a time
                c.push(k, seat, f.arg, f.n - 1)
        case SwapActionTile(tile=tile, slot=slot):
            _end(c)
            c.emit(ActionTileSwapped(seat=seat, tile=tile, slot=slot))
            if f.arg == "B2" and f.n > 1 and (p.used or p.drafted):  # up to 2
                c.push(k, seat, f.arg, f.n - 1)
        case ActivateNovel(portfolio=pid):
            gain(c, seat, {"novel": -1}, "novel income")
            c.emit(NovelIncomeActivated(seat=seat, portfolio=pid))
            x = 2 if s_power(c, seat) == "royalty" else 1  # A06/A08: double income
            gain(c, seat, {k: x * v for k, v in C.PORTFOLIOS[pid]["income"].items()}, "novel income")
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

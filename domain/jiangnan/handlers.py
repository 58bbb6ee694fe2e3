"""What each accepted decision does (the command was already checked by ``legal_moves``).

Each ``case`` names the rulebook section it plays (District Actions, Shop Actions, Upkeep Phase,
List of Assistant Powers, Game Chapters, 2-Player Rules); the shared steps are in ``rules.py``.
"""

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
            # Spirit Level Track / Shop A5 Liquor Shop: discard a Spirits Tile for +3 Spirit (may prevent a Mandatory Rest)
            c.emit(SpiritsTileUsed(seat=seat))
            gain(c, seat, {"spirit": 3}, "spirits tile")
            if k == "mandatory_rest" and p.spirit > 0:
                _end(c)
        case ChooseStartingPortfolio(portfolio=pid):
            # Game Setup (steps 13-14, not printed): keep 1 of the 4 + N revealed Portfolio Tiles
            _end(c)
            c.emit(StartingPortfolioChosen(seat=seat, portfolio=pid))
        case VisitDistrict(slot=slot, district=d):
            # Player Turn 1, Choose District to Visit (Age 3-4 tiles: 1 of the 2 districts)
            _end(c)
            _choose(c, seat, slot, d)
        case DiscardTile(slot=slot):
            # 2-Player Rules, 2P Advance Variant: discard any available Action Tile for its Discard Bonus
            _end(c)
            after_choice(c, seat, f.arg, slot)
        case SendVassal(district=d):
            # 2-Player Rules: the vassal's Scholar goes below a district of the discarded tile
            _end(c)
            send_vassal(c, seat, d)
        case ChooseTalent(talent=t):
            # Chapter 2 "Four Great Talents" / Chapter 4 Advanced Talent Draft (setup step 14, reverse order)
            _end(c)
            c.emit(TalentChosen(seat=seat, talent=t))
        case TakeExam():
            # Imperial Exam (Society side B, option d): Juren (2 Portfolios + 6 Ideas) / Gongshi (3 + 9)
            _end(c)
            _society_extra(c, seat, f)
            exam = C.EXAMS[p.degree + 1]
            c.emit(DegreeEarned(seat=seat, degree=p.degree + 1))
            c.push("exam_ideas", seat, "", exam["ideas"])
            c.push("exam_portfolios", seat, "", exam["portfolios"])
        case DiscardPortfolio(portfolio=pid):
            # Imperial Exam: discard the unpublished Portfolio Tiles (removed from the game)
            _end(c)
            c.emit(PortfolioDiscarded(seat=seat, portfolio=pid))
            if f.n > 1:
                c.push(k, seat, f.arg, f.n - 1)
        case PayIdea(idea=idea):
            # Imperial Exam: pay the Idea Tiles of any type(s)
            _end(c)
            gain(c, seat, {idea: -1}, "imperial exam")
            if f.n > 1:
                c.push(k, seat, f.arg, f.n - 1)
        case PublishToTravel(portfolio=pid):
            # Traveling Artisans (Travel side B) 1b: publish instead of paying the Travel Cost
            _end(c)
            publish(c, seat, pid, "travel")
            c.push("travel", seat, "artisan")
        case PublishIn(portfolio=pid, district=d):
            # Advanced Shop B1 Printing Press: pay 1 Coin, publish in the Teahouse or Tavern
            _end(c)
            gain(c, seat, {"coin": -cost(s, seat, C.B1_COST)}, "printing press")
            publish(c, seat, pid, d)
        case DrawPortfolio():
            # Advanced Shop B6 Calligraphy Shop: up to 2 Portfolio Tiles from the top of the stack
            _end(c)
            pid = draw_from_stack(c)
            if pid is not None:
                c.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
            if f.n > 1 and stack_available(c.s):
                c.push(k, seat, f.arg, f.n - 1)
        case ChooseShop(shop=shop):
            # Special Action Pointer B & C: choose 1 of the 2 Shops it points to
            _end(c)
            start_shop(c, seat, shop, f.arg == "visit")
        case Rest(slot=slot):
            # Rest (also Mandatory Rest)
            _end(c)
            _rest(c, seat, slot)
        case RefreshPortfolios():
            # Society step 2 (pay 1 Coin, once per turn) / Shop A6 Calligraphy Shop (free)
            if k == "society":
                gain(c, seat, {"coin": -cost(s, seat, 1)}, "refresh")
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=True))
            else:
                c.emit(PortfoliosRefreshed(seat=seat, returned=list(s.display), paid=False))
                _end(c)
                c.push(k, seat, f.arg, 1)
            replenish_display(c)
        case TakePortfolios(portfolios=pids):
            # Society 3a: any 2 faceup Portfolio Tiles; Society 4: replenish the display
            _end(c)
            _society_extra(c, seat, f)
            for pid in pids:
                c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(c)
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):
            # Society 3b: 1 faceup Portfolio Tile and 1 Idea Tile of any type
            _end(c)
            _society_extra(c, seat, f)
            c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            gain(c, seat, [idea], "society")
            replenish_display(c)
        case TakeIdeas(ideas=ideas):
            # Society 3c: 2 Idea Tiles of any type(s)
            _end(c)
            _society_extra(c, seat, f)
            gain(c, seat, ideas, "society")
        case TakePortfolio(portfolio=pid):
            # Bonus Icons "Gain 1 Portfolio", Travel City Bonus, Shop A6, B17, A13/A15 extra: 1 faceup tile
            _end(c)
            c.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(c)
        case TakeIdea(idea=idea):
            # Shop A1 Printing Press, Assistant B06, A13/A15 extra: 1 Idea Tile of any type
            _end(c)
            gain(c, seat, [idea], "idea")
        case Publish(portfolio=pid):
            # Teahouse / Tavern 2a (4a) Publish a Portfolio; Shop A1; Assistant B20 (no Display Track)
            _end(c)
            where = f.arg if k == "publish_or_inspire" else ("printing_press" if f.arg == "A1" else "assistant")
            publish(c, seat, pid, where)
        case DrawInspiration():
            # Teahouse / Tavern 2b (4b) Draw Inspiration: 1 Idea per Display Tile of its type
            _end(c)
            gain(c, seat, [str(kind) for kind, _ in s.displays[f.arg]], "inspiration")
        case PlaceServant(muse=muse):
            # Parlour step 3 (Muse Bonus), Charming Scholar, A13/A15, Shop A3 Gift Shop, Assistant B15
            _end(c)
            place_on_muse(c, seat, muse, bonus=f.arg == "parlour")
            if f.arg == "gift":  # Shop A3 Gift Shop: then you may activate their Assistant Power
                c.push("assistant_offer", seat, muse)
            if f.arg == "parlour" and muses_shown(s):
                if s.cfg.charm and charm_met(s, seat):  # Charming Scholar: another Servant, no bonus
                    c.push("muse", seat, "charm")
                if s_power(c, seat) == "charming":  # A13/A15: an extra Servant, no bonus
                    c.push("muse", seat, "talent")
        case ActivateAssistant(assistant=a):
            # Upkeep 1c, Personal Income (once per round) / Shop A3 Gift Shop
            if k == "assistant_offer":
                _end(c)
                activate(c, seat, a, income=False)
            else:
                activate(c, seat, a, income=True)
        case TravelTo(city=city):
            # Travel 1a-4 (Travel Cost, Spirit +1, Servant, City Bonus); Shop A2 Peddler; Assistant B13
            _end(c)
            if f.arg == "district":  # Travel 1a: pay the Travel Cost (A10 Kou Baimen: 0)
                gain(c, seat, {"coin": -cost(s, seat, C.CITY_COST[city])}, "travel cost")
            if f.arg in ("district", "peddler", "peddler_away", "artisan"):  # Travel 2: Spirit +1
                gain(c, seat, {"spirit": 1}, "travel")
            c.emit(Travelled(seat=seat, city=city))
            bonus = C.TRAVEL_TILES[s.travel[city]]
            ideas = [t for t in bonus if t in C.IDEAS]
            if s_power(c, seat) == "wanderer" and f.arg in ("district", "peddler"):
                ideas = ideas * 2  # A03/A05: double the City Bonus when you visit Travel / Temple Fair
            if f.arg in ("district", "peddler", "peddler_away"):  # Travel 4: City Bonus (A2 Peddler: only Ideas)
                gain(c, seat, ideas, "city bonus")
            if f.arg == "district":
                if "portfolio" in bonus and s.display:  # City Bonus: 1 revealed Portfolio (no refresh)
                    c.push("take_portfolio", seat, "bonus")
                if "special" in bonus:  # City Bonus: the Shop the Special Action Pointer points to
                    start_special(c, seat, visit=True)
        case MoveServant(distance=distance, clockwise=clockwise):
            # Temple Fair a-c (move 1-3 spaces for 0-2 Coins, Passing Bonus, Shop); Assistant B05
            _end(c)
            if f.arg == "district":  # Temple Fair: pay 0 / 1 / 2 Coins to move 1 / 2 / 3 spaces
                gain(c, seat, {"coin": -cost(s, seat, C.FAIR_MOVES[distance])}, "temple fair")
            double = f.arg == "district" and s_power(c, seat) == "wanderer"  # A03/A05
            pos = _move_on_fair(c, seat, distance, clockwise, double)
            if f.arg == "district":  # Temple Fair: perform the action of the Shop where it stopped (not B05)
                start_shop(c, seat, s.shops[pos])
        case PlaceOnBoat(boat=boat):
            # Shop A4 Boatman (pay 1 Coin) / Assistant B07 (2 Coins, paid on activation)
            _end(c)
            if f.arg == "A4":
                gain(c, seat, {"coin": -cost(s, seat, 1)}, "boatman")
            c.emit(BoatServantPlaced(seat=seat, boat=boat))
        case MoveBoatServant(from_boat=a, to_boat=b):
            # Advanced Shop B4 Boatman / Assistant B14
            _end(c)
            c.emit(BoatServantMoved(seat=seat, from_boat=a, to_boat=b))
        case ExchangeIdeas(give=give, take=take):
            # Assistant B08 (2 Ideas) / Advanced Shop B3 Gift Shop (up to 3, one at a time)
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
            # Assistant B12 (1 tile) / Advanced Shop B2 Peddler (up to 2)
            _end(c)
            c.emit(ActionTileSwapped(seat=seat, tile=tile, slot=slot))
            if f.arg == "B2" and f.n > 1 and (p.used or p.drafted):  # up to 2
                c.push(k, seat, f.arg, f.n - 1)
        case ActivateNovel(portfolio=pid):
            # Upkeep 1b, Personal Income: pay 1 Novel Idea for a published Novel's VP income
            gain(c, seat, {"novel": -1}, "novel income")
            c.emit(NovelIncomeActivated(seat=seat, portfolio=pid))
            x = 2 if s_power(c, seat) == "royalty" else 1  # A06/A08: double income
            gain(c, seat, {k: x * v for k, v in C.PORTFOLIOS[pid]["income"].items()}, "novel income")
        case EndIncome():
            # Upkeep 1, Personal Income: done activating
            _end(c)
        case ChooseTrend(trend=trend):
            # Upkeep 2, Resolve Boats: the winner chooses 1 of the 2 Scoring Trend Tiles
            _end(c)
            c.emit(TrendChosen(seat=seat, trend=trend))
        case DraftTile(tile=tile):
            # Upkeep 3, Draft New Action Tiles (then the leftmost Scholar is recovered)
            _end(c)
            c.emit(ActionTileDrafted(seat=seat, tile=tile))
        case Pass():
            # decline a "you may" action
            _end(c)

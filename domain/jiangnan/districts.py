"""District Actions: Teahouse, Tavern, Parlour, Travel and Temple Fair (the Society is in
``society.py``), with the side B extras (Traveling Artisans, Charming Scholar)."""

from __future__ import annotations

from typing import Any

from domain.kernel import RuleViolation

from . import components as C
from .commands import DrawInspiration, MoveServant, Pass, PlaceServant, Publish, PublishToTravel, TravelTo
from .events import FairMoved, MuseHired, MuseRevealed, OrderMarkerPlaced, ServantOnMuse, Travelled
from .play import Play, Step, gain, optional_from, refusal
from .portfolios import publish, publish_refusal
from .shops import start_shop, start_special
from .state import Frame, State
from .table import charm_met, cost, muses_shown, power, reachable_cities, servants_on_display


def start_district(c: Play, seat: int, d: str) -> None:
    """Player Turn 3, Perform District Action: the automatic part, then the district's decision."""
    s = c.state
    if d == "society":  # Society 1: Player Marker on the Next Round Turn Order Track (once a round)
        if not s.p[seat].society_visited:
            c.emit(OrderMarkerPlaced(seat=seat))
        c.push("society", seat)
    elif d == "teahouse":  # Teahouse 1: 1 Coin per Servant on its Display Track; then 2a / 2b
        x = 2 if power(s, seat) == "patron" else 1  # A02/A11: double
        gain(c, seat, {"coin": x * servants_on_display(s, "teahouse", seat)}, "teahouse servants")
        c.push("publish_or_inspire", seat, "teahouse")
    elif d == "tavern":  # Tavern 1-3: pay 1 Coin, Spirit +1, 1 VP per Servant; then 4a / 4b
        x = 2 if power(s, seat) == "patron" else 1
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


# --- Teahouse 2 / Tavern 4: a. Publish a Portfolio or b. Draw Inspiration -------------------------
def _publish_or_inspire_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [Publish(portfolio=pid) for pid in s.p[seat].unpublished] + [DrawInspiration()]


def _publish_or_inspire_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if isinstance(cmd, Publish):
        return publish_refusal(s, seat, cmd.portfolio)
    return None


def _publish_or_inspire_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    if isinstance(cmd, Publish):
        publish(c, seat, cmd.portfolio, f.arg)
    else:  # Draw Inspiration: 1 Idea per Display Tile, of its type
        gain(c, seat, [str(kind) for kind, _ in c.state.displays[f.arg]], "inspiration")


# --- Parlour 3: a Servant on a Muse (also Charming Scholar, A13/A15, Shop A3, Assistant B15) -------
def place_on_muse(c: Play, seat: int, muse: str, bonus: bool) -> None:
    """Place a Servant on a Muse (and gain its bonus); the second Servant of a colour hires the Muse
    as an Assistant, wherever it was placed from, and its space is refilled from the stack."""
    c.emit(ServantOnMuse(seat=seat, muse=muse))
    if bonus:
        gain(c, seat, C.MUSE_BONUS[muse], "muse bonus")
    if c.state.muse_servants.get(muse, []).count(seat) >= 2:
        c.emit(MuseHired(seat=seat, muse=muse))
        if c.state.muse_stack:
            c.emit(MuseRevealed(muse=c.rng.choice(c.state.muse_stack)))


def _muse_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [PlaceServant(muse=m) for m in muses_shown(s)]


def _muse_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.muse in muses_shown(s):
        return None
    return refusal("no_such_muse", "that Muse is not in the Parlour", "Parlour")


def _muse_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    place_on_muse(c, seat, cmd.muse, bonus=f.arg == "parlour")
    s = c.state
    if f.arg == "gift":  # Shop A3 Gift Shop: then you may activate their Assistant Power
        c.push("assistant_offer", seat, cmd.muse)
    if f.arg == "parlour" and muses_shown(s):
        if s.cfg.charm and charm_met(s, seat):  # Charming Scholar: another Servant, no bonus
            c.push("muse", seat, "charm")
        if power(s, seat) == "charming":  # A13/A15: an extra Servant, no bonus
            c.push("muse", seat, "talent")


# --- Travel 1-4 (also Shop A2 Peddler, Assistant B13, Traveling Artisans) --------------------------
def _travel_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    cities: list[Any] = [TravelTo(city=city) for city in C.CITIES]
    return cities + [PublishToTravel(portfolio=pid) for pid in s.p[seat].unpublished]


def _travel_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    p = s.p[seat]
    if isinstance(cmd, PublishToTravel):  # Traveling Artisans (side B): publish instead of paying
        if not (f.arg == "district" and s.cfg.artisans and reachable_cities(s, seat)):
            return refusal(
                "not_now", "publishing instead of paying is a Travel visit on side B", "Traveling Artisans"
            )
        return publish_refusal(s, seat, cmd.portfolio, "Traveling Artisans")
    if cmd.city in p.cities:
        return refusal("already_travelled", "you travelled to that city before", "Travel")
    if cmd.city not in reachable_cities(s, seat):
        return refusal("not_adjacent", "the city is not next to Jinling or a city you travelled to", "Travel")
    if f.arg == "district" and cost(s, seat, C.CITY_COST[cmd.city]) > p.coins:  # Travel 1a: the Travel Cost
        return refusal("insufficient_coins", "you cannot pay the Travel Cost", "Travel")
    return None


def _travel_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    if isinstance(cmd, PublishToTravel):  # Traveling Artisans 1b: publish, then travel without paying
        publish(c, seat, cmd.portfolio, "travel")
        c.push("travel", seat, "artisan")
        return
    s = c.state
    city, how = cmd.city, f.arg
    if how == "district":  # Travel 1a: pay the Travel Cost (A10 Kou Baimen: 0)
        gain(c, seat, {"coin": -cost(s, seat, C.CITY_COST[city])}, "travel cost")
    if how in ("district", "peddler", "peddler_away", "artisan"):  # Travel 2: Spirit +1 (not B13)
        gain(c, seat, {"spirit": 1}, "travel")
    c.emit(Travelled(seat=seat, city=city))
    bonus = C.TRAVEL_TILES[s.travel[city]]
    ideas = [t for t in bonus if t in C.IDEAS]
    if power(s, seat) == "wanderer" and how in ("district", "peddler"):
        ideas = ideas * 2  # A03/A05: double the City Bonus when you visit Travel / Temple Fair
    if how in ("district", "peddler", "peddler_away"):  # Travel 4: City Bonus (A2 Peddler: only Ideas)
        gain(c, seat, ideas, "city bonus")
    if how == "district":
        if "portfolio" in bonus and s.display:  # City Bonus: 1 revealed Portfolio (no refresh)
            c.push("take_portfolio", seat, "bonus")
        if "special" in bonus:  # City Bonus: the Shop the Special Action Pointer points to
            start_special(c, seat, visit=True)


# --- Temple Fair a-c: move 1-3 spaces for 0-2 Coins, Passing Bonuses, the Shop (Assistant B05: 1) ---
def _fair_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [MoveServant(distance=d, clockwise=cw) for d in C.FAIR_MOVES for cw in (True, False)]


def _fair_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if f.arg == "B05":
        if cmd.distance != 1:
            return refusal("bad_distance", "move 1 space", "List of Assistant Powers")
        return None
    if cmd.distance not in C.FAIR_MOVES:
        return refusal("bad_distance", "move 1, 2 or 3 spaces", "Temple Fair")
    if cost(s, seat, C.FAIR_MOVES[cmd.distance]) > s.p[seat].coins:
        return refusal("insufficient_coins", "you cannot pay for that distance", "Temple Fair")
    return None


def _fair_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    s = c.state
    if f.arg == "district":  # pay 0 / 1 / 2 Coins to move 1 / 2 / 3 spaces
        gain(c, seat, {"coin": -cost(s, seat, C.FAIR_MOVES[cmd.distance])}, "temple fair")
    double = f.arg == "district" and power(s, seat) == "wanderer"  # A03/A05
    pos = s.p[seat].fair
    for _ in range(cmd.distance):  # one direction; the Passing Bonus of each path passed
        if cmd.clockwise:
            path, pos = pos, (pos + 1) % C.FAIR_SPACES
        else:
            pos = (pos - 1) % C.FAIR_SPACES
            path = pos
        gain(c, seat, C.PASSING_BONUS[path] * (2 if double else 1), "passing bonus")
    c.emit(FairMoved(seat=seat, to=pos))
    if f.arg == "district":  # the action of the Shop where it stopped (not for B05)
        start_shop(c, seat, s.shops[pos])


STEPS = {
    "publish_or_inspire": Step(
        "Teahouse / Tavern",
        (Publish, DrawInspiration),
        _publish_or_inspire_candidates,
        _publish_or_inspire_check,
        _publish_or_inspire_play,
    ),
    "muse": Step(
        "Parlour",
        (PlaceServant, Pass),
        _muse_candidates,
        _muse_check,
        _muse_play,
        optional_from("gift", "charm", "talent"),
    ),
    "travel": Step(
        "Travel", (TravelTo, PublishToTravel, Pass), _travel_candidates, _travel_check, _travel_play
    ),
    "fair": Step("Temple Fair", (MoveServant,), _fair_candidates, _fair_check, _fair_play),
}

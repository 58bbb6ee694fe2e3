"""District Actions: Teahouse, Tavern, Parlour, Travel and Temple Fair (the Society is in
``society.py``), with the side B extras (Traveling Artisans, Charming Scholar)."""

from __future__ import annotations

from typing import Any

from domain.kernel.decision import Decision, Refusal

from . import components as C
from .commands import DrawInspiration, MoveServant, Pass, PlaceServant, Publish, PublishToTravel, TravelTo
from .events import FairMoved, MuseHired, MuseRevealed, OrderMarkerPlaced, ServantOnMuse, Travelled
from .play import Play, gain, optional_from, refusal
from .portfolios import publish, publish_refusal
from .shops import start_shop, start_special
from .state import Frame, State
from .table import charm_met, cost, muses_shown, power, reachable_cities, servants_on_display


def start_district(scratch: Play, seat: int, district: str) -> None:
    """Player Turn 3, Perform District Action: the automatic part, then the district's decision."""
    state = scratch.state
    if district == "society":  # Society 1: Player Marker on the Next Round Turn Order Track (once a round)
        if not state.p[seat].society_visited:
            scratch.emit(OrderMarkerPlaced(seat=seat))
        scratch.push("society", seat)
    elif district == "teahouse":  # Teahouse 1: 1 Coin per Servant on its Display Track; then 2a / 2b
        x = 2 if power(state, seat) == "patron" else 1  # A02/A11: double
        gain(scratch, seat, {"coin": x * servants_on_display(state, "teahouse", seat)}, "teahouse servants")
        scratch.push("publish_or_inspire", seat, "teahouse")
    elif district == "tavern":  # Tavern 1-3: pay 1 Coin, Spirit +1, 1 VP per Servant; then 4a / 4b
        x = 2 if power(state, seat) == "patron" else 1
        gain(scratch, seat, {"coin": -cost(state, seat, 1), "spirit": 1}, "tavern")
        gain(scratch, seat, {"vp": x * servants_on_display(state, "tavern", seat)}, "tavern servants")
        scratch.push("publish_or_inspire", seat, "tavern")
    elif district == "parlour":  # Parlour 1-3: pay 1 Coin, Spirit +1, a Servant on a Muse
        gain(scratch, seat, {"coin": -cost(state, seat, 1), "spirit": 1}, "parlour")
        scratch.push("muse", seat, "parlour")
    elif district == "travel":  # Travel 1-4
        scratch.push("travel", seat, "district")
    elif district == "temple_fair":  # Temple Fair: move, Passing Bonus, Shop
        scratch.push("fair", seat, "district")


# --- Teahouse 2 / Tavern 4: a. Publish a Portfolio or b. Draw Inspiration -------------------------
def _publish_or_inspire_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [Publish(portfolio=pid) for pid in state.p[seat].unpublished] + [DrawInspiration()]


def _publish_or_inspire_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if isinstance(cmd, Publish):
        return publish_refusal(state, seat, cmd.portfolio)
    return None


def _publish_or_inspire_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    if isinstance(cmd, Publish):
        publish(scratch, seat, cmd.portfolio, frame.arg)
    else:  # Draw Inspiration: 1 Idea per Display Tile, of its type
        gain(scratch, seat, [str(kind) for kind, _ in scratch.state.displays[frame.arg]], "inspiration")


# --- Parlour 3: a Servant on a Muse (also Charming Scholar, A13/A15, Shop A3, Assistant B15) -------
def place_on_muse(scratch: Play, seat: int, muse: str, bonus: bool) -> None:
    """Place a Servant on a Muse (and gain its bonus); the second Servant of a colour hires the Muse
    as an Assistant, wherever it was placed from, and its space is refilled from the stack."""
    scratch.emit(ServantOnMuse(seat=seat, muse=muse))
    if bonus:
        gain(scratch, seat, C.MUSE_BONUS[muse], "muse bonus")
    if scratch.state.muse_servants.get(muse, []).count(seat) >= 2:
        scratch.emit(MuseHired(seat=seat, muse=muse))
        if scratch.state.muse_stack:
            scratch.emit(MuseRevealed(muse=scratch.rng.choice(scratch.state.muse_stack)))


def _muse_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [PlaceServant(muse=m) for m in muses_shown(state)]


def _muse_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.muse in muses_shown(state):
        return None
    return refusal("no_such_muse", "that Muse is not in the Parlour", "Parlour")


def _muse_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    place_on_muse(scratch, seat, cmd.muse, bonus=frame.arg == "parlour")
    state = scratch.state
    if frame.arg == "gift":  # Shop A3 Gift Shop: then you may activate their Assistant Power
        scratch.push("assistant_offer", seat, cmd.muse)
    if frame.arg == "parlour" and muses_shown(state):
        if state.cfg.charm and charm_met(state, seat):  # Charming Scholar: another Servant, no bonus
            scratch.push("muse", seat, "charm")
        if power(state, seat) == "charming":  # A13/A15: an extra Servant, no bonus
            scratch.push("muse", seat, "talent")


# --- Travel 1-4 (also Shop A2 Peddler, Assistant B13, Traveling Artisans) --------------------------
def _travel_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    cities: list[Any] = [TravelTo(city=city) for city in C.CITIES]
    return cities + [PublishToTravel(portfolio=pid) for pid in state.p[seat].unpublished]


def _travel_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    player = state.p[seat]
    if isinstance(cmd, PublishToTravel):  # Traveling Artisans (side B): publish instead of paying
        if not (frame.arg == "district" and state.cfg.artisans and reachable_cities(state, seat)):
            return refusal(
                "not_now", "publishing instead of paying is a Travel visit on side B", "Traveling Artisans"
            )
        return publish_refusal(state, seat, cmd.portfolio, "Traveling Artisans")
    if cmd.city in player.cities:
        return refusal("already_travelled", "you travelled to that city before", "Travel")
    if cmd.city not in reachable_cities(state, seat):
        return refusal("not_adjacent", "the city is not next to Jinling or a city you travelled to", "Travel")
    if (
        frame.arg == "district" and cost(state, seat, C.CITY_COST[cmd.city]) > player.coins
    ):  # Travel 1a: the Travel Cost
        return refusal("insufficient_coins", "you cannot pay the Travel Cost", "Travel")
    return None


def _travel_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    if isinstance(cmd, PublishToTravel):  # Traveling Artisans 1b: publish, then travel without paying
        publish(scratch, seat, cmd.portfolio, "travel")
        scratch.push("travel", seat, "artisan")
        return
    state = scratch.state
    city, how = cmd.city, frame.arg
    if how == "district":  # Travel 1a: pay the Travel Cost (A10 Kou Baimen: 0)
        gain(scratch, seat, {"coin": -cost(state, seat, C.CITY_COST[city])}, "travel cost")
    if how in ("district", "peddler", "peddler_away", "artisan"):  # Travel 2: Spirit +1 (not B13)
        gain(scratch, seat, {"spirit": 1}, "travel")
    scratch.emit(Travelled(seat=seat, city=city))
    bonus = C.TRAVEL_TILES[state.travel[city]]
    ideas = [t for t in bonus if t in C.IDEAS]
    if power(state, seat) == "wanderer" and how in ("district", "peddler"):
        ideas = ideas * 2  # A03/A05: double the City Bonus when you visit Travel / Temple Fair
    if how in ("district", "peddler", "peddler_away"):  # Travel 4: City Bonus (A2 Peddler: only Ideas)
        gain(scratch, seat, ideas, "city bonus")
    if how == "district":
        if "portfolio" in bonus and state.display:  # City Bonus: 1 revealed Portfolio (no refresh)
            scratch.push("take_portfolio", seat, "bonus")
        if "special" in bonus:  # City Bonus: the Shop the Special Action Pointer points to
            start_special(scratch, seat, visit=True)


# --- Temple Fair a-c: move 1-3 spaces for 0-2 Coins, Passing Bonuses, the Shop (Assistant B05: 1) ---
def _fair_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [MoveServant(distance=d, clockwise=cw) for d in C.FAIR_MOVES for cw in (True, False)]


def _fair_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if frame.arg == "B05":
        if cmd.distance != 1:
            return refusal("bad_distance", "move 1 space", "List of Assistant Powers")
        return None
    if cmd.distance not in C.FAIR_MOVES:
        return refusal("bad_distance", "move 1, 2 or 3 spaces", "Temple Fair")
    if cost(state, seat, C.FAIR_MOVES[cmd.distance]) > state.p[seat].coins:
        return refusal("insufficient_coins", "you cannot pay for that distance", "Temple Fair")
    return None


def _fair_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    state = scratch.state
    if frame.arg == "district":  # pay 0 / 1 / 2 Coins to move 1 / 2 / 3 spaces
        gain(scratch, seat, {"coin": -cost(state, seat, C.FAIR_MOVES[cmd.distance])}, "temple fair")
    double = frame.arg == "district" and power(state, seat) == "wanderer"  # A03/A05
    pos = state.p[seat].fair
    for _ in range(cmd.distance):  # one direction; the Passing Bonus of each path passed
        if cmd.clockwise:
            path, pos = pos, (pos + 1) % C.FAIR_SPACES
        else:
            pos = (pos - 1) % C.FAIR_SPACES
            path = pos
        gain(scratch, seat, C.PASSING_BONUS[path] * (2 if double else 1), "passing bonus")
    scratch.emit(FairMoved(seat=seat, to=pos))
    if frame.arg == "district":  # the action of the Shop where it stopped (not for B05)
        start_shop(scratch, seat, state.shops[pos])


STEPS = {
    "publish_or_inspire": Decision(
        "Teahouse / Tavern",
        (Publish, DrawInspiration),
        _publish_or_inspire_candidates,
        _publish_or_inspire_check,
        _publish_or_inspire_play,
    ),
    "muse": Decision(
        "Parlour",
        (PlaceServant, Pass),
        _muse_candidates,
        _muse_check,
        _muse_play,
        optional_from("gift", "charm", "talent"),
    ),
    "travel": Decision(
        "Travel", (TravelTo, PublishToTravel, Pass), _travel_candidates, _travel_check, _travel_play
    ),
    "fair": Decision("Temple Fair", (MoveServant,), _fair_candidates, _fair_check, _fair_play),
}

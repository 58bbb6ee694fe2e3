"""I. Action Phase: the Player Turn (steps 1-5), Rest and Mandatory Rest, the Discard Bonus, and
the 2P Advance Variant's choice of the tile to discard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.kernel.decision import Decision, Refusal

from . import components as C
from .bot import bot_turn
from .commands import DiscardTile, Rest, VisitDistrict
from .districts import start_district
from .events import PhaseBegan, ScholarPlaced, StepEnded, TileChosen, TileDiscarded, TurnBegan, TurnEnded
from .play import Play, draw_tile, gain, refusal
from .shops import start_special
from .state import Frame, State
from .table import affordable, coins_in, cost, muses_shown, reachable_cities
from .vassals import place_vassal


# --- the Action Phase -----------------------------------------------------------------------------
def phase_actions(scratch: Play) -> None:
    """In Turn Order, a turn each until everyone has taken 3 turns or has no unused Scholar (a
    Mandatory Rest skips the 3rd); Player Turn 5, Next Player.  The solo Bot plays its turns here."""
    state = scratch.state
    n = len(state.order)
    for pos in range(state.turn_pos, 3 * n):
        seat = state.order[pos % n]
        player = state.p[seat]
        if seat == state.cfg.bot:
            if player.scholars > 0 and player.bag:
                scratch.emit(TurnBegan(seat=seat, pos=pos))
                bot_turn(scratch, seat)
            continue
        if player.scholars > 0 and player.track:
            scratch.emit(TurnBegan(seat=seat, pos=pos))
            scratch.push("turn", seat)
            return
    scratch.emit(PhaseBegan(phase="income", round=state.round))


# --- Player Turn 1: choose the district to visit ----------------------------------------------------
def visit_refusal(state: State, seat: int, slot: int, district: str) -> Refusal | None:
    """Player Turn 1: the tile in ``slot`` (0 = the rightmost) must show the district, whose Scholar
    Track must have a space and whose cost the Coins must pay, Discard Bonus included (Player Turn 2:
    "You can use the Discard Bonus to pay")."""
    player = state.p[seat]
    if not 0 <= slot < len(player.track):
        return refusal("no_such_tile", "there is no Action Tile in that space", "Player Turn 1")
    if district not in C.ACTION_TILES[player.track[slot]]["districts"]:
        return refusal("wrong_district", "the Action Tile does not show that district", "Player Turn 1")
    if len(state.tracks[district]) >= C.SCHOLAR_SPACES:
        return refusal("district_full", f"you cannot visit {district} now (district_full)", "Player Turn 1")
    rest = player.track[:slot] + player.track[slot + 1 :]
    if state.cfg.variant and rest:  # 2P Advance Variant: any tile may be discarded
        coins = player.coins + max(coins_in(C.ACTION_TILES[t]["bonus"]) for t in rest)
    else:
        coins = player.coins + (coins_in(C.ACTION_TILES[rest[0]]["bonus"]) if rest else 0)
    why = payable(state, seat, district, coins)
    return None if why is None else refusal(why, f"you cannot visit {district} now ({why})", "Player Turn 1")


def payable(state: State, seat: int, district: str, coins: int) -> str | None:
    """Why ``coins`` cannot pay the visit (None if they can): "You can not visit the Parlour, Tavern,
    or Travel districts if you do not have enough coins" (A10 Kou Baimen: any district with 0 Coins);
    the Parlour needs a Muse on display, Travel a reachable city whose cost is payable (or, side B,
    a Portfolio to publish instead)."""
    if coins < cost(state, seat, C.DISTRICT_COST.get(district, 0)):
        return "insufficient_coins"
    if district == "parlour" and not muses_shown(state):
        return "no_muse"
    if district == "travel":
        cities = reachable_cities(state, seat)
        if not cities:
            return "no_city"
        if min(cost(state, seat, C.CITY_COST[city]) for city in cities) > coins and not (
            state.cfg.artisans and affordable(state, seat)
        ):
            return "insufficient_coins"
    return None


def _turn_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    track = state.p[seat].track
    moves: list[Any] = [
        VisitDistrict(slot=slot, district=d)
        for slot, tile in enumerate(track)
        for d in C.ACTION_TILES[tile]["districts"]
    ]
    return moves + _rest_candidates(state, seat, frame)


def _rest_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [Rest(slot=slot) for slot in range(len(state.p[seat].track))]


def _turn_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if isinstance(cmd, VisitDistrict):
        return visit_refusal(state, seat, cmd.slot, cmd.district)
    # Rest: with any tile of the track, "or you do not wish to" visit (a Mandatory Rest: must)
    if 0 <= cmd.slot < len(state.p[seat].track):
        return None
    return refusal("no_such_tile", "there is no Action Tile in that space", "Rest")


def _turn_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    """Use the tile (Rest: without visiting), then discard (2P Advance Variant: choose which)."""
    scratch.end_step()
    district = cmd.district if isinstance(cmd, VisitDistrict) else C.REST
    player = scratch.state.p[seat]
    scratch.push("after_turn", seat)
    scratch.emit(TileChosen(seat=seat, tile=player.track[cmd.slot], district=district))
    if scratch.state.cfg.variant and len(player.track) > 1:
        scratch.push("discard", seat, district)
    else:
        after_choice(scratch, seat, district, 0)


# --- Player Turn 2-3: the Discard Bonus, the Scholar, the district action ---------------------------
def after_choice(scratch: Play, seat: int, district: str, slot: int) -> None:
    """Discard for the bonus, place the Scholar (then the vassal's), perform the district action
    (``district`` may be the Rest Area: 2 Coins and 4 Spirit).  Decisions of the bonus or the vassal come
    before the district action (an automatic "district" step)."""
    state = scratch.state
    player = state.p[seat]
    tile = player.track[slot] if player.track else None
    if district == C.REST:
        scratch.emit(ScholarPlaced(seat=seat, district=C.REST))
        discard(scratch, seat, slot)
        gain(scratch, seat, {"coin": 2, "spirit": 4}, "rest")
        place_vassal(scratch, seat, tile)
        return
    defer = needs_decisions(tile) or (
        state.cfg.vassals and tile is not None and len(C.ACTION_TILES[tile]["districts"]) > 1
    )
    if defer:
        scratch.push("district", seat, district)
    discard(scratch, seat, slot, district in ("travel", "temple_fair"))
    scratch.emit(ScholarPlaced(seat=seat, district=district))
    place_vassal(scratch, seat, tile)
    if not defer:
        start_district(scratch, seat, district)


def discard(scratch: Play, seat: int, slot: int = 0, visit: bool = False) -> None:
    """Player Turn 2: discard the rightmost Action Tile (2P Advance Variant: any) and gain its
    Discard Bonus (Advanced Action Tiles: a Portfolio from the Society, a Special Action)."""
    player = scratch.state.p[seat]
    if player.track:
        tile = player.track[slot]
        scratch.emit(TileDiscarded(seat=seat, tile=tile))
        bonus = C.ACTION_TILES[tile]["bonus"]
        gain(scratch, seat, bonus, "discard bonus")
        for icon in reversed(bonus):
            if icon == "portfolio" and scratch.state.display:
                scratch.push("take_portfolio", seat, "bonus")
            elif icon == "special":
                start_special(scratch, seat, visit)


def needs_decisions(tile: str | None) -> bool:
    """Advanced Action Tiles: a "Gain 1 Portfolio" / "Activate Special Action" Discard Bonus."""
    return tile is not None and any(b in ("portfolio", "special") for b in C.ACTION_TILES[tile]["bonus"])


# --- 2P Advance Variant: "you can discard any available Action Tile" ---------------------------------
def _discard_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [DiscardTile(slot=slot) for slot in range(len(state.p[seat].track))]


def _discard_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    player = state.p[seat]
    if 0 <= cmd.slot < len(player.track) and (
        frame.arg == C.REST
        or payable(
            state, seat, frame.arg, player.coins + coins_in(C.ACTION_TILES[player.track[cmd.slot]]["bonus"])
        )
        is None
    ):
        return None
    return refusal(
        "cannot_discard", "that tile is not on your track or would leave the visit unpaid", "2-Player Rules"
    )


def _discard_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    after_choice(scratch, seat, frame.arg, cmd.slot)


# --- automatic steps ---------------------------------------------------------------------------------
def _after_turn(scratch: Play, frame: Frame) -> None:
    """Player Turn 4: slide and replenish from the bag one tile at a time."""
    player = scratch.state.p[frame.seat]
    while player.bag and len(player.track) < C.TRACK_SIZE:
        draw_tile(scratch, frame.seat)
    scratch.emit(TurnEnded(seat=frame.seat), StepEnded())


def _district(scratch: Play, frame: Frame) -> None:
    """Player Turn 3, once the Discard Bonus / vassal decisions are made."""
    scratch.end_step()
    start_district(scratch, frame.seat, frame.arg)


AUTO: dict[str, Callable[[Play, Frame], None]] = {"after_turn": _after_turn, "district": _district}
"""Steps that need no decision: they run as soon as they are on top of the stack."""

STEPS = {
    "turn": Decision("Player Turn 1", (VisitDistrict, Rest), _turn_candidates, _turn_check, _turn_play),
    "mandatory_rest": Decision("Mandatory Rest", (Rest,), _rest_candidates, _turn_check, _turn_play),
    "discard": Decision("2-Player Rules", (DiscardTile,), _discard_candidates, _discard_check, _discard_play),
}

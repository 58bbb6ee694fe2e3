"""Temple Fair: the Special Action Pointer, Shop Actions A1-A6 and Advanced Shop Actions B1-B6.

The small decisions a Shop opens are also opened by Assistant Powers and Bonus Icons (a Portfolio
from the Society, an Idea, a Servant on a boat, ...); each is defined once, here.
"""

from __future__ import annotations

from typing import Any

from domain.kernel.decision import Decision, Refusal

from . import components as C
from .commands import (
    ChooseShop,
    DrawPortfolio,
    ExchangeIdeas,
    MoveBoatServant,
    Pass,
    PlaceOnBoat,
    Publish,
    PublishIn,
    RefreshPortfolios,
    SwapActionTile,
    TakeIdea,
    TakePortfolio,
)
from .events import (
    ActionTileSwapped,
    BoatServantMoved,
    BoatServantPlaced,
    PortfoliosRefreshed,
    PortfolioTaken,
    SpiritsTileTaken,
)
from .play import Play, always, gain, idea_refusal, optional_from, refusal
from .portfolios import (
    displayed_refusal,
    draw_from_stack,
    publish,
    publish_refusal,
    replenish_display,
    take_displayed,
)
from .state import Frame, State
from .table import (
    IDEA_PAIRS,
    affordable,
    cost,
    muses_shown,
    my_boats,
    pointed,
    reachable_cities,
    river_boats,
    stack_available,
)


# --- activating a Shop ----------------------------------------------------------------------------
def start_special(scratch: Play, seat: int, visit: bool = False) -> None:
    """Bonus Icons "Activate Special Action": the Shop the pointer points to (side B/C: choose one of
    two).  ``visit``: during a Travel or Temple Fair visit (A03/A05 double a Peddler's City Bonus)."""
    spaces = pointed(scratch.state)
    if len(spaces) == 1:
        start_shop(scratch, seat, scratch.state.shops[spaces[0]], visit)
    else:
        scratch.push("pick_shop", seat, "visit" if visit else "")


def start_shop(scratch: Play, seat: int, shop: str, visit: bool = True) -> None:
    """Shop Actions A1-A6 and Advanced Shop Actions B1-B6 (a Shop with nothing to do is skipped)."""
    state = scratch.state
    player = state.p[seat]
    if shop == "A1":  # Printing Press: may take 1 Idea, then may publish (no Display Track)
        scratch.push("publish", seat, "A1")
        scratch.push("idea", seat, "A1")
    elif shop == "A2":  # Peddler: the Travel action without cost, only Idea City Bonuses
        if reachable_cities(state, seat):  # "peddler": within a Travel / Temple Fair visit (A03/A05)
            scratch.push("travel", seat, "peddler" if visit else "peddler_away")
    elif shop == "A3":  # Gift Shop: a Servant on any Muse (no bonus), then its Assistant Power
        if muses_shown(state):
            scratch.push("muse", seat, "gift")
    elif shop == "A4":  # Boatman: may pay 1 Coin for a Servant on any Boat Tile
        if player.coins >= cost(state, seat, 1) and river_boats(state):
            scratch.push("boat", seat, "A4")
    elif shop == "A5":  # Liquor Shop: gain 1 Spirits Tile (6 in the box)
        if state.spirits_supply > 0:
            scratch.emit(SpiritsTileTaken(seat=seat))
    elif shop == "A6":  # Calligraphy Shop: may refresh for free, may take 1 revealed Portfolio
        if state.display or stack_available(state):
            scratch.push("take_portfolio", seat, "A6")
    elif shop == "B1":  # Printing Press: may pay 1 Coin to publish in the Teahouse or Tavern
        if player.coins >= cost(state, seat, C.B1_COST) and affordable(state, seat):
            scratch.push("publish", seat, "B1")
    elif shop == "B2":  # Peddler: exchange up to 2 used/drafted tiles with track tiles
        if player.used or player.drafted:
            scratch.push("swap_tile", seat, "B2", 2)
    elif shop == "B3":  # Gift Shop: exchange up to 3 Idea Tiles
        if sum(player.ideas.values()) > 0:
            scratch.push("exchange", seat, "B3", 3)
    elif shop == "B4":  # Boatman: move 1 of your Servants to another Boat Tile
        if my_boats(state, seat) and len(river_boats(state)) > 1:
            scratch.push("boat_move", seat, "B4")
    elif shop == "B5":  # Liquor Shop: gain 5 Coins
        gain(scratch, seat, {"coin": C.B5_COINS}, "liquor shop")
    elif shop == "B6" and stack_available(state):  # Calligraphy Shop: up to 2 Portfolios from the stack
        scratch.push("stack_draw", seat, "B6", 2)


# --- Special Action Pointer B & C: choose 1 of the 2 Shops ----------------------------------------
def _pick_shop_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [ChooseShop(shop=state.shops[i]) for i in pointed(state)]


def _pick_shop_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.shop in [state.shops[i] for i in pointed(state)]:
        return None
    return refusal("shop_not_pointed", "choose a Shop the Special Action Pointer points to", "Temple Fair")


def _pick_shop_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    start_shop(scratch, seat, cmd.shop, frame.arg == "visit")


# --- an Idea of any type (Shop A1, Assistant B06) -------------------------------------------------
def _idea_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [TakeIdea(idea=i) for i in C.IDEAS]


def _idea_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    return idea_refusal(cmd.idea)


def _idea_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    gain(scratch, seat, [cmd.idea], "idea")


# --- publish (Shop A1 and Assistant B20 without a Display Track; Shop B1 in a district) ------------
def _publish_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    pids = state.p[seat].unpublished
    if frame.arg == "B1":
        return [PublishIn(portfolio=pid, district=d) for pid in pids for d in ("teahouse", "tavern")]
    return [Publish(portfolio=pid) for pid in pids]


def _publish_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if frame.arg == "B1":  # Advanced Shop B1 Printing Press: pay 1 Coin, publish in the Teahouse or Tavern
        rule = "Shop Actions B1"
        if not isinstance(cmd, PublishIn):
            return refusal("not_now", "choose the Teahouse or the Tavern to publish in", rule)
        if state.p[seat].coins < cost(state, seat, C.B1_COST):
            return refusal("insufficient_coins", "the Printing Press costs 1 Coin", rule)
        if cmd.district not in ("teahouse", "tavern"):
            return refusal("wrong_district", "publish in the Teahouse or the Tavern", rule)
        return publish_refusal(state, seat, cmd.portfolio, rule)
    if not isinstance(cmd, Publish):
        return refusal("not_now", "this publication has no Display Track", "Shop Actions")
    return publish_refusal(state, seat, cmd.portfolio)


def _publish_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    if isinstance(cmd, PublishIn):
        gain(scratch, seat, {"coin": -cost(scratch.state, seat, C.B1_COST)}, "printing press")
        publish(scratch, seat, cmd.portfolio, cmd.district)
    else:
        publish(scratch, seat, cmd.portfolio, "printing_press" if frame.arg == "A1" else "assistant")


# --- a Servant on any Boat Tile (Shop A4 for 1 Coin, Assistant B07) --------------------------------
def _boat_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [PlaceOnBoat(boat=b) for b in sorted(river_boats(state))]


def _boat_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.boat in river_boats(state):
        return None
    return refusal("no_such_boat", "choose a Boat Tile on the River boards", "Resolve Boats")


def _boat_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    if frame.arg == "A4":
        gain(scratch, seat, {"coin": -cost(scratch.state, seat, 1)}, "boatman")
    scratch.emit(BoatServantPlaced(seat=seat, boat=cmd.boat))


# --- move a Servant to another Boat Tile (Shop B4, Assistant B14) ---------------------------------
def _boat_move_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    boats = sorted(river_boats(state))
    return [
        MoveBoatServant(from_boat=a, to_boat=b)
        for a in sorted(my_boats(state, seat))
        for b in boats
        if a != b
    ]


def _boat_move_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if (
        cmd.from_boat in my_boats(state, seat)
        and cmd.to_boat in river_boats(state)
        and cmd.from_boat != cmd.to_boat
    ):
        return None
    return refusal(
        "no_such_boat", "move one of your Servants to another Boat Tile on the river", "Resolve Boats"
    )


def _boat_move_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(BoatServantMoved(seat=seat, from_boat=cmd.from_boat, to_boat=cmd.to_boat))


# --- exchange Ideas (Shop B3: up to 3, one for one; Assistant B08: any 2 for any 2) ----------------
def _exchange_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    if frame.arg == "B3":
        return [ExchangeIdeas(give=[g], take=[t]) for g in C.IDEAS for t in C.IDEAS if t != g]
    return [ExchangeIdeas(give=list(g), take=list(t)) for g in IDEA_PAIRS for t in IDEA_PAIRS]


def _exchange_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    size = 1 if frame.arg == "B3" else 2
    ideas = state.p[seat].ideas
    give, take = cmd.give, cmd.take
    if (
        len(give) == len(take) == size
        and idea_refusal(*give, *take) is None
        and all(give.count(i) <= ideas[i] for i in give)
        and (size == 2 or give != take)  # B3: for another type
    ):
        return None
    rule = "Shop Actions B3" if frame.arg == "B3" else "List of Assistant Powers"
    return refusal("bad_idea", f"give {size} Idea(s) you have for {size} of another type", rule)


def _exchange_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    counts: dict[str, int] = {}
    for i in cmd.give:
        counts[i] = counts.get(i, 0) - 1
    for i in cmd.take:
        counts[i] = counts.get(i, 0) + 1
    gain(scratch, seat, counts, "exchange")
    if (
        frame.arg == "B3" and frame.n > 1 and sum(scratch.state.p[seat].ideas.values()) > 0
    ):  # up to 3, one at a time
        scratch.push(frame.kind, seat, frame.arg, frame.n - 1)


# --- exchange a used or drafted Action Tile with a track tile (Assistant B12, Shop B2) -------------
def _swap_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    player = state.p[seat]
    tiles = sorted(set(player.used + player.drafted))
    slots = range(len(player.track)) if player.track else [-1]
    return [SwapActionTile(tile=t, slot=slot) for t in tiles for slot in slots]


def _swap_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    player = state.p[seat]
    rule = "Shop Actions B2" if frame.arg == "B2" else "List of Assistant Powers"
    if cmd.tile not in player.used and cmd.tile not in player.drafted:
        return refusal("no_such_tile", "choose one of your used or drafted Action Tiles", rule)
    if not (0 <= cmd.slot < len(player.track) or (cmd.slot == -1 and not player.track)):
        return refusal("no_such_tile", "there is no Action Tile in that space", rule)
    return None


def _swap_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(ActionTileSwapped(seat=seat, tile=cmd.tile, slot=cmd.slot))
    player = scratch.state.p[seat]
    if frame.arg == "B2" and frame.n > 1 and (player.used or player.drafted):  # up to 2
        scratch.push(frame.kind, seat, frame.arg, frame.n - 1)


# --- Shop B6 Calligraphy Shop: up to 2 Portfolio Tiles from the top of the stack --------------------
def _stack_draw_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [DrawPortfolio()]


def _stack_draw_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if stack_available(state):
        return None
    return refusal("illegal_move", "the Portfolio stack is exhausted", "Shop Actions B6")


def _stack_draw_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    pid = draw_from_stack(scratch)
    if pid is not None:
        scratch.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
    if frame.n > 1 and stack_available(scratch.state):
        scratch.push(frame.kind, seat, frame.arg, frame.n - 1)


# --- 1 face-up Portfolio (Bonus Icon, City Bonus, Assistant B17; Shop A6 may refresh first) ---------
def _take_portfolio_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    refresh: list[Any] = [RefreshPortfolios()] if frame.arg == "A6" else []
    return refresh + [TakePortfolio(portfolio=pid) for pid in state.display]


def _take_portfolio_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if isinstance(cmd, TakePortfolio):
        return displayed_refusal(state, cmd.portfolio)
    if frame.arg != "A6":  # Bonus Icons: "You may not refresh the tiles"
        return refusal("illegal_move", "the Portfolio Tiles may not be refreshed here", "Bonus Icons")
    if frame.n != 0:
        return refusal("already_refreshed", "the Calligraphy Shop refreshes once", "Shop Actions A6")
    if not (state.display or stack_available(state)):
        return refusal("illegal_move", "there are no Portfolio Tiles to refresh", "Shop Actions A6")
    return None


def _take_portfolio_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    if isinstance(cmd, TakePortfolio):
        scratch.end_step()
        take_displayed(scratch, seat, cmd.portfolio)
        return
    scratch.emit(PortfoliosRefreshed(seat=seat, returned=list(scratch.state.display), paid=False))
    scratch.end_step()
    scratch.push(frame.kind, seat, frame.arg, 1)
    replenish_display(scratch)


STEPS = {
    "pick_shop": Decision(
        "Temple Fair", (ChooseShop,), _pick_shop_candidates, _pick_shop_check, _pick_shop_play
    ),
    "idea": Decision("Idea Tiles", (TakeIdea,), _idea_candidates, _idea_check, _idea_play),
    "publish": Decision(
        "Shop Actions",
        (Publish, PublishIn, Pass),
        _publish_candidates,
        _publish_check,
        _publish_play,
        optional_from("A1", "B1"),
    ),
    "boat": Decision(
        "Shop Actions A4",
        (PlaceOnBoat, Pass),
        _boat_candidates,
        _boat_check,
        _boat_play,
        optional_from("A4"),
    ),
    "boat_move": Decision(
        "Shop Actions B4",
        (MoveBoatServant, Pass),
        _boat_move_candidates,
        _boat_move_check,
        _boat_move_play,
        optional_from("B4"),
    ),
    "exchange": Decision(
        "Shop Actions B3",
        (ExchangeIdeas, Pass),
        _exchange_candidates,
        _exchange_check,
        _exchange_play,
        optional_from("B3"),
    ),
    "swap_tile": Decision(
        "Shop Actions B2",
        (SwapActionTile, Pass),
        _swap_candidates,
        _swap_check,
        _swap_play,
        optional_from("B2"),
    ),
    "stack_draw": Decision(
        "Shop Actions B6",
        (DrawPortfolio, Pass),
        _stack_draw_candidates,
        _stack_draw_check,
        _stack_draw_play,
        always,
    ),
    "take_portfolio": Decision(
        "Bonus Icons",
        (TakePortfolio, RefreshPortfolios, Pass),
        _take_portfolio_candidates,
        _take_portfolio_check,
        _take_portfolio_play,
        optional_from("A6"),
    ),
}
"""The small decisions Shops, Assistant Powers and Bonus Icons open (``Frame.kind``)."""

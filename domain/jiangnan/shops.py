"""Temple Fair: the Special Action Pointer, Shop Actions A1-A6 and Advanced Shop Actions B1-B6.

The small decisions a Shop opens are also opened by Assistant Powers and Bonus Icons (a Portfolio
from the Society, an Idea, a Servant on a boat, ...); each is defined once, here.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import RuleViolation

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
from .play import Play, Step, always, gain, idea_refusal, optional_from, refusal
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
def start_special(c: Play, seat: int, visit: bool = False) -> None:
    """Bonus Icons "Activate Special Action": the Shop the pointer points to (side B/C: choose one of
    two).  ``visit``: during a Travel or Temple Fair visit (A03/A05 double a Peddler's City Bonus)."""
    spaces = pointed(c.state)
    if len(spaces) == 1:
        start_shop(c, seat, c.state.shops[spaces[0]], visit)
    else:
        c.push("pick_shop", seat, "visit" if visit else "")


def start_shop(c: Play, seat: int, shop: str, visit: bool = True) -> None:
    """Shop Actions A1-A6 and Advanced Shop Actions B1-B6 (a Shop with nothing to do is skipped)."""
    s = c.state
    p = s.p[seat]
    if shop == "A1":  # Printing Press: may take 1 Idea, then may publish (no Display Track)
        c.push("publish", seat, "A1")
        c.push("idea", seat, "A1")
    elif shop == "A2":  # Peddler: the Travel action without cost, only Idea City Bonuses
        if reachable_cities(s, seat):  # "peddler": within a Travel / Temple Fair visit (A03/A05)
            c.push("travel", seat, "peddler" if visit else "peddler_away")
    elif shop == "A3":  # Gift Shop: a Servant on any Muse (no bonus), then its Assistant Power
        if muses_shown(s):
            c.push("muse", seat, "gift")
    elif shop == "A4":  # Boatman: may pay 1 Coin for a Servant on any Boat Tile
        if p.coins >= cost(s, seat, 1) and river_boats(s):
            c.push("boat", seat, "A4")
    elif shop == "A5":  # Liquor Shop: gain 1 Spirits Tile (6 in the box)
        if s.spirits_supply > 0:
            c.emit(SpiritsTileTaken(seat=seat))
    elif shop == "A6":  # Calligraphy Shop: may refresh for free, may take 1 revealed Portfolio
        if s.display or stack_available(s):
            c.push("take_portfolio", seat, "A6")
    elif shop == "B1":  # Printing Press: may pay 1 Coin to publish in the Teahouse or Tavern
        if p.coins >= cost(s, seat, C.B1_COST) and affordable(s, seat):
            c.push("publish", seat, "B1")
    elif shop == "B2":  # Peddler: exchange up to 2 used/drafted tiles with track tiles
        if p.used or p.drafted:
            c.push("swap_tile", seat, "B2", 2)
    elif shop == "B3":  # Gift Shop: exchange up to 3 Idea Tiles
        if sum(p.ideas.values()) > 0:
            c.push("exchange", seat, "B3", 3)
    elif shop == "B4":  # Boatman: move 1 of your Servants to another Boat Tile
        if my_boats(s, seat) and len(river_boats(s)) > 1:
            c.push("boat_move", seat, "B4")
    elif shop == "B5":  # Liquor Shop: gain 5 Coins
        gain(c, seat, {"coin": C.B5_COINS}, "liquor shop")
    elif shop == "B6" and stack_available(s):  # Calligraphy Shop: up to 2 Portfolios from the stack
        c.push("stack_draw", seat, "B6", 2)


# --- Special Action Pointer B & C: choose 1 of the 2 Shops ----------------------------------------
def _pick_shop_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [ChooseShop(shop=s.shops[i]) for i in pointed(s)]


def _pick_shop_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.shop in [s.shops[i] for i in pointed(s)]:
        return None
    return refusal("shop_not_pointed", "choose a Shop the Special Action Pointer points to", "Temple Fair")


def _pick_shop_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    start_shop(c, seat, cmd.shop, f.arg == "visit")


# --- an Idea of any type (Shop A1, Assistant B06) -------------------------------------------------
def _idea_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [TakeIdea(idea=i) for i in C.IDEAS]


def _idea_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    return idea_refusal(cmd.idea)


def _idea_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    gain(c, seat, [cmd.idea], "idea")


# --- publish (Shop A1 and Assistant B20 without a Display Track; Shop B1 in a district) ------------
def _publish_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    pids = s.p[seat].unpublished
    if f.arg == "B1":
        return [PublishIn(portfolio=pid, district=d) for pid in pids for d in ("teahouse", "tavern")]
    return [Publish(portfolio=pid) for pid in pids]


def _publish_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if f.arg == "B1":  # Advanced Shop B1 Printing Press: pay 1 Coin, publish in the Teahouse or Tavern
        rule = "Shop Actions B1"
        if not isinstance(cmd, PublishIn):
            return refusal("not_now", "choose the Teahouse or the Tavern to publish in", rule)
        if s.p[seat].coins < cost(s, seat, C.B1_COST):
            return refusal("insufficient_coins", "the Printing Press costs 1 Coin", rule)
        if cmd.district not in ("teahouse", "tavern"):
            return refusal("wrong_district", "publish in the Teahouse or the Tavern", rule)
        return publish_refusal(s, seat, cmd.portfolio, rule)
    if not isinstance(cmd, Publish):
        return refusal("not_now", "this publication has no Display Track", "Shop Actions")
    return publish_refusal(s, seat, cmd.portfolio)


def _publish_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    if isinstance(cmd, PublishIn):
        gain(c, seat, {"coin": -cost(c.state, seat, C.B1_COST)}, "printing press")
        publish(c, seat, cmd.portfolio, cmd.district)
    else:
        publish(c, seat, cmd.portfolio, "printing_press" if f.arg == "A1" else "assistant")


# --- a Servant on any Boat Tile (Shop A4 for 1 Coin, Assistant B07) --------------------------------
def _boat_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [PlaceOnBoat(boat=b) for b in sorted(river_boats(s))]


def _boat_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.boat in river_boats(s):
        return None
    return refusal("no_such_boat", "choose a Boat Tile on the River boards", "Resolve Boats")


def _boat_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    if f.arg == "A4":
        gain(c, seat, {"coin": -cost(c.state, seat, 1)}, "boatman")
    c.emit(BoatServantPlaced(seat=seat, boat=cmd.boat))


# --- move a Servant to another Boat Tile (Shop B4, Assistant B14) ---------------------------------
def _boat_move_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    boats = sorted(river_boats(s))
    return [
        MoveBoatServant(from_boat=a, to_boat=b) for a in sorted(my_boats(s, seat)) for b in boats if a != b
    ]


def _boat_move_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.from_boat in my_boats(s, seat) and cmd.to_boat in river_boats(s) and cmd.from_boat != cmd.to_boat:
        return None
    return refusal(
        "no_such_boat", "move one of your Servants to another Boat Tile on the river", "Resolve Boats"
    )


def _boat_move_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    c.emit(BoatServantMoved(seat=seat, from_boat=cmd.from_boat, to_boat=cmd.to_boat))


# --- exchange Ideas (Shop B3: up to 3, one for one; Assistant B08: any 2 for any 2) ----------------
def _exchange_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    if f.arg == "B3":
        return [ExchangeIdeas(give=[g], take=[t]) for g in C.IDEAS for t in C.IDEAS if t != g]
    return [ExchangeIdeas(give=list(g), take=list(t)) for g in IDEA_PAIRS for t in IDEA_PAIRS]


def _exchange_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    size = 1 if f.arg == "B3" else 2
    ideas = s.p[seat].ideas
    give, take = cmd.give, cmd.take
    if (
        len(give) == len(take) == size
        and idea_refusal(*give, *take) is None
        and all(give.count(i) <= ideas[i] for i in give)
        and (size == 2 or give != take)  # B3: for another type
    ):
        return None
    rule = "Shop Actions B3" if f.arg == "B3" else "List of Assistant Powers"
    return refusal("bad_idea", f"give {size} Idea(s) you have for {size} of another type", rule)


def _exchange_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    counts: dict[str, int] = {}
    for i in cmd.give:
        counts[i] = counts.get(i, 0) - 1
    for i in cmd.take:
        counts[i] = counts.get(i, 0) + 1
    gain(c, seat, counts, "exchange")
    if f.arg == "B3" and f.n > 1 and sum(c.state.p[seat].ideas.values()) > 0:  # up to 3, one at a time
        c.push(f.kind, seat, f.arg, f.n - 1)


# --- exchange a used or drafted Action Tile with a track tile (Assistant B12, Shop B2) -------------
def _swap_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    p = s.p[seat]
    tiles = sorted(set(p.used + p.drafted))
    slots = range(len(p.track)) if p.track else [-1]
    return [SwapActionTile(tile=t, slot=slot) for t in tiles for slot in slots]


def _swap_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    p = s.p[seat]
    rule = "Shop Actions B2" if f.arg == "B2" else "List of Assistant Powers"
    if cmd.tile not in p.used and cmd.tile not in p.drafted:
        return refusal("no_such_tile", "choose one of your used or drafted Action Tiles", rule)
    if not (0 <= cmd.slot < len(p.track) or (cmd.slot == -1 and not p.track)):
        return refusal("no_such_tile", "there is no Action Tile in that space", rule)
    return None


def _swap_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    c.emit(ActionTileSwapped(seat=seat, tile=cmd.tile, slot=cmd.slot))
    p = c.state.p[seat]
    if f.arg == "B2" and f.n > 1 and (p.used or p.drafted):  # up to 2
        c.push(f.kind, seat, f.arg, f.n - 1)


# --- Shop B6 Calligraphy Shop: up to 2 Portfolio Tiles from the top of the stack --------------------
def _stack_draw_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [DrawPortfolio()]


def _stack_draw_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if stack_available(s):
        return None
    return refusal("illegal_move", "the Portfolio stack is exhausted", "Shop Actions B6")


def _stack_draw_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    pid = draw_from_stack(c)
    if pid is not None:
        c.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
    if f.n > 1 and stack_available(c.state):
        c.push(f.kind, seat, f.arg, f.n - 1)


# --- 1 face-up Portfolio (Bonus Icon, City Bonus, Assistant B17; Shop A6 may refresh first) ---------
def _take_portfolio_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    refresh: list[Any] = [RefreshPortfolios()] if f.arg == "A6" else []
    return refresh + [TakePortfolio(portfolio=pid) for pid in s.display]


def _take_portfolio_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if isinstance(cmd, TakePortfolio):
        return displayed_refusal(s, cmd.portfolio)
    if f.arg != "A6":  # Bonus Icons: "You may not refresh the tiles"
        return refusal("illegal_move", "the Portfolio Tiles may not be refreshed here", "Bonus Icons")
    if f.n != 0:
        return refusal("already_refreshed", "the Calligraphy Shop refreshes once", "Shop Actions A6")
    if not (s.display or stack_available(s)):
        return refusal("illegal_move", "there are no Portfolio Tiles to refresh", "Shop Actions A6")
    return None


def _take_portfolio_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    if isinstance(cmd, TakePortfolio):
        c.end_step()
        take_displayed(c, seat, cmd.portfolio)
        return
    c.emit(PortfoliosRefreshed(seat=seat, returned=list(c.state.display), paid=False))
    c.end_step()
    c.push(f.kind, seat, f.arg, 1)
    replenish_display(c)


STEPS = {
    "pick_shop": Step("Temple Fair", (ChooseShop,), _pick_shop_candidates, _pick_shop_check, _pick_shop_play),
    "idea": Step("Idea Tiles", (TakeIdea,), _idea_candidates, _idea_check, _idea_play),
    "publish": Step(
        "Shop Actions",
        (Publish, PublishIn, Pass),
        _publish_candidates,
        _publish_check,
        _publish_play,
        optional_from("A1", "B1"),
    ),
    "boat": Step(
        "Shop Actions A4",
        (PlaceOnBoat, Pass),
        _boat_candidates,
        _boat_check,
        _boat_play,
        optional_from("A4"),
    ),
    "boat_move": Step(
        "Shop Actions B4",
        (MoveBoatServant, Pass),
        _boat_move_candidates,
        _boat_move_check,
        _boat_move_play,
        optional_from("B4"),
    ),
    "exchange": Step(
        "Shop Actions B3",
        (ExchangeIdeas, Pass),
        _exchange_candidates,
        _exchange_check,
        _exchange_play,
        optional_from("B3"),
    ),
    "swap_tile": Step(
        "Shop Actions B2",
        (SwapActionTile, Pass),
        _swap_candidates,
        _swap_check,
        _swap_play,
        optional_from("B2"),
    ),
    "stack_draw": Step(
        "Shop Actions B6",
        (DrawPortfolio, Pass),
        _stack_draw_candidates,
        _stack_draw_check,
        _stack_draw_play,
        always,
    ),
    "take_portfolio": Step(
        "Bonus Icons",
        (TakePortfolio, RefreshPortfolios, Pass),
        _take_portfolio_candidates,
        _take_portfolio_check,
        _take_portfolio_play,
        optional_from("A6"),
    ),
}
"""The small decisions Shops, Assistant Powers and Bonus Icons open (``Frame.kind``)."""

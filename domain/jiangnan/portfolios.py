"""Portfolio Tiles: the Society display and stack, taking a tile, publishing one."""

from __future__ import annotations

from domain.kernel.decision import Refusal

from . import components as C
from .events import Age2StackFormed, DisplayTileAdded, PortfolioPublished, PortfolioRevealed, PortfolioTaken
from .play import Play, gain, refusal
from .state import State
from .table import power


# --- the rules ----------------------------------------------------------------------------------
def displayed_refusal(state: State, *pids: str) -> Refusal | None:
    """Society 3, Bonus Icons "Gain 1 Portfolio": only face-up tiles of the Society display (the
    same message whatever the tile is, so no refusal tells what the stack holds)."""
    return None if all(pid in state.display for pid in pids) else not_displayed()


def not_displayed() -> Refusal:
    return refusal(
        "portfolio_not_displayed", "choose face-up Portfolio Tiles of the Society district", "Society"
    )


def publish_refusal(state: State, seat: int, pid: str, rule: str = "Publish a Portfolio") -> Refusal | None:
    """Publish a Portfolio: one of your unpublished Portfolios, paying its cost in Ideas of its type."""
    player = state.p[seat]
    if pid not in player.unpublished:
        return refusal("not_your_portfolio", "you have no such unpublished Portfolio", rule)
    d = C.PORTFOLIOS[pid]
    if player.ideas[d["type"]] < d["cost"]:
        return refusal("insufficient_ideas", "you cannot pay the Ideas cost", rule)
    return None


# --- the effects --------------------------------------------------------------------------------
def replenish_display(scratch: Play) -> None:
    """Society 4-5: refill the 4 spaces from the stack; an exhausted Age 1 stack before the Round 3
    swap is replaced by the Age 2 tiles; after that, no more tiles."""
    state = scratch.state
    while len(state.display) < 4:
        if not state.stack and not state.bottom:
            if state.portfolio_age == 1 and not state.age2_formed:
                scratch.emit(Age2StackFormed(stack=C.portfolios_of_age(2)))
            else:
                return
        pool = state.stack if state.stack else state.bottom[0]
        scratch.emit(PortfolioRevealed(portfolio=scratch.rng.choice(pool)))


def draw_from_stack(scratch: Play) -> str | None:
    """The top Portfolio Tile of the stack (random: the stack is unordered), refreshed tiles last
    ("discard them facedown ... to the bottom"); Shop B6, Assistant B18 and the Bot draw this way."""
    state = scratch.state
    if not state.stack and not state.bottom:
        if state.portfolio_age == 1 and not state.age2_formed:
            scratch.emit(Age2StackFormed(stack=C.portfolios_of_age(2)))
        else:
            return None
    pool = state.stack if state.stack else state.bottom[0]
    return scratch.rng.choice(pool)


def take_displayed(scratch: Play, seat: int, pid: str) -> None:
    """Take a face-up Portfolio Tile, then replenish the display (Society 4)."""
    scratch.emit(PortfolioTaken(seat=seat, portfolio=pid))
    replenish_display(scratch)


def publish(scratch: Play, seat: int, pid: str, where: str) -> None:
    """Publish a Portfolio: pay its Ideas cost, gain its payout; in the Teahouse or Tavern a
    matching Display Tile slides onto the Display Track with one of your Servants."""
    d = C.PORTFOLIOS[pid]
    gain(scratch, seat, {d["type"]: -d["cost"]}, "publishing cost")
    scratch.emit(PortfolioPublished(seat=seat, portfolio=pid, where=where))
    payout = d["payout"]
    talent = power(scratch.state, seat)
    if talent == "acclaim":  # A04/A09: double payout
        payout = {k: 2 * v for k, v in payout.items()}
    gain(scratch, seat, payout, "publishing payout")
    if scratch.state.phase == "income" and d["income"].get("coin"):
        # Upkeep 1a: a Drama published during its owner's Personal Income pays its Coins at once.
        x = 2 if talent == "royalty" else 1  # A06/A08: double income
        gain(scratch, seat, {"coin": x * d["income"]["coin"]}, "drama income")
    if where in ("teahouse", "tavern") and scratch.state.display_supply[d["type"]] > 0:
        scratch.emit(DisplayTileAdded(district=where, kind=d["type"], seat=seat))

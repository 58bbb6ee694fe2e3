"""List of Assistant Powers B01-B20: when a power can be activated, and what it does."""

from __future__ import annotations

from typing import Any

from domain.kernel import RuleViolation

from .commands import ActivateAssistant, Pass
from .events import AssistantActivated, PortfolioTaken
from .play import Play, Step, always, gain, refusal
from .portfolios import draw_from_stack
from .shops import start_special
from .state import Frame, State
from .table import (
    affordable,
    muses_shown,
    my_boats,
    reachable_cities,
    river_boats,
    servants_on_display,
    stack_available,
)


def can_activate(s: State, seat: int, a: str) -> bool:
    """Whether the power can be used now: its Coins payable and something to act on."""
    p = s.p[seat]
    if a == "B03":
        return p.coins >= 1
    if a == "B07":
        return p.coins >= 2 and bool(river_boats(s))
    if a == "B08":
        return sum(p.ideas.values()) >= 2
    if a == "B12":
        return bool(p.used or p.drafted)
    if a == "B13":
        return p.coins >= 1 and bool(reachable_cities(s, seat))
    if a == "B14":
        return p.coins >= 1 and len(river_boats(s)) > 1 and bool(my_boats(s, seat))
    if a == "B15":
        return p.coins >= 1 and bool(muses_shown(s))
    if a == "B17":
        return p.coins >= 1 and bool(s.display)
    if a == "B18":
        return stack_available(s)
    if a == "B20":
        return p.coins >= 2 and bool(affordable(s, seat))
    return True


def activate(c: Play, seat: int, a: str, income: bool) -> None:
    """Activate the power (``income``: as the once-per-round Upkeep activation)."""
    s = c.state
    c.emit(AssistantActivated(seat=seat, assistant=a, income=income))
    why = f"assistant {a}"
    if a == "B01":
        gain(c, seat, {"spirit": 2}, why)
    elif a == "B02":
        gain(c, seat, {"coin": 1 + servants_on_display(s, "teahouse", seat)}, why)
    elif a == "B03":
        gain(c, seat, {"coin": -1}, why)
        start_special(c, seat)
    elif a == "B04":
        gain(c, seat, ["painting"], why)
    elif a == "B05":
        c.push("fair", seat, "B05")
    elif a == "B06":
        c.push("idea", seat, "B06")
    elif a == "B07":
        gain(c, seat, {"coin": -2}, why)
        c.push("boat", seat, "B07")
    elif a == "B08":
        c.push("exchange", seat)
    elif a == "B09":
        gain(c, seat, ["drama"], why)
    elif a == "B10":
        gain(c, seat, {"coin": 2}, why)
    elif a == "B11":
        gain(c, seat, {"vp": 1 + servants_on_display(s, "tavern", seat)}, why)
    elif a == "B12":
        c.push("swap_tile", seat)
    elif a == "B13":
        gain(c, seat, {"coin": -1}, why)
        c.push("travel", seat, "free")
    elif a == "B14":
        gain(c, seat, {"coin": -1}, why)
        c.push("boat_move", seat)
    elif a == "B15":
        gain(c, seat, {"coin": -1}, why)
        c.push("muse", seat, "extra")
    elif a == "B16":
        gain(c, seat, ["novel"], why)
    elif a == "B17":
        gain(c, seat, {"coin": -1}, why)
        c.push("take_portfolio", seat, "B17")
    elif a == "B18":
        pid = draw_from_stack(c)
        if pid is not None:
            c.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
    elif a == "B19":
        gain(c, seat, {"vp": 2}, why)
    elif a == "B20":
        gain(c, seat, {"coin": -2}, why)
        c.push("publish", seat, "B20")


def activation_refusal(s: State, seat: int, a: str, rule: str) -> RuleViolation | None:
    """A power that can be used now (whose Coins are payable and which has something to act on)."""
    if can_activate(s, seat, a):
        return None
    return refusal("cannot_activate", "that Assistant Power cannot be activated now", rule)


# --- Shop A3 Gift Shop: "you may activate their Assistant Power" ----------------------------------
def _offer_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [ActivateAssistant(assistant=f.arg)]


def _offer_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.assistant != f.arg:  # the Muse the Servant was placed on, hired or not
        return refusal("cannot_activate", "only the Muse you placed a Servant on", "Shop Actions A3")
    return activation_refusal(s, seat, cmd.assistant, "Shop Actions A3")


def _offer_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    activate(c, seat, cmd.assistant, income=False)  # not the once-per-round income activation


STEPS = {
    "assistant_offer": Step(
        "Shop Actions A3", (ActivateAssistant, Pass), _offer_candidates, _offer_check, _offer_play, always
    ),
}

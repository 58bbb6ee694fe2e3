"""List of Assistant Powers B01-B20: when a power can be activated, and what it does."""

from __future__ import annotations

from typing import Any

from domain.kernel.decision import Decision, Refusal

from .commands import ActivateAssistant, Pass
from .events import AssistantActivated, PortfolioTaken
from .play import Play, always, gain, refusal
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


def can_activate(state: State, seat: int, assistant: str) -> bool:
    """Whether the power can be used now: its Coins payable and something to act on."""
    player = state.p[seat]
    if assistant == "B03":
        return player.coins >= 1
    if assistant == "B07":
        return player.coins >= 2 and bool(river_boats(state))
    if assistant == "B08":
        return sum(player.ideas.values()) >= 2
    if assistant == "B12":
        return bool(player.used or player.drafted)
    if assistant == "B13":
        return player.coins >= 1 and bool(reachable_cities(state, seat))
    if assistant == "B14":
        return player.coins >= 1 and len(river_boats(state)) > 1 and bool(my_boats(state, seat))
    if assistant == "B15":
        return player.coins >= 1 and bool(muses_shown(state))
    if assistant == "B17":
        return player.coins >= 1 and bool(state.display)
    if assistant == "B18":
        return stack_available(state)
    if assistant == "B20":
        return player.coins >= 2 and bool(affordable(state, seat))
    return True


def activate(scratch: Play, seat: int, assistant: str, income: bool) -> None:
    """Activate the power (``income``: as the once-per-round Upkeep activation)."""
    state = scratch.state
    scratch.emit(AssistantActivated(seat=seat, assistant=assistant, income=income))
    why = f"assistant {assistant}"
    if assistant == "B01":
        gain(scratch, seat, {"spirit": 2}, why)
    elif assistant == "B02":
        gain(scratch, seat, {"coin": 1 + servants_on_display(state, "teahouse", seat)}, why)
    elif assistant == "B03":
        gain(scratch, seat, {"coin": -1}, why)
        start_special(scratch, seat)
    elif assistant == "B04":
        gain(scratch, seat, ["painting"], why)
    elif assistant == "B05":
        scratch.push("fair", seat, "B05")
    elif assistant == "B06":
        scratch.push("idea", seat, "B06")
    elif assistant == "B07":
        gain(scratch, seat, {"coin": -2}, why)
        scratch.push("boat", seat, "B07")
    elif assistant == "B08":
        scratch.push("exchange", seat)
    elif assistant == "B09":
        gain(scratch, seat, ["drama"], why)
    elif assistant == "B10":
        gain(scratch, seat, {"coin": 2}, why)
    elif assistant == "B11":
        gain(scratch, seat, {"vp": 1 + servants_on_display(state, "tavern", seat)}, why)
    elif assistant == "B12":
        scratch.push("swap_tile", seat)
    elif assistant == "B13":
        gain(scratch, seat, {"coin": -1}, why)
        scratch.push("travel", seat, "free")
    elif assistant == "B14":
        gain(scratch, seat, {"coin": -1}, why)
        scratch.push("boat_move", seat)
    elif assistant == "B15":
        gain(scratch, seat, {"coin": -1}, why)
        scratch.push("muse", seat, "extra")
    elif assistant == "B16":
        gain(scratch, seat, ["novel"], why)
    elif assistant == "B17":
        gain(scratch, seat, {"coin": -1}, why)
        scratch.push("take_portfolio", seat, "B17")
    elif assistant == "B18":
        pid = draw_from_stack(scratch)
        if pid is not None:
            scratch.emit(PortfolioTaken(seat=seat, portfolio=pid, source="stack"))
    elif assistant == "B19":
        gain(scratch, seat, {"vp": 2}, why)
    elif assistant == "B20":
        gain(scratch, seat, {"coin": -2}, why)
        scratch.push("publish", seat, "B20")


def activation_refusal(state: State, seat: int, assistant: str, rule: str) -> Refusal | None:
    """A power that can be used now (whose Coins are payable and which has something to act on)."""
    if can_activate(state, seat, assistant):
        return None
    return refusal("cannot_activate", "that Assistant Power cannot be activated now", rule)


# --- Shop A3 Gift Shop: "you may activate their Assistant Power" ----------------------------------
def _offer_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [ActivateAssistant(assistant=frame.arg)]


def _offer_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.assistant != frame.arg:  # the Muse the Servant was placed on, hired or not
        return refusal("cannot_activate", "only the Muse you placed a Servant on", "Shop Actions A3")
    return activation_refusal(state, seat, cmd.assistant, "Shop Actions A3")


def _offer_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    activate(scratch, seat, cmd.assistant, income=False)  # not the once-per-round income activation


STEPS = {
    "assistant_offer": Decision(
        "Shop Actions A3", (ActivateAssistant, Pass), _offer_candidates, _offer_check, _offer_play, always
    ),
}

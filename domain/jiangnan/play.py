"""Playing a decision: the scratch copy ``decide`` works on, and the shape of a pending step.

``decide`` never touches the state it is given.  It plays on a :class:`Play`: the kernel's
:class:`~domain.kernel.Scratch` (a copy that folds each event the moment it is emitted) with
Jiangnan's vocabulary added — the stack of pending steps (``Frame``), gains, draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from domain.kernel import Rng, Scratch
from domain.kernel.decision import Refusal

from . import components as C
from .events import ActionTileDrawn, ResourcesChanged, StepBegan, StepEnded
from .evolve import evolve
from .state import Frame, State


class Play(Scratch[State]):
    """A scratch copy of the table for one decision, with its pending steps."""

    __slots__ = ()

    def __init__(self, state: State, rng: Rng) -> None:
        super().__init__(state, evolve, rng)

    def push(self, kind: str, seat: int, arg: str = "", n: int = 0) -> None:
        """A new pending step on top of the stack (``n``: how many more times it repeats)."""
        self.emit(StepBegan(step=Frame(kind=kind, seat=seat, arg=arg, n=n)))

    def end_step(self) -> None:
        """The step on top of the stack is done."""
        self.emit(StepEnded())


def refusal(code: str, message: str, rule: str) -> Refusal:
    """A refused command: a stable code, a message that reveals nothing hidden, its rulebook section
    (the kernel's :class:`~domain.kernel.decision.Refusal`: a tuple, cheap to make for every
    candidate a check refuses; ``decide`` raises it as a ``RuleViolation``)."""
    return Refusal(code, message, rule)


def never(state: State, seat: int, frame: Frame) -> bool:
    """A decision that must be taken (a ``Pass`` only when nothing else can be done)."""
    return False


def always(state: State, seat: int, frame: Frame) -> bool:
    """A decision that may always be declined ("you may")."""
    return True


def optional_from(*args: str) -> Callable[[State, int, Frame], bool]:
    """Optional ("you may") when the step was opened by one of *args* (``Frame.arg``: a Shop...)."""
    return lambda state, seat, frame: frame.arg in args


# --- Bonus Icons, Idea Tiles, the Spirit Level Track --------------------------------------------
def gain(scratch: Play, seat: int, tokens: dict[str, int] | Iterable[str], why: str) -> None:
    """Gain (or pay, with negative counts) Coins, VP, Spirit and Ideas; bonus icons that are no
    resource are ignored.  Spirit Level Track: "It cannot go above 6 or below 0"."""
    if isinstance(tokens, dict):
        counts = dict(tokens)
    else:
        counts = {}
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
    player = scratch.state.p[seat]
    spirit = max(0, min(C.SPIRIT_MAX, player.spirit + counts.get("spirit", 0))) - player.spirit
    delta = {
        "coins": counts.get("coin", 0),
        "vp": counts.get("vp", 0),
        "spirit": spirit,
        "drama": counts.get("drama", 0),
        "novel": counts.get("novel", 0),
        "painting": counts.get("painting", 0),
    }
    if any(delta.values()):
        scratch.emit(ResourcesChanged(seat=seat, why=why, **delta))


def idea_refusal(*ideas: str) -> Refusal | None:
    """Idea Tiles: Novels, Dramas and Paintings are the only types."""
    return None if all(i in C.IDEAS for i in ideas) else bad_idea()


def bad_idea() -> Refusal:
    return refusal("bad_idea", "choose Idea types among drama, novel and painting", "Idea Tiles")


def draw_tile(scratch: Play, seat: int) -> None:
    """Player Turn 4: draw 1 Action Tile from the bag into the rightmost empty space, seen by its
    owner only ("The contents of your draw bag is hidden information")."""
    player = scratch.state.p[seat]
    if player.bag and len(player.track) < C.TRACK_SIZE:
        scratch.emit(ActionTileDrawn(seat=seat, tile=scratch.rng.choice(player.bag)))

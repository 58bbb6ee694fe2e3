"""The flow of play (rulebook "Game Play"): who must decide now, and every step that needs no
decision -- drawing from the bag, orders applied by themselves, the end of a turn or of the game.

Those steps run inside ``decide``, on a :class:`~domain.kernel.Scratch` copy, so the table only
ever rests where some seat must decide.
"""

from __future__ import annotations

from domain.kernel import Event, Rng, Scratch

from . import components as C
from .events import BranchDrawn, GoodDrawn, RulerDrawn, RulerResolved, TurnEnded
from .evolve import evolve
from .rulers import order_step
from .scoring import final_scoring
from .state import State, copy_state


def settle(state: State, events: list[Event], rng: Rng) -> list[Event]:
    """*events*, then the events of every step that follows from them without a decision."""
    table = Scratch(state, evolve, rng, copy=copy_state)
    table.emit(*events)
    _advance(table)
    return table.events


def _advance(table: Scratch[State]) -> None:
    rng, emit = table.rng, table.emit
    assert rng is not None
    while True:
        s = table.state
        if s.window is not None:
            return
        if s.phase == "refill":
            if s.refills > 0 and s.bag:
                # 2. Purchase One Good: draw until a good fills the gap; a ruler or a branch drawn
                # on the way is dealt with first.  An empty bag leaves the gaps.
                token = s.bag[rng.below(len(s.bag))]
                if C.is_good(token):
                    emit(GoodDrawn(good=token))
                elif C.is_ruler(token):
                    emit(RulerDrawn(token=token, spot=len(s.rulers)))
                else:
                    emit(BranchDrawn(token=token))
                continue
            emit(TurnEnded(seat=s.active, next=(s.active + 1) % s.players))
            s = table.state
            if s.idle >= s.players:
                # Game Play, note: a whole round in which nobody acts ends the game.
                emit(final_scoring(s, "a full round passed in which nobody bought or sold"))
            return
        if s.phase == "ruler":
            if not s.ruler_queue:
                emit(RulerResolved(spot=len(s.rulers) - 1))
                s = table.state
                if len(s.rulers) == C.RULER_COUNT:
                    # End of Game: the 12th ruler's order is executed, then the final scoring.
                    emit(final_scoring(s, "the 12th ruler's order was executed"))
                    return
                continue
            events = order_step(s, s.ruler_queue[0])
            if not events:
                return
            emit(*events)
            continue
        return

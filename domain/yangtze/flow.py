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
        state = table.state
        if state.window is not None:
            return
        if state.phase == "refill":
            if state.refills > 0 and state.bag:
                # 2. Purchase One Good: draw until a good fills the gap; a ruler or a branch drawn
                # on the way is dealt with first.  An empty bag leaves the gaps.
                token = state.bag[rng.below(len(state.bag))]
                if C.is_good(token):
                    emit(GoodDrawn(good=token))
                elif C.is_ruler(token):
                    emit(RulerDrawn(token=token, spot=len(state.rulers)))
                else:
                    emit(BranchDrawn(token=token))
                continue
            emit(TurnEnded(seat=state.active, next=(state.active + 1) % state.players))
            state = table.state
            if state.idle >= state.players:
                # Game Play, note: a whole round in which nobody acts ends the game.
                emit(final_scoring(state, "a full round passed in which nobody bought or sold"))
            return
        if state.phase == "ruler":
            if not state.ruler_queue:
                emit(RulerResolved(spot=len(state.rulers) - 1))
                state = table.state
                if len(state.rulers) == C.RULER_COUNT:
                    # End of Game: the 12th ruler's order is executed, then the final scoring.
                    emit(final_scoring(state, "the 12th ruler's order was executed"))
                    return
                continue
            events = order_step(state, state.ruler_queue[0])
            if not events:
                return
            emit(*events)
            continue
        return

"""Jiangnan: Life of Gentry (DuGuWei; Moaideas 2022) — Chapter 1, 3 and 4 players."""

from domain.kernel import Game

from .commands import COMMANDS
from .components import components as _components
from .describe import describe
from .events import EVENTS
from .evolve import evolve
from .rules import JiangnanOptions, decide, initial, legal_moves, setup, to_act
from .scoring import outcome
from .state import State
from .view import JiangnanView, view

GAME = Game(
    kind="jiangnan",
    title="Jiangnan: Life of Gentry",
    rules_version="jiangnan-1",
    player_counts=(3, 4),
    options_type=JiangnanOptions,
    command_types=COMMANDS,
    event_types=EVENTS,
    state_type=State,
    view_type=JiangnanView,
    initial=initial,
    setup=setup,
    decide=decide,
    evolve=evolve,
    to_act=to_act,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    components=_components,
    describe=describe,
    summary="Literati of Ming-dynasty Jiangnan publish works, hire muses and follow the city's trends (Chapter 1).",
    variants={"chapter": "Game Chapter (only 1, Welcome to Jiangnan, for now)."},
)

__all__ = ["GAME", "JiangnanOptions"]

"""Yangtze (Reiner Knizia, Piatnik 2016): buy goods on the river, sell them in bundles, invest
in branches, and survive the rulers' orders."""

from __future__ import annotations

from domain.kernel import Game
from domain.kernel.table import seat_game

from . import components as _components
from .commands import COMMANDS
from .data import COMPONENT_FILE
from .describe import describe
from .events import EVENTS, REVEALING
from .evolve import evolve, fold
from .rules import YangtzeOptions, decide, initial, legal_moves, setup
from .scoring import outcome
from .state import State
from .strategy import heuristic
from .turn import to_act
from .versions import EARLIER_VERSIONS, RULES_VERSION
from .view import YangtzeView, view

GAME = seat_game(
    Game(
        kind="yangtze",
        title="Yangtze",
        rules_version=RULES_VERSION,
        player_counts=(2, 3, 4),
        options_type=YangtzeOptions,
        command_types=COMMANDS,
        event_types=EVENTS,
        state_type=State,
        view_type=YangtzeView,
        initial=initial,
        setup=setup,
        decide=decide,
        evolve=evolve,
        fold_events=fold,
        to_act=to_act,
        legal_moves=legal_moves,
        view=view,
        outcome=outcome,
        components=_components.components,
        describe=describe,
        summary="Buy goods on the Yangtze, sell them in bundles, bid for branches and obey the Qing rulers.",
        component_file=COMPONENT_FILE,
        setup_under=setup,
        earlier_versions=EARLIER_VERSIONS,
        strategies={"heuristic": heuristic},
    ),
    revealing=REVEALING,
)

__all__ = ["GAME", "State", "YangtzeOptions", "YangtzeView"]

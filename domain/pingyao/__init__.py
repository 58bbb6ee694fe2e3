"""Pingyao: First Chinese Banks (Wu Shuang) - solo and 2 to 4 players."""

from domain.kernel import Game
from domain.kernel.table import seat_game

from . import components as _components
from .commands import COMMANDS
from .describe import describe
from .events import EVENTS, REVEALING
from .evolve import evolve, fold
from .flow import PingyaoOptions, initial, setup, setup_under
from .rules import decide, legal_moves
from .scoring import outcome
from .state import State
from .strategy import heuristic
from .turn import to_act
from .versions import EARLIER_VERSIONS, RULES_VERSION
from .view import PingyaoView, view

GAME = seat_game(
    Game(
        kind="pingyao",
        title="Pingyao: First Chinese Banks",
        rules_version=RULES_VERSION,
        earlier_versions=EARLIER_VERSIONS,
        player_counts=(1, 2, 3, 4),
        options_type=PingyaoOptions,
        command_types=COMMANDS,
        event_types=EVENTS,
        state_type=State,
        view_type=PingyaoView,
        initial=initial,
        setup=setup,
        setup_under=setup_under,
        decide=decide,
        evolve=evolve,
        fold_events=fold,
        to_act=to_act,
        legal_moves=legal_moves,
        view=view,
        outcome=outcome,
        components=_components.components,
        describe=describe,
        strategies={"heuristic": heuristic},
        component_file=_components.COMPONENT_FILE,
        summary="Open branches, staff them, move silver between piaohao and bank the most over 8 months.",
        variants={
            "crowdfunding": "Adds the crowdfunding promo branch tiles and Yamen support tiles "
            "(8 instead of 6).",
            "storyline": "Solo (players=1): the storyline card, 1-5 - its Yamen tile and the Normal "
            "and Hard goals (the outcome reports success or failure at both).",
        },
    ),
    revealing=REVEALING,
)

__all__ = ["GAME", "PingyaoOptions"]

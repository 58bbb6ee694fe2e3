"""Jiangnan: Life of Gentry (DuGuWei; Moaideas 2022) — Chapters 1-6 and free configuration,
1 player (against the Bot), 2 (with vassals), 3 and 4 players."""

from domain.kernel import Game
from domain.kernel.table import seat_game

from . import rules
from .commands import COMMANDS
from .components import FILE
from .components import components as _components
from .describe import describe
from .events import EVENTS, REVEALING
from .evolve import evolve, fold
from .options import JiangnanOptions
from .scoring import outcome
from .state import EARLIER_VERSIONS, RULES_VERSION, State
from .strategy import heuristic
from .view import JiangnanView, view

GAME = seat_game(
    Game(
        kind="jiangnan",
        title="Jiangnan: Life of Gentry",
        rules_version=RULES_VERSION,
        earlier_versions=EARLIER_VERSIONS,
        player_counts=(1, 2, 3, 4),
        options_type=JiangnanOptions,
        command_types=COMMANDS,
        event_types=EVENTS,
        state_type=State,
        view_type=JiangnanView,
        initial=rules.initial,
        setup=rules.setup,
        setup_under=rules.setup,
        decide=rules.decide,
        evolve=evolve,
        fold_events=fold,
        to_act=rules.to_act,
        legal_moves=rules.legal_moves,
        view=view,
        outcome=outcome,
        components=_components,
        component_file=FILE,
        describe=describe,
        summary=(
            "Literati of Ming-dynasty Jiangnan publish works, hire muses and follow the city's trends "
            "(Chapters 1-6, solo Bot, 2-player vassals)."
        ),
        strategies={"heuristic": heuristic},
        variants={
            "chapter": (
                "Game Chapter 1-6 (its printed setup); the options below override it (free configuration)."
            ),
            "map": (
                "District boards and sides in order, e.g. A2-A3-B1 "
                "(B1 Imperial Exam, B2 Traveling Artisans, B3 Charming Scholar)."
            ),
            "talents": "none, four (A01-A04), advanced (4+N of A01-A16), characters (4+N of A01-A20).",
            "action_tiles": "basic or advanced (6 Advanced Action Tiles per Age).",
            "mixed_ages": "Mixed Ages Drafting (silver Ages 1+2, gold Ages 3+4).",
            "shops": "Shop Tile sides: A, B or random.",
            "pointer": "Special Action Pointer side: A, B, C or random (B/C).",
            "goals": "Scoring Goal Tile pool: A-F, G-L or A-L.",
            "upkeep": "Upkeep board side: A, B (more tiles to draft) or random.",
            "overlay": "Final Scoring Overlay side: A or B (advanced final scoring) or random.",
            "variant": "2 players: discard any Action Tile instead of the rightmost.",
            "difficulty": "Solo Bot: easy, normal, hard, expert, master, nightmare, inferno.",
        },
    ),
    revealing=REVEALING,
)

__all__ = ["GAME", "JiangnanOptions"]

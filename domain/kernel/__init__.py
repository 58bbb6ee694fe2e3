"""What every game shares: the Game contract, seats, rule violations, outcome, redaction, PRNG."""

from .components import ComponentDataError, ComponentFile, Entry
from .decision import Decision, Refusal
from .errors import GameOver, InvalidOptions, NotYourTurn, RuleViolation
from .evolver import Evolver
from .game import (
    Command,
    Event,
    Game,
    Options,
    Outcome,
    Seat,
    SeatScore,
    View,
    redact_for,
    union_of,
)
from .rng import Rng, seed_commitment
from .scratch import Scratch, clone
from .standings import Standing, lead, rank, winners

__all__ = [
    "Command",
    "ComponentDataError",
    "ComponentFile",
    "Decision",
    "Entry",
    "Event",
    "Evolver",
    "Game",
    "GameOver",
    "InvalidOptions",
    "NotYourTurn",
    "Options",
    "Outcome",
    "Refusal",
    "Rng",
    "RuleViolation",
    "Scratch",
    "Seat",
    "SeatScore",
    "Standing",
    "View",
    "clone",
    "lead",
    "rank",
    "redact_for",
    "seed_commitment",
    "union_of",
    "winners",
]

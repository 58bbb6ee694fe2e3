"""The rating arithmetic, pure: OpenSkill's Plackett-Luce model over a finished game's standings.

No I/O and no clock: the live application (:mod:`.ratings`) and ``yamen ratings rebuild`` call the
same :func:`update` with the same inputs in the same order, so they reach the same floats.  The
parameters are argued in ``docs/ratings.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, kappa 1e-4, tau 25/300 (a little
uncertainty added before every game, so a rating keeps moving)."""
PROVISIONAL_GAMES = 10
"""A player's rating in a title is provisional until this many rated games there; provisional
players are left off the leaderboard (the partial index ``player_ratings_board`` says the same
number: change both together)."""
ANCHORS: dict[str, tuple[float, float]] = {
    # assumed: no measured strengths yet; random play is well below a new player's prior mean, the
    # heuristic bots a little above it.  Small sigmas: an anchor is a known reference.
    "random": (18.0, 1.0),
    "heuristic": (27.0, 1.0),
}
"""Bot level -> the fixed (mu, sigma) its seats bring into a game's update.  Anchors take part in
the update of the seats around them and never change themselves."""
UNKNOWN_ANCHOR = ANCHORS["heuristic"]
"""A level not listed above (a title's new strategy) plays as the strongest listed one until it is
measured."""
DISPLAY_ORIGIN = 1000.0
DISPLAY_SCALE = 40.0


class Belief(NamedTuple):
    """The model's belief about one player's skill in one title."""

    mu: float
    sigma: float


NEW_PLAYER = Belief(MODEL.mu, MODEL.sigma)


class SeatStanding(NamedTuple):
    """One seat of a finished rated game, as the update needs it."""

    seat: int
    rank: int
    """The seat's place in the outcome (1 is first; equal ranks are a tie)."""
    belief: Belief
    """The player's belief before the game, or the bot level's anchor."""
    anchor: bool = False
    """A bot's seat: it takes part and is never changed."""


def anchor(level: str) -> Belief:
    mu, sigma = ANCHORS.get(level, UNKNOWN_ANCHOR)
    return Belief(mu, sigma)


def display(belief: Belief) -> float:
    """The displayed rating: the model's ordinal (mu - 3 sigma, a skill the player very probably
    has at least) scaled to familiar numbers; a new player shows 1000."""
    return DISPLAY_ORIGIN + DISPLAY_SCALE * (belief.mu - 3.0 * belief.sigma)


def update(standings: Sequence[SeatStanding]) -> list[Belief]:
    """Every seat's belief after the game (an anchor's unchanged), in the order given: each seat is
    a team of one, ranked by its standing (ties included)."""
    teams = [[MODEL.rating(mu=s.belief.mu, sigma=s.belief.sigma)] for s in standings]
    rated = MODEL.rate(teams, ranks=[float(s.rank) for s in standings])
    return [
        s.belief if s.anchor else Belief(team[0].mu, team[0].sigma)
        for s, team in zip(standings, rated, strict=True)
    ]

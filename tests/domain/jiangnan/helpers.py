"""Scenario helpers for the Jiangnan rule tests.

New tests start from events: :func:`opening` gives the events of a game up to its first turn,
:func:`reach` plays on until a decision of some kind is pending; ``tests.support.given`` folds
them (add facts such as ``ResourcesChanged`` to set a scene).
"""

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan.play import Play
from domain.jiangnan.rules import advance
from domain.jiangnan.rules import setup as setup_under
from domain.jiangnan.state import RULES_VERSION, Frame
from domain.kernel import Rng, clone
from tests.support import given_state


def started(players: int = 4, seed: str = "t"):
    """A game after the starting portfolio choice: round 1, first turn of seat order[0]."""
    state, _ = GAME.start(JiangnanOptions(players=players), seed)
    while state.phase == "start":
        seat = GAME.to_act(state)[0]
        move = GAME.legal_moves(state, seat)[0]
        state = GAME.fold(state, GAME.decide(state, seat, move, Rng(seed, 1)))
    return state


def opening(seed: str = "t", rules_version: str = RULES_VERSION, talent: str | None = None, **options):
    """The options and events of a new game up to its first turn: Game Setup under *rules_version*
    (an earlier one: a game set up before the bump), then each starting Portfolio and Talent taken
    with the first legal move (*talent*: taken by the first player offered it)."""
    opts = JiangnanOptions(**options)
    events = setup_under(opts, Rng(seed, 0), rules_version)
    state = GAME.fold(GAME.initial(opts), events)
    while state.phase == "start":
        seat = GAME.to_act(state)[0]
        moves = GAME.legal_moves(state, seat)
        wanted = [m for m in moves if getattr(m, "talent", None) == talent]
        new = GAME.decide(state, seat, (wanted or moves)[0], Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    return opts, events


def reach(options, events, until, seed: str = "reach", limit: int = 5000):
    """Play random legal moves (never a Spirits Tile) after *events* until ``until(state)``: the
    events so far, or None if the game ended first."""
    events = list(events)
    state = GAME.fold(GAME.initial(options), events)
    chooser = Rng(seed)
    for _ in range(limit):
        if until(state):
            return events
        if state.finished:
            return None
        seat = GAME.to_act(state)[0]
        moves = [m for m in GAME.legal_moves(state, seat) if type(m).__name__ != "UseSpiritsTile"]
        new = GAME.decide(state, seat, chooser.choice(moves), Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    raise AssertionError("condition never reached")


def play(state, seat, command, seed: str = "x"):
    """Decide (checking decide does not mutate) and fold: (events, new state)."""
    events = given_state(GAME, state).when(seat, command, seed=seed).events()
    return events, GAME.fold(clone(state), events)


def run(state, seed: str = "x"):
    """Run the automatic steps from the current phase: (events, new state)."""
    c = Play(state, Rng(seed))
    advance(c)
    return c.events, c.state


def at(state, seat, kind, arg: str = "", n: int = 0):
    """Put ``seat`` in front of a decision inside its turn."""
    state.steps = [Frame(kind="after_turn", seat=seat), Frame(kind=kind, seat=seat, arg=arg, n=n)]
    return state


def drive(state, until, seed: str = "drive", limit: int = 5000):
    """Play the first legal move until ``until(state)``."""
    for i in range(limit):
        if until(state) or state.finished:
            return state
        seat = GAME.to_act(state)[0]
        moves = [m for m in GAME.legal_moves(state, seat) if type(m).__name__ != "UseSpiritsTile"]
        state = GAME.fold(state, GAME.decide(state, seat, moves[0], Rng(seed, i)))
    raise AssertionError("condition never reached")


def drafted_per_round(events, players: int) -> dict[int, list[int]]:
    """How many Action Tiles each player drafted in each round (Draft New Action Tiles)."""
    counts: dict[int, list[int]] = {}
    round_ = 0
    for e in events:
        if type(e).__name__ == "PhaseBegan":
            round_ = e.round
        if type(e).__name__ == "ActionTileDrafted":
            counts.setdefault(round_, [0] * players)[e.seat] += 1
    return counts


def types(events):
    return [type(e).__name__ for e in events]


def final_scoring_example(state) -> tuple[int, int, int]:
    """The rulebook's Final Scoring example laid out on *state*: a boat with Scoring Goal A held
    by orange (2 servants), green and white (1 each), orange's and green's publications, orange's
    Assistants, visited cities and Ideas.  Returns the seats (orange, green, white)."""
    orange, green, white = 3, 1, 2
    for b in state.boats:
        b.goal, b.spaces = None, [[-1, 0]] * 4
    boat = state.river[0]
    state.boats[boat].goal = "A"
    state.boats[boat].spaces = [[orange, 2], [green, 1], [white, 1], [-1, 0]]
    o = state.p[orange]
    o.published = ["B1", "B2", "B3", "B4", "B5", "C1", "A1", "A2"]
    o.assistants = ["B01", "B02"]
    o.cities = ["A1", "A2", "B1", "B2"]
    o.ideas = {"drama": 2, "novel": 1, "painting": 1}
    state.p[green].published = ["B6", "B7", "B8"]
    return orange, green, white

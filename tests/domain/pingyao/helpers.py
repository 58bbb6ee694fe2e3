"""Builders for hand-made Pingyao tables (seat 0 red/starting player, 1 blue, 2 green, 3 yellow)."""

from __future__ import annotations

from domain.kernel import Rng, clone
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.state import Frame, State

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3


def table(players: int = 4, round: int = 3, start: int = 0, crowdfunding: bool = True) -> State:
    """Action phase of `round`, every die already used (tests put the dice they need)."""
    starting = {4: ["Taiyuan", "Datong", "Xinzhou", "Yuncheng"], 3: ["Taiyuan", "Xinzhou", "Taigu"],
                2: ["Taiyuan", "Datong"], 1: ["Taiyuan"]}[players]
    s = GAME.fold(GAME.initial(PingyaoOptions(players=players)), [
        E.GameSetUp(players=players, crowdfunding=crowdfunding, starting=starting, start_player=0),
        E.RoundStarted(round=round, start_player=start),
        E.PhaseStarted(phase="action"),
    ])
    for d in s.dice:
        d.where = "done"
    return s


def die(seat: int, k: int) -> int:
    """Die id: k = 0 the large four-sided die, 1 and 2 the ordinary dice."""
    return seat * 3 + k


def put(s: State, d: int, value: int, where: str = "number", action: str = "") -> None:
    s.dice[d].value, s.dice[d].where, s.dice[d].action = value, where, action


def keep_going(s: State) -> None:
    """A spare die so the action phase does not end after the command under test."""
    put(s, die(1, 2), 1)


def frame(s: State, kind: str, seat: int = 0, **kw) -> None:
    s.frames.insert(0, Frame(kind=kind, seat=seat, **kw))


def step(s: State, seat: int, command, seed: str = "t"):
    events = GAME.decide(s, seat, command, Rng(seed, 0))
    return GAME.fold(clone(s), events), events


def finish_round(s: State, seed: str = "t") -> tuple[State, list]:
    """Decline every remaining die and take the first legal choice elsewhere until the next round."""
    events: list = []
    n = 0
    start = s.round
    while s.round == start and s.phase != "end":
        seat = GAME.to_act(s)[0]
        legal = GAME.legal_moves(s, seat)
        move = next((m for m in legal if isinstance(m, (K.Decline, K.EndPreparation))), legal[0])
        new = GAME.decide(s, seat, move, Rng(seed, n))
        n += 1
        s = GAME.fold(s, new)
        events += new
    return s, events

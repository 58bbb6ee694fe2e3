"""One legality source, checked the python-chess way (the move generator and the checker agree).

Over random playouts, at every state: every listed move is accepted by ``decide``; and commands
not listed - each listed command with every other value of each of its fields (in range and out of
range), and every other command type of the game - are refused with a ``RuleViolation`` whose
code is one the rules declare (never a catch-all), and never with any other exception.
"""

import importlib
import pkgutil

import msgspec
import pytest

from domain import pingyao
from domain.kernel import Command, Rng, RuleViolation
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import board as B
from domain.pingyao import components as C
from domain.pingyao.commands import COMMANDS
from domain.pingyao.decisions import Refusal
from domain.pingyao.state import State

from .helpers import RED, Table


def _declared_codes() -> set[str]:
    """Every refusal code the rules declare, plus the kernel's."""
    codes = {"wrong_decision", "not_your_turn", "game_over"}
    for info in pkgutil.iter_modules(pingyao.__path__):
        module = importlib.import_module(f"domain.pingyao.{info.name}")
        codes |= {v.code for v in vars(module).values() if isinstance(v, Refusal)}
    return codes


CODES = _declared_codes()
CATCH_ALL = {"rule_violation", "illegal_move", "illegal_choice", "invalid_command"}

INTS = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 99]
STRS = [
    "",
    "red",
    "yellow",
    "green",
    "blue",
    "HO",
    "1red",
    "2green",
    "3yellow",
    "4red",
    "1red:teller",
    "2yellow:manager",
    "3green:wait",
    "1red:nowhere",
    "X01",
    "X18",
    "X99",
    "Lasa#1",
    "Macau#2",
    "Atlantis#1",
    "any_value",
    "flat_points",
    "no_tile",
    "bank_escort",
    "yamen",
    "die_minus",
    "die_plus",
    "die_swap",
]


def _values(s: State, kind: type) -> list:
    if kind is bool:
        return [True, False]
    if kind is int:
        return [*INTS, len(s.dice), len(s.dice) + 1]
    # values the table makes meaningful now: drawn tiles and cards, maturing cards, tiles, regions
    return STRS + s.drawn + s.drawn_cards + s.due + list(s.yamen_supply) + list(C.REGIONS)


def _mutations(s: State, cmd: Command) -> list[Command]:
    out = []
    hints = msgspec.structs.fields(cmd)
    for field in hints:
        for value in _values(s, field.type):
            if value != getattr(cmd, field.name):
                out.append(msgspec.structs.replace(cmd, **{field.name: value}))
    return out


def _others(s: State) -> list[Command]:
    """One command of every type, built from the first meaningful values."""
    out = []
    for kind in COMMANDS:
        fields = {f.name: _values(s, f.type)[-1] for f in msgspec.structs.fields(kind) if f.required}
        out.append(kind(**fields))
    return out


def _refused(s: State, seat: int, cmd: Command) -> str:
    try:
        GAME.decide(s, seat, cmd, Rng("legality", 0))
    except RuleViolation as violation:
        assert violation.code in CODES and violation.code not in CATCH_ALL, f"{cmd!r}: {violation.code!r}"
        assert violation.rule or violation.code in ("not_your_turn", "game_over"), f"{cmd!r}: no rule section"
        return violation.code
    raise AssertionError(f"{cmd!r} is not listed but was accepted")


def agree(players: int, seed: str, crowdfunding: bool = True) -> int:
    """Play one random game checking the agreement at every state; returns the commands checked."""
    options = PingyaoOptions(players=players, crowdfunding=crowdfunding, storyline=len(seed) % 5 + 1)
    state, events = GAME.start(options, seed)
    chooser = Rng(seed + "/chooser")
    checked = 0
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_moves(state, seat)
        listed = set(legal)
        assert len(listed) == len(legal), "a move is listed twice"
        for cmd in legal:
            assert GAME.decide(state, seat, cmd, Rng(seed, len(events))), (
                f"{cmd!r} is listed but records nothing"
            )
        samples: dict[type, list[Command]] = {}
        for cmd in legal:
            samples.setdefault(type(cmd), []).append(cmd)
        unlisted = {m for group in samples.values() for cmd in group[:2] for m in _mutations(state, cmd)}
        unlisted |= set(_others(state))
        for cmd in unlisted - listed:
            _refused(state, seat, cmd)
            checked += 1
        if players > 1:
            assert _refused(state, (seat + 1) % players, legal[0]) == "not_your_turn"
        move = chooser.choice(legal)
        new = GAME.decide(state, seat, move, Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events.extend(new)
    assert GAME.legal_moves(state, 0) == [] and _refused(state, 0, _others(state)[0]) == "game_over"
    return checked


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_generator_and_checker_agree(players):
    assert (
        agree(players, f"agree{players}") + agree(players, f"agree{players}-plain", crowdfunding=False)
        > 10_000
    )


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("game", range(1, 11))
def test_generator_and_checker_agree_many_games(players, game):
    agree(players, f"agree{players}-{game}", crowdfunding=game % 2 == 0)


def test_the_rules_declare_specific_codes():
    assert not CODES & CATCH_ALL
    assert {
        "same_value_blocked",
        "resting_area_full",
        "invalid_exchange",
        "invalid_fee_source",
        "card_not_due",
        "card_not_drawn",
        "public_die_limit",
        "reward_unavailable",
        "skill_unavailable",
    } <= CODES


def test_piaohaos_are_the_head_office_and_the_branches():
    p = Table().branch(RED, "2green", "Guilin#1").state.pl[RED]
    assert B.piaohaos(p) == ["HO", "1red", "2green"]

"""The ``heuristic`` bot of Jiangnan: it finishes every kind of game without raising, answers one
of the legal moves, is deterministic for its generator, and beats the random bot."""

from __future__ import annotations

import statistics

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan.strategy import heuristic
from domain.kernel import Rng
from domain.kernel import bots as B


def _play(options: JiangnanOptions, seed: str, heuristic_seats: set[int]) -> tuple[object, int]:
    """A whole game with ``heuristic`` called directly (an exception fails the test) on the given
    seats, the random bot on the others; returns the outcome and the heuristic's decision count."""
    match = B.play_match(GAME, options, seed, dict.fromkeys(heuristic_seats, "heuristic"), strict=True)
    return match.outcome, sum(len(match.chosen.get(seat, [])) for seat in heuristic_seats)


CONFIGS = [
    {"players": players, "chapter": chapter} for chapter in range(1, 7) for players in (1, 2, 3, 4)
] + [
    {"players": 2, "chapter": 1, "variant": True},
    {"players": 2, "chapter": 6, "variant": True},
    {"players": 1, "chapter": 3, "difficulty": "inferno"},
    {"players": 1, "chapter": 5, "difficulty": "master"},
    {"players": 4, "chapter": 1, "talents": "characters", "action_tiles": "advanced", "upkeep": "B"},
    {"players": 3, "chapter": 6, "shops": "B", "pointer": "C", "goals": "G-L", "mixed_ages": True},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_the_heuristic_plays_whole_games_of_every_kind(config):
    options = JiangnanOptions(**config)
    players = config["players"]
    for k in range(2):
        seed = f"strategy-{k}-" + "-".join(f"{v}" for v in config.values())
        _, decisions = _play(options, seed, set(range(players)))  # every seat the heuristic
        assert decisions > 0
        _play(options, seed + "-mixed", {k % players})  # one seat among random bots


def test_the_heuristic_is_deterministic_for_its_generator():
    options = JiangnanOptions(players=3, chapter=6)
    state, events = GAME.start(options, "determinism")
    position = len(events)
    checked = 0
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        legal = GAME.legal_moves(state, seat)
        first = heuristic(view, seat, legal, Rng("bot", position))
        again = heuristic(view, seat, list(legal), Rng("bot", position))
        assert first == again
        checked += 1
        new = GAME.decide(state, seat, first, Rng("determinism", position))
        state = GAME.fold(state, new)
        position += len(new)
    assert checked > 50


def test_the_heuristic_beats_the_random_bot_at_two_players():
    options = JiangnanOptions(players=2)
    beats = 0.0
    games = 30
    for n in range(games):
        tested = n % 2
        match = B.play_match(GAME, options, f"beats-{n}", {tested: "heuristic"})
        ranks = {s.seat: s.rank for s in match.outcome.scores}
        other = 1 - tested
        beats += 1.0 if ranks[tested] < ranks[other] else 0.5 if ranks[tested] == ranks[other] else 0.0
    assert beats / games >= 0.65


def test_the_heuristic_scores_more_than_the_random_bot_solo():
    options = JiangnanOptions(players=1)
    mine, theirs = [], []
    for n in range(12):
        mine.append(B.play_match(GAME, options, f"solo-{n}", {0: "heuristic"}).outcome.scores[0].score)
        theirs.append(B.play_match(GAME, options, f"solo-{n}", {0: "random"}).outcome.scores[0].score)
    assert statistics.fmean(mine) > statistics.fmean(theirs) + 30


def test_the_heuristic_is_registered():
    assert GAME.strategies["heuristic"] is heuristic
    assert "heuristic" in B.levels(GAME)

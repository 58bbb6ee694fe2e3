"""Pingyao's heuristic bot: it plays whole games at every player count and variant without raising,
always answers one of the legal moves, is deterministic for its generator, and beats the random bot."""

from __future__ import annotations

import pytest

from domain.kernel import Rng
from domain.kernel import bots as B
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import components as C
from domain.pingyao.scoring import breakdown
from domain.pingyao.strategy import board_value, heuristic


def _play(options: PingyaoOptions, seed: str, heuristic_seats: set[int]):
    """A whole game; the heuristic seats call `heuristic` directly (an exception fails the test)."""
    match = B.play_match(GAME, options, seed, dict.fromkeys(heuristic_seats, "heuristic"), strict=True)
    return match.state, match.outcome


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("crowdfunding", [False, True])
def test_plays_whole_games_at_every_player_count(players: int, crowdfunding: bool) -> None:
    for n in range(2):
        options = PingyaoOptions(players=players, crowdfunding=crowdfunding)
        _, outcome = _play(options, f"strategy-{players}-{crowdfunding}-{n}", set(range(players)))
        assert len(outcome.scores) == players


@pytest.mark.parametrize("storyline", sorted(C.STORYLINES))
def test_plays_every_solo_storyline(storyline: int) -> None:
    _, outcome = _play(PingyaoOptions(players=1, storyline=storyline), f"story-{storyline}", {0})
    assert outcome.details["storyline"] == storyline


def test_deterministic_for_the_same_generator() -> None:
    state, events = GAME.start(PingyaoOptions(players=3), "same")
    position = len(events)
    for _ in range(60):
        if GAME.outcome(state) is not None:
            break
        seat = GAME.to_act(state)[0]
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        first = heuristic(view, seat, legal, Rng("bot", position))
        assert heuristic(view, seat, legal, Rng("bot", position)) == first
        new = GAME.decide(state, seat, first, Rng("same", position))
        state = GAME.fold(state, new)
        position += len(new)


def test_board_value_at_the_end_is_the_score() -> None:
    """With no income left, the board's worth is its Game End score (copper and tellers unfloored)."""
    state, _ = _play(PingyaoOptions(players=2), "end-value", {0, 1})
    for p in state.pl:
        score = sum(breakdown(p).values())
        worth = board_value(GAME.view(state, 0).boards[state.pl.index(p)], 0)
        assert score <= worth + 1e-9 < score + 1.5


def test_beats_the_random_bot_in_two_player_games() -> None:
    beats = 0.0
    games = 30
    for n in range(games):
        tested = n % 2
        match = B.play_match(GAME, PingyaoOptions(players=2), f"beats-{n}", {tested: "heuristic"})
        rank = {s.seat: s.rank for s in match.outcome.scores}
        mine, theirs = rank[tested], rank[1 - tested]
        beats += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert beats / games >= 0.65


def test_solo_scores_above_the_random_bot() -> None:
    diffs = []
    for n in range(6):
        options = PingyaoOptions(players=1, storyline=1 + n % 5)
        smart = B.play_match(GAME, options, f"solo-{n}", {0: "heuristic"}).outcome.scores[0].score
        rand = B.play_match(GAME, options, f"solo-{n}", {0: "random"}).outcome.scores[0].score
        diffs.append(smart - rand)
    assert sum(diffs) / len(diffs) > 5

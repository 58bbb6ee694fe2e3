"""Random playouts of the fixture game: the harness every real game's playout test reuses."""

import pytest

from domain.kernel import InvalidOptions, Rng, RuleViolation
from tests.fixture_game import GAME
from tests.fixture_game.rules import CANDIDATES, BluffOptions, Claim, Stake
from tests.support import given, random_playout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_finish_and_refold(players):
    for i in range(30):
        result = random_playout(
            GAME, BluffOptions(players=players, rounds=2), f"seed-{i}", check_all_legal_moves=True
        )
        assert GAME.outcome(result.state) is not None


def test_wrong_seat_is_refused():
    _state, events = GAME.start(BluffOptions(players=3), "s")
    given(GAME, events).when(1, Claim(claim="high")).raises("not_your_turn")


def test_bad_player_count_is_invalid_options():
    with pytest.raises(InvalidOptions):
        GAME.start(BluffOptions(players=7), "s")


def test_listed_moves_are_exactly_the_accepted_ones():
    """The generator and the checker agree: along random games, for every seat, a command is
    accepted exactly when it is listed (out-of-range stakes included)."""
    commands = [*CANDIDATES, Stake(amount=0), Stake(amount=4), Stake(amount=-1)]
    for i in range(5):
        events = random_playout(GAME, BluffOptions(players=3, rounds=2), f"agree-{i}").events
        state = GAME.initial(BluffOptions(players=3, rounds=2))
        for k, event in enumerate(events):
            state = GAME.evolve(state, event)
            for seat in range(-1, 4):
                listed = GAME.legal_moves(state, seat)
                for command in commands:
                    try:
                        GAME.decide(state, seat, command, Rng("agree", k))
                    except RuleViolation:
                        assert command not in listed
                    else:
                        assert command in listed

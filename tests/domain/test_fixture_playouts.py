"""Random playouts of the fixture game: the harness every real game's playout test reuses."""

import pytest

from domain.kernel import InvalidOptions
from tests.fixture_game import GAME
from tests.fixture_game.rules import BluffOptions, Claim
from tests.support import given, random_playout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_finish_and_refold(players):
    for i in range(30):
        result = random_playout(GAME, BluffOptions(players=players, rounds=2), f"seed-{i}", check_all_legal_moves=True)
        assert GAME.outcome(result.state) is not None


def test_wrong_seat_is_refused():
    state, events = GAME.start(BluffOptions(players=3), "s")
    given(GAME, events).when(1, Claim(claim="high")).raises("not_your_turn")


def test_bad_player_count_is_invalid_options():
    with pytest.raises(InvalidOptions):
        GAME.start(BluffOptions(players=7), "s")

"""The bot contract: a bot sees its seat's view and legal moves only, always answers a legal move,
and every title's bot levels play complete games at every player count."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from domain.kernel import InvalidOptions, Rng
from domain.kernel import bots as B
from domain.registry import production_games
from tests.fixture_game import GAME as FIXTURE

GAMES = production_games()


def _options(game, players):
    return msgspec.convert({"players": players}, game.options_type)


@pytest.mark.parametrize(
    ("kind", "players"),
    [(kind, n) for kind, game in sorted(GAMES.items()) for n in game.player_counts],
)
def test_every_level_plays_a_whole_game_seeing_only_its_seats_view(kind, players):
    game = GAMES[kind]
    seen = 0

    def observe(state, seat, view, legal, move):
        nonlocal seen
        seen += 1
        # What the bot was handed is exactly what the service serves that seat, nothing more.
        assert msgspec.json.encode(view) == msgspec.json.encode(game.view(state, seat))
        assert legal == game.legal_moves(state, seat)
        assert move in legal

    levels = B.levels(game)
    seat_levels = {seat: levels[seat % len(levels)] for seat in range(players)}
    options = _options(game, players)
    match = B.play_match(game, options, f"bots-{kind}-{players}", seat_levels, observe=observe)
    assert match.moves == seen > 0
    assert match.outcome.scores


def test_a_strategy_is_called_with_the_view_and_never_the_state():
    calls = []

    def spy(view, seat, legal, rng):
        calls.append((type(view), seat, list(legal)))
        return legal[-1]

    game = dataclasses.replace(FIXTURE, strategies={"spy": spy})
    options = _options(game, 2)
    B.play_match(game, options, "spy", {0: "spy", 1: "spy"})
    assert calls and all(view_type is game.view_type for view_type, _, _ in calls)


def test_a_failing_or_cheating_strategy_falls_back_to_a_legal_random_move():
    def broken(view, seat, legal, rng):
        raise RuntimeError("bug")

    def illegal(view, seat, legal, rng):
        return "not a move"

    game = dataclasses.replace(FIXTURE, strategies={"broken": broken, "illegal": illegal})
    state, _ = game.start(_options(game, 2), "fallback")
    seat = game.to_act(state)[0]
    legal = game.legal_moves(state, seat)
    for level in ("broken", "illegal"):
        move = B.choose(game, level, game.view(state, seat), seat, legal, Rng("r"))
        assert move in legal


def test_unknown_level_is_refused_with_the_levels_there_are():
    with pytest.raises(InvalidOptions, match="levels: random"):
        B.strategy(FIXTURE, "grandmaster")
    assert B.levels(FIXTURE) == ("random",)


def test_the_bot_generator_is_public_and_repeatable():
    assert B.bot_rng("g1", 7, 2).next_u64() == B.bot_rng("g1", 7, 2).next_u64()
    assert B.bot_rng("g1", 7, 2).next_u64() != B.bot_rng("g1", 8, 2).next_u64()

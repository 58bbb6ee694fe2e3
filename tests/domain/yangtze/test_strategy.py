"""Yangtze's heuristic bot (domain/yangtze/strategy.py): it finishes games at every player count
and under every rules version without raising, answers one of the legal moves it was handed, is
deterministic for its generator, and beats the random bot."""

from __future__ import annotations

import pytest

from domain.kernel import Rng
from domain.kernel import bots as B
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import Bid, Pass, PlayLiquidity, PlaySellCard, PurchaseGood, SellBundle
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.strategy import heuristic
from domain.yangtze.versions import RULES_VERSION, YANGTZE_2

from .helpers import RULER, Story, branch, lux, seed_drawing, tables


def _play(players: int, seed: str, heuristic_seats: set[int], version: str = RULES_VERSION) -> tuple:
    """One complete game, calling :func:`heuristic` directly for *heuristic_seats* (an exception
    fails the test) and the random bot for the others: (outcome, the heuristic's moves)."""
    levels = dict.fromkeys(heuristic_seats, "heuristic")
    match = B.play_match(
        GAME, YangtzeOptions(players=players), seed, levels, strict=True, rules_version=version
    )
    return match.outcome, [move for seat in sorted(heuristic_seats) for move in match.chosen.get(seat, [])]


@pytest.mark.parametrize("version", [RULES_VERSION, YANGTZE_2])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_heuristic_finishes_games_at_every_player_count(players, version):
    """Every player count, both rules versions, a few seeds: the heuristic alone against random
    seats and in every seat; it never raises and always answers a legal move."""
    kinds: set[type] = set()
    for n in range(4):
        _outcome, chosen = _play(players, f"strategy-{version}-{n}", {n % players}, version)
        kinds.update(map(type, chosen))
        _outcome, chosen = _play(players, f"strategy-all-{version}-{n}", set(range(players)), version)
        kinds.update(map(type, chosen))
    assert {PurchaseGood, Bid, Pass} <= kinds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_heuristic_answers_every_table_of_other_players_games(players):
    """Tables the heuristic would not lead to itself (reckless and thrifty players' games: sales
    with the sell card open, debts, every ruler's order): asked as any seat that must decide, it
    answers one of that seat's legal moves and never plays a card it was not forced to."""
    for n in range(3):
        for thrifty in (False, True):
            for state, count in tables(players, f"others-{players}-{n}", thrifty=thrifty):
                for seat in GAME.to_act(state):
                    legal = GAME.legal_moves(state, seat)
                    move = heuristic(GAME.view(state, seat), seat, legal, Rng(f"h-{n}", count))
                    assert any(move is m for m in legal)
                    if isinstance(move, PlaySellCard):
                        pytest.fail("the heuristic never plays the sell card")
                    if isinstance(move, PlayLiquidity):
                        assert all(isinstance(m, (PlayLiquidity, PlaySellCard)) for m in legal)


def test_the_heuristic_is_deterministic_for_its_generator():
    """The same view, legal moves and generator give the same move, game after game."""
    first = _play(3, "same-seed", {0, 1, 2})
    again = _play(3, "same-seed", {0, 1, 2})
    assert first[1] == again[1]
    assert first[0].scores == again[0].scores


def test_the_heuristic_beats_the_random_bot():
    """30 fixed-seed 2-player games, the heuristic seat alternating: it finishes strictly ahead of
    the random seat in a clear majority of them (ties count one half)."""
    beats = 0.0
    for n in range(30):
        tested = n % 2
        outcome, _chosen = _play(2, f"versus-{n}", {tested})
        rank = {s.seat: s.rank for s in outcome.scores}
        mine, theirs = rank[tested], rank[1 - tested]
        beats += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert beats / 30 >= 0.65


def test_a_forced_debt_is_settled_with_the_largest_liquidity_card():
    """Rulers, additional notes: a tax beyond the money must be settled with a liquidity card; the
    bot redeems the 20, which leaves it the most money (every unused card is worth 30 alike)."""
    goods = [lux(g, c) for g in range(4) for c in range(5)]
    story = Story(players=2, hands=[[], goods[:5]]).sell_card_used(0, 1)
    story.auction_round([(1, branch(0, 0), 28)])
    before = story.state
    seed = seed_drawing(before, RULER[C.TAX_GOODS])
    state = GAME.fold(before, GAME.decide(before, 0, PurchaseGood(slot=7), Rng(seed, 0)))
    assert GAME.to_act(state) == [1]
    legal = GAME.legal_moves(state, 1)
    assert all(isinstance(m, PlayLiquidity) for m in legal)
    assert heuristic(GAME.view(state, 1), 1, legal, Rng("debt")) == PlayLiquidity(value=20)


def test_the_heuristic_never_sells_a_bundle_it_could_still_grow_for_nothing():
    """1. Sell a Bundle of Goods: with plenty of money and two silks of a kind still obtainable, the
    bot keeps its pair rather than selling it at the start of its turn."""
    pair = [lux(0, 0), lux(0, 1)]
    state = Story(players=2, hands=[pair, []]).state
    legal = GAME.legal_moves(state, 0)
    move = heuristic(GAME.view(state, 0), 0, legal, Rng("keep"))
    assert not isinstance(move, SellBundle)

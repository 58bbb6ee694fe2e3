"""The rating arithmetic alone (service.application.rating_model): openskill's Plackett-Luce with
its defaults, ties, anchors that never move, the displayed rating, and the rules of eligibility."""

from __future__ import annotations

from datetime import UTC, datetime

from openskill.models import PlackettLuce

from service.application.rating_model import (
    ANCHORS,
    NEW_PLAYER,
    PROVISIONAL_GAMES,
    Belief,
    SeatStanding,
    anchor,
    display,
    update,
)
from service.application.ratings import changes_for, eligibility
from service.infra.ratings_store import GameToRate

MODEL = PlackettLuce()


def test_update_is_openskills_plackett_luce_seat_by_seat():
    beliefs = [Belief(27.0, 5.0), NEW_PLAYER, Belief(21.5, 3.25), Belief(30.0, 7.0)]
    ranks = [2, 1, 2, 4]
    got = update([SeatStanding(s, r, b) for s, (r, b) in enumerate(zip(ranks, beliefs, strict=True))])
    want = MODEL.rate([[MODEL.rating(mu=b.mu, sigma=b.sigma)] for b in beliefs], ranks=ranks)
    assert got == [Belief(t[0].mu, t[0].sigma) for t in want]
    assert got[0] == got[0] and got[1].mu > NEW_PLAYER.mu and got[3].mu < 30.0


def test_an_anchor_takes_part_and_never_changes():
    bot = anchor("random")
    got = update([SeatStanding(0, 2, NEW_PLAYER), SeatStanding(1, 1, bot, anchor=True)])
    want = MODEL.rate([[MODEL.rating()], [MODEL.rating(mu=bot.mu, sigma=bot.sigma)]], ranks=[2, 1])
    assert got == [Belief(want[0][0].mu, want[0][0].sigma), bot]
    assert anchor("no-such-level") == anchor("heuristic") and set(ANCHORS) >= {"random", "heuristic"}


def test_a_tie_moves_tied_equals_equally():
    got = update([SeatStanding(0, 1, NEW_PLAYER), SeatStanding(1, 1, NEW_PLAYER)])
    assert got[0] == got[1]


def test_a_new_player_shows_1000():
    assert display(NEW_PLAYER) == 1000.0
    assert display(Belief(30.0, 2.0)) == 1000.0 + 40.0 * 24.0


def _game(seats, reason=None):
    return GameToRate(
        game_id="g",
        kind="bluff",
        status="finished",
        rated=True,
        unrated_reason=reason,
        imported=False,
        seats=[(s, p, b, True) for s, (p, b) in enumerate(seats)],
        settled=False,
    )


def test_which_finished_games_are_rated():
    assert eligibility(_game([("p_a", None), ("p_b", None)])) is None
    assert eligibility(_game([("p_a", None), (None, "random")])) is None
    assert eligibility(_game([("p_a", "random"), ("p_b", None)])) is None  # handed to a bot: still p_a's
    assert eligibility(_game([("p_a", None), ("p_a", None)])) == "player_holds_several_seats"
    assert eligibility(_game([("p_a", None), (None, None)])) == "seat_without_player"
    assert eligibility(_game([(None, "random"), (None, "heuristic")])) == "no_players"
    assert eligibility(_game([("p_a", None), ("p_b", None)], "creator_took_seats")) == "creator_took_seats"


def test_changes_count_games_and_leave_bots_out_of_the_count():
    now = datetime.now(UTC)
    changes = changes_for(
        "g", "bluff", [(0, "p_a", None), (1, None, "random")], {0: 1, 1: 2}, {"p_a": (26.0, 4.0, 3)}, 7, now
    )
    mine, bot = changes
    assert (mine.games_after, mine.mu_before, mine.position) == (4, 26.0, 7)
    assert (bot.games_after, bot.mu_after, bot.bot, bot.player_id) == (0, bot.mu_before, "random", None)
    assert mine.games_after < PROVISIONAL_GAMES

"""The matcher's decisions, pure (service.application.matching): oldest first, the widening window,
counts, rated or casual, option constraints and the option chosen, and bots after a wait."""

from __future__ import annotations

import math

from service.application.matching import Candidate, choose_options, next_due, plan, window


def seek(
    name: str,
    *,
    counts: tuple[int, ...] = (2,),
    rating: float = 1000.0,
    waited: float = 0.0,
    rated: bool = False,
    player: str | None = None,
    bots_after: float | None = None,
    **constraints: tuple[str, ...],
) -> Candidate:
    return Candidate(
        seek_id=name,
        player_id=player or f"p_{name}",
        counts=counts,
        constraints=dict(constraints),
        rated=rated,
        rating=rating,
        waited=waited,
        bots_after=bots_after,
        bot_level="random" if bots_after is not None else None,
    )


def tables(*pool: Candidate) -> list[tuple[list[str], int, int]]:
    return [
        ([s.seek_id for s in t.seeks], t.players, t.bots) for t in plan(sorted(pool, key=lambda s: -s.waited))
    ]


def test_the_window_schedule():
    assert [window(w) for w in (0, 9.9, 10, 25, 59.9)] == [100, 100, 200, 300, 600]
    assert window(60) == math.inf


def test_two_compatible_seekers_make_a_game_and_the_oldest_go_first():
    assert tables(seek("a", waited=3), seek("b", waited=2), seek("c", waited=1)) == [(["a", "b"], 2, 0)]


def test_one_player_is_never_seated_twice():
    assert tables(seek("a", waited=2, player="p"), seek("b", waited=1, player="p")) == []


def test_ratings_must_be_within_both_windows():
    far = seek("b", rating=1250, waited=0)
    assert tables(seek("a", rating=1000, waited=30), far) == []  # b's window is still 100 wide
    assert tables(seek("a", rating=1000, waited=30), seek("b", rating=1250, waited=30)) == [
        (["a", "b"], 2, 0)
    ]
    assert tables(seek("a", rating=1000, waited=60), seek("b", rating=2000, waited=61)) == [
        (["b", "a"], 2, 0)
    ]


def test_rated_and_casual_do_not_mix():
    assert tables(seek("a", rated=True, waited=2), seek("b", waited=1)) == []


def test_the_largest_count_the_seekers_allow_is_formed():
    pool = [seek(n, counts=(2, 3, 4), waited=w) for n, w in (("a", 4), ("b", 3), ("c", 2))]
    assert tables(*pool) == [(["a", "b", "c"], 3, 0)]
    assert tables(*pool, seek("d", counts=(2,), waited=1)) == [(["a", "b", "c"], 3, 0)]
    assert tables(seek("a", counts=(4,), waited=2), seek("b", counts=(2,), waited=1)) == []


def test_an_anchor_that_cannot_fill_a_table_leaves_the_next_to_try():
    assert tables(
        seek("a", counts=(4,), waited=3), seek("b", counts=(2, 4), waited=2), seek("c", counts=(2,), waited=1)
    ) == [(["b", "c"], 2, 0)]


def test_option_constraints_must_intersect_and_the_oldest_choice_wins():
    a = seek("a", waited=3, rounds=("2", "1"))
    b = seek("b", waited=2, rounds=("1",))
    assert tables(a, b) == [(["a", "b"], 2, 0)]
    assert choose_options([a, b]) == {"rounds": "1"}
    assert choose_options([a, seek("c", rounds=("1", "2"))]) == {"rounds": "2"}
    assert choose_options([seek("x"), a]) == {"rounds": "2"}
    assert tables(seek("a", waited=2, rounds=("2",)), seek("b", waited=1, rounds=("1",))) == []


def test_bots_fill_after_the_wait_with_the_smallest_count():
    assert tables(seek("a", counts=(2, 3), waited=4, bots_after=5)) == []
    assert tables(seek("a", counts=(3, 4), waited=5, bots_after=5)) == [(["a"], 3, 2)]
    # A seeker whose own wait for bots has passed too joins the table; one still waiting does not.
    both = tables(
        seek("a", counts=(4,), waited=9, bots_after=5),
        seek("b", counts=(4,), waited=8, bots_after=1),
        seek("c", counts=(4,), waited=7, bots_after=60),
    )
    assert both == [(["a", "b"], 4, 2)]


def test_when_to_look_again():
    pool = [seek("a", waited=3), seek("b", rating=2000, waited=1, bots_after=4)]
    assert next_due(pool, plan(pool)) == 3  # b's bots in 3 s, before a's window widens at 10 s
    assert next_due([seek("a", waited=75)], []) is None

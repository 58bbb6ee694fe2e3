"""Game End scoring steps 1-6 and the tie-breaks."""

import pytest

from domain.pingyao import GAME
from domain.pingyao.scoring import breakdown

from .helpers import BLUE, GREEN, RED, YELLOW, Table


def test_scoring_steps():
    t = Table().copper(RED, 47).head_office(RED, 3)  # 1. 4 points; 2. 3 + 2 (Taiyuan) + 2 (Tier 2) = 7
    t.branch(RED, "2red", "Guilin#1", silver=2, tellers=1, managers=1)  # 3. +1
    t.branch(RED, "3red", "Jinan#1", managers=1)  # 3. +2 (no teller: no skill); 5. 3 tellers on branches -> 1
    t.teller(RED, "1green:wait")  # does not count
    assert breakdown(t.state.pl[RED]) == {
        "copper": 4,
        "silver": 7,
        "branches": 3,
        "reputation_track": 0,
        "exchange_track": 0,
        "branch_tellers": 1,
        "branch_skills": 0,
        "yamen": 0,
    }
    assert t.state.pl[RED].deposit_area == 2  # not scored


@pytest.mark.parametrize("rep,points", [(11, 0), (12, 1), (13, 1), (14, 3), (15, 6)])
def test_reputation_track_bonuses_stack(rep, points):
    assert breakdown(Table().reputation(RED, rep).state.pl[RED])["reputation_track"] == points


@pytest.mark.parametrize("pos,points", [(8, 0), (9, 1), (10, 2), (11, 4), (12, 6)])
def test_exchange_track_bonuses_stack(pos, points):
    assert breakdown(Table().exchanges(RED, pos).state.pl[RED])["exchange_track"] == points


def _ended(copper, rep):
    t = Table()
    for seat in (RED, BLUE, GREEN, YELLOW):
        region = next(r for r, reg in t.state.pl[seat].regions.items() if reg.tile)
        t.silver(seat, region, 0).head_office(seat, 0).copper(seat, copper[seat]).reputation(seat, rep[seat])
    return GAME.outcome(t.end().state)


def test_highest_score_wins():
    out = _ended([30, 20, 10, 0], [0, 0, 0, 0])
    assert out.winners == [RED] and [sc.rank for sc in out.scores] == [1, 2, 3, 4]
    assert out.summary == "seat 0 wins with 3 points, 1 ahead"


def test_tie_break_unconverted_copper_then_reputation_then_shared():
    out = _ended([39, 30, 5, 5], [0, 0, 0, 0])  # 3 points each for red and blue; red keeps 9 copper
    assert (
        out.winners == [RED]
        and out.scores[BLUE].rank == 2
        and out.summary == "seat 0 wins with 3 points, 0 ahead"
    )
    out = _ended([35, 35, 0, 0], [3, 5, 0, 0])
    assert out.winners == [BLUE]
    out = _ended([35, 35, 0, 0], [5, 5, 0, 0])
    assert out.winners == [RED, BLUE] and out.scores[GREEN].rank == 3
    assert out.summary == "seats 0, 1 share the victory with 3 points"


def test_no_outcome_before_the_end():
    assert GAME.outcome(Table().state) is None

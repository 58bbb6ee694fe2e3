"""Game End scoring steps 1-6 and the tie-breaks."""

import pytest

from domain.pingyao import GAME
from domain.pingyao.scoring import breakdown

from .helpers import BLUE, GREEN, RED, YELLOW, table


def test_scoring_steps():
    s = table()
    p = s.pl[RED]
    p.copper = 47  # 1. 4 points
    p.head_office = 3  # 2. 3 + 2 (Taiyuan) + 2 (Tier 2) = 7
    p.regions["2red"].tile, p.regions["2red"].silver = "Guilin#1", 2  # 3. +1
    p.regions["3red"].tile = "Jinan#1"  # 3. +2 (no teller: no skill)
    p.regions["2red"].tellers, p.regions["2red"].managers = 1, 1
    p.regions["3red"].managers = 1  # 5. 3 tellers on branches -> 1
    p.regions["1green"].waiting = 1  # does not count
    p.lending = [0, 0, 0]
    p.deposit_area = 2  # not scored
    assert breakdown(p) == {"copper": 4, "silver": 7, "branches": 3, "reputation_track": 0, "exchange_track": 0,
                            "branch_tellers": 1, "branch_skills": 0, "yamen": 0}


@pytest.mark.parametrize("rep,points", [(11, 0), (12, 1), (13, 1), (14, 3), (15, 6)])
def test_reputation_track_bonuses_stack(rep, points):
    s = table()
    s.pl[RED].reputation = rep
    assert breakdown(s.pl[RED])["reputation_track"] == points


@pytest.mark.parametrize("pos,points", [(8, 0), (9, 1), (10, 2), (11, 4), (12, 6)])
def test_exchange_track_bonuses_stack(pos, points):
    s = table()
    s.pl[RED].exchange = pos
    assert breakdown(s.pl[RED])["exchange_track"] == points


def _ended(copper, rep):
    s = table()
    s.phase = "end"
    for seat in (RED, BLUE, GREEN, YELLOW):
        p = s.pl[seat]
        p.head_office, p.copper, p.reputation = 0, copper[seat], rep[seat]
        for r in p.regions.values():
            r.silver = 0
    return GAME.outcome(s)


def test_highest_score_wins():
    out = _ended([30, 20, 10, 0], [0, 0, 0, 0])
    assert out.winners == [RED] and [sc.rank for sc in out.scores] == [1, 2, 3, 4]


def test_tie_break_unconverted_copper_then_reputation_then_shared():
    out = _ended([39, 30, 5, 5], [0, 0, 0, 0])  # 3 points each for red and blue; red keeps 9 copper
    assert out.winners == [RED] and out.scores[BLUE].rank == 2
    out = _ended([35, 35, 0, 0], [3, 5, 0, 0])
    assert out.winners == [BLUE]
    out = _ended([35, 35, 0, 0], [5, 5, 0, 0])
    assert out.winners == [RED, BLUE] and out.scores[GREEN].rank == 3
    assert "share" in out.summary


def test_no_outcome_before_the_end():
    assert GAME.outcome(table()) is None

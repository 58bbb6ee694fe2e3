"""Income phase, Resolution phase, emergency fund transfer, round 8."""

from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.rules import income_parts
from domain.pingyao.state import Card
from tests.support import given_state

from .helpers import BLUE, RED, die, finish_round, put, step, table


def last_die(s, seat=RED):
    put(s, die(seat, 1), 3)


def test_income_effective_silver_by_tier_and_cap():
    s = table()
    p = s.pl[RED]
    p.regions["1red"].silver = 5  # starting branch: effective 2 -> 2 x 2
    p.regions["2red"].tile, p.regions["2red"].silver = "Lanzhou#1", 4  # effective 3 -> 3 x 3
    p.regions["3red"].tile, p.regions["3red"].silver, p.regions["3red"].managers = "Jinan#1", 6, 2  # 4+2 -> 6 x 4
    assert income_parts(p)["branches"] == 4 + 9 + 24
    p.regions["3red"].managers = 1
    assert income_parts(p)["branches"] == 4 + 9 + 20


def test_lending_interest_by_reputation():
    s = table()
    p = s.pl[RED]
    p.lending = [2, 1, 0]
    for rep, rate in ((0, 2), (3, 2), (4, 3), (9, 3), (10, 5), (15, 5)):
        p.reputation = rep
        assert income_parts(p)["lending"] == 3 * rate


def test_tier2_income_skills_need_a_teller():
    s = table()
    p = s.pl[RED]
    p.regions["2green"].tile = "Lu'an#1"  # green income: Lu'an itself + Kaifeng (all colours)
    p.regions["2yellow"].tile = "Kaifeng#1"
    assert income_parts(p)["branch_skills"] == 0
    p.regions["2green"].tellers = 1
    assert income_parts(p)["branch_skills"] == 2
    p.regions["2red"].tile, p.regions["2red"].tellers = "Guilin#1", 1
    p.reputation = 9
    assert income_parts(p)["branch_skills"] == 2 + 2
    p.regions["2red"].tile = "Liuzhou#1"
    p.exchange = 7
    assert income_parts(p)["branch_skills"] == 2 + 2


def test_income_collected_in_the_income_phase():
    s = table()
    last_die(s)
    s.pl[RED].lending = [0, 2, 0]
    _, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    inc = next(e for e in ev if isinstance(e, E.IncomeCollected) and e.seat == RED)
    assert inc.copper == 4 + 4 and inc.parts["lending"] == 4


def test_resolution_order_lending_deposit_exchange_and_lending_shift():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.lending = [2, 1, 1]
    p.head_office = 0
    p.deposit_marker, p.deposit_area = 1, 0
    p.cards = [Card(card="X09", months=1, deposit="HO", withdraw="1red"), Card(card="X01", months=3, deposit="HO", withdraw="1red")]
    s2, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    mine = [type(e).__name__ for e in ev if getattr(e, "seat", None) == RED and not isinstance(e, E.IncomeCollected)]
    assert mine[:6] == ["DieDeclined", "LoansReturned", "DepositInterestPaid", "DepositSilverReturned",
                        "ExchangesAdvanced", "ExchangeMatured"]
    q = s2.pl[RED]
    assert q.lending == [1, 1, 0] and q.deposit_area == 2 and q.head_office == 0 and q.regions["1red"].silver == 1
    assert [(c.card, c.months) for c in q.cards] == [("X01", 2)]
    assert "X09" in s2.discards


def test_player_chooses_order_of_cards_maturing_together():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.regions["2red"].tile = "Lanzhou#1"
    p.cards = [Card(card="X09", months=1, deposit="HO", withdraw="1red"), Card(card="X11", months=1, deposit="HO", withdraw="2red")]
    s2, _ = step(s, RED, K.Decline(die=die(RED, 1)))
    assert s2.frames[0].kind == "resolve_order"
    assert set(GAME.legal_moves(s2, RED)) == {K.ResolveExchange(card="X09"), K.ResolveExchange(card="X11")}
    s3, ev = step(s2, RED, K.ResolveExchange(card="X11"))
    assert ev[0] == E.ExchangeOrderChosen(seat=RED, card="X11", frame=True)
    # 2red holds no silver: an emergency fund transfer is needed first
    assert s3.frames[0].kind == "transfer" and s3.frames[0].dest == "2red"


def test_emergency_transfer_pays_five_copper_per_silver():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.regions["2red"].tile = "Lanzhou#1"
    p.cards = [Card(card="X11", months=1, deposit="HO", withdraw="2red")]
    p.copper = 7
    s2, _ = step(s, RED, K.Decline(die=die(RED, 1)))
    income = s2.pl[RED].copper
    moves = GAME.legal_moves(s2, RED)
    assert set(moves) == {K.TransferFunds(source="HO"), K.TransferFunds(source="1red")}
    s3, ev = step(s2, RED, K.TransferFunds(source="HO"))
    assert ev[0] == E.EmergencyTransfer(seat=RED, source="HO", dest="2red", copper=5, frame=True)
    assert E.ExchangeMatured(seat=RED, card="X11", withdraw="2red") in ev
    assert s3.pl[RED].copper >= 0 and s3.pl[RED].head_office == 1 and income - 5 >= 0


def test_emergency_transfer_short_of_copper_loses_a_silver():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.regions["1red"].silver = 0  # no income this round
    p.regions["2red"].tile = "Lanzhou#1"
    p.cards = [Card(card="X11", months=1, deposit="HO", withdraw="2red")]
    p.copper = 0
    s2, _ = step(s, RED, K.Decline(die=die(RED, 1)))
    assert s2.pl[RED].copper < 5
    assert set(GAME.legal_moves(s2, RED)) == {K.TransferFunds(source="HO", fee_source="HO")}
    s3, ev = step(s2, RED, K.TransferFunds(source="HO", fee_source="HO"))
    assert ev[0] == E.EmergencyTransfer(seat=RED, source="HO", dest="2red", copper=0, fee_source="HO", frame=True)
    assert s3.pl[RED].head_office == 0 and s3.pl[RED].regions["2red"].silver == 0


def test_unpaid_when_no_silver_anywhere():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.head_office = 0
    p.regions["1red"].silver = 0
    p.cards = [Card(card="X09", months=1, deposit="HO", withdraw="1red")]
    _, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    assert E.ExchangeMatured(seat=RED, card="X09", withdraw="1red", paid=False) in ev


def test_deposit_return_short_uses_emergency_transfer():
    s = table()
    last_die(s)
    p = s.pl[RED]
    p.head_office = 1
    p.deposit_marker, p.deposit_area = 1, 0
    s2, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    assert E.DepositSilverReturned(seat=RED, silver=1) in ev
    assert s2.frames[0].kind == "transfer" and s2.frames[0].dest == "HO"
    s3, ev = step(s2, RED, K.TransferFunds(source="1red"))
    assert E.DepositSilverReturned(seat=RED, silver=1) in ev and s3.pl[RED].deposit_area == 2


def test_round_8_everything_resolves_at_once_then_the_game_ends():
    s = table(round=8)
    last_die(s)
    p = s.pl[RED]
    p.head_office = 0
    p.lending = [0, 1, 2]
    p.deposit_marker, p.deposit_area = 3, 0
    p.cards = [Card(card="X09", months=3, deposit="HO", withdraw="1red")]
    s2, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    assert E.LoansReturned(seat=RED, silver=3, final=True) in ev
    assert E.DepositInterestPaid(seat=RED, interest=2, months_left=0) in ev
    assert E.ExchangesAdvanced(seat=RED, due=["X09"]) in ev
    assert isinstance(ev[-1], E.GameEnded) and s2.phase == "end" and GAME.to_act(s2) == []
    q = s2.pl[RED]
    assert q.lending == [0, 0, 0] and q.deposit_area == 2 and q.cards == []
    assert GAME.outcome(s2) is not None
    given_state(GAME, s2).when(RED, K.Decline(die=die(RED, 1))).raises("game_over")


def test_next_round_has_no_leftover_dice():
    s = table(round=3)
    last_die(s, BLUE)
    s2, _ = finish_round(s)
    assert s2.round == 4 and all(d.where == "number" for d in s2.dice)

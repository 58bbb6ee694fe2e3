"""Income phase, Resolution phase, emergency fund transfer, round 8."""

from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.income import income_parts
from tests.support import given_state

from .helpers import BLUE, RED, Table, die, finish_round, step


def last_die(seat=RED, round=3) -> Table:
    """The last die of the round still to act."""
    return Table(round=round, dice={die(seat, 1): 3})


def test_income_effective_silver_by_tier_and_cap():
    t = Table().silver(RED, "1red", 5)  # starting branch: effective 2 -> 2 x 2
    t.branch(RED, "2red", "Lanzhou#1", silver=4)  # effective 3 -> 3 x 3
    t.branch(RED, "3red", "Jinan#1", silver=6, managers=1)  # 4+1 -> 5 x 4
    assert income_parts(t.state.pl[RED])["branches"] == 4 + 9 + 20
    t.teller(RED, "3red:manager")  # 4+2 -> 6 x 4
    assert income_parts(t.state.pl[RED])["branches"] == 4 + 9 + 24


def test_lending_interest_by_reputation():
    t = Table().lend(RED, 1, 2).lend(RED, 2, 1)
    for rep, rate in ((0, 2), (3, 2), (4, 3), (9, 3), (10, 5), (15, 5)):
        assert income_parts(t.reputation(RED, rep).state.pl[RED])["lending"] == 3 * rate


def test_tier2_income_skills_need_a_teller():
    t = Table().branch(RED, "2green", "Lu'an#1").branch(RED, "2yellow", "Kaifeng#1")  # green: Lu'an + Kaifeng
    assert income_parts(t.state.pl[RED])["branch_skills"] == 0
    t.teller(RED, "2green:teller")
    assert income_parts(t.state.pl[RED])["branch_skills"] == 2
    t.branch(RED, "2red", "Guilin#1", tellers=1).reputation(RED, 9)  # 9 // 4
    assert income_parts(t.state.pl[RED])["branch_skills"] == 2 + 2
    t = Table().branch(RED, "2red", "Liuzhou#1", tellers=1).exchanges(RED, 7)  # 7 // 3
    assert income_parts(t.state.pl[RED])["branch_skills"] == 2


def test_income_collected_in_the_income_phase():
    _, ev = step(last_die().lend(RED, 2, 2).state, RED, K.Decline(die=die(RED, 1)))
    inc = next(e for e in ev if isinstance(e, E.IncomeCollected) and e.seat == RED)
    assert inc.copper == 4 + 4 and inc.parts["lending"] == 4


def test_resolution_order_lending_deposit_exchange_and_lending_shift():
    t = last_die().lend(RED, 1, 2).lend(RED, 2, 1).lend(RED, 3, 1).deposit(RED, 1)
    t.card(RED, "X09", 1, "HO", "1red").card(RED, "X01", 3, "HO", "1red").head_office(RED, 0)
    s2, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    mine = [
        type(e).__name__
        for e in ev
        if getattr(e, "seat", None) == RED and not isinstance(e, E.IncomeCollected)
    ]
    assert mine[:6] == [
        "DieDeclined",
        "LoansReturned",
        "DepositInterestPaid",
        "DepositSilverReturned",
        "ExchangesAdvanced",
        "ExchangeMatured",
    ]
    q = s2.pl[RED]
    assert (
        q.lending == [1, 1, 0]
        and q.deposit_area == 2
        and q.head_office == 0
        and q.regions["1red"].silver == 1
    )
    assert [(c.card, c.months) for c in q.cards] == [("X01", 2)]
    assert "X09" in s2.discards


def test_player_chooses_order_of_cards_maturing_together():
    t = (
        last_die()
        .branch(RED, "2red", "Lanzhou#1")
        .card(RED, "X09", 1, "HO", "1red")
        .card(RED, "X11", 1, "HO", "2red")
    )
    s2, _ = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert s2.frames[0].kind == "resolve_order"
    assert set(GAME.legal_moves(s2, RED)) == {K.ResolveExchange(card="X09"), K.ResolveExchange(card="X11")}
    given_state(GAME, s2).when(RED, K.ResolveExchange(card="X01")).raises("card_not_due")
    s3, ev = step(s2, RED, K.ResolveExchange(card="X11"))
    assert ev[0] == E.ExchangeOrderChosen(seat=RED, card="X11", frame=True)
    # 2red holds no silver: an emergency fund transfer is needed first
    assert s3.frames[0].kind == "transfer" and s3.frames[0].dest == "2red"


def test_emergency_transfer_pays_five_copper_per_silver():
    t = last_die().branch(RED, "2red", "Lanzhou#1").card(RED, "X11", 1, "1red", "2red").copper(RED, 7)
    s2, _ = step(t.state, RED, K.Decline(die=die(RED, 1)))
    income = s2.pl[RED].copper
    assert set(GAME.legal_moves(s2, RED)) == {K.TransferFunds(source="HO"), K.TransferFunds(source="1red")}
    given_state(GAME, s2).when(RED, K.TransferFunds(source="2red")).raises(
        "invalid_source"
    )  # the one in need
    given_state(GAME, s2).when(RED, K.TransferFunds(source="HO", fee_source="1red")).raises(
        "invalid_fee_source"
    )
    s3, ev = step(s2, RED, K.TransferFunds(source="HO"))
    assert ev[0] == E.EmergencyTransfer(seat=RED, source="HO", dest="2red", copper=5, frame=True)
    assert E.ExchangeMatured(seat=RED, card="X11", withdraw="2red") in ev
    assert s3.pl[RED].head_office == 1 and s3.pl[RED].copper == income - 5


def test_emergency_transfer_short_of_copper_loses_a_silver():
    t = last_die().silver(RED, "1red", 0).branch(RED, "2red", "Lanzhou#1").card(RED, "X11", 1, "HO", "2red")
    t.head_office(RED, 2).copper(RED, 0)
    s2, _ = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert s2.pl[RED].copper < 5
    assert set(GAME.legal_moves(s2, RED)) == {K.TransferFunds(source="HO", fee_source="HO")}
    given_state(GAME, s2).when(RED, K.TransferFunds(source="HO")).raises(
        "invalid_fee_source"
    )  # a silver must pay
    s3, ev = step(s2, RED, K.TransferFunds(source="HO", fee_source="HO"))
    assert ev[0] == E.EmergencyTransfer(
        seat=RED, source="HO", dest="2red", copper=0, fee_source="HO", frame=True
    )
    assert s3.pl[RED].head_office == 0 and s3.pl[RED].regions["2red"].silver == 0


def test_unpaid_when_no_silver_anywhere():
    t = last_die().card(RED, "X09", 1, "HO", "1red").head_office(RED, 0).silver(RED, "1red", 0)
    _, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert E.ExchangeMatured(seat=RED, card="X09", withdraw="1red", paid=False) in ev


def test_deposit_return_short_uses_emergency_transfer():
    t = last_die().deposit(RED, 1).head_office(RED, 1)
    s2, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert E.DepositSilverReturned(seat=RED, silver=1) in ev
    assert s2.frames[0].kind == "transfer" and s2.frames[0].dest == "HO"
    s3, ev = step(s2, RED, K.TransferFunds(source="1red"))
    assert E.DepositSilverReturned(seat=RED, silver=1) in ev and s3.pl[RED].deposit_area == 2


def test_round_8_everything_resolves_at_once_then_the_game_ends():
    t = last_die(round=8).lend(RED, 2, 1).lend(RED, 3, 2).deposit(RED, 3).card(RED, "X09", 3, "HO", "1red")
    t.head_office(RED, 0)
    s2, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert E.LoansReturned(seat=RED, silver=3, final=True) in ev
    assert E.DepositInterestPaid(seat=RED, interest=2, months_left=0) in ev
    assert E.ExchangesAdvanced(seat=RED, due=["X09"]) in ev
    assert isinstance(ev[-1], E.GameEnded) and s2.phase == "end" and GAME.to_act(s2) == []
    q = s2.pl[RED]
    assert q.lending == [0, 0, 0] and q.deposit_area == 2 and q.cards == []
    assert GAME.outcome(s2) is not None and GAME.legal_moves(s2, RED) == []
    given_state(GAME, s2).when(RED, K.Decline(die=die(RED, 1))).raises("game_over")


def test_next_round_has_no_leftover_dice():
    s2, _ = finish_round(last_die(BLUE).state)
    assert s2.round == 4 and all(d.where == "number" for d in s2.dice)

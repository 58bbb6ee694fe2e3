"""Action phase: dispatching, the five bumping examples, rerolls, discards, declines."""

from domain.kernel import Rng
from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.versions import PINGYAO_2

from .helpers import BLUE, GREEN, RED, YELLOW, Table, die, step

KEEP = {die(BLUE, 2): 1}
"""A spare die still to act, so that the action phase does not end after the command under test."""


def test_example_1_empty_space_acts_at_once():
    """Your die shows 5 at an empty Bank Escort: place it and resolve the effect for 5."""
    t = Table(dice={die(RED, 1): 5, **KEEP})
    events = t.when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="yellow")).events()
    assert events[0] == E.DieDispatched(seat=RED, die=die(RED, 1), action="bank_escort", value=5)
    assert isinstance(events[1], E.BranchTilesDrawn) and events[1].cost == 6 and events[1].count == 4
    # 5 or 6: only Tier 1
    t.when(RED, K.BankEscort(die=die(RED, 1), tier=2, color="yellow")).raises("tier_not_allowed")


def _seed_rolling(value, sides=6):
    return next(f"r{i}" for i in range(1000) if Rng(f"r{i}", 0).between(1, sides) == value)


def test_example_2_reroll_then_act_at_once_on_the_new_value():
    """Dice 4, 4 and a 6: pay 2 to reroll the 6, roll a 4, dispatch it at once."""
    t = Table(dice={die(YELLOW, 0): 4, die(YELLOW, 1): 4, die(YELLOW, 2): 6, die(RED, 1): 5})
    ev = t.when(YELLOW, K.Reroll(die=die(YELLOW, 2)), seed=_seed_rolling(4)).events()
    assert ev == [E.DieRerolled(seat=YELLOW, die=die(YELLOW, 2), cost=2, value=4)]
    t.fold(*ev)
    assert GAME.to_act(t.state) == [YELLOW]  # before red's 5: the rerolled die acts immediately
    moves = t.legal(YELLOW)
    assert {m.die for m in moves} == {die(YELLOW, 2)}
    assert K.Reroll(die=die(YELLOW, 2)) not in moves  # once per die
    t.when(YELLOW, K.Reroll(die=die(YELLOW, 2))).raises("already_rerolled")
    s3, _ = step(t.state, YELLOW, K.CityGodTemple(die=die(YELLOW, 2)))
    assert s3.dice[die(YELLOW, 2)].where == "space" and GAME.to_act(s3) == [RED]


def test_reroll_costs_one_for_1_to_4_and_needs_the_copper():
    t = Table(dice={die(RED, 1): 3, **KEEP})
    assert t.when(RED, K.Reroll(die=die(RED, 1))).events()[0].cost == 1
    t.copper(RED, 0).when(RED, K.Reroll(die=die(RED, 1))).raises("insufficient_copper")


def test_example_3_higher_large_die_gains_difference_plus_one():
    """Green's large 3 bumps yellow's 1 at Bank Escort: takes 3 copper (2 + 1)."""
    t = Table(dice={die(GREEN, 0): 3, **KEEP}, at={"bank_escort": [(die(YELLOW, 1), 1)]})
    ev = t.when(GREEN, K.BankEscort(die=die(GREEN, 0), tier=1, color="red")).events()
    assert ev[0] == E.DieDispatched(
        seat=GREEN, die=die(GREEN, 0), action="bank_escort", value=3, bumped=die(YELLOW, 1), copper=3
    )
    s2 = t.fold(*ev).state
    assert s2.dice[die(YELLOW, 1)].where == "rest" and s2.dice[die(GREEN, 0)].where == "space"


def test_example_4_equal_value_in_resting_area_blocks_even_the_large_die():
    t = Table(
        dice={die(GREEN, 0): 4, die(GREEN, 1): 4}, at={"bank_escort": [(die(YELLOW, 1), 4), (die(RED, 1), 2)]}
    )
    for d in (die(GREEN, 0), die(GREEN, 1)):
        t.when(GREEN, K.BankEscort(die=d, tier=1, color="red")).raises("same_value_blocked")
        assert not any(isinstance(m, K.BankEscort) and m.die == d for m in t.legal(GREEN))


def test_equal_value_on_the_space_blocks():
    t = Table(dice={die(GREEN, 1): 4}, at={"money_house": [(die(RED, 1), 4)]})
    t.when(GREEN, K.MoneyHouseLend(die=die(GREEN, 1), months=1, amount=2)).raises("same_value_blocked")


def test_example_5_lower_large_die_pays_one_less():
    """Green's large 4 bumps red's 5: the difference 1, minus 1 for the large die = 0."""
    t = Table(dice={die(GREEN, 0): 4, **KEEP}, at={"bank_escort": [(die(RED, 1), 5)]})
    ev = t.when(GREEN, K.BankEscort(die=die(GREEN, 0), tier=1, color="red")).events()
    assert ev[0] == E.DieDispatched(
        seat=GREEN, die=die(GREEN, 0), action="bank_escort", value=4, bumped=die(RED, 1), copper=0
    )


def test_lower_ordinary_die_pays_the_difference_higher_gains_it():
    t = Table(dice={die(GREEN, 1): 3, **KEEP}, at={"city_god_temple": [(die(RED, 1), 6)]})
    assert t.when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).events()[0].copper == -3
    t = Table(dice={die(GREEN, 1): 5, **KEEP}, at={"city_god_temple": [(die(RED, 1), 2)]})
    assert t.when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).events()[0].copper == 3


def test_cannot_pay_the_difference():
    t = Table(dice={die(GREEN, 1): 1}, at={"city_god_temple": [(die(RED, 1), 6)]}).copper(GREEN, 4)
    t.when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).raises("insufficient_copper")


def test_difference_collected_first_pays_for_the_action():
    """2 copper, a 6 bumping a 2 at Bank Escort: +4 makes the 6 copper for a Tier-1 branch."""
    move = K.BankEscort(die=die(GREEN, 1), tier=1, color="red")
    t = Table(dice={die(GREEN, 1): 6, **KEEP}, at={"bank_escort": [(die(RED, 1), 2)]}).copper(GREEN, 2)
    assert move in t.legal(GREEN)
    s2, _ = step(t.state, GREEN, move)
    assert s2.pl[GREEN].copper == 0
    t.copper(GREEN, 1).when(GREEN, move).raises("insufficient_copper")


def test_pingyao_2_resting_area_capacity_by_player_count():
    """Rules pingyao-2 (games set up under it still play so): the effect area's "at most 3 / at
    most 2 / at most 1" read by player count - 4 players 3 dice in a resting area, 3 players 2.
    (pingyao-3: by action, test_rules_audit_3.py.)"""
    t = Table(
        rules=PINGYAO_2,
        dice={die(GREEN, 1): 6},
        at={"west_street": [(die(BLUE, 0), 2), (die(BLUE, 1), 3), (die(BLUE, 2), 4), (die(RED, 1), 1)]},
    )
    t.when(GREEN, K.WestStreet(die=die(GREEN, 1))).raises("resting_area_full")
    t = Table(
        players=3,
        rules=PINGYAO_2,
        dice={die(GREEN, 1): 6},
        at={"west_street": [(die(BLUE, 0), 2), (die(BLUE, 1), 3), (die(RED, 1), 1)]},
    )
    t.when(GREEN, K.WestStreet(die=die(GREEN, 1))).raises("resting_area_full")


def test_discard_for_three_copper_only_with_fewer_than_five():
    t = Table(dice={die(RED, 1): 3, **KEEP}).copper(RED, 4)
    assert K.DiscardDie(die=die(RED, 1)) in t.legal(RED)
    assert t.when(RED, K.DiscardDie(die=die(RED, 1))).events()[0] == E.DieDiscarded(
        seat=RED, die=die(RED, 1), copper=3
    )
    t.copper(RED, 5).when(RED, K.DiscardDie(die=die(RED, 1))).raises("too_much_copper")


def test_decline_returns_the_die_without_compensation():
    t = Table(dice={die(RED, 1): 3, **KEEP})
    s2, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert ev[0] == E.DieDeclined(seat=RED, die=die(RED, 1))
    assert s2.pl[RED].copper == t.state.pl[RED].copper and s2.dice[die(RED, 1)].where == "done"


def test_wrong_seat_not_your_turn_and_wrong_die_not_this_die():
    t = Table(dice={die(RED, 0): 4, die(RED, 1): 2})
    t.when(BLUE, K.Decline(die=die(RED, 0))).raises("not_your_turn")
    t.when(RED, K.Decline(die=die(RED, 1))).raises("not_this_die")  # the 4 acts before the 2
    t.when(RED, K.Reroll(die=99)).raises("not_this_die")
    t.when(RED, K.ConvertCopper(silver=1)).raises("wrong_decision")  # copper -> silver only in Preparation

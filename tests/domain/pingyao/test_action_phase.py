"""Action phase: dispatching, the five bumping examples, rerolls, discards, declines."""

from domain.kernel import Rng
from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from tests.support import given_state

from .helpers import BLUE, GREEN, RED, YELLOW, die, keep_going, put, step, table


def test_example_1_empty_space_acts_at_once():
    """Your die shows 5 at an empty Bank Escort: place it and resolve the effect for 5."""
    s = table()
    put(s, die(RED, 1), 5)
    keep_going(s)
    events = given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="yellow")).events()
    assert events[0] == E.DieDispatched(seat=RED, die=die(RED, 1), action="bank_escort", value=5)
    assert isinstance(events[1], E.BranchTilesDrawn) and events[1].cost == 6 and events[1].count == 4
    # 5 or 6: only Tier 1
    given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=2, color="yellow")).raises("tier_not_allowed")


def _seed_rolling(value, sides=6):
    return next(f"r{i}" for i in range(1000) if Rng(f"r{i}", 0).between(1, sides) == value)


def test_example_2_reroll_then_act_at_once_on_the_new_value():
    """Dice 4, 4 and a 6: pay 2 to reroll the 6, roll a 4, dispatch it at once."""
    s = table()
    put(s, die(YELLOW, 0), 4)
    put(s, die(YELLOW, 1), 4)
    put(s, die(YELLOW, 2), 6)
    put(s, die(RED, 1), 5)
    seed = _seed_rolling(4)
    ev = given_state(GAME, s).when(YELLOW, K.Reroll(die=die(YELLOW, 2)), seed=seed).events()
    assert ev == [E.DieRerolled(seat=YELLOW, die=die(YELLOW, 2), cost=2, value=4)]
    s2 = GAME.fold(s, ev)
    assert GAME.to_act(s2) == [YELLOW]  # before red's 5: the rerolled die acts immediately
    moves = GAME.legal_moves(s2, YELLOW)
    assert {m.die for m in moves} == {die(YELLOW, 2)}
    assert K.Reroll(die=die(YELLOW, 2)) not in moves  # once per die
    given_state(GAME, s2).when(YELLOW, K.Reroll(die=die(YELLOW, 2))).raises("already_rerolled")
    s3, _ = step(s2, YELLOW, K.CityGodTemple(die=die(YELLOW, 2)))
    assert s3.dice[die(YELLOW, 2)].where == "space" and GAME.to_act(s3) == [RED]


def test_reroll_costs_one_for_1_to_4_and_needs_the_copper():
    s = table()
    put(s, die(RED, 1), 3)
    keep_going(s)
    ev = given_state(GAME, s).when(RED, K.Reroll(die=die(RED, 1))).events()
    assert ev[0].cost == 1
    s.pl[RED].copper = 0
    given_state(GAME, s).when(RED, K.Reroll(die=die(RED, 1))).raises("insufficient_copper")


def test_example_3_higher_large_die_gains_difference_plus_one():
    """Green's large 3 bumps yellow's 1 at Bank Escort: takes 3 copper (2 + 1)."""
    s = table()
    put(s, die(YELLOW, 1), 1, "space", "bank_escort")
    put(s, die(GREEN, 0), 3)
    keep_going(s)
    ev = given_state(GAME, s).when(GREEN, K.BankEscort(die=die(GREEN, 0), tier=1, color="red")).events()
    assert ev[0] == E.DieDispatched(seat=GREEN, die=die(GREEN, 0), action="bank_escort", value=3,
                                    bumped=die(YELLOW, 1), copper=3)
    s2 = GAME.fold(s, ev)
    assert s2.dice[die(YELLOW, 1)].where == "rest" and s2.dice[die(GREEN, 0)].where == "space"


def test_example_4_equal_value_in_resting_area_blocks_even_the_large_die():
    s = table()
    put(s, die(YELLOW, 1), 4, "rest", "bank_escort")
    put(s, die(RED, 1), 2, "space", "bank_escort")
    put(s, die(GREEN, 0), 4)
    put(s, die(GREEN, 1), 4)
    for d in (die(GREEN, 0), die(GREEN, 1)):
        given_state(GAME, s).when(GREEN, K.BankEscort(die=d, tier=1, color="red")).raises("same_value_blocked")
        assert not any(isinstance(m, K.BankEscort) for m in GAME.legal_moves(s, GREEN) if m.die == d)


def test_equal_value_on_the_space_blocks():
    s = table()
    put(s, die(RED, 1), 4, "space", "money_house")
    put(s, die(GREEN, 1), 4)
    given_state(GAME, s).when(GREEN, K.MoneyHouseLend(die=die(GREEN, 1), months=1, amount=2)).raises("same_value_blocked")


def test_example_5_lower_large_die_pays_one_less():
    """Green's large 4 bumps red's 5: the difference 1, minus 1 for the large die = 0."""
    s = table()
    put(s, die(RED, 1), 5, "space", "bank_escort")
    put(s, die(GREEN, 0), 4)
    keep_going(s)
    ev = given_state(GAME, s).when(GREEN, K.BankEscort(die=die(GREEN, 0), tier=1, color="red")).events()
    assert ev[0] == E.DieDispatched(seat=GREEN, die=die(GREEN, 0), action="bank_escort", value=4,
                                    bumped=die(RED, 1), copper=0)


def test_lower_ordinary_die_pays_the_difference_higher_gains_it():
    s = table()
    put(s, die(RED, 1), 6, "space", "city_god_temple")
    put(s, die(GREEN, 1), 3)
    keep_going(s)
    ev = given_state(GAME, s).when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).events()
    assert ev[0].copper == -3
    s = table()
    put(s, die(RED, 1), 2, "space", "city_god_temple")
    put(s, die(GREEN, 1), 5)
    keep_going(s)
    ev = given_state(GAME, s).when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).events()
    assert ev[0].copper == 3


def test_cannot_pay_the_difference():
    s = table()
    put(s, die(RED, 1), 6, "space", "city_god_temple")
    put(s, die(GREEN, 1), 1)
    s.pl[GREEN].copper = 4
    given_state(GAME, s).when(GREEN, K.CityGodTemple(die=die(GREEN, 1))).raises("insufficient_copper")


def test_difference_collected_first_pays_for_the_action():
    """4 copper, a 6 bumping a 2 at Bank Escort: +4 makes the 6 copper for a Tier-1 branch."""
    s = table()
    put(s, die(RED, 1), 2, "space", "bank_escort")
    put(s, die(GREEN, 1), 6)
    s.pl[GREEN].copper = 2
    keep_going(s)
    move = K.BankEscort(die=die(GREEN, 1), tier=1, color="red")
    assert move in GAME.legal_moves(s, GREEN)
    s2, ev = step(s, GREEN, move)
    assert s2.pl[GREEN].copper == 0
    s.pl[GREEN].copper = 1
    given_state(GAME, s).when(GREEN, move).raises("insufficient_copper")


def test_resting_area_capacity_blocks_bumping():
    """4 players: at most 3 dice in a resting area."""
    s = table()
    put(s, die(RED, 1), 1, "space", "west_street")
    for k, v in enumerate((2, 3, 4)):
        put(s, die(BLUE, k), v, "rest", "west_street")
    put(s, die(GREEN, 1), 6)
    given_state(GAME, s).when(GREEN, K.WestStreet(die=die(GREEN, 1))).raises("resting_area_full")
    s3 = table(players=3)
    put(s3, die(RED, 1), 1, "space", "west_street")
    put(s3, die(BLUE, 0), 2, "rest", "west_street")
    put(s3, die(BLUE, 1), 3, "rest", "west_street")
    put(s3, die(GREEN, 1), 6)
    given_state(GAME, s3).when(GREEN, K.WestStreet(die=die(GREEN, 1))).raises("resting_area_full")


def test_discard_for_three_copper_only_with_fewer_than_five():
    s = table()
    put(s, die(RED, 1), 3)
    keep_going(s)
    s.pl[RED].copper = 4
    assert K.DiscardDie(die=die(RED, 1)) in GAME.legal_moves(s, RED)
    ev = given_state(GAME, s).when(RED, K.DiscardDie(die=die(RED, 1))).events()
    assert ev[0] == E.DieDiscarded(seat=RED, die=die(RED, 1), copper=3)
    s.pl[RED].copper = 5
    given_state(GAME, s).when(RED, K.DiscardDie(die=die(RED, 1))).raises("too_much_copper")


def test_decline_returns_the_die_without_compensation():
    s = table()
    put(s, die(RED, 1), 3)
    keep_going(s)
    s2, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    assert ev[0] == E.DieDeclined(seat=RED, die=die(RED, 1))
    assert s2.pl[RED].copper == s.pl[RED].copper and s2.dice[die(RED, 1)].where == "done"


def test_wrong_seat_not_your_turn():
    s = table()
    put(s, die(RED, 1), 3)
    given_state(GAME, s).when(BLUE, K.Decline(die=die(RED, 1))).raises("not_your_turn")

"""The third rules audit (``pingyao-4``): each finding, given / when / then, quoting the rulebook;
and each changed rule as it still stands for games set up under ``pingyao-3``."""

import pytest

from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from domain.pingyao.versions import PINGYAO_3, PINGYAO_4

from .helpers import RED, Table, die, revealed, step

ME = 0


# --- 1. Solo event cards E02 and E09 no longer close the Yamen for the round -----------------------
def _yamen_round(card: str, rules: str) -> tuple[Table, int, int]:
    """A solo round with `card` flipped under `rules`: the set-up die on the Yamen, and a teller die
    of another value still to act (plus a spare die, so the round goes on)."""
    flipped = revealed(card, rules)
    on_yamen = next(d for d in flipped.dice if d.action == "yamen" and d.space)
    taken = {d.value for d in flipped.dice if d.action == "yamen"}
    value = max(v for v in range(1, 7) if v not in taken)
    t = Table(players=1, card=flipped, dice={die(ME, 1): value, die(ME, 2): 1}, rules=rules)
    return t.copper(ME, 50).head_office(ME, 10), on_yamen.die, value - on_yamen.value


@pytest.mark.parametrize("card", ["E02", "E09"])
def test_the_yamen_set_up_die_can_be_bumped(card):
    """Solo Rules, Event Cards: "Dice from the initial setup are treated as though 'someone else
    already used this die to perform an action here' - when the player places a die to perform an
    action, they follow the normal rules: the value cannot equal a die already in that action's
    resting area or action space; a higher value than the action-space die earns the value-difference
    payment; a lower value requires paying the value-difference fee."  The Yamen's resting area holds
    1 die (assumed), so a card that puts a die there leaves the die on the space unbumpable all
    round.  Given a solo round under E02 (or E09), whose set-up now puts only a six-sided die on the
    Yamen, when a die of another value is sent to the Yamen, then it bumps the set-up die and is paid
    the difference."""
    assert C.EVENT_CARDS[card].setup["yamen"] == "6"
    t, on_yamen, difference = _yamen_round(card, PINGYAO_4)
    yamen = K.Yamen(die=die(ME, 1), tile="exchange_fee")
    assert yamen in t.legal(ME)
    first = t.when(ME, yamen).events()[0]
    assert first.bumped == on_yamen and first.copper == difference


@pytest.mark.parametrize("card", ["E02", "E09"])
def test_pingyao_3_the_yamen_stays_closed_under_e02_and_e09(card):
    """A game set up under pingyao-3 keeps its cards: E02 and E09 put a four-sided die in the Yamen's
    resting area, which is then full, so no die can be sent to the Yamen that round."""
    t, _, _ = _yamen_round(card, PINGYAO_3)
    assert not any(isinstance(m, K.Yamen) for m in t.legal(ME))
    t.when(ME, K.Yamen(die=die(ME, 1), tile="exchange_fee")).raises("resting_area_full")


def test_no_event_card_fills_a_resting_area():
    """Every card's set-up leaves room to bump each die it puts on an action space, so every action
    stays open to the player in every round (one more die than the card put there can rest)."""
    for card, ev in C.EVENT_CARDS.items():
        for action, dice in ev.setup.items():
            assert len(dice) - 1 < C.resting_capacity(action), (card, action)


# --- 2. An emergency transfer that no silver can pay for takes the copper the player has --------------
def _short(rules: str, copper: int) -> Table:
    """Red's last die of round 3; an exchange card withdrawing at 2red matures this Resolution phase;
    2red and the starting branch hold no silver, the head office 1, and Red has `copper`."""
    t = Table(round=3, dice={die(RED, 1): 3}, rules=rules).silver(RED, "1red", 0)
    t.branch(RED, "2red", "Lanzhou#1").card(RED, "X11", 1, "HO", "2red")
    return t.head_office(RED, 1).copper(RED, copper)


def test_a_transfer_of_the_only_silver_takes_the_copper_left():
    """Emergency Fund Transfer: "they must pay a shipping fee of 5 copper coins per silver ingot to
    move a silver ingot from one of their piaohao that has silver to the piaohao that needs it. If a
    player does not have enough copper coins to pay the shipping fee, they instead return a silver
    ingot from any one of their piaohao to the supply, in place of paying the fee."  The rulebook
    does not say what a player pays who has fewer than 5 copper and no silver but the one shipped.
    Given 3 copper and the head office's silver the only one left, when the maturing exchange calls
    for a transfer from the head office, then the silver is shipped and paid out and the fee takes
    the 3 copper (pingyao-3: nothing)."""
    s, _ = step(_short(PINGYAO_4, 3).state, RED, K.Decline(die=die(RED, 1)))
    assert s.frames[0].kind == "transfer" and s.frames[0].dest == "2red" and s.pl[RED].copper == 3
    assert GAME.legal_moves(s, RED) == [K.TransferFunds(source="HO")]
    after, events = step(s, RED, K.TransferFunds(source="HO"))
    assert events[0] == E.EmergencyTransfer(seat=RED, source="HO", dest="2red", copper=3, frame=True)
    assert E.ExchangeMatured(seat=RED, card="X11", withdraw="2red") in events
    assert after.pl[RED].copper == 0 and after.pl[RED].head_office == 0


def test_pingyao_3_a_transfer_of_the_only_silver_is_free():
    s, _ = step(_short(PINGYAO_3, 3).state, RED, K.Decline(die=die(RED, 1)))
    after, events = step(s, RED, K.TransferFunds(source="HO"))
    assert events[0] == E.EmergencyTransfer(seat=RED, source="HO", dest="2red", copper=0, frame=True)
    assert after.pl[RED].copper == 3


def test_a_silver_left_elsewhere_still_pays_in_place_of_the_copper():
    """The rulebook's own case is unchanged: with fewer than 5 copper and another silver, that
    silver goes to the supply in place of the fee and the copper is kept."""
    t = _short(PINGYAO_4, 0).silver(RED, "1red", 1)  # its income: 2 copper
    s, _ = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert s.pl[RED].copper == 2
    assert K.TransferFunds(source="HO") not in GAME.legal_moves(s, RED)
    after, events = step(s, RED, K.TransferFunds(source="HO", fee_source="1red"))
    assert events[0] == E.EmergencyTransfer(
        seat=RED, source="HO", dest="2red", copper=0, fee_source="1red", frame=True
    )
    assert after.pl[RED].copper == 2 and after.pl[RED].regions["1red"].silver == 0

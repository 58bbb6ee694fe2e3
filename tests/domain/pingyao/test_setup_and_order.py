"""Game Setup, rounds, preparation and the action-phase order."""

from collections import Counter

import pytest

from domain.kernel import InvalidOptions, Rng
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import events as E
from tests.support import given

from .helpers import BLUE, GREEN, RED, YELLOW, Table, die, finish_round


def test_setup_four_players():
    state, events = GAME.start(PingyaoOptions(players=4), "seed")
    setup = events[0]
    assert sorted(setup.starting) == ["Datong", "Taiyuan", "Xinzhou", "Yuncheng"]
    assert setup.start_player == setup.starting.index("Taiyuan")
    for p in state.pl:
        assert p.copper >= 10 - 0 and p.head_office >= 2
    base = (
        "tier1_income",
        "tier2_staffed",
        "any_value",
        "exchange_fee",
        "reputation_extra",
        "lending_income",
    )
    assert state.yamen_supply == dict.fromkeys(base, 2)
    assert state.round == 1


def test_setup_three_players_one_copy_and_crowdfunding_eight_tiles():
    state, events = GAME.start(PingyaoOptions(players=3, crowdfunding=True), "seed")
    assert sorted(events[0].starting) == ["Taigu", "Taiyuan", "Xinzhou"]
    assert len(state.yamen_supply) == 8 and set(state.yamen_supply.values()) == {1}
    assert any(t.startswith("Moscow") for t in state.stacks["3"])


def test_starting_resources():
    s = GAME.fold(
        GAME.initial(PingyaoOptions()),
        [
            E.GameSetUp(
                players=4,
                crowdfunding=False,
                starting=["Taiyuan", "Datong", "Xinzhou", "Yuncheng"],
                start_player=0,
            )
        ],
    )
    p = s.pl[0]
    assert (p.copper, p.head_office, p.regions["1red"].tile, p.regions["1red"].silver) == (
        10,
        2,
        "Taiyuan",
        2,
    )
    assert s.pl[2].regions["1green"].tile == "Xinzhou"


@pytest.mark.parametrize("players", [0, 5])
def test_other_player_counts_rejected(players):
    with pytest.raises(InvalidOptions):
        GAME.setup(PingyaoOptions(players=players), Rng("x"))


def test_rounds_one_and_two_use_two_dice_third_joins_in_round_three():
    state, events = GAME.start(PingyaoOptions(players=3), "dice")
    rolled = next(e for e in events if isinstance(e, E.DiceRolled)).values
    assert all(rolled[s * 3 + 2] == 0 for s in range(3))
    assert all(1 <= rolled[s * 3] <= 4 and 1 <= rolled[s * 3 + 1] <= 6 for s in range(3))
    assert state.dice[2].where == "storage" and state.dice[2].value == 3
    s, _ = finish_round(state)
    s, evs = finish_round(s)
    rolled = next(e for e in evs if isinstance(e, E.DiceRolled)).values
    assert s.round == 3 and all(v > 0 for v in rolled)


def test_yamen_and_confucius_closed_until_round_three():
    t = Table(round=2, dice={die(RED, 1): 3})
    t.when(RED, K.ConfuciusTemple(die=die(RED, 1))).raises("action_closed")
    t.when(RED, K.Yamen(die=die(RED, 1), tile="any_value")).raises("action_closed")
    assert K.ConfuciusTemple(die=die(RED, 1)) in Table(round=3, dice={die(RED, 1): 3}).legal(RED)


def test_start_player_passes_clockwise():
    s2, events = finish_round(Table(round=4, start=2, dice={die(RED, 1): 3}).state)
    ended = next(e for e in events if isinstance(e, E.RoundEnded))
    assert ended.next_start == 3 and s2.start_player == 3 and s2.round == 5


def order_of(s):
    """Decline every die in turn, recording (value, seat)."""
    out = []
    while s.phase == "action":
        seat = GAME.to_act(s)[0]
        legal = GAME.legal_moves(s, seat)
        decline = next(m for m in legal if isinstance(m, K.Decline))
        out.append((s.dice[decline.die].value, seat))
        s = GAME.fold(s, GAME.decide(s, seat, decline, Rng("z")))
    return out


def test_z_order_highest_first_then_round_the_table_from_the_starting_player():
    """The "Z": red starts; yellow's 6 first, then the 5s red, blue, green, yellow, then red's
    second 5 (after everybody's first), then the 4s in seat order, green's second 4 last."""
    values = {RED: [4, 5, 5], BLUE: [4, 5, 1], GREEN: [4, 5, 4], YELLOW: [4, 6, 5]}
    order = order_of(
        Table(
            start=RED, dice={die(seat, k): v for seat, vs in values.items() for k, v in enumerate(vs)}
        ).state
    )
    assert order == [
        (6, YELLOW),
        (5, RED),
        (5, BLUE),
        (5, GREEN),
        (5, YELLOW),
        (5, RED),
        (4, RED),
        (4, BLUE),
        (4, GREEN),
        (4, YELLOW),
        (4, GREEN),
        (1, BLUE),
    ]


# The rulebook's printed "Z" example (Action Phase), red holding the starting-player marker.
PRINTED_Z = [
    (6, YELLOW),
    (5, RED),
    (5, BLUE),
    (5, GREEN),
    (4, YELLOW),
    (4, GREEN),
    (5, YELLOW),
    (5, RED),
    (4, GREEN),
    (4, BLUE),
    (4, YELLOW),
    (4, RED),
]


def test_printed_z_example_cannot_be_reproduced_with_three_dice_per_colour():
    """Action Phase, the "Z" example: the printed sequence names yellow four times and blue twice,
    but every die acts once per round and each colour has 3 dice - so no reading of any layout
    (e.g. the number areas drawn as two rows read as a Z) gives it.  With the printed values and
    one yellow 4 given to blue, the rule text's order is highest first, then round the table."""
    assert Counter(seat for _, seat in PRINTED_Z) == {YELLOW: 4, RED: 3, GREEN: 3, BLUE: 2}
    values = {RED: [4, 5, 5], BLUE: [4, 5, 4], GREEN: [4, 5, 4], YELLOW: [4, 6, 5]}
    order = order_of(
        Table(
            start=RED, dice={die(seat, k): v for seat, vs in values.items() for k, v in enumerate(vs)}
        ).state
    )
    assert Counter(seat for _, seat in order) == {RED: 3, BLUE: 3, GREEN: 3, YELLOW: 3}
    assert sorted(v for v, _ in order) == sorted(v for v, _ in PRINTED_Z) and order != PRINTED_Z
    assert order == [
        (6, YELLOW),
        (5, RED),
        (5, BLUE),
        (5, GREEN),
        (5, YELLOW),
        (5, RED),
        (4, RED),
        (4, BLUE),
        (4, GREEN),
        (4, YELLOW),
        (4, BLUE),
        (4, GREEN),
    ]


def test_same_value_order_starts_from_the_starting_player():
    t = Table(start=GREEN, dice={die(seat, 1): 5 for seat in (RED, BLUE, GREEN, YELLOW)})
    assert [seat for _, seat in order_of(t.state)] == [GREEN, YELLOW, RED, BLUE]


def test_player_with_two_equal_dice_chooses_which_acts():
    t = Table(dice={die(RED, 0): 4, die(RED, 1): 4})
    assert [m.die for m in t.legal(RED) if isinstance(m, K.Decline)] == [die(RED, 0), die(RED, 1)]
    t.when(BLUE, K.Decline(die=die(RED, 0))).raises("not_your_turn")


def test_a_die_whose_turn_it_is_not_is_rejected():
    Table(dice={die(RED, 0): 4, die(RED, 1): 2}).when(RED, K.Decline(die=die(RED, 1))).raises("not_this_die")


def test_prep_skips_players_with_nothing_to_do_and_game_events_are_described():
    state, events = GAME.start(PingyaoOptions(players=4), "describe")
    for e in events:
        assert GAME.describe(state, e)
    assert state.phase in ("prep", "action")


def test_given_fold_of_setup_events():
    g = given(
        GAME,
        [
            E.GameSetUp(
                players=3, crowdfunding=False, starting=["Taigu", "Taiyuan", "Xinzhou"], start_player=1
            )
        ],
        PingyaoOptions(players=3),
    )
    assert g.state.start_player == 1 and g.state.pl[0].regions["1yellow"].tile == "Taigu"

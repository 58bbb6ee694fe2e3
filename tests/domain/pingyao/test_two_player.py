"""Two-player game: the public dice draft before each round, blocking-only public dice."""

import pytest

from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from tests.support import given_state, random_playout

from .helpers import Table, die, finish_round, step
from .test_playouts import check

START, SECOND = 0, 1


def _start(seed="2p"):
    state, events = GAME.start(PingyaoOptions(players=2), seed)
    return state, events


def _pick_all(s, choose=lambda s, legal: legal[-1]):
    """Answer every public-die decision; return the seats in the order they chose."""
    seats = []
    while s.frames and s.frames[0].kind == "public_die":
        seat = GAME.to_act(s)[0]
        seats.append(seat)
        s, _ = step(s, seat, choose(s, GAME.legal_moves(s, seat)))
    return s, seats


def test_setup_two_players_taiyuan_and_datong_and_six_public_dice():
    s, events = _start()
    setup = events[0]
    assert isinstance(setup, E.GameSetUp) and sorted(setup.starting) == ["Datong", "Taiyuan"]
    assert s.start_player == setup.starting.index("Taiyuan")
    public = [i for i, d in enumerate(s.dice) if d.owner < 0]
    assert public == list(range(6, 12))
    assert [s.dice[i].large for i in public] == [True, False, False, True, False, False]
    assert all(v == 1 for v in s.yamen_supply.values())  # one copy of each Yamen tile
    assert C.resting_capacity_pingyao_2(2) == 1  # pingyao-2; pingyao-3: by action


def test_round_1_draft_uses_two_four_sided_and_two_six_sided_dice_before_the_teller_roll():
    s, events = _start()
    assert s.phase == "draft"
    rolled = next(e for e in events if isinstance(e, E.PublicDiceRolled)).values
    assert [i for i, v in enumerate(rolled) if v] == [6, 7, 9, 10]
    assert 1 <= rolled[6] <= 4 and 1 <= rolled[9] <= 4 and 1 <= rolled[7] <= 6
    assert s.dice[8].where == "storage" and s.dice[11].where == "storage"
    assert not any(isinstance(e, E.DiceRolled) for e in events)  # teller dice not rolled yet


def test_draft_order_rounds_1_and_2_start_second_second_start():
    s, _ = _start()
    st = s.start_player
    s, seats = _pick_all(s)
    assert seats == [st, 1 - st, 1 - st, st]
    assert s.phase in ("prep", "action")
    s, _ = finish_round(s)
    assert s.round == 2 and s.phase == "draft"
    st = s.start_player
    s, seats = _pick_all(s)
    assert seats == [st, 1 - st, 1 - st, st]


def test_draft_order_rounds_3_to_8_start_second_second_start_start_second():
    s, _ = _start()
    for _ in range(2):
        s, _ = _pick_all(s)
        s, _ = finish_round(s)
    assert s.round == 3 and s.phase == "draft"
    assert sum(1 for d in s.dice if d.where == "draft") == 6
    st = s.start_player
    s, seats = _pick_all(s)
    assert seats == [st, 1 - st, 1 - st, st, st, 1 - st]
    # the choices offered in round 3 include the Confucius Temple and Yamen resting areas


def test_each_choice_is_resting_area_or_out_and_rounds_1_2_exclude_confucius_and_yamen():
    s, _ = _start()
    seat = GAME.to_act(s)[0]
    legal = GAME.legal_moves(s, seat)
    assert {m.die for m in legal} == {6, 7, 9, 10}
    assert {m.action for m in legal} == {"bank_escort", "west_street", "money_house", "city_god_temple", ""}
    given_state(GAME, s).when(seat, K.PlacePublicDie(die=6, action="yamen")).raises("action_closed")
    given_state(GAME, s).when(seat, K.PlacePublicDie(die=8, action="bank_escort")).raises("not_a_public_die")
    given_state(GAME, s).when(1 - seat, K.PlacePublicDie(die=6, action="")).raises("not_your_turn")
    s2, ev = step(s, seat, K.PlacePublicDie(die=7, action=""))
    assert ev[0] == E.PublicDiePlaced(seat=seat, die=7, action="", frame=True)
    assert s2.dice[7].where == "out"


def test_round_3_offers_every_resting_area():
    s, _ = _start()
    for _ in range(2):
        s, _ = _pick_all(s)
        s, _ = finish_round(s)
    seat = GAME.to_act(s)[0]
    assert {m.action for m in GAME.legal_moves(s, seat)} == set(C.ACTIONS) | {""}


def test_at_most_one_public_die_per_resting_area():
    s, _ = _start()
    seat = GAME.to_act(s)[0]
    s, _ = step(s, seat, K.PlacePublicDie(die=6, action="bank_escort"))
    assert s.dice[6].where == "rest" and s.dice[6].action == "bank_escort"
    other = GAME.to_act(s)[0]
    assert other == 1 - seat
    legal = GAME.legal_moves(s, other)
    assert not any(m.action == "bank_escort" for m in legal)
    given_state(GAME, s).when(other, K.PlacePublicDie(die=7, action="bank_escort")).raises("public_die_limit")


def two_players(public: dict[int, tuple[int, str]], at=None) -> Table:
    """Round 3, the starting player's 4 to act (the second player's 1 keeps the round going), with
    public dice placed in resting areas by the draft."""
    return Table(players=2, dice={die(START, 1): 4, die(SECOND, 2): 1}, public=public, at=at)


def test_public_die_blocks_an_equal_value():
    t = two_players({6: (4, "bank_escort")})
    t.when(START, K.BankEscort(die=die(START, 1), tier=1, color="yellow")).raises("same_value_blocked")
    assert not any(isinstance(m, K.BankEscort) for m in t.legal(START))
    assert any(isinstance(m, K.WestStreet) for m in t.legal(START))


def test_public_die_pays_no_difference_and_is_never_bumped():
    events = (
        two_players({6: (2, "bank_escort")})
        .when(START, K.BankEscort(die=die(START, 1), tier=1, color="yellow"))
        .events()
    )
    assert events[0] == E.DieDispatched(seat=START, die=die(START, 1), action="bank_escort", value=4)
    assert events[0].copper == 0 and events[0].bumped == -1


def test_public_die_does_not_fill_the_resting_area():
    """The resting area (2 players: at most 1 teller die) still takes a bumped teller die."""
    t = two_players({6: (6, "money_house")}, at={"money_house": [(die(SECOND, 1), 2)]})
    ev = t.when(START, K.MoneyHouseLend(die=die(START, 1), months=1, amount=2)).events()
    assert ev[0].bumped == die(SECOND, 1) and ev[0].copper == 2  # gains only from the teller die
    s2 = t.fold(*ev).state
    assert s2.dice[die(SECOND, 1)].where == "rest"


def test_after_the_draft_the_teller_dice_are_rolled():
    s, _ = _start()
    s, _ = _pick_all(s, choose=lambda s, legal: legal[0])
    assert s.phase in ("prep", "action")
    assert all(d.where in ("number", "storage") or d.owner < 0 for d in s.dice if d.owner >= 0)
    assert any(d.owner < 0 and d.where == "rest" for d in s.dice)


@pytest.mark.slow
def test_random_playouts_two_players():
    for i in range(200):
        result = random_playout(
            GAME, PingyaoOptions(players=2, crowdfunding=i % 2 == 1), f"p2-{i}", check=check
        )
        assert GAME.outcome(result.state) is not None
        assert len(GAME.outcome(result.state).scores) == 2


@pytest.mark.slow
@pytest.mark.parametrize("i", range(4))
def test_every_listed_two_player_move_is_accepted(i):
    random_playout(
        GAME, PingyaoOptions(players=2, crowdfunding=True), f"all2-{i}", check_all_legal_moves=True
    )

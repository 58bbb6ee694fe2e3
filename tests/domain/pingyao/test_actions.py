"""The six actions with their die-value effects."""

import msgspec
import pytest

from domain.kernel import redact_for
from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from tests.support import given_state

from .helpers import BLUE, GREEN, RED, YELLOW, die, frame, keep_going, put, step, table


# --- Bank Escort ------------------------------------------------------------------------------
def escort_table(value=2, copper=30, tiles=None, tier="2"):
    s = table()
    put(s, die(RED, 1), value)
    keep_going(s)
    s.pl[RED].copper = copper
    s.pl[RED].head_office = 3
    if tiles is not None:
        s.stacks[tier] = list(tiles)
    return s


def test_escort_tiers_by_die_value():
    for value, tiers in ((1, {1, 2, 3}), (2, {1, 2, 3}), (3, {1, 2}), (4, {1, 2}), (5, {1}), (6, {1})):
        s = escort_table(value=value)
        got = {m.tier for m in GAME.legal_moves(s, RED) if isinstance(m, K.BankEscort)}
        assert got == tiers


def test_escort_example_tier2_red_draw_four_keep_one_rest_to_bottom():
    tiles = ["Lanzhou#1", "Guilin#1", "Kaifeng#1", "Suzhou#1"]
    s = escort_table(tiles=tiles)
    s.stacks["2"] = tiles + ["Liuzhou#1"]
    s.stacks["2"] = tiles  # exactly four in the stack: the draw takes them all
    s2, ev = step(s, RED, K.BankEscort(die=die(RED, 1), tier=2, color="red"))
    drawn = next(e for e in ev if isinstance(e, E.BranchTilesDrawn))
    assert drawn.cost == 12 and sorted(drawn.tiles) == sorted(tiles)
    assert drawn.visible_to() == (RED,)
    assert redact_for(drawn, BLUE).tiles == [] and redact_for(drawn, None).count == 4
    assert s2.pl[RED].copper == 18 and s2.frames[0].kind == "choose_branch"
    assert GAME.view(s2, BLUE).drawn_tiles == [] and sorted(GAME.view(s2, RED).drawn_tiles) == sorted(tiles)
    s3, ev = step(s2, RED, K.ChooseBranch(tile="Lanzhou#1"))
    assert ev[0] == E.BranchOpened(seat=RED, region="2red", tile="Lanzhou#1", capital=2, frame=True)
    returned = ev[1]
    assert isinstance(returned, E.BranchTilesReturned) and returned.count == 3 and returned.visible_to() == (RED,)
    assert s3.pl[RED].head_office == 1 and s3.pl[RED].regions["2red"].silver == 2
    assert s3.bottoms["2"] == [t for t in drawn.tiles if t != "Lanzhou#1"] and s3.stacks["2"] == []
    assert s3.pl[RED].reputation == 0  # Tier 2 scores 1 point at the end instead


def test_hidden_information_drawn_tiles_never_leak():
    """Bank Escort: the 4 drawn tiles are the drawer's alone until one is placed - not in other
    seats' views, redacted events, legal moves or error messages; the stacks show only counts."""
    tiles = ["Lanzhou#1", "Guilin#1", "Kaifeng#1", "Suzhou#1"]
    s = escort_table(tiles=tiles + ["Liuzhou#1", "Liuzhou#2"])
    s2, ev = step(s, RED, K.BankEscort(die=die(RED, 1), tier=2, color="red"))
    drawn = next(e for e in ev if isinstance(e, E.BranchTilesDrawn)).tiles
    hidden = [name.split("#")[0].encode() for name in tiles + ["Liuzhou#1"]]
    for viewer in (BLUE, GREEN, YELLOW, None):
        blob = msgspec.json.encode([redact_for(e, viewer) for e in ev]) + msgspec.json.encode(GAME.view(s2, viewer))
        assert not any(h in blob for h in hidden)
    assert GAME.view(s2, None).stack_counts["2"] == 2
    assert GAME.legal_moves(s2, BLUE) == []
    given_state(GAME, s2).when(BLUE, K.ChooseBranch(tile=drawn[0])).raises("not_your_turn")
    wrong = given_state(GAME, s2).when(RED, K.ChooseBranch(tile="Macau#1")).raises("invalid_branch")
    assert not any(h.decode() in str(wrong) for h in hidden)
    s3, ev = step(s2, RED, K.ChooseBranch(tile=drawn[0]))  # placed: now public; the rest stay hidden
    kept = drawn[0].split("#")[0].encode()
    for viewer in (BLUE, None):
        blob = msgspec.json.encode([redact_for(e, viewer) for e in ev]) + msgspec.json.encode(GAME.view(s3, viewer))
        assert kept in blob and not any(t.split("#")[0].encode() in blob for t in drawn[1:])


def test_escort_bottom_tiles_are_drawn_last():
    s = escort_table(tiles=["Guilin#1", "Guilin#2"])
    s.bottoms["2"] = ["Suzhou#1", "Suzhou#2", "Kaifeng#1"]
    ev = given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=2, color="red")).events()
    drawn = ev[1].tiles
    assert sorted(drawn[:2]) == ["Guilin#1", "Guilin#2"] and drawn[2:] == ["Suzhou#1", "Suzhou#2"]


def test_escort_tier1_gives_reputation_and_needs_capital():
    s = escort_table(value=5, tiles=["Lasa#1", "Changde#1", "Ningxia#1", "Jinzhou#1"], tier="1")
    s2, _ = step(s, RED, K.BankEscort(die=die(RED, 1), tier=1, color="green"))
    s3, ev = step(s2, RED, K.ChooseBranch(tile="Ningxia#1"))
    assert E.ReputationGained(seat=RED, amount=1, reason="tier1_branch") in ev
    assert s3.pl[RED].reputation == 1 and s3.pl[RED].regions["1green"].silver == 1
    s.pl[RED].head_office = 0
    given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="green")).raises("insufficient_silver")


def test_escort_occupied_region_and_copper():
    s = escort_table(value=5, copper=5)
    given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="green")).raises("insufficient_copper")
    s = escort_table(value=5)
    given_state(GAME, s).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="red")).raises("region_occupied")


def test_escort_no_two_branches_with_the_same_skill():
    s = escort_table(value=5, tiles=["Lasa#2", "Changde#1", "Lasa#1", "Jinzhou#1"], tier="1")
    s.pl[RED].regions["1yellow"].tile = "Lasa#1"
    s.stacks["1"] = ["Lasa#2", "Changde#1", "Ningxia#1", "Jinzhou#1"]
    s2, _ = step(s, RED, K.BankEscort(die=die(RED, 1), tier=1, color="green"))
    assert K.ChooseBranch(tile="Lasa#2") not in GAME.legal_moves(s2, RED)
    given_state(GAME, s2).when(RED, K.ChooseBranch(tile="Lasa#2")).raises("invalid_branch")


def test_escort_waiting_teller_moves_onto_the_new_branch():
    s = escort_table(value=2, tiles=["Guilin#1", "Guilin#2", "Lu'an#1", "Lu'an#2"])
    s.pl[RED].regions["2green"].waiting = 1
    s2, _ = step(s, RED, K.BankEscort(die=die(RED, 1), tier=2, color="green"))
    s3, _ = step(s2, RED, K.ChooseBranch(tile="Guilin#1"))
    assert s3.frames[0].kind == "place_teller"
    assert set(m.target for m in GAME.legal_moves(s3, RED)) == {"2green:teller", "2green:manager", "2green:wait"}
    s4, ev = step(s3, RED, K.PlaceTeller(target="2green:teller"))
    r = s4.pl[RED].regions["2green"]
    assert (r.waiting, r.tellers) == (0, 1)


# --- Confucius Temple -----------------------------------------------------------------------------
def temple_table(value):
    s = table()
    put(s, die(RED, 1), value)
    keep_going(s)
    s.pl[RED].regions["2yellow"].tile = "Guilin#1"
    return s


def test_temple_1_2_teller_and_optional_silver_move():
    s = temple_table(2)
    s2, _ = step(s, RED, K.ConfuciusTemple(die=die(RED, 1)))
    assert [f.kind for f in s2.frames] == ["place_teller", "move_silver"]
    targets = {m.target for m in GAME.legal_moves(s2, RED)}
    assert {"2yellow:teller", "2yellow:manager", "3red:wait", "1green:wait"} <= targets
    assert "1red:teller" not in targets and "1red:manager" not in targets  # starting branch: no positions
    s3, ev = step(s2, RED, K.PlaceTeller(target="2yellow:teller"))
    assert ev[0] == E.TellerPlaced(seat=RED, target="2yellow:teller", frame=True)
    assert K.MoveSilver(region="2yellow") in GAME.legal_moves(s3, RED)
    s4, ev = step(s3, RED, K.MoveSilver(region="2yellow"))
    assert s4.pl[RED].regions["2yellow"].silver == 1 and s4.pl[RED].head_office == 1


def test_temple_3_4_teller_only_5_6_costs_two():
    s2, _ = step(temple_table(4), RED, K.ConfuciusTemple(die=die(RED, 1)))
    assert [f.kind for f in s2.frames] == ["place_teller"]
    s = temple_table(6)
    s2, _ = step(s, RED, K.ConfuciusTemple(die=die(RED, 1)))
    s3, ev = step(s2, RED, K.PlaceTeller(target="2yellow:manager"))
    assert ev[0].cost == 2 and s3.pl[RED].copper == s.pl[RED].copper - 2
    s.pl[RED].copper = 1
    given_state(GAME, s).when(RED, K.ConfuciusTemple(die=die(RED, 1))).raises("insufficient_copper")


def test_temple_full_branch_and_one_waiting_teller_per_region():
    s = temple_table(4)
    p = s.pl[RED]
    p.regions["2yellow"].tellers = 1
    p.regions["2yellow"].managers = 1
    p.regions["3red"].waiting = 1
    s2, _ = step(s, RED, K.ConfuciusTemple(die=die(RED, 1)))
    targets = {m.target for m in GAME.legal_moves(s2, RED)}
    assert not any(t.startswith("2yellow") or t.startswith("3red") for t in targets)
    given_state(GAME, s2).when(RED, K.PlaceTeller(target="2yellow:manager")).raises("invalid_position")


# --- West Street ------------------------------------------------------------------------------------
def street_table(value=2, deck=("X09",)):
    s = table()
    put(s, die(RED, 1), value)
    keep_going(s)
    s.deck = list(deck)
    s.pl[RED].regions["2red"].tile = "Lanzhou#1"
    return s


def test_exchange_example():
    """Die 2: up to 3 months; placed at 2; head office deposits, Lanzhou (Tier-2 red) withdraws;
    fee 2 + 1 = 3 copper; the exchange track advances."""
    s = street_table()
    s2, ev = step(s, RED, K.WestStreet(die=die(RED, 1)))
    assert ev[1] == E.ExchangeCardsDrawn(seat=RED, count=1, cards=["X09"])
    moves = GAME.legal_moves(s2, RED)
    assert K.PlaceExchange(months=3, deposit="HO", withdraw="2red") in moves
    assert all(m.months <= 3 for m in moves)
    assert K.PlaceExchange(months=2, deposit="HO", withdraw="HO") not in moves  # never the same piaohao
    s3, ev = step(s2, RED, K.PlaceExchange(months=2, deposit="HO", withdraw="2red"))
    assert ev[0] == E.ExchangePlaced(seat=RED, card="X09", months=2, deposit="HO", withdraw="2red", fee=3, frame=True)
    p = s3.pl[RED]
    assert p.head_office == 3 and p.copper == 13 and p.exchange == 1 and p.cards[0].withdraw == "2red"


@pytest.mark.parametrize("withdraw,fee", [("HO", 1), ("1red", 2), ("2red", 3), ("3red", 4)])
def test_fee_adjustment_by_withdrawal(withdraw, fee):
    """Base 2 (card X09, yellow -> red); head office -1, Tier 1 +0, Tier 2 +1, Tier 3 +2."""
    s = street_table()
    s.pl[RED].regions["3red"].tile = "Jinan#1"
    s.pl[RED].regions["2yellow"].tile = "Guilin#1"
    s2, _ = step(s, RED, K.WestStreet(die=die(RED, 1)))
    deposit = "2yellow" if withdraw == "HO" else "HO"
    _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit=deposit, withdraw=withdraw))
    assert ev[0].fee == fee


def test_months_by_die_value():
    for value, months in ((1, 3), (3, 2), (4, 2), (5, 1), (6, 1)):
        s2, _ = step(street_table(value), RED, K.WestStreet(die=die(RED, 1)))
        assert max(m.months for m in GAME.legal_moves(s2, RED)) == months


def test_exchange_track_bonuses_raise_the_fee():
    for track, fee in ((2, 3), (3, 4), (6, 5), (11, 5)):
        s = street_table()
        s.pl[RED].exchange = track
        s2, _ = step(s, RED, K.WestStreet(die=die(RED, 1)))
        _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="2red"))
        assert ev[0].fee == fee


def test_at_most_three_cards_and_discard_when_no_valid_placement():
    s = street_table()
    from domain.pingyao.state import Card
    s.pl[RED].cards = [Card(card=c, months=1, deposit="HO", withdraw="1red") for c in ("X01", "X02", "X03")]
    given_state(GAME, s).when(RED, K.WestStreet(die=die(RED, 1))).raises("too_many_exchanges")
    # a red->green card with only the head office able to serve green... and red: head office + 1red
    s = street_table(deck=("X02",))  # red deposit, green withdrawal
    s.pl[RED].regions["2red"].tile = ""
    s2, ev = step(s, RED, K.WestStreet(die=die(RED, 1)))
    assert [m for m in GAME.legal_moves(s2, RED)] == [K.PlaceExchange(months=m, deposit="1red", withdraw="HO") for m in (1, 2, 3)]
    s = table()
    put(s, die(BLUE, 1), 5)  # blue: Datong (yellow) only
    keep_going_die = die(GREEN, 2)
    put(s, keep_going_die, 1)
    s.deck = ["X10"]  # yellow -> green: Datong deposits, head office withdraws: valid
    s.deck = ["X07"]  # red -> yellow: head office deposits, Datong withdraws
    _, ev = step(s, BLUE, K.WestStreet(die=die(BLUE, 1)))
    assert not any(isinstance(e, E.ExchangeDiscarded) for e in ev)
    s.deck = ["X02"]  # red -> green: only the head office can serve either colour
    _, ev = step(s, BLUE, K.WestStreet(die=die(BLUE, 1)))
    assert E.ExchangeDiscarded(seat=BLUE, card="X02") in ev


def test_discards_reshuffled_when_the_deck_runs_out():
    s = street_table(deck=())
    s.discards = ["X09"]
    s2, ev = step(s, RED, K.WestStreet(die=die(RED, 1)))
    assert E.DeckReshuffled(count=1) in ev and s2.discards == [] and s2.drawn_cards == ["X09"]


def test_reputation_6_and_ningxia_draw_extra_cards_choice_is_private():
    s = street_table(deck=("X09", "X11", "X03"))
    s.pl[RED].reputation = 6
    s.pl[RED].regions["1yellow"].tile = "Ningxia#1"
    s.pl[RED].regions["1yellow"].tellers = 1
    s2, ev = step(s, RED, K.WestStreet(die=die(RED, 1)))
    drawn = ev[1]
    assert drawn.count == 3 and drawn.visible_to() == (RED,) and redact_for(drawn, BLUE).cards == []
    assert s2.frames[0].kind == "choose_card"
    s3, ev = step(s2, RED, K.ChooseExchangeCard(card="X09"))
    assert ev[0].visible_to() == (RED,) and sorted(ev[0].returned) == ["X03", "X11"]
    assert redact_for(ev[0], BLUE).returned == []
    assert sorted(s3.deck_bottom) == ["X03", "X11"] and s3.frames[0].kind == "place_exchange"


# --- Money House -----------------------------------------------------------------------------------
def test_lending_example_position_three_full():
    """Blue, die 2, lends: position 3 already holds 2 silver, so they go on position 2."""
    s = table()
    put(s, die(BLUE, 1), 2)
    keep_going(s)
    s.dice[die(BLUE, 2)].where = "done"
    put(s, die(RED, 2), 1)
    s.pl[BLUE].lending = [0, 0, 2]
    s.pl[BLUE].head_office = 4
    given_state(GAME, s).when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=3, amount=2)).raises("lending_full")
    ev = given_state(GAME, s).when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=2, amount=2)).events()
    assert ev[1] == E.SilverLent(seat=BLUE, months=2, amount=2)
    s.pl[BLUE].lending = [2, 0, 2]
    given_state(GAME, s).when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=2, amount=2)).raises("lending_full")


def test_lending_takes_exactly_two_silver():
    """Money House, Lending: "Take 2 silver ingots from your Pingyao Head Office" - never 1."""
    s = table()
    put(s, die(RED, 1), 2)
    keep_going(s)
    s.pl[RED].head_office = 3
    lends = [m for m in GAME.legal_moves(s, RED) if isinstance(m, K.MoneyHouseLend)]
    assert {m.amount for m in lends} == {2} and {m.months for m in lends} == {1, 2, 3}
    given_state(GAME, s).when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=1)).raises("invalid_lend_amount")
    given_state(GAME, s).when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=2)).then([
        E.DieDispatched(seat=RED, die=die(RED, 1), action="money_house", value=2),
        E.SilverLent(seat=RED, months=1, amount=2),
    ])
    s.pl[RED].head_office = 1  # one silver is not enough to lend
    assert not [m for m in GAME.legal_moves(s, RED) if isinstance(m, K.MoneyHouseLend)]


def test_lending_months_and_silver():
    s = table()
    put(s, die(RED, 1), 5)
    keep_going(s)
    given_state(GAME, s).when(RED, K.MoneyHouseLend(die=die(RED, 1), months=2, amount=2)).raises("months_not_allowed")
    s.pl[RED].head_office = 1
    given_state(GAME, s).when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=2)).raises("insufficient_silver")


def test_deposit_example_two_months():
    """Blue, die 2, accepts a deposit for 2 months: 2 silver to the head office; 2 copper interest
    in each of the next two resolutions; the 2 silver go back at the second."""
    from .helpers import finish_round
    s = table(round=3)
    put(s, die(BLUE, 1), 2)
    s.pl[BLUE].copper = 10
    s2, ev = step(s, BLUE, K.MoneyHouseDeposit(die=die(BLUE, 1), months=2))
    assert E.DepositAccepted(seat=BLUE, months=2) in ev
    assert E.DepositInterestPaid(seat=BLUE, interest=2, months_left=1) in ev
    assert s2.pl[BLUE].deposit_area == 0
    s3, ev = finish_round(s2)
    assert E.DepositInterestPaid(seat=BLUE, interest=2, months_left=0) in ev
    assert E.DepositSilverReturned(seat=BLUE, silver=2) in ev
    assert s3.pl[BLUE].deposit_area == 2 and s3.pl[BLUE].deposit_marker == 0
    given_state(GAME, s2).when(BLUE, K.MoneyHouseDeposit(die=die(BLUE, 1), months=1)).raises("not_your_turn")


def test_one_deposit_at_a_time():
    s = table()
    put(s, die(RED, 1), 2)
    keep_going(s)
    s.pl[RED].deposit_marker = 1
    s.pl[RED].deposit_area = 0
    given_state(GAME, s).when(RED, K.MoneyHouseDeposit(die=die(RED, 1), months=1)).raises("deposit_taken")


# --- City God Temple -----------------------------------------------------------------------------
@pytest.mark.parametrize("value,amount,cost", [(1, 2, 2), (2, 2, 2), (3, 1, 0), (4, 1, 0), (5, 1, 1), (6, 1, 1)])
def test_city_god_costs_and_gains(value, amount, cost):
    s = table()
    put(s, die(RED, 1), value)
    keep_going(s)
    s.pl[RED].reputation = 5
    ev = given_state(GAME, s).when(RED, K.CityGodTemple(die=die(RED, 1))).events()
    assert ev[1] == E.ReputationGained(seat=RED, amount=amount, cost=cost, reason="city_god_temple")


def test_one_time_teller_bonuses_and_cap():
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    s.pl[RED].reputation = 1
    s2, ev = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].reputation == 3 and "rep2" in s2.pl[RED].bonuses and s2.frames[0].kind == "place_teller"
    s3, _ = step(s2, RED, K.PlaceTeller(target="3green:wait"))
    assert s3.pl[RED].regions["3green"].waiting == 1
    # once per game: dropping below and reaching 2 again gives nothing
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    s.pl[RED].reputation = 14
    s2, _ = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].reputation == 15
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    s.pl[RED].reputation = 15
    s2, ev = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].copper == s.pl[RED].copper and not any(isinstance(e, E.ReputationGained) for e in ev)


def test_bonus_8_and_13_each_once():
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    s.pl[RED].reputation = 12
    s.pl[RED].bonuses = ["rep2", "rep8"]
    s2, ev = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].bonuses == ["rep2", "rep8", "rep13"] and len(s2.frames) == 1


# --- Yamen ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,copper", [(1, 0), (2, 0), (3, 2), (4, 2), (5, 4), (6, 4)])
def test_yamen_cost_by_value(value, copper):
    s = table()
    put(s, die(RED, 1), value)
    keep_going(s)
    ev = given_state(GAME, s).when(RED, K.Yamen(die=die(RED, 1), tile="lending_income")).events()
    assert ev[1] == E.YamenTileTaken(seat=RED, tile="lending_income", copper=copper, silver=2)


def test_yamen_needs_head_office_silver_no_duplicates_and_copies():
    s = table()
    put(s, die(RED, 1), 2)
    keep_going(s)
    s.pl[RED].yamen = ["any_value"]
    given_state(GAME, s).when(RED, K.Yamen(die=die(RED, 1), tile="any_value")).raises("duplicate_yamen_tile")
    s.yamen_supply["exchange_fee"] = 0
    given_state(GAME, s).when(RED, K.Yamen(die=die(RED, 1), tile="exchange_fee")).raises("yamen_tile_unavailable")
    s.pl[RED].head_office = 1
    given_state(GAME, s).when(RED, K.Yamen(die=die(RED, 1), tile="lending_income")).raises("insufficient_silver")
    s.pl[RED].head_office = 0
    assert not any(isinstance(m, K.Yamen) for m in GAME.legal_moves(s, RED))


def test_exchange_track_capped_at_12_and_reputation_at_15():
    s = street_table()
    s.pl[RED].exchange = 12
    s2, _ = step(s, RED, K.WestStreet(die=die(RED, 1)))
    s3, _ = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="2red"))
    assert s3.pl[RED].exchange == 12
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    s.pl[RED].reputation = 14
    s.pl[RED].bonuses = ["rep2", "rep8", "rep13"]
    s2, _ = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].reputation == 15


def test_confucius_silver_move_may_be_skipped():
    s = temple_table(1)
    s2, _ = step(s, RED, K.ConfuciusTemple(die=die(RED, 1)))
    s3, _ = step(s2, RED, K.PlaceTeller(target="2yellow:teller"))
    s4, ev = step(s3, RED, K.MoveSilver(region=""))
    assert ev[0] == E.SilverMoved(seat=RED, source="HO", dest="", reason="confucius_temple", frame=True)
    assert s4.pl[RED].head_office == s3.pl[RED].head_office and not s4.frames


def test_free_teller_lost_when_no_position_is_free():
    s = table()
    put(s, die(RED, 1), 1)
    keep_going(s)
    p = s.pl[RED]
    p.reputation = 1
    for r in p.regions.values():
        if not r.tile:
            r.waiting = 1
    s2, _ = step(s, RED, K.CityGodTemple(die=die(RED, 1)))
    assert GAME.legal_moves(s2, RED) == [K.PlaceTeller(target="")]
    s3, ev = step(s2, RED, K.PlaceTeller(target=""))
    assert ev[0] == E.TellerPlaced(seat=RED, target="", frame=True) and not s3.frames

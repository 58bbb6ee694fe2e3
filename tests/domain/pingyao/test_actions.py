"""The six actions with their die-value effects."""

import msgspec
import pytest

from domain.kernel import redact_for
from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from tests.support import given_state

from .helpers import BLUE, GREEN, RED, YELLOW, Table, die, finish_round, step

KEEP = {die(BLUE, 2): 1}
"""A spare die still to act, so that the action phase does not end after the command under test."""


def acting(value: int, **kw) -> Table:
    """Red's die with `value` acts now (round 3, nothing on the action spaces)."""
    return Table(dice={die(RED, 1): value, **KEEP}, **kw)


# --- Bank Escort ------------------------------------------------------------------------------
def escort(value=2, copper=30) -> Table:
    return acting(value).copper(RED, copper).head_office(RED, 3)


def test_escort_tiers_by_die_value():
    for value, tiers in ((1, {1, 2, 3}), (2, {1, 2, 3}), (3, {1, 2}), (4, {1, 2}), (5, {1}), (6, {1})):
        assert {m.tier for m in escort(value).legal(RED) if isinstance(m, K.BankEscort)} == tiers


def test_escort_example_tier2_red_draw_four_keep_one_rest_to_bottom():
    tiles = ["Lanzhou#1", "Guilin#1", "Kaifeng#1", "Suzhou#1"]
    t = escort().stack(2, *tiles)  # exactly four in the stack: the draw takes them all
    s2, ev = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=2, color="red"))
    drawn = next(e for e in ev if isinstance(e, E.BranchTilesDrawn))
    assert drawn.cost == 12 and sorted(drawn.tiles) == sorted(tiles)
    assert drawn.visible_to() == (RED,)
    assert redact_for(drawn, BLUE).tiles == [] and redact_for(drawn, None).count == 4
    assert s2.pl[RED].copper == 18 and s2.frames[0].kind == "choose_branch"
    assert GAME.view(s2, BLUE).drawn_tiles == [] and sorted(GAME.view(s2, RED).drawn_tiles) == sorted(tiles)
    s3, ev = step(s2, RED, K.ChooseBranch(tile="Lanzhou#1"))
    assert ev[0] == E.BranchOpened(seat=RED, region="2red", tile="Lanzhou#1", capital=2, frame=True)
    returned = ev[1]
    assert (
        isinstance(returned, E.BranchTilesReturned)
        and returned.count == 3
        and returned.visible_to() == (RED,)
    )
    assert s3.pl[RED].head_office == 1 and s3.pl[RED].regions["2red"].silver == 2
    assert s3.bottoms["2"][-3:] == [t for t in drawn.tiles if t != "Lanzhou#1"] and s3.stacks["2"] == []
    assert s3.pl[RED].reputation == 0  # Tier 2 scores 1 point at the end instead


def test_hidden_information_drawn_tiles_never_leak():
    """Bank Escort: the 4 drawn tiles are the drawer's alone until one is placed - not in other
    seats' views, redacted events, legal moves or error messages; the stacks show only counts."""
    tiles = ["Lanzhou#1", "Guilin#1", "Kaifeng#1", "Suzhou#1"]
    t = escort().stack(2, *tiles, "Liuzhou#1", "Liuzhou#2")
    left = GAME.view(t.state, None).stack_counts["2"]
    s2, ev = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=2, color="red"))
    drawn = next(e for e in ev if isinstance(e, E.BranchTilesDrawn)).tiles
    for viewer in (BLUE, GREEN, YELLOW, None):
        blob = msgspec.json.encode([redact_for(e, viewer) for e in ev]) + msgspec.json.encode(
            GAME.view(s2, viewer)
        )
        assert not any(t.split("#")[0].encode() in blob for t in drawn)
    assert GAME.view(s2, None).stack_counts["2"] == left - 4
    assert GAME.legal_moves(s2, BLUE) == []
    given_state(GAME, s2).when(BLUE, K.ChooseBranch(tile=drawn[0])).raises("not_your_turn")
    wrong = given_state(GAME, s2).when(RED, K.ChooseBranch(tile="Macau#1")).raises("invalid_branch")
    assert not any(t.split("#")[0] in str(wrong) for t in drawn)
    s3, ev = step(s2, RED, K.ChooseBranch(tile=drawn[0]))  # placed: now public; the rest stay hidden
    kept = drawn[0].split("#")[0].encode()
    for viewer in (BLUE, None):
        blob = msgspec.json.encode([redact_for(e, viewer) for e in ev]) + msgspec.json.encode(
            GAME.view(s3, viewer)
        )
        assert kept in blob and not any(
            t.split("#")[0].encode() in blob for t in drawn[1:] if t.split("#")[0] != kept.decode()
        )


def test_escort_bottom_tiles_are_drawn_last():
    t = escort().stack(2, "Guilin#1", "Guilin#2", bottom=["Suzhou#1", "Suzhou#2", "Kaifeng#1"])
    drawn = t.when(RED, K.BankEscort(die=die(RED, 1), tier=2, color="red")).events()[1].tiles
    assert sorted(drawn[:2]) == ["Guilin#1", "Guilin#2"] and drawn[2:] == ["Suzhou#1", "Suzhou#2"]


def test_escort_tier1_gives_reputation_and_needs_capital():
    t = escort(value=5).stack(1, "Lasa#1", "Changde#1", "Ningxia#1", "Jinzhou#1")
    s2, _ = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=1, color="green"))
    s3, ev = step(s2, RED, K.ChooseBranch(tile="Ningxia#1"))
    assert E.ReputationGained(seat=RED, amount=1, reason="tier1_branch") in ev
    assert s3.pl[RED].reputation == 1 and s3.pl[RED].regions["1green"].silver == 1
    t.head_office(RED, 0).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="green")).raises(
        "insufficient_silver"
    )


def test_escort_occupied_region_unknown_region_and_copper():
    escort(value=5, copper=5).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="green")).raises(
        "insufficient_copper"
    )
    escort(value=5).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="red")).raises("region_occupied")
    escort(value=5).when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="blue")).raises("invalid_region")
    escort(value=5).when(RED, K.BankEscort(die=die(RED, 1), tier=4, color="red")).raises("tier_not_allowed")


def test_escort_stack_empty():
    t = escort(value=5)
    t.fold(
        E.BranchTilesDrawn(seat=BLUE, tier=1, region="", cost=0, count=99, tiles=list(t.state.stacks["1"]))
    )
    t.when(RED, K.BankEscort(die=die(RED, 1), tier=1, color="green")).raises("stack_empty")


def test_escort_no_two_branches_with_the_same_skill():
    t = (
        escort(value=5)
        .branch(RED, "1yellow", "Lasa#1")
        .stack(1, "Lasa#2", "Changde#1", "Ningxia#1", "Jinzhou#1")
    )
    s2, _ = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=1, color="green"))
    assert K.ChooseBranch(tile="Lasa#2") not in GAME.legal_moves(s2, RED)
    given_state(GAME, s2).when(RED, K.ChooseBranch(tile="Lasa#2")).raises("invalid_branch")


def test_escort_waiting_teller_moves_onto_the_new_branch():
    t = escort().teller(RED, "2green:wait").stack(2, "Guilin#1", "Guilin#2", "Lu'an#1", "Lu'an#2")
    s2, _ = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=2, color="green"))
    s3, _ = step(s2, RED, K.ChooseBranch(tile="Guilin#1"))
    assert s3.frames[0].kind == "place_teller"
    assert {m.target for m in GAME.legal_moves(s3, RED)} == {"2green:teller", "2green:manager", "2green:wait"}
    given_state(GAME, s3).when(RED, K.PlaceTeller(target="3red:wait")).raises("invalid_position")
    s4, _ = step(s3, RED, K.PlaceTeller(target="2green:teller"))
    r = s4.pl[RED].regions["2green"]
    assert (r.waiting, r.tellers) == (0, 1)


# --- Confucius Temple -----------------------------------------------------------------------------
def temple(value) -> Table:
    return acting(value).branch(RED, "2yellow", "Guilin#1")


def test_temple_1_2_teller_and_optional_silver_move():
    s2, _ = step(temple(2).state, RED, K.ConfuciusTemple(die=die(RED, 1)))
    assert [f.kind for f in s2.frames] == ["place_teller", "move_silver"]
    targets = {m.target for m in GAME.legal_moves(s2, RED)}
    assert {"2yellow:teller", "2yellow:manager", "3red:wait", "1green:wait"} <= targets
    assert "1red:teller" not in targets and "1red:manager" not in targets  # starting branch: no positions
    s3, ev = step(s2, RED, K.PlaceTeller(target="2yellow:teller"))
    assert ev[0] == E.TellerPlaced(seat=RED, target="2yellow:teller", frame=True)
    assert K.MoveSilver(region="2yellow") in GAME.legal_moves(s3, RED)
    given_state(GAME, s3).when(RED, K.MoveSilver(region="3red")).raises("invalid_region")  # no branch there
    s4, _ = step(s3, RED, K.MoveSilver(region="2yellow"))
    assert s4.pl[RED].regions["2yellow"].silver == 1 and s4.pl[RED].head_office == 1


def test_temple_silver_move_needs_head_office_silver_and_may_be_skipped():
    s2, _ = step(temple(1).head_office(RED, 0).state, RED, K.ConfuciusTemple(die=die(RED, 1)))
    s3, _ = step(s2, RED, K.PlaceTeller(target="2yellow:teller"))
    assert GAME.legal_moves(s3, RED) == [K.MoveSilver(region="")]
    given_state(GAME, s3).when(RED, K.MoveSilver(region="2yellow")).raises("insufficient_silver")
    s4, ev = step(s3, RED, K.MoveSilver(region=""))
    assert ev[0] == E.SilverMoved(seat=RED, source="HO", dest="", reason="confucius_temple", frame=True)
    assert not s4.frames


def test_temple_3_4_teller_only_5_6_costs_two():
    s2, _ = step(temple(4).state, RED, K.ConfuciusTemple(die=die(RED, 1)))
    assert [f.kind for f in s2.frames] == ["place_teller"]
    t = temple(6)
    s2, _ = step(t.state, RED, K.ConfuciusTemple(die=die(RED, 1)))
    s3, ev = step(s2, RED, K.PlaceTeller(target="2yellow:manager"))
    assert ev[0].cost == 2 and s3.pl[RED].copper == t.state.pl[RED].copper - 2
    t.copper(RED, 1).when(RED, K.ConfuciusTemple(die=die(RED, 1))).raises("insufficient_copper")


def test_temple_full_branch_and_one_waiting_teller_per_region():
    t = temple(4).teller(RED, "2yellow:teller").teller(RED, "2yellow:manager").teller(RED, "3red:wait")
    s2, _ = step(t.state, RED, K.ConfuciusTemple(die=die(RED, 1)))
    targets = {m.target for m in GAME.legal_moves(s2, RED)}
    assert not any(t.startswith("2yellow") or t.startswith("3red") for t in targets)
    given_state(GAME, s2).when(RED, K.PlaceTeller(target="2yellow:manager")).raises("invalid_position")
    given_state(GAME, s2).when(RED, K.PlaceTeller(target="")).raises(
        "invalid_position"
    )  # a free one must be taken


def test_temple_needs_a_free_position():
    t = acting(4)
    for region in ("1yellow", "1green", "2red", "2yellow", "2green", "3red", "3yellow", "3green"):
        t.teller(RED, f"{region}:wait")
    t.when(RED, K.ConfuciusTemple(die=die(RED, 1))).raises("no_teller_position")


# --- West Street ------------------------------------------------------------------------------------
def street(value=2, deck=("X09",)) -> Table:
    return acting(value).branch(RED, "2red", "Lanzhou#1").deck(*deck)


def test_exchange_example():
    """Die 2: up to 3 months; placed at 2; head office deposits, Lanzhou (Tier-2 red) withdraws;
    fee 2 + 1 = 3 copper; the exchange track advances."""
    s2, ev = step(street().state, RED, K.WestStreet(die=die(RED, 1)))
    assert ev[1] == E.ExchangeCardsDrawn(seat=RED, count=1, cards=["X09"])
    moves = GAME.legal_moves(s2, RED)
    assert K.PlaceExchange(months=3, deposit="HO", withdraw="2red") in moves
    assert all(m.months <= 3 for m in moves)
    assert K.PlaceExchange(months=2, deposit="HO", withdraw="HO") not in moves  # never the same piaohao
    for wrong in (
        K.PlaceExchange(months=2, deposit="HO", withdraw="HO"),
        K.PlaceExchange(months=4, deposit="HO", withdraw="2red"),
        K.PlaceExchange(months=1, deposit="1red", withdraw="2red"),
        K.PlaceExchange(months=1, deposit="HO", withdraw="9x"),
    ):
        given_state(GAME, s2).when(RED, wrong).raises("invalid_exchange")
    s3, ev = step(s2, RED, K.PlaceExchange(months=2, deposit="HO", withdraw="2red"))
    assert ev[0] == E.ExchangePlaced(
        seat=RED, card="X09", months=2, deposit="HO", withdraw="2red", fee=3, frame=True
    )
    p = s3.pl[RED]
    assert p.head_office == 3 and p.copper == 13 and p.exchange == 1 and p.cards[0].withdraw == "2red"


@pytest.mark.parametrize("withdraw,fee", [("HO", 1), ("1red", 2), ("2red", 3), ("3red", 4)])
def test_fee_adjustment_by_withdrawal(withdraw, fee):
    """Base 2 (card X09, yellow -> red); head office -1, Tier 1 +0, Tier 2 +1, Tier 3 +2."""
    t = street().branch(RED, "3red", "Jinan#1").branch(RED, "2yellow", "Guilin#1")
    s2, _ = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
    deposit = "2yellow" if withdraw == "HO" else "HO"
    _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit=deposit, withdraw=withdraw))
    assert ev[0].fee == fee


def test_months_by_die_value():
    for value, months in ((1, 3), (3, 2), (4, 2), (5, 1), (6, 1)):
        s2, _ = step(street(value).state, RED, K.WestStreet(die=die(RED, 1)))
        assert max(m.months for m in GAME.legal_moves(s2, RED)) == months


def test_exchange_track_bonuses_raise_the_fee():
    for track, fee in ((2, 3), (3, 4), (6, 5), (11, 5)):
        t = acting(2).branch(RED, "2red", "Lanzhou#1").exchanges(RED, track).deck("X09")
        s2, _ = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
        _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="2red"))
        assert ev[0].fee == fee


def test_at_most_three_cards():
    t = (
        street()
        .card(RED, "X01", 1, "HO", "1red")
        .card(RED, "X02", 1, "HO", "1red")
        .card(RED, "X03", 1, "HO", "1red")
    )
    t.when(RED, K.WestStreet(die=die(RED, 1))).raises("too_many_exchanges")


def test_deck_empty_when_no_card_is_left_anywhere():
    t = street(deck=())
    cards = [*t.state.discards]
    t.fold(E.DeckReshuffled(count=len(cards)), E.ExchangeCardsDrawn(seat=BLUE, count=len(cards), cards=cards))
    t.fold(
        E.ExchangePlaced(seat=BLUE, card=cards[0], months=1, deposit="HO", withdraw="1yellow", fee=0)
    )  # clears the draw
    t.when(RED, K.WestStreet(die=die(RED, 1))).raises("deck_empty")


def test_discard_when_no_valid_placement():
    # red -> green with only the head office and Taiyuan (red): head office withdraws green, Taiyuan deposits
    s2, _ = step(acting(2).deck("X02").state, RED, K.WestStreet(die=die(RED, 1)))
    assert GAME.legal_moves(s2, RED) == [
        K.PlaceExchange(months=m, deposit="1red", withdraw="HO") for m in (1, 2, 3)
    ]
    # blue: Datong (yellow) only
    t = Table(dice={die(BLUE, 1): 5, die(GREEN, 2): 1}).deck("X07")  # red -> yellow: head office, then Datong
    assert not any(
        isinstance(e, E.ExchangeDiscarded) for e in t.when(BLUE, K.WestStreet(die=die(BLUE, 1))).events()
    )
    t = Table(dice={die(BLUE, 1): 5, die(GREEN, 2): 1}).deck(
        "X02"
    )  # red -> green: only the head office serves either
    assert E.ExchangeDiscarded(seat=BLUE, card="X02") in t.when(BLUE, K.WestStreet(die=die(BLUE, 1))).events()


def test_discards_reshuffled_when_the_deck_runs_out():
    t = street(deck=())
    discarded = len(t.state.discards)
    s2, ev = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
    assert E.DeckReshuffled(count=discarded) in ev and len(s2.deck) == discarded - 1


def test_reputation_6_and_ningxia_draw_extra_cards_choice_is_private():
    t = street(deck=("X09", "X11", "X03")).reputation(RED, 6).branch(RED, "1yellow", "Ningxia#1", tellers=1)
    s2, ev = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
    drawn = ev[1]
    assert drawn.count == 3 and drawn.visible_to() == (RED,) and redact_for(drawn, BLUE).cards == []
    assert s2.frames[0].kind == "choose_card"
    given_state(GAME, s2).when(RED, K.ChooseExchangeCard(card="X01")).raises("card_not_drawn")
    s3, ev = step(s2, RED, K.ChooseExchangeCard(card="X09"))
    assert ev[0].visible_to() == (RED,) and sorted(ev[0].returned) == ["X03", "X11"]
    assert redact_for(ev[0], BLUE).returned == []
    assert sorted(s3.deck_bottom) == ["X03", "X11"] and s3.frames[0].kind == "place_exchange"


# --- Money House -----------------------------------------------------------------------------------
def test_lending_example_position_three_full():
    """Blue, die 2, lends: position 3 already holds 2 silver, so they go on position 2."""
    t = Table(dice={die(BLUE, 1): 2, die(RED, 2): 1}).lend(BLUE, 3, 2).head_office(BLUE, 4)
    t.when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=3, amount=2)).raises("lending_full")
    ev = t.when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=2, amount=2)).events()
    assert ev[1] == E.SilverLent(seat=BLUE, months=2, amount=2)
    t.lend(BLUE, 1, 2).when(BLUE, K.MoneyHouseLend(die=die(BLUE, 1), months=2, amount=2)).raises(
        "lending_full"
    )


def test_lending_takes_exactly_two_silver():
    """Money House, Lending: "Take 2 silver ingots from your Pingyao Head Office" - never 1."""
    t = acting(2).head_office(RED, 3)
    lends = [m for m in t.legal(RED) if isinstance(m, K.MoneyHouseLend)]
    assert {m.amount for m in lends} == {2} and {m.months for m in lends} == {1, 2, 3}
    t.when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=1)).raises("invalid_lend_amount")
    t.when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=2)).then(
        [
            E.DieDispatched(seat=RED, die=die(RED, 1), action="money_house", value=2),
            E.SilverLent(seat=RED, months=1, amount=2),
        ]
    )
    assert not [
        m for m in t.head_office(RED, 1).legal(RED) if isinstance(m, K.MoneyHouseLend)
    ]  # 1 is not enough


def test_lending_months_and_silver():
    t = acting(5)
    t.when(RED, K.MoneyHouseLend(die=die(RED, 1), months=2, amount=2)).raises("months_not_allowed")
    t.when(RED, K.MoneyHouseLend(die=die(RED, 1), months=-1, amount=2)).raises("months_not_allowed")
    t.head_office(RED, 1).when(RED, K.MoneyHouseLend(die=die(RED, 1), months=1, amount=2)).raises(
        "insufficient_silver"
    )


def test_deposit_example_two_months():
    """Blue, die 2, accepts a deposit for 2 months: 2 silver to the head office; 2 copper interest
    in each of the next two resolutions; the 2 silver go back at the second."""
    t = Table(dice={die(BLUE, 1): 2}).copper(BLUE, 10)
    s2, ev = step(t.state, BLUE, K.MoneyHouseDeposit(die=die(BLUE, 1), months=2))
    assert E.DepositAccepted(seat=BLUE, months=2) in ev
    assert E.DepositInterestPaid(seat=BLUE, interest=2, months_left=1) in ev
    assert s2.pl[BLUE].deposit_area == 0
    s3, ev = finish_round(s2)
    assert E.DepositInterestPaid(seat=BLUE, interest=2, months_left=0) in ev
    assert E.DepositSilverReturned(seat=BLUE, silver=2) in ev
    assert s3.pl[BLUE].deposit_area == 2 and s3.pl[BLUE].deposit_marker == 0
    given_state(GAME, s2).when(BLUE, K.MoneyHouseDeposit(die=die(BLUE, 1), months=1)).raises("not_your_turn")


def test_one_deposit_at_a_time():
    acting(2).deposit(RED, 1).when(RED, K.MoneyHouseDeposit(die=die(RED, 1), months=1)).raises(
        "deposit_taken"
    )


# --- City God Temple -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value,amount,cost", [(1, 2, 2), (2, 2, 2), (3, 1, 0), (4, 1, 0), (5, 1, 1), (6, 1, 1)]
)
def test_city_god_costs_and_gains(value, amount, cost):
    ev = acting(value).reputation(RED, 5).when(RED, K.CityGodTemple(die=die(RED, 1))).events()
    assert ev[1] == E.ReputationGained(seat=RED, amount=amount, cost=cost, reason="city_god_temple")


def test_one_time_teller_bonuses_and_cap():
    s2, _ = step(acting(1).reputation(RED, 1).state, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].reputation == 3 and "rep2" in s2.pl[RED].bonuses and s2.frames[0].kind == "place_teller"
    s3, _ = step(s2, RED, K.PlaceTeller(target="3green:wait"))
    assert s3.pl[RED].regions["3green"].waiting == 1
    s2, _ = step(acting(1).reputation(RED, 14).state, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].reputation == 15
    t = acting(1).reputation(RED, 15)  # 15: no further effect, nothing paid
    s2, ev = step(t.state, RED, K.CityGodTemple(die=die(RED, 1)))
    assert s2.pl[RED].copper == t.state.pl[RED].copper and not any(
        isinstance(e, E.ReputationGained) for e in ev
    )


def test_bonus_8_and_13_each_once():
    s2, _ = step(
        acting(1).reputation(RED, 12).bonuses(RED, "rep2", "rep8").state,
        RED,
        K.CityGodTemple(die=die(RED, 1)),
    )
    assert s2.pl[RED].bonuses == ["rep2", "rep8", "rep13"] and len(s2.frames) == 1


def test_free_teller_lost_when_no_position_is_free():
    t = acting(1).reputation(RED, 1)
    for region in ("1yellow", "1green", "2red", "2yellow", "2green", "3red", "3yellow", "3green"):
        t.teller(RED, f"{region}:wait")
    s2, _ = step(t.state, RED, K.CityGodTemple(die=die(RED, 1)))
    assert GAME.legal_moves(s2, RED) == [K.PlaceTeller(target="")]
    s3, ev = step(s2, RED, K.PlaceTeller(target=""))
    assert ev[0] == E.TellerPlaced(seat=RED, target="", frame=True) and not s3.frames


def test_exchange_track_capped_at_12_and_reputation_at_15():
    t = acting(2).branch(RED, "2red", "Lanzhou#1").exchanges(RED, 12).deck("X09")
    s2, _ = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
    s3, _ = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="2red"))
    assert s3.pl[RED].exchange == 12
    s2, _ = step(
        acting(1).reputation(RED, 14).bonuses(RED, "rep2", "rep8", "rep13").state,
        RED,
        K.CityGodTemple(die=die(RED, 1)),
    )
    assert s2.pl[RED].reputation == 15


# --- Yamen ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,copper", [(1, 0), (2, 0), (3, 2), (4, 2), (5, 4), (6, 4)])
def test_yamen_cost_by_value(value, copper):
    ev = acting(value).when(RED, K.Yamen(die=die(RED, 1), tile="lending_income")).events()
    assert ev[1] == E.YamenTileTaken(seat=RED, tile="lending_income", copper=copper, silver=2)


def test_yamen_needs_head_office_silver_no_duplicates_and_copies():
    t = acting(2).yamen(RED, "any_value").yamen(BLUE, "exchange_fee").yamen(GREEN, "exchange_fee")
    t.when(RED, K.Yamen(die=die(RED, 1), tile="any_value")).raises("duplicate_yamen_tile")
    t.when(RED, K.Yamen(die=die(RED, 1), tile="exchange_fee")).raises(
        "yamen_tile_unavailable"
    )  # both copies taken
    t.when(RED, K.Yamen(die=die(RED, 1), tile="no_such_tile")).raises("yamen_tile_unavailable")
    t.head_office(RED, 1).when(RED, K.Yamen(die=die(RED, 1), tile="lending_income")).raises(
        "insufficient_silver"
    )
    assert not any(isinstance(m, K.Yamen) for m in t.head_office(RED, 0).legal(RED))
    acting(5).copper(RED, 3).when(RED, K.Yamen(die=die(RED, 1), tile="lending_income")).raises(
        "insufficient_copper"
    )

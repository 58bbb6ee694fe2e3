"""The second rules audit (``pingyao-3``): each finding, given / when / then, quoting the rulebook;
and each changed rule as it still stands for games set up under ``pingyao-2``."""

import pytest

from domain.kernel import Rng
from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from domain.pingyao.action_phase import resting_capacity
from domain.pingyao.versions import PINGYAO_2, PINGYAO_3

from .helpers import BLUE, GREEN, RED, YELLOW, Table, die, revealed, step

KEEP = {die(YELLOW, 2): 1}
"""A spare die still to act, so that the action phase does not end after the command under test."""


def _seed_rolling(value: int, sides: int = 6) -> str:
    return next(f"r{i}" for i in range(1000) if Rng(f"r{i}", 0).between(1, sides) == value)


# --- 1. Resting-area limits are printed per action ---------------------------------------------------
def test_resting_area_limits_depend_on_the_action():
    """Components, Main Board 7: "at most 3 dice can be resting there before further displacement is
    blocked (displayed as 'at most 3 / at most 2 / at most 1' depending on the action)".
    Given a 4-player game, when a die would bump into a resting area, then the limit is the
    action's: Yamen 1, Confucius Temple 2, the four other actions 3 (the assumed assignment)."""
    assert {a: C.resting_capacity(a) for a in C.ACTIONS} == {
        "bank_escort": 3,
        "confucius_temple": 2,
        "west_street": 3,
        "money_house": 3,
        "city_god_temple": 3,
        "yamen": 1,
    }
    earlier = [(die(BLUE, 0), 2), (die(BLUE, 1), 3), (die(GREEN, 0), 1), (die(GREEN, 1), 4)]
    for action, bump in (
        ("yamen", K.Yamen(die=die(RED, 1), tile="flat_points")),
        ("confucius_temple", K.ConfuciusTemple(die=die(RED, 1))),
        ("city_god_temple", K.CityGodTemple(die=die(RED, 1))),
    ):
        limit = C.resting_capacity(action)
        full = Table(dice={die(RED, 1): 6, **KEEP}, at={action: earlier[: limit + 1]}).head_office(RED, 5)
        full.when(RED, bump).raises("resting_area_full")
        room = Table(dice={die(RED, 1): 6, **KEEP}, at={action: earlier[:limit]}).head_office(RED, 5)
        assert room.when(RED, bump).events()[0].bumped == earlier[limit - 1][0]


def test_resting_area_limit_is_the_same_at_every_player_count():
    """Components, Main Board 7 (the limits are printed on the board, "depending on the action"):
    given a 3-player game with 2 dice resting at West Street, a die may still bump there (pingyao-2:
    "3 players at most 2")."""
    at = {"west_street": [(die(BLUE, 0), 2), (die(BLUE, 1), 3), (die(RED, 0), 1)]}
    t = Table(players=3, dice={die(GREEN, 1): 6}, at=at)
    assert t.when(GREEN, K.WestStreet(die=die(GREEN, 1))).events()[0].bumped == die(RED, 0)
    Table(players=3, dice={die(GREEN, 1): 6}, at=at, rules=PINGYAO_2).when(
        GREEN, K.WestStreet(die=die(GREEN, 1))
    ).raises("resting_area_full")


def test_solo_resting_areas_have_the_action_s_limit():
    """Solo Rules, Setup: "all other setup is as in the 3-player game" - the board's limits.
    Given E01 (Bank Escort: a four-sided die resting, a six-sided die on the space), when the player
    bumps twice, then the second bump still finds room (Bank Escort holds 3; pingyao-2: 2)."""
    flipped = revealed("E01")
    taken = {x.value for x in flipped.dice if x.action == "bank_escort"}
    free = [v for v in range(1, 7) if v not in taken]
    t = Table(players=1, card=flipped, dice={die(RED, 1): free[-1], die(RED, 2): free[0]})
    t.copper(RED, 50).head_office(RED, 10)
    s, _ = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=1, color="yellow"))
    while s.frames:
        s, _ = step(s, RED, GAME.legal_moves(s, RED)[-1])
    assert resting_capacity(s, "bank_escort") == 3
    assert K.BankEscort(die=die(RED, 2), tier=1, color="green") in GAME.legal_moves(s, RED)


# --- 2. Emergency fund transfer with under 5 copper (argued: kept) --------------------------------------
def test_emergency_transfer_short_of_copper_still_delivers_the_silver():
    """Emergency Fund Transfer: "they must pay a shipping fee of 5 copper coins per silver ingot to
    move a silver ingot from one of their piaohao that has silver to the piaohao that needs it. If a
    player does not have enough copper coins to pay the shipping fee, they instead return a silver
    ingot from any one of their piaohao to the supply, in place of paying the fee."  The silver
    replaces the fee, not the shipment: given a deposit to return with 1 silver short and under 5
    copper, when the transfer is made, then the shipped silver reaches the Deposit area (the reason
    for the transfer) and a second silver goes to the supply as the fee."""
    t = Table(round=3, dice={die(RED, 1): 3}).deposit(RED, 1).head_office(RED, 1).copper(RED, 0)
    s2, _ = step(t.state, RED, K.Decline(die=die(RED, 1)))
    assert s2.frames[0].kind == "transfer" and s2.frames[0].dest == C.HEAD_OFFICE
    assert s2.pl[RED].copper < C.TRANSFER_FEE and s2.pl[RED].regions["1red"].silver == 2
    assert GAME.legal_moves(s2, RED) == [K.TransferFunds(source="1red", fee_source="1red")]
    supply = s2.supply_silver
    s3, ev = step(s2, RED, K.TransferFunds(source="1red", fee_source="1red"))
    assert E.DepositSilverReturned(seat=RED, silver=1) in ev
    assert s3.pl[RED].deposit_area == 2 and s3.pl[RED].regions["1red"].silver == 0
    assert s3.supply_silver == supply + 1


# --- 3. Changde, Lasa and Jinzhou on your die's turn -------------------------------------------------
def _action_turn(tile: str, rules: str = PINGYAO_3) -> Table:
    """Red's turn with two 4s in the Action Phase, `tile` staffed."""
    t = Table(dice={die(RED, 1): 4, die(RED, 2): 4, die(BLUE, 1): 4, **KEEP}, rules=rules)
    return t.branch(RED, "1yellow", tile, tellers=1)


def test_changde_on_your_die_s_turn_in_the_action_phase():
    """Action Phase: "When it is your die's turn to act, you choose to trigger, for example, your
    Tier-1 branch Changde's skill, changing one of your teller dice showing 4 to a 5. After the value
    changes, move that die (now showing 5) from number area 4 to number area 5."
    Given red's turn with two 4s and a staffed Changde, when red uses Changde on one of them, then
    that die shows 5 and, the highest value, acts next; the skill is used for the round."""
    t = _action_turn("Changde#1")
    assert GAME.to_act(t.state) == [RED]
    assert K.AdjustDie(skill="die_plus", die=die(RED, 1)) in t.legal(RED)
    s2, ev = step(t.state, RED, K.AdjustDie(skill="die_plus", die=die(RED, 1)))
    assert ev == [E.DieAdjusted(seat=RED, skill="die_plus", die=die(RED, 1), value=5)]
    assert s2.dice[die(RED, 1)].value == 5 and s2.dice[die(RED, 1)].where == "number"
    assert GAME.to_act(s2) == [RED]
    moves = GAME.legal_moves(s2, RED)
    assert {m.die for m in moves if hasattr(m, "die")} == {die(RED, 1)}  # the 5 acts first
    assert not any(isinstance(m, K.AdjustDie) for m in moves)  # "once per round"


def test_lasa_and_jinzhou_on_your_die_s_turn_but_not_on_another_s():
    """Tier 1 Branches: Lasa (-1) and Jinzhou (+1 and -1), like Changde in the Action Phase's
    example: on the player's die's turn, not on another player's."""
    t = _action_turn("Lasa#1")
    assert K.AdjustDie(skill="die_minus", die=die(RED, 2)) in t.legal(RED)
    t.when(BLUE, K.AdjustDie(skill="die_minus", die=die(RED, 2))).raises("not_your_turn")
    t = _action_turn("Jinzhou#1")
    assert K.SwapDice(up=die(RED, 1), down=die(RED, 2)) in t.legal(RED)
    _, ev = step(t.state, RED, K.SwapDice(up=die(RED, 1), down=die(RED, 2)))
    assert [(e.die, e.value) for e in ev] == [(die(RED, 1), 5), (die(RED, 2), 3)]


def test_a_die_skill_used_in_preparation_is_not_used_again_on_the_turn():
    """Tier 1 Branches, Changde: "once per round"."""
    t = _action_turn("Changde#1").fold(E.DieAdjusted(seat=RED, skill="die_plus", die=die(RED, 0), value=2))
    assert not any(isinstance(m, K.AdjustDie) for m in t.legal(RED))
    t.when(RED, K.AdjustDie(skill="die_plus", die=die(RED, 1))).raises("skill_unavailable")


def test_no_die_skill_between_a_reroll_and_its_action():
    """Action Phase: after a reroll the die "must then immediately perform the action"."""
    t = _action_turn("Changde#1")
    t.fold(*t.when(RED, K.Reroll(die=die(RED, 1)), seed=_seed_rolling(3)).events())
    t.when(RED, K.AdjustDie(skill="die_plus", die=die(RED, 2))).raises("skill_unavailable")


def test_pingyao_2_die_skills_only_in_preparation():
    """Rules pingyao-2 (games set up under it): Lasa, Changde and Jinzhou only in Preparation."""
    t = _action_turn("Changde#1", rules=PINGYAO_2)
    assert not any(isinstance(m, K.AdjustDie) for m in t.legal(RED))
    t.when(RED, K.AdjustDie(skill="die_plus", die=die(RED, 1))).raises("wrong_decision")


# --- 4. Xinyizhou and Incheon exchanges advance the Exchange track --------------------------------------
def _entering(tile: str, region: str, rules: str) -> Table:
    """Red keeps `tile`, drawn at Bank Escort for `region`; the exchange deck is X09 alone."""
    t = Table(dice={die(RED, 2): 1, **KEEP}, rules=rules).head_office(RED, 3).deck("X09")
    t.fold(E.BranchTilesDrawn(seat=RED, tier=int(region[0]), region=region, cost=0, count=1, tiles=[tile]))
    return t.decision("choose_branch", RED, region=region)


@pytest.mark.parametrize(("tile", "region"), [("Xinyizhou#1", "1green"), ("Incheon#1", "2green")])
def test_promo_exchanges_advance_the_exchange_track_without_the_fee(tile, region):
    """Xinyizhou / Incheon: "draw 1 exchange card, resolve its effect without collecting the handling
    fee"; Event Card Reward Notes 1: a granted exchange is an exchange action - "you may both
    collect the handling fee and advance your exchange marker one space".  Given the on-entry
    exchange, when it is placed, then no fee is collected and the Exchange track advances
    (pingyao-2: it did not advance)."""
    for rules, advance in ((PINGYAO_3, 1), (PINGYAO_2, 0)):
        s, _ = step(_entering(tile, region, rules).state, RED, K.ChooseBranch(tile=tile))
        s, _ = step(s, RED, K.UseEntrySkill(use=True))
        before = s.pl[RED].copper
        s, ev = step(s, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="1red"))
        placed = next(e for e in ev if isinstance(e, E.ExchangePlaced))
        assert placed.fee == 0 and s.pl[RED].copper == before
        assert placed.advance == bool(advance) and s.pl[RED].exchange == advance, rules


# --- 5. A rerolled die must act -------------------------------------------------------------------------
def test_a_rerolled_die_must_perform_an_action():
    """Action Phase: "a player may pay a reroll fee ... to reroll that teller die once, and must then
    immediately perform the action indicated by the new value".  Given red rerolled a 6 into a 4
    with 4 copper left, when red would decline or discard it, then it is refused (`must_act`): only
    dispatches are listed."""
    t = Table(dice={die(RED, 1): 6, **KEEP}).copper(RED, 6)
    t.fold(*t.when(RED, K.Reroll(die=die(RED, 1)), seed=_seed_rolling(4)).events())
    assert t.state.pl[RED].copper == 4 and t.state.forced_die == die(RED, 1)
    t.when(RED, K.Decline(die=die(RED, 1))).raises("must_act")
    t.when(RED, K.DiscardDie(die=die(RED, 1))).raises("must_act")
    moves = t.legal(RED)
    assert moves and all(type(m) in K.DISPATCH for m in moves)


def test_a_rerolled_die_that_can_perform_no_action_is_returned():
    """Assessing the Situation: "or no player is able to perform any available action ... the player
    may decline to act".  Given red rerolled into a 2 and every action holds a 2, when red declines
    or (under 5 copper) discards, then it is allowed."""
    at = {
        a: [(d, 2)]
        for a, d in zip(
            C.ACTIONS,
            (die(BLUE, 0), die(BLUE, 1), die(BLUE, 2), die(GREEN, 0), die(GREEN, 1), die(GREEN, 2)),
            strict=True,
        )
    }
    t = Table(dice={die(RED, 1): 6, **KEEP}, at=at).copper(RED, 3)
    t.fold(*t.when(RED, K.Reroll(die=die(RED, 1)), seed=_seed_rolling(2)).events())
    assert set(t.legal(RED)) == {K.Decline(die=die(RED, 1)), K.DiscardDie(die=die(RED, 1))}
    assert t.when(RED, K.Decline(die=die(RED, 1))).events()[0] == E.DieDeclined(seat=RED, die=die(RED, 1))


def test_pingyao_2_a_rerolled_die_may_be_declined():
    """Rules pingyao-2 (games set up under it): a rerolled die could still be declined or discarded."""
    t = Table(dice={die(RED, 1): 6, **KEEP}, rules=PINGYAO_2).copper(RED, 6)
    t.fold(*t.when(RED, K.Reroll(die=die(RED, 1)), seed=_seed_rolling(4)).events())
    assert {K.Decline(die=die(RED, 1)), K.DiscardDie(die=die(RED, 1))} <= set(t.legal(RED))

"""Branch skills (starting, Tier 1-3, crowdfunding) and Yamen support tiles at their timings."""

import pytest

from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.rules import income_parts
from domain.pingyao.scoring import breakdown
from tests.support import given_state

from .helpers import BLUE, GREEN, RED, die, frame, keep_going, put, step, table


def staffed(s, seat, region, tile):
    r = s.pl[seat].regions[region]
    r.tile, r.tellers = tile, 1


def prep_table(tile, region="1yellow"):
    s = table()
    s.phase = "prep"
    staffed(s, RED, region, tile)
    put(s, die(RED, 0), 4)
    put(s, die(RED, 1), 1)
    put(s, die(RED, 2), 6)
    keep_going(s)
    frame(s, "prep", RED)
    return s


# --- Tier 1 activation skills (Preparation phase, once per round) --------------------------------------
def test_lasa_die_minus_one_once_per_round_not_below_one():
    s = prep_table("Lasa#1")
    moves = GAME.legal_moves(s, RED)
    assert K.AdjustDie(skill="die_minus", die=die(RED, 0)) in moves
    assert K.AdjustDie(skill="die_minus", die=die(RED, 1)) not in moves  # already 1
    s2, ev = step(s, RED, K.AdjustDie(skill="die_minus", die=die(RED, 2)))
    assert ev == [E.DieAdjusted(seat=RED, skill="die_minus", die=die(RED, 2), value=5)]
    assert s2.dice[die(RED, 2)].value == 5  # moved to number area 5
    assert not any(isinstance(m, K.AdjustDie) for m in GAME.legal_moves(s2, RED))
    given_state(GAME, s2).when(RED, K.AdjustDie(skill="die_minus", die=die(RED, 0))).raises("skill_unavailable")


def test_skill_needs_its_branch_teller():
    s = prep_table("Lasa#1")
    s.pl[RED].regions["1yellow"].tellers = 0
    assert not any(isinstance(m, K.AdjustDie) for m in GAME.legal_moves(s, RED))


def test_changde_die_plus_one_within_range():
    s = prep_table("Changde#1")
    moves = GAME.legal_moves(s, RED)
    assert K.AdjustDie(skill="die_plus", die=die(RED, 0)) not in moves  # large die at 4
    assert K.AdjustDie(skill="die_plus", die=die(RED, 2)) not in moves  # 6
    assert K.AdjustDie(skill="die_plus", die=die(RED, 1)) in moves


def test_jinzhou_one_up_another_down_both_change():
    s = prep_table("Jinzhou#1")
    swaps = {(m.up, m.down) for m in GAME.legal_moves(s, RED) if isinstance(m, K.SwapDice)}
    assert swaps == {(die(RED, 1), die(RED, 0)), (die(RED, 1), die(RED, 2))}
    s2, ev = step(s, RED, K.SwapDice(up=die(RED, 1), down=die(RED, 2)))
    assert [e.value for e in ev] == [2, 5]


def test_jiujiang_pay_two_to_bring_silver_home():
    s = prep_table("Jiujiang#1")
    s.pl[RED].copper = 5
    assert K.RecallSilver(region="1red") in GAME.legal_moves(s, RED)
    s2, ev = step(s, RED, K.RecallSilver(region="1red"))
    assert ev == [E.SilverRecalled(seat=RED, region="1red", cost=2)]
    assert s2.pl[RED].head_office == 3 and s2.pl[RED].regions["1red"].silver == 1 and s2.pl[RED].copper == 3


def test_prep_frames_queued_in_player_order_for_those_with_something_to_do():
    s = table(round=2, start=BLUE)
    staffed(s, RED, "1yellow", "Changde#1")
    s.pl[GREEN].copper = 20
    put(s, die(RED, 1), 3)
    from .helpers import finish_round
    s.pl[BLUE].copper = s.pl[2].copper = 0
    s.pl[3].copper = 0
    s.pl[RED].copper = 0
    s.pl[GREEN].copper = 20
    _, ev = step(s, RED, K.Decline(die=die(RED, 1)))
    q = [e for e in ev if isinstance(e, E.DecisionQueued)][-1]
    assert [(f.kind, f.seat) for f in q.frames] == [("prep", GREEN), ("prep", RED)]
    del finish_round


# --- Permanent and on-entry skills ---------------------------------------------------------------------
def test_xiangyang_reroll_discount():
    s = table()
    staffed(s, RED, "1yellow", "Xiangyang#1")
    put(s, die(RED, 1), 6)
    keep_going(s)
    ev = given_state(GAME, s).when(RED, K.Reroll(die=die(RED, 1))).events()
    assert ev[0].cost == 1
    put(s, die(RED, 1), 2)
    ev = given_state(GAME, s).when(RED, K.Reroll(die=die(RED, 1))).events()
    assert ev[0].cost == 0


def entry_table(tile, region):
    s = table()
    keep_going(s)
    put(s, die(RED, 2), 1)
    s.pl[RED].head_office = 3
    s.drawn, s.drawn_tier, s.drawn_region = [tile], int(region[0]), region
    frame(s, "choose_branch", RED, region=region)
    return s


def test_kobe_one_reputation_on_entry():
    s2, ev = step(entry_table("Kobe#1", "1green"), RED, K.ChooseBranch(tile="Kobe#1"))
    assert s2.pl[RED].reputation == 2  # Tier 1 +1 and Kobe +1 -> the reputation-2 teller bonus
    assert "rep2" in s2.pl[RED].bonuses


def test_singapore_pay_two_for_two_reputation_optional():
    s2, _ = step(entry_table("Singapore#1", "3green"), RED, K.ChooseBranch(tile="Singapore#1"))
    assert s2.frames[0].kind == "entry_skill"
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.ReputationGained(seat=RED, amount=2, cost=2, reason="Singapore") in ev
    s3, ev = step(s2, RED, K.UseEntrySkill(use=False))
    assert s3.pl[RED].reputation == 0 and not s3.frames


def test_suzhou_pay_two_recruit_a_teller():
    s2, _ = step(entry_table("Suzhou#1", "2green"), RED, K.ChooseBranch(tile="Suzhou#1"))
    s3, _ = step(s2, RED, K.UseEntrySkill(use=True))
    assert s3.frames[0].kind == "place_teller" and s3.frames[0].cost == 2
    s4, ev = step(s3, RED, K.PlaceTeller(target="2green:manager"))
    assert s4.pl[RED].regions["2green"].managers == 1 and s4.pl[RED].copper == s3.pl[RED].copper - 2


def test_xinyizhou_one_month_exchange_without_fee():
    s = entry_table("Xinyizhou#1", "1green")
    s.deck = ["X09"]
    s2, _ = step(s, RED, K.ChooseBranch(tile="Xinyizhou#1"))
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    moves = GAME.legal_moves(s3, RED)
    assert moves and all(m.months == 1 for m in moves)
    s4, ev = step(s3, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="1red"))
    assert ev[0].fee == 0 and s4.pl[RED].exchange == 0


def test_incheon_two_copper_and_up_to_two_month_exchange():
    s = entry_table("Incheon#1", "2green")
    s.deck = ["X09"]
    s2, _ = step(s, RED, K.ChooseBranch(tile="Incheon#1"))
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.CopperGained(seat=RED, amount=2, reason="Incheon") in ev
    assert max(m.months for m in GAME.legal_moves(s3, RED)) == 2


def test_tokyo_recall_and_reassign_every_teller():
    s = entry_table("Tokyo#1", "3green")
    p = s.pl[RED]
    staffed(s, RED, "2red", "Guilin#1")
    p.regions["2red"].managers = 1
    p.regions["1yellow"].waiting = 1
    s2, _ = step(s, RED, K.ChooseBranch(tile="Tokyo#1"))
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.TellersRecalled(seat=RED, count=3) in ev
    assert [f.kind for f in s3.frames] == ["place_teller"] * 3
    assert "3green:manager" in {m.target for m in GAME.legal_moves(s3, RED)}


def test_kaifeng_is_every_colour_for_exchanges():
    from domain.pingyao.board import colors_of
    s = table()
    s.pl[RED].regions["2yellow"].tile = "Kaifeng#1"
    assert colors_of(s.pl[RED], "2yellow") == ("red", "yellow", "green")
    assert colors_of(s.pl[RED], "1red") == ("red",) and colors_of(s.pl[RED], "HO") == ("red", "yellow", "green")


# --- End-game skills ----------------------------------------------------------------------------------
@pytest.mark.parametrize("tile,setup,points", [
    ("Guangzhou#1", lambda p: None, 2),  # green: Guangzhou itself (3green) and Kaifeng
    ("Shuntian#1", lambda p: setattr(p, "reputation", 11), 2),
    ("Taipei#1", lambda p: setattr(p.regions["3green"], "managers", 2), 3),
    ("Jinan#1", lambda p: setattr(p, "exchange", 7), 2),
    ("Macau#1", lambda p: setattr(p.regions["3green"], "silver", 4), 3),
    ("Moscow#1", lambda p: None, 1),
])
def test_end_game_skills(tile, setup, points):
    s = table()
    p = s.pl[RED]
    p.regions["2yellow"].tile = "Kaifeng#1"
    p.regions["3green"].tile = tile
    p.regions["3green"].tellers = 1 if not tile.startswith("Moscow") else 0
    setup(p)
    assert breakdown(p)["branch_skills"] == points
    p.regions["3green"].tellers = 0
    if not tile.startswith("Moscow"):
        assert breakdown(p)["branch_skills"] == 0


# --- Yamen support tiles ------------------------------------------------------------------------------
def test_yamen_tier1_income_excludes_the_starting_branch():
    s = table()
    p = s.pl[RED]
    p.yamen = ["tier1_income"]
    p.regions["1yellow"].tile, p.regions["1yellow"].silver = "Lasa#1", 2
    assert income_parts(p)["yamen"] == 4


def test_yamen_tier2_staffed_3_7_11():
    s = table()
    p = s.pl[RED]
    p.yamen = ["tier2_staffed"]
    for n, (c, extra) in enumerate(zip(("red", "yellow", "green"), (3, 7, 11))):
        p.regions[f"2{c}"].tile = "Kaifeng#1"
        p.regions[f"2{c}"].managers = 1
        assert income_parts(p)["yamen"] == extra


def test_yamen_lending_income_per_two_silver():
    s = table()
    p = s.pl[RED]
    p.yamen = ["lending_income"]
    p.lending = [2, 1, 0]
    assert income_parts(p)["yamen"] == 3


def test_yamen_exchange_fee_plus_three():
    s = table()
    put(s, die(RED, 1), 2)
    keep_going(s)
    s.deck = ["X09"]
    s.pl[RED].yamen = ["exchange_fee"]
    s2, _ = step(s, RED, K.WestStreet(die=die(RED, 1)))
    _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="1red"))
    assert ev[0].fee == 5


def test_yamen_reputation_extra_with_3_to_6():
    s = table()
    put(s, die(RED, 1), 5)
    keep_going(s)
    s.pl[RED].yamen = ["reputation_extra"]
    ev = given_state(GAME, s).when(RED, K.CityGodTemple(die=die(RED, 1), extra=True)).events()
    assert ev[1] == E.ReputationGained(seat=RED, amount=2, cost=2, reason="city_god_temple")
    put(s, die(RED, 1), 2)
    given_state(GAME, s).when(RED, K.CityGodTemple(die=die(RED, 1), extra=True)).raises("extra_not_allowed")


def test_yamen_any_value_once_per_round_lower_gains():
    s = table()
    put(s, die(RED, 1), 6, "space", "money_house")
    put(s, die(GREEN, 1), 5)
    keep_going(s)
    s.pl[GREEN].yamen = ["any_value"]
    moves = GAME.legal_moves(s, GREEN)
    assert K.MoneyHouseLend(die=die(GREEN, 1), months=3, amount=2, value=2) in moves
    s2, ev = step(s, GREEN, K.MoneyHouseLend(die=die(GREEN, 1), months=3, amount=2, value=2))
    assert ev[0] == E.DieDispatched(seat=GREEN, die=die(GREEN, 1), action="money_house", value=2,
                                    bumped=die(RED, 1), copper=4)
    assert "any_value" in s2.pl[GREEN].used_round
    put(s2, die(GREEN, 2), 4)
    s2.dice[die(1, 2)].where = "done"
    assert not any(getattr(m, "value", 0) for m in GAME.legal_moves(s2, GREEN))
    s.pl[GREEN].yamen = []
    given_state(GAME, s).when(GREEN, K.MoneyHouseLend(die=die(GREEN, 1), months=3, amount=2, value=2)).raises(
        "value_change_unavailable")


def test_yamen_tier3_any_value_and_free_teller():
    s = table()
    put(s, die(RED, 1), 6)
    keep_going(s)
    s.pl[RED].copper, s.pl[RED].head_office = 30, 3
    s.pl[RED].yamen = ["tier3_any"]
    s.stacks["3"] = ["Jinan#1", "Shuntian#1", "Taipei#1", "Macau#1"]
    s2, _ = step(s, RED, K.BankEscort(die=die(RED, 1), tier=3, color="green"))
    s3, ev = step(s2, RED, K.ChooseBranch(tile="Jinan#1"))
    assert "tier3_teller" in s3.pl[RED].bonuses and s3.frames[0].kind == "place_teller"


def test_yamen_flat_points():
    s = table()
    s.pl[RED].yamen = ["flat_points"]
    assert breakdown(s.pl[RED])["yamen"] == 4

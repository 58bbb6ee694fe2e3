"""Branch skills (starting, Tier 1-3, crowdfunding) and Yamen support tiles at their timings."""

import pytest

from domain.pingyao import GAME
from domain.pingyao import commands as K
from domain.pingyao import events as E
from domain.pingyao.board import colors_of
from domain.pingyao.income import income_parts
from domain.pingyao.scoring import breakdown
from tests.support import given_state

from .helpers import BLUE, GREEN, RED, YELLOW, Table, die, step

KEEP = {die(BLUE, 2): 1}


def prep(tile: str, region: str = "1yellow") -> Table:
    """Preparation phase, red's dice 4 (large), 1 and 6, the staffed `tile` on `region`."""
    t = Table(phase="prep", dice={die(RED, 0): 4, die(RED, 1): 1, die(RED, 2): 6, **KEEP})
    return t.branch(RED, region, tile, tellers=1).decision("prep", RED)


# --- Tier 1 activation skills (Preparation phase, once per round) --------------------------------------
def test_lasa_die_minus_one_once_per_round_not_below_one():
    t = prep("Lasa#1")
    moves = t.legal(RED)
    assert K.AdjustDie(skill="die_minus", die=die(RED, 0)) in moves
    assert K.AdjustDie(skill="die_minus", die=die(RED, 1)) not in moves  # already 1
    t.when(RED, K.AdjustDie(skill="die_minus", die=die(RED, 1))).raises("skill_unavailable")
    t.when(RED, K.AdjustDie(skill="die_plus", die=die(RED, 0))).raises("skill_unavailable")  # not Changde
    t.when(RED, K.AdjustDie(skill="die_minus", die=die(BLUE, 2))).raises("skill_unavailable")  # not red's die
    s2, ev = step(t.state, RED, K.AdjustDie(skill="die_minus", die=die(RED, 2)))
    assert ev == [E.DieAdjusted(seat=RED, skill="die_minus", die=die(RED, 2), value=5)]
    assert s2.dice[die(RED, 2)].value == 5  # moved to number area 5
    assert not any(isinstance(m, K.AdjustDie) for m in GAME.legal_moves(s2, RED))
    given_state(GAME, s2).when(RED, K.AdjustDie(skill="die_minus", die=die(RED, 0))).raises(
        "skill_unavailable"
    )


def test_skill_needs_its_branch_teller():
    t = Table(phase="prep", dice={die(RED, 0): 4}).branch(RED, "1yellow", "Lasa#1").decision("prep", RED)
    assert not any(isinstance(m, K.AdjustDie) for m in t.legal(RED))


def test_changde_die_plus_one_within_range():
    moves = prep("Changde#1").legal(RED)
    assert K.AdjustDie(skill="die_plus", die=die(RED, 0)) not in moves  # large die at 4
    assert K.AdjustDie(skill="die_plus", die=die(RED, 2)) not in moves  # 6
    assert K.AdjustDie(skill="die_plus", die=die(RED, 1)) in moves


def test_jinzhou_one_up_another_down_both_change():
    t = prep("Jinzhou#1")
    swaps = {(m.up, m.down) for m in t.legal(RED) if isinstance(m, K.SwapDice)}
    assert swaps == {(die(RED, 1), die(RED, 0)), (die(RED, 1), die(RED, 2))}
    t.when(RED, K.SwapDice(up=die(RED, 1), down=die(RED, 1))).raises("skill_unavailable")
    _, ev = step(t.state, RED, K.SwapDice(up=die(RED, 1), down=die(RED, 2)))
    assert [e.value for e in ev] == [2, 5]


def test_jiujiang_pay_two_to_bring_silver_home():
    t = prep("Jiujiang#1").copper(RED, 5)
    assert K.RecallSilver(region="1red") in t.legal(RED)
    t.when(RED, K.RecallSilver(region="1yellow")).raises("skill_unavailable")  # no silver there
    s2, ev = step(t.state, RED, K.RecallSilver(region="1red"))
    assert ev == [E.SilverRecalled(seat=RED, region="1red", cost=2)]
    assert s2.pl[RED].head_office == 3 and s2.pl[RED].regions["1red"].silver == 1 and s2.pl[RED].copper == 3
    t.copper(RED, 1).when(RED, K.RecallSilver(region="1red")).raises("insufficient_copper")


def test_copper_to_silver_at_ten_to_one():
    t = prep("Lasa#1").copper(RED, 25)
    moves = t.legal(RED)
    assert K.ConvertCopper(silver=2) in moves and K.ConvertCopper(silver=3) not in moves
    t.when(RED, K.ConvertCopper(silver=3)).raises("insufficient_copper")
    t.when(RED, K.ConvertCopper(silver=0)).raises("invalid_amount")
    assert t.when(RED, K.ConvertCopper(silver=2)).events() == [E.CopperConverted(seat=RED, silver=2)]


def test_prep_frames_queued_in_player_order_for_those_with_something_to_do():
    t = Table(round=2, start=BLUE, dice={die(RED, 1): 3}).branch(RED, "1yellow", "Changde#1", tellers=1)
    for seat in (RED, BLUE, YELLOW):
        t.copper(seat, 0)
    t.copper(GREEN, 20)
    _, ev = step(t.state, RED, K.Decline(die=die(RED, 1)))
    q = [e for e in ev if isinstance(e, E.DecisionQueued)][-1]
    assert [(f.kind, f.seat) for f in q.frames] == [("prep", GREEN), ("prep", RED)]


# --- Permanent and on-entry skills ---------------------------------------------------------------------
def test_xiangyang_reroll_discount():
    t = Table(dice={die(RED, 1): 6, **KEEP}).branch(RED, "1yellow", "Xiangyang#1", tellers=1)
    assert t.when(RED, K.Reroll(die=die(RED, 1))).events()[0].cost == 1
    t = Table(dice={die(RED, 1): 2, **KEEP}).branch(RED, "1yellow", "Xiangyang#1", tellers=1)
    assert t.when(RED, K.Reroll(die=die(RED, 1))).events()[0].cost == 0


def entering(tile: str, region: str, t: Table | None = None) -> Table:
    """Red has drawn `tile` at Bank Escort for `region` and keeps it next."""
    t = (t or Table(dice={die(RED, 2): 1, **KEEP})).head_office(RED, 3)
    tier = int(region[0])
    return t.fold(
        E.BranchTilesDrawn(seat=RED, tier=tier, region=region, cost=0, count=1, tiles=[tile])
    ).decision("choose_branch", RED, region=region)


def test_kobe_one_reputation_on_entry():
    s2, _ = step(entering("Kobe#1", "1green").state, RED, K.ChooseBranch(tile="Kobe#1"))
    assert s2.pl[RED].reputation == 2  # Tier 1 +1 and Kobe +1 -> the reputation-2 teller bonus
    assert "rep2" in s2.pl[RED].bonuses


def test_singapore_pay_two_for_two_reputation_optional():
    s2, _ = step(entering("Singapore#1", "3green").state, RED, K.ChooseBranch(tile="Singapore#1"))
    assert s2.frames[0].kind == "entry_skill"
    _, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.ReputationGained(seat=RED, amount=2, cost=2, reason="Singapore") in ev
    s3, _ = step(s2, RED, K.UseEntrySkill(use=False))
    assert s3.pl[RED].reputation == 0 and not s3.frames


def test_suzhou_pay_two_recruit_a_teller():
    s2, _ = step(entering("Suzhou#1", "2green").state, RED, K.ChooseBranch(tile="Suzhou#1"))
    s3, _ = step(s2, RED, K.UseEntrySkill(use=True))
    assert s3.frames[0].kind == "place_teller" and s3.frames[0].cost == 2
    s4, _ = step(s3, RED, K.PlaceTeller(target="2green:manager"))
    assert s4.pl[RED].regions["2green"].managers == 1 and s4.pl[RED].copper == s3.pl[RED].copper - 2


def test_a_teller_that_cannot_be_paid_for_is_lost():
    t = Table(dice=KEEP).copper(RED, 1).decision("place_teller", RED, cost=2)
    assert t.legal(RED) == [K.PlaceTeller(target="")]
    t.when(RED, K.PlaceTeller(target="1green:wait")).raises("insufficient_copper")


def test_xinyizhou_one_month_exchange_without_fee():
    """Xinyizhou: "draw 1 exchange card and resolve its effect without collecting the handling fee,
    then place it at position 1"; the exchange advances the Exchange track (pingyao-3)."""
    s2, _ = step(entering("Xinyizhou#1", "1green").deck("X09").state, RED, K.ChooseBranch(tile="Xinyizhou#1"))
    s3, _ = step(s2, RED, K.UseEntrySkill(use=True))
    moves = GAME.legal_moves(s3, RED)
    assert moves and all(m.months == 1 for m in moves)
    s4, ev = step(s3, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="1red"))
    assert ev[0].fee == 0 and s4.pl[RED].exchange == 1


def test_incheon_two_copper_and_up_to_two_month_exchange():
    s2, _ = step(entering("Incheon#1", "2green").deck("X09").state, RED, K.ChooseBranch(tile="Incheon#1"))
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.CopperGained(seat=RED, amount=2, reason="Incheon") in ev
    assert max(m.months for m in GAME.legal_moves(s3, RED)) == 2


def test_tokyo_recall_and_reassign_every_teller():
    t = (
        Table(dice={die(RED, 2): 1, **KEEP})
        .branch(RED, "2red", "Guilin#1", tellers=1, managers=1)
        .teller(RED, "1yellow:wait")
    )
    t = entering("Tokyo#1", "3green", t)
    s2, _ = step(t.state, RED, K.ChooseBranch(tile="Tokyo#1"))
    s3, ev = step(s2, RED, K.UseEntrySkill(use=True))
    assert E.TellersRecalled(seat=RED, count=3) in ev
    assert [f.kind for f in s3.frames] == ["place_teller"] * 3
    assert "3green:manager" in {m.target for m in GAME.legal_moves(s3, RED)}


def test_kaifeng_is_every_colour_for_exchanges():
    p = Table().branch(RED, "2yellow", "Kaifeng#1").state.pl[RED]
    assert colors_of(p, "2yellow") == ("red", "yellow", "green")
    assert colors_of(p, "1red") == ("red",) and colors_of(p, "HO") == ("red", "yellow", "green")


# --- End-game skills ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "tile,setup,points",
    [
        ("Guangzhou#1", lambda t: t, 2),  # green: Guangzhou itself (3green) and Kaifeng
        ("Shuntian#1", lambda t: t.reputation(RED, 11), 2),
        ("Taipei#1", lambda t: t.teller(RED, "3green:manager").teller(RED, "3green:manager"), 3),
        ("Jinan#1", lambda t: t.exchanges(RED, 7), 2),
        ("Macau#1", lambda t: t.silver(RED, "3green", 4), 3),
        ("Moscow#1", lambda t: t, 1),
    ],
)
def test_end_game_skills(tile, setup, points):
    unstaffed = setup(Table().branch(RED, "2yellow", "Kaifeng#1").branch(RED, "3green", tile))
    staffed = setup(
        Table()
        .branch(RED, "2yellow", "Kaifeng#1")
        .branch(RED, "3green", tile, tellers=0 if tile == "Moscow#1" else 1)
    )
    assert breakdown(staffed.state.pl[RED])["branch_skills"] == points
    if tile != "Moscow#1":  # "Activates once a branch teller is placed"
        assert breakdown(unstaffed.state.pl[RED])["branch_skills"] == 0


# --- Yamen support tiles ------------------------------------------------------------------------------
def test_yamen_tier1_income_excludes_the_starting_branch():
    t = Table().yamen(RED, "tier1_income").branch(RED, "1yellow", "Lasa#1", silver=2)
    assert income_parts(t.state.pl[RED])["yamen"] == 4


def test_yamen_tier2_staffed_3_7_11():
    t = Table().yamen(RED, "tier2_staffed")
    for color, extra in zip(("red", "yellow", "green"), (3, 7, 11), strict=True):
        t.branch(RED, f"2{color}", "Kaifeng#1", managers=1)
        assert income_parts(t.state.pl[RED])["yamen"] == extra


def test_yamen_lending_income_per_two_silver():
    t = Table().yamen(RED, "lending_income").lend(RED, 1, 2).lend(RED, 2, 1)
    assert income_parts(t.state.pl[RED])["yamen"] == 3


def test_yamen_exchange_fee_plus_three():
    t = Table(dice={die(RED, 1): 2, **KEEP}).deck("X09").yamen(RED, "exchange_fee")
    s2, _ = step(t.state, RED, K.WestStreet(die=die(RED, 1)))
    _, ev = step(s2, RED, K.PlaceExchange(months=1, deposit="HO", withdraw="1red"))
    assert ev[0].fee == 5


def test_yamen_reputation_extra_with_3_to_6():
    t = Table(dice={die(RED, 1): 5, **KEEP}).yamen(RED, "reputation_extra")
    ev = t.when(RED, K.CityGodTemple(die=die(RED, 1), extra=True)).events()
    assert ev[1] == E.ReputationGained(seat=RED, amount=2, cost=2, reason="city_god_temple")
    t = Table(dice={die(RED, 1): 2, **KEEP}).yamen(RED, "reputation_extra")
    t.when(RED, K.CityGodTemple(die=die(RED, 1), extra=True)).raises("extra_not_allowed")


def test_yamen_any_value_once_per_round_lower_gains():
    t = Table(dice={die(GREEN, 1): 5, die(GREEN, 2): 4, **KEEP}, at={"money_house": [(die(RED, 1), 6)]})
    t.yamen(GREEN, "any_value")
    move = K.MoneyHouseLend(die=die(GREEN, 1), months=3, amount=2, value=2)
    assert move in t.legal(GREEN)
    t.when(GREEN, K.MoneyHouseLend(die=die(GREEN, 1), months=3, amount=2, value=7)).raises(
        "value_change_unavailable"
    )
    s2, ev = step(t.state, GREEN, move)
    assert ev[0] == E.DieDispatched(
        seat=GREEN, die=die(GREEN, 1), action="money_house", value=2, bumped=die(RED, 1), copper=4
    )
    assert "any_value" in s2.pl[GREEN].used_round
    assert GAME.to_act(s2) == [GREEN] and not any(getattr(m, "value", 0) for m in GAME.legal_moves(s2, GREEN))
    no_tile = Table(dice={die(GREEN, 1): 5, **KEEP}, at={"money_house": [(die(RED, 1), 6)]})
    no_tile.when(GREEN, move).raises("value_change_unavailable")


def test_yamen_tier3_any_value_and_free_teller():
    t = Table(dice={die(RED, 1): 6, **KEEP}).copper(RED, 30).head_office(RED, 3).yamen(RED, "tier3_any")
    t.stack(3, "Jinan#1", "Shuntian#1", "Taipei#1", "Macau#1")
    s2, _ = step(t.state, RED, K.BankEscort(die=die(RED, 1), tier=3, color="green"))
    s3, _ = step(s2, RED, K.ChooseBranch(tile="Jinan#1"))
    assert "tier3_teller" in s3.pl[RED].bonuses and s3.frames[0].kind == "place_teller"


def test_yamen_flat_points():
    assert breakdown(Table().yamen(RED, "flat_points").state.pl[RED])["yamen"] == 4

"""Solo: Risheng Chang set-up, storyline cards, event cards (set-up dice, round goals, rewards,
reward notes) and the verdict at Normal and Hard."""

import msgspec
import pytest

from domain.kernel import InvalidOptions, Rng
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from domain.pingyao.action_phase import resting_capacity
from domain.pingyao.rules import refusal
from domain.pingyao.versions import PINGYAO_2
from tests.support import given_state, random_playout

from .helpers import Table, die, finish_round, revealed, step
from .test_playouts import check

ME = 0


def solo(
    card: str,
    round: int = 3,
    storyline: int = 1,
    dice: dict[int, int] | None = None,
    rules: str = GAME.rules_version,
) -> Table:
    """Action phase of a solo round with `card` flipped (its set-up dice rolled by the rules) and
    plenty of copper and silver; `dice` still to act, the other teller dice used."""
    t = Table(players=1, round=round, storyline=storyline, card=revealed(card), dice=dice, rules=rules)
    return t.copper(ME, 50).head_office(ME, 10)


def with_reward(card: str, **kw) -> Table:
    """The round goal of `card` met: its reward is offered."""
    return solo(card, **kw).fold(E.RoundGoalMet(card=card)).decision("round_reward", ME, card=card)


# --- set-up ------------------------------------------------------------------------------------
def test_solo_setup_risheng_chang():
    s, events = GAME.start(PingyaoOptions(players=1, storyline=2), "solo-setup")
    assert events[0] == E.GameSetUp(
        players=1, crowdfunding=False, starting=["Taiyuan"], start_player=0, rules_version=GAME.rules_version
    )
    assert events[1] == E.StorylineChosen(storyline=2, tile="exchange_fee")
    p = s.pl[ME]
    assert (p.copper, p.head_office, p.regions["1red"].silver) == (10, 1, 1)  # 1 + 1 starting silver
    assert p.yamen == ["exchange_fee"] and s.yamen_supply["exchange_fee"] == 0  # the storyline's tile
    assert len(s.dice) == 12 and sum(1 for d in s.dice if d.owner < 0) == 9  # 9 public dice
    # Taiyuan goes on any coloured Tier-1 region
    assert GAME.to_act(s) == [ME] and s.round == 0
    assert GAME.legal_moves(s, ME) == [K.PlaceStartingBranch(color=c) for c in C.COLORS]
    given_state(GAME, s).when(ME, K.PlaceStartingBranch(color="blue")).raises("invalid_region")
    s, ev = step(s, ME, K.PlaceStartingBranch(color="green"), seed="solo-setup")
    p = s.pl[ME]
    assert (
        p.regions["1green"].tile == "Taiyuan"
        and p.regions["1green"].silver == 1
        and not p.regions["1red"].tile
    )
    # round 1: an event card, and all 3 teller dice from the start
    flipped = next(e for e in ev if isinstance(e, E.EventCardRevealed))
    assert s.round == 1 and s.event_card == flipped.card
    rolled = next(e for e in ev if isinstance(e, E.DiceRolled)).values
    assert all(rolled[i] > 0 for i in range(3)) and all(v == 0 for v in rolled[3:])


def test_solo_has_no_action_forbidden_tiles():
    t = solo("E10", round=1, dice={die(ME, 1): 3})  # E10 leaves the Yamen and City God Temple empty
    assert K.Yamen(die=die(ME, 1), tile="any_value") in t.legal(ME)
    why = refusal(t.state, ME, K.ConfuciusTemple(die=die(ME, 1)))
    assert why is None or why.code != "action_closed"


@pytest.mark.parametrize("storyline", [0, 6])
def test_storyline_must_exist(storyline):
    with pytest.raises(InvalidOptions):
        GAME.setup(PingyaoOptions(players=1, storyline=storyline), Rng("x"))


def test_eight_of_ten_event_cards_are_flipped_one_per_round():
    result = random_playout(GAME, PingyaoOptions(players=1, storyline=3), "solo-cards")
    flipped = [e.card for e in result.events if isinstance(e, E.EventCardRevealed)]
    assert len(flipped) == 8 and len(set(flipped)) == 8 and set(flipped) <= set(C.EVENT_CARDS)


# --- event card set-up: earlier dice (block, pay, gain) ----------------------------------------
def _dispatch(d, action):
    return {
        "bank_escort": K.BankEscort(die=d, tier=1, color="yellow"),
        "confucius_temple": K.ConfuciusTemple(die=d),
        "west_street": K.WestStreet(die=d),
        "money_house": K.MoneyHouseLend(die=d, months=1, amount=2),
        "city_god_temple": K.CityGodTemple(die=d),
        "yamen": K.Yamen(die=d, tile="exchange_fee"),
    }[action]


@pytest.mark.parametrize("card", sorted(C.EVENT_CARDS))
def test_event_card_setup_dice_are_earlier_dice(card):
    flipped = revealed(card)
    ev = C.EVENT_CARDS[card]
    t = solo(card)
    # the set-up follows the card: a four-sided die in the resting area, then a six-sided die on the space
    for action in C.ACTIONS:
        mine = [d for d in flipped.dice if d.action == action]
        assert "".join("4" if t.state.dice[d.die].large else "6" for d in mine) == ev.setup.get(action, "")
        assert [d.space for d in mine] == [False] * (len(mine) - 1) + [True] * bool(mine)
        assert all(t.state.dice[d.die].where == ("space" if d.space else "rest") for d in mine)
    for sd in flipped.dice:
        resting = sum(1 for x in flipped.dice if x.action == sd.action and not x.space)
        for v in range(1, 7):
            t = solo(card, dice={die(ME, 1): v, die(ME, 2): 1})  # a spare 1 keeps the round going
            if any(x.value == v for x in flipped.dice if x.action == sd.action):  # equal: blocked
                t.when(ME, _dispatch(die(ME, 1), sd.action)).raises("same_value_blocked")
            elif sd.space:  # pay (lower) or gain (higher) the difference, bumping the set-up die
                assert resting < resting_capacity(t.state, sd.action)  # room for it (pingyao-4)
                first = t.when(ME, _dispatch(die(ME, 1), sd.action)).events()[0]
                assert first.bumped == sd.die and first.copper == v - sd.value


def test_pingyao_2_resting_area_holds_two_dice_in_solo():
    """Rules pingyao-2: solo resting areas hold 2 dice, "as in the 3-player game" (pingyao-3: the
    action's own limit, test_rules_audit_3.py)."""
    flipped = revealed("E01")  # Bank Escort: a four-sided die resting, a six-sided die on the space
    taken = {x.value for x in flipped.dice if x.action == "bank_escort"}
    free = [v for v in range(1, 7) if v not in taken]
    t = solo("E01", dice={die(ME, 1): free[-1], die(ME, 2): free[0]}, rules=PINGYAO_2)
    s, _ = step(t.state, ME, K.BankEscort(die=die(ME, 1), tier=1, color="yellow"))
    while s.frames:
        s, _ = step(s, ME, GAME.legal_moves(s, ME)[-1])
    given_state(GAME, s).when(ME, K.BankEscort(die=die(ME, 2), tier=1, color="green")).raises(
        "resting_area_full"
    )


# --- round goals and rewards -----------------------------------------------------------------
def test_goal_met_offers_the_reward_at_once_and_it_may_be_declined():
    """E02: the goal is City God Temple once; the reward +1 reputation."""
    v = next(
        v for v in (3, 4) if all(x.value != v for x in revealed("E02").dice if x.action == "city_god_temple")
    )
    t = solo("E02", dice={die(ME, 1): v, die(ME, 2): 1})
    s2, ev = step(t.state, ME, K.CityGodTemple(die=die(ME, 1)))
    assert E.RoundGoalMet(card="E02") in ev
    assert GAME.legal_moves(s2, ME) == [K.ClaimReward(accept=True), K.ClaimReward(accept=False)]
    given_state(GAME, s2).when(ME, K.CityGodTemple(die=die(ME, 2))).raises("wrong_decision")
    rep = s2.pl[ME].reputation
    taken, ev = step(s2, ME, K.ClaimReward(accept=True))
    assert (
        E.ReputationGained(seat=ME, amount=1, reason="event card") in ev
        and taken.pl[ME].reputation == rep + 1
    )
    declined, ev = step(s2, ME, K.ClaimReward(accept=False))
    assert ev[0] == E.RewardClaimed(seat=ME, card="E02", accept=False, frame=True)
    assert declined.pl[ME].reputation == rep and declined.goal_met and not declined.frames
    assert declined.pl[ME].ongoing == []


def test_one_time_reward_is_discarded_ongoing_reward_is_kept():
    s1, ev = step(with_reward("E01").state, ME, K.ClaimReward(accept=True))
    assert E.CopperGained(seat=ME, amount=4, reason="event card") in ev and s1.pl[ME].ongoing == []
    s2, ev = step(
        with_reward("E08").state, ME, K.ClaimReward(accept=True)
    )  # ongoing: +2 copper every Income phase
    assert ev[0].ongoing and s2.pl[ME].ongoing == ["E08"]
    s3, evs = finish_round(s2)
    _, evs2 = finish_round(s3)
    for events in (evs, evs2):  # used in every later income phase
        income = next(e for e in events if isinstance(e, E.IncomeCollected))
        assert income.parts["event_cards"] == 2


def test_ongoing_reroll_discount():
    t = solo("E09", dice={die(ME, 1): 6, die(ME, 2): 1}).ongoing(ME, "E09")
    assert t.when(ME, K.Reroll(die=die(ME, 1))).events()[0].cost == 1  # 2 for a six, 1 less


def test_unmet_goal_is_discarded_at_round_end():
    s2, events = finish_round(solo("E10", dice={die(ME, 1): 1}).state)  # goal: Yamen once
    assert not any(isinstance(e, E.RoundGoalMet) for e in events)
    assert s2.event_card != "E10" and "E10" in s2.events_seen


def test_goal_counts_need_the_number_shown():
    space = next(
        x for x in revealed("E07").dice if x.action == "city_god_temple"
    )  # goal: City God Temple twice
    a, b = [v for v in range(1, 7) if v != space.value][:2]
    s, ev = step(solo("E07", dice={die(ME, 1): b, die(ME, 2): a}).state, ME, K.CityGodTemple(die=die(ME, 1)))
    assert not any(isinstance(e, E.RoundGoalMet) for e in ev) and s.round_actions == {"city_god_temple": 1}


# --- reward notes ---------------------------------------------------------------------------------
def test_note_1_exchange_reward_collects_the_fee_advances_and_may_go_to_position_1():
    t = with_reward("E03", dice={die(ME, 2): 1})
    t.branch(ME, "1yellow", "Lasa#1").branch(ME, "1green", "Changde#1")  # a second piaohao for any card
    s2, ev = step(t.state, ME, K.ClaimReward(accept=True))
    assert any(isinstance(e, E.ExchangeCardsDrawn) for e in ev)
    moves = GAME.legal_moves(s2, ME)
    assert {m.months for m in moves} == {1, 2}  # a 2-month exchange, position 1 allowed
    before = s2.pl[ME].exchange
    s3, ev = step(s2, ME, next(m for m in moves if m.months == 1))
    placed = next(e for e in ev if isinstance(e, E.ExchangePlaced))
    assert placed.advance and placed.fee >= 0 and s3.pl[ME].exchange == before + 1
    assert s3.pl[ME].copper == s2.pl[ME].copper + placed.fee


def test_note_2_yamen_reward_pays_the_silver():
    t = with_reward("E06", dice={die(ME, 2): 1})
    s2, _ = step(t.state, ME, K.ClaimReward(accept=True))
    assert K.TakeYamenTile(tile="lending_income") in GAME.legal_moves(s2, ME)
    assert K.TakeYamenTile(tile="tier1_income") not in GAME.legal_moves(s2, ME)  # the storyline's own
    given_state(GAME, s2).when(ME, K.TakeYamenTile(tile="tier1_income")).raises("duplicate_yamen_tile")
    given_state(GAME, s2).when(ME, K.TakeYamenTile(tile="no_such_tile")).raises("yamen_tile_unavailable")
    s3, ev = step(s2, ME, K.TakeYamenTile(tile="lending_income"))
    assert ev[0] == E.YamenTileTaken(seat=ME, tile="lending_income", copper=0, silver=2, frame=True)
    assert s3.pl[ME].head_office == 8 and "lending_income" in s3.pl[ME].yamen and s3.pl[ME].copper == 50
    broke = t.head_office(ME, 0)  # nothing to pay with: only declining is possible
    assert broke.legal(ME) == [K.ClaimReward(accept=False)]
    broke.when(ME, K.ClaimReward(accept=True)).raises("reward_unavailable")


def test_note_3_extra_action_takes_back_a_used_die_rerolls_it_and_acts():
    t = solo("E07", dice={die(ME, 0): 2})
    t.fold(E.DieRerolled(seat=ME, die=die(ME, 0), cost=0, value=2))  # used and rerolled: at West Street
    t.fold(E.DieDispatched(seat=ME, die=die(ME, 0), action="west_street", value=2))
    t.fold(E.RoundGoalMet(card="E07")).decision("round_reward", ME, card="E07")
    s2, _ = step(t.state, ME, K.ClaimReward(accept=True))
    assert GAME.legal_moves(s2, ME) == [K.TakeBackDie(die=die(ME, 0))]
    given_state(GAME, s2).when(ME, K.TakeBackDie(die=die(ME, 1))).raises("die_not_used")  # declined: not used
    s3, ev = step(s2, ME, K.TakeBackDie(die=die(ME, 0)))
    back = ev[0]
    assert isinstance(back, E.DieTakenBack) and 1 <= back.value <= 4
    d = s3.dice[die(ME, 0)]
    assert d.where == "hand" and d.value == back.value and not d.rerolled
    moves = GAME.legal_moves(s3, ME)
    assert K.Reroll(die=die(ME, 0)) in moves  # it keeps its one paid reroll
    s4, _ = step(s3, ME, K.Reroll(die=die(ME, 0)))
    assert K.Reroll(die=die(ME, 0)) not in GAME.legal_moves(s4, ME)


def test_extra_action_needs_a_used_die():
    assert with_reward("E07").legal(ME) == [K.ClaimReward(accept=False)]


# --- game end: the verdict ---------------------------------------------------------------------
def _ended(storyline, copper, reputation=0, exchanges=0):
    t = solo("E01", storyline=storyline).copper(ME, copper).head_office(ME, 0).silver(ME, "1red", 0)
    return t.reputation(ME, reputation).exchanges(ME, exchanges).head_office(ME, 0).end().state


def test_verdict_normal_success_hard_failure():
    out = GAME.outcome(
        _ended(2, copper=200, exchanges=8)
    )  # 20 points, exchange 8: Normal (20, 7) yes, Hard (30, 10) no
    assert out.details["normal"] == "success" and out.details["hard"] == "failure"
    assert out.winners == [0] and out.scores[0].score == 20
    assert "Normal success, Hard failure" in out.summary


def test_verdict_both_success_and_both_failure():
    out = GAME.outcome(_ended(3, copper=300, reputation=14))
    assert (out.details["normal"], out.details["hard"]) == ("success", "success")
    out = GAME.outcome(
        _ended(3, copper=300, reputation=9)
    )  # score enough, reputation short: one condition fails
    assert (out.details["normal"], out.details["hard"]) == ("failure", "failure") and out.winners == []


# --- random playouts -----------------------------------------------------------------------------
@pytest.mark.parametrize("players", [1, 2])
def test_describe_new_mode_events(players):
    result = random_playout(GAME, PingyaoOptions(players=players), f"describe-{players}")
    s = GAME.initial(PingyaoOptions(players=players))
    for e in result.events:
        text = GAME.describe(s, e)
        assert text and text != type(e).__name__
        s = GAME.evolve(s, e)


def test_solo_view_and_components():
    state, _ = GAME.start(PingyaoOptions(players=1, storyline=4), "view")
    state, _ = step(state, ME, K.PlaceStartingBranch(color="yellow"))
    v = msgspec.json.decode(msgspec.json.encode(GAME.view(state, ME)))
    assert v["storyline"] == 4 and v["event_card"] in C.EVENT_CARDS and v["round"] == 1
    comp = GAME.components()
    assert len(comp["storylines"]) == 5 and len(comp["event_cards"]) == 10
    assert GAME.player_counts == (1, 2, 3, 4) and "storyline" in GAME.variants
    for card in C.EVENT_CARDS.values():  # each set-up fits the 3 four-sided and 6 six-sided public dice
        pattern = "".join(card.setup.values())
        assert pattern.count("4") <= 3 and pattern.count("6") <= 6
        assert set(card.setup.values()) <= {"6", "46"} and card.goal_action in C.ACTIONS


@pytest.mark.slow
def test_random_solo_playouts_every_storyline():
    for i in range(200):
        story = i % 5 + 1
        result = random_playout(
            GAME,
            PingyaoOptions(players=1, storyline=story, crowdfunding=i % 2 == 1),
            f"solo-{i}",
            check=check,
        )
        out = GAME.outcome(result.state)
        assert out.details["storyline"] == story and out.details["normal"] in ("success", "failure")
        assert out.details["hard"] in ("success", "failure")


@pytest.mark.slow
@pytest.mark.parametrize("story", [1, 2, 3, 4, 5])
def test_every_listed_solo_move_is_accepted(story):
    random_playout(
        GAME,
        PingyaoOptions(players=1, storyline=story, crowdfunding=True),
        f"solo-all-{story}",
        check_all_legal_moves=True,
    )

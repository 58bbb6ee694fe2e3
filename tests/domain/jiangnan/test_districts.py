"""The six districts (side A) and the Temple Fair shops A1-A6."""

from domain.jiangnan import GAME
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    DrawInspiration,
    MoveServant,
    Pass,
    PlaceOnBoat,
    PlaceServant,
    Publish,
    RefreshPortfolios,
    TakeIdea,
    TakeIdeas,
    TakePortfolio,
    TakePortfolioAndIdea,
    TakePortfolios,
    TravelTo,
    VisitDistrict,
)
from domain.jiangnan.table import reachable_cities
from tests.support import given_state

from .helpers import Story, play, types


# --- Society -------------------------------------------------------------------------------------
def test_society_next_round_order_once_per_round():
    story = Story(drawn={0: ["S12", "S01", "S02", "S05"]})
    _, after = play(story.state, 0, VisitDistrict(slot=1, district="society"))
    assert after.next_order == [0] and after.p[0].society_visited
    # the rest of the round's first turns, then seat 0's second turn: S02 (Society) is the rightmost
    story.plays(0, VisitDistrict(slot=1, district="society"), TakeIdeas(ideas=["drama", "drama"]))
    state = story.rested(1, 2, 3).state
    assert state.steps[-1].seat == 0 and state.p[0].track[0] == "S02"
    _, again = play(state, 0, VisitDistrict(slot=0, district="society"))
    assert again.next_order == [0]


def test_society_refresh_once_per_turn_and_the_four_choices():
    state = Story(drawn={0: ["S04", "S01"]}).visits(0, "society").state  # S04: a Painting Idea
    shown = list(state.display)
    _, after = play(state, 0, RefreshPortfolios())
    assert after.p[0].coins == 2 and after.bottom[-1] == sorted(shown)
    assert len(after.display) == 4 and not set(after.display) & set(shown)
    given_state(GAME, after).when(0, RefreshPortfolios()).raises("already_refreshed")
    a, b = after.display[:2]
    _, took = play(after, 0, TakePortfolios(portfolios=[b, a]))
    assert sorted(took.p[0].unpublished[-2:]) == sorted([a, b]) and len(took.display) == 4
    _, took = play(after, 0, TakePortfolioAndIdea(portfolio=a, idea="novel"))
    assert took.p[0].unpublished[-1] == a and took.p[0].ideas["novel"] == 2
    _, took = play(after, 0, TakeIdeas(ideas=["drama", "drama"]))
    assert took.p[0].ideas["drama"] == 3
    given_state(GAME, after).when(0, TakePortfolios(portfolios=["B15", a])).raises("portfolio_not_displayed")
    state = Story(drawn={0: ["S04", "S01"]}).gained(0, "earlier costs", coins=-3).visits(0, "society").state
    given_state(GAME, state).when(0, RefreshPortfolios()).raises("insufficient_coins")


def test_society_exhausted_age_1_stack_falls_back_to_age_2():
    state = Story(drawn={0: ["S04", "S01"]}).stack_drawn().visits(0, "society").state
    assert state.stack == [] and state.bottom == []
    a, b = state.display[:2]
    events, after = play(state, 0, TakePortfolios(portfolios=[a, b]))
    assert "Age2StackFormed" in types(events)
    assert len(after.display) == 4 and sum(C.PORTFOLIOS[p]["age"] == 2 for p in after.display) == 2
    # after the Round 3 swap an exhausted stack gives no more tiles
    state = Story(drawn={0: ["S04", "S01"]}).age2_swapped().stack_drawn().visits(0, "society").state
    assert state.portfolio_age == 2 and state.stack == [] and len(state.display) == 4
    a, b = state.display[:2]
    _, after = play(state, 0, TakePortfolios(portfolios=[a, b]))
    assert len(after.display) == 2


# --- Teahouse and Tavern ------------------------------------------------------------------------
def test_teahouse_servant_income_example():
    # S06: spirit bonus; one Servant of seat 0 on the Teahouse Display Track
    story = Story(drawn={0: ["S06", "S05"]}, teahouse=["drama", "drama", "novel"])
    state = story.display_tiles("teahouse", ("novel", 0)).state
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.p[0].coins == 4 and after.p[0].spirit == 5


def test_teahouse_publish_example():
    """Green publishes a Painting: payout, a Painting Display Tile slides in with a Green Servant,
    the rightmost tile is pushed off and its Servant returns to White."""
    green, white = 0, 1
    story = Story(drawn={green: ["S10", "S05"]}, teahouse=["drama", "novel", "drama"])  # S10: a Drama Idea
    story.display_tiles("teahouse", ("drama", white), ("novel", 2), ("drama", 3))
    story.holds(green, "A3").gained(green, "inspiration", painting=2)
    state = story.visits(green, "teahouse").state
    assert state.displays["teahouse"] == [["drama", 3], ["novel", 2], ["drama", white]]
    assert state.p[white].servants == 24
    supply = dict(state.display_supply)
    assert GAME.legal_moves(state, green)[:2] == [Publish(portfolio="A3"), DrawInspiration()]
    _, after = play(state, green, Publish(portfolio="A3"))
    g = after.p[green]
    assert g.published == ["A3"] and g.ideas["painting"] == 0
    assert g.coins == 3 + C.PORTFOLIOS["A3"]["payout"]["coin"] and g.vp == C.PORTFOLIOS["A3"]["payout"]["vp"]
    assert after.displays["teahouse"] == [["painting", green], ["drama", 3], ["novel", 2]]
    assert after.p[white].servants == 25 and g.servants == 24
    assert after.display_supply == {
        **supply,
        "drama": supply["drama"] + 1,
        "painting": supply["painting"] - 1,
    }


def test_publish_needs_the_ideas_cost():
    state = Story(drawn={0: ["S10", "S05"]}).holds(0, "A3").visits(0, "teahouse").state
    given_state(GAME, state).when(0, Publish(portfolio="A3")).raises("insufficient_ideas")
    given_state(GAME, state).when(0, Publish(portfolio="B1")).raises("not_your_portfolio")


def test_draw_inspiration_example():
    story = Story(drawn={0: ["S06", "S05"]}, teahouse=["novel", "drama", "painting"])  # S06: spirit
    state = story.display_tiles("teahouse", ("drama", 2)).visits(0, "teahouse").state
    assert [k for k, _ in state.displays["teahouse"]] == ["drama", "novel", "drama"]
    _, after = play(state, 0, DrawInspiration())
    assert after.p[0].ideas == {"drama": 3, "novel": 2, "painting": 1}


def test_tavern_pays_a_coin_raises_spirit_and_scores_servants():
    story = Story(drawn={0: ["S04", "S10"]})
    state = story.display_tiles("tavern", ("drama", 0), ("novel", 1), ("drama", 0)).state
    assert state.displays["tavern"] == [["drama", 0], ["novel", 1], ["drama", 0]]
    _, after = play(state, 0, VisitDistrict(slot=1, district="tavern"))
    p = after.p[0]
    assert p.coins == 2 and p.spirit == 5 and p.vp == 2
    assert after.steps[-1].kind == "publish_or_inspire" and after.steps[-1].arg == "tavern"


# --- Parlour --------------------------------------------------------------------------------------
def test_parlour_muse_bonus_and_hiring_on_the_second_servant():
    story = Story(drawn={0: ["S04", "S03"]})  # discard S04: painting
    muse = story.state.muses[0]
    state = story.servant_on_muse(0, muse).servant_on_muse(1, muse).state
    assert state.muse_servants == {muse: [0, 1]} and state.p[0].servants == state.p[1].servants == 24
    _, after = play(state, 0, VisitDistrict(slot=1, district="parlour"))
    assert after.p[0].coins == 2 and after.p[0].spirit == 5
    assert GAME.legal_moves(after, 0)[:4] == [PlaceServant(muse=m) for m in after.muses]
    events, hired = play(after, 0, PlaceServant(muse=muse))
    p = hired.p[0]
    assert p.assistants == [muse] and muse not in hired.muses and muse not in hired.muse_servants
    assert p.servants == 25 and hired.p[1].servants == 25  # both returned
    bonus = C.MUSE_BONUS[muse]
    assert p.coins == 2 + bonus.count("coin")
    assert "MuseRevealed" in types(events) and len([m for m in hired.muses if m]) == 4
    assert len(hired.muse_stack) == 11


def test_parlour_cannot_be_visited_without_a_coin():
    state = Story(drawn={0: ["S04", "S03"]}).gained(0, "earlier costs", coins=-3).state
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="parlour")).raises("insufficient_coins")


def test_gift_shop_hires_outside_the_parlour_and_offers_the_power():
    story = Story(drawn={0: ["S10", "S11"]}, shops=["A1", "A3", "A2", "A4", "A5", "A6"])  # A3: Gift Shop
    muse = story.state.muses[1]
    state = (
        story.servant_on_muse(0, muse).visits(0, "temple_fair", MoveServant(distance=1, clockwise=True)).state
    )
    assert state.steps[-1].kind == "muse" and state.steps[-1].arg == "gift"
    coins = state.p[0].coins
    assert Pass() in GAME.legal_moves(state, 0)
    _events, after = play(state, 0, PlaceServant(muse=muse))
    assert after.p[0].assistants == [muse] and after.p[0].coins == coins  # no muse bonus
    assert after.steps[-1].kind == "assistant_offer"


# --- Travel ----------------------------------------------------------------------------------------
def test_travel_example_adjacency():
    story = Story(drawn={0: ["S10", "S07"]}).travelled(0, "D1", "A1", "A2", "A3")
    assert reachable_cities(story.state, 0) == ["B1", "C1", "D2"]
    state = story.gained(0, "earlier costs", coins=-2).visits(0, "travel").state
    assert state.p[0].coins == 1 and state.steps[-1].kind == "travel"
    assert GAME.legal_moves(state, 0) == [TravelTo(city="B1"), TravelTo(city="C1")]
    given_state(GAME, state).when(0, TravelTo(city="D2")).raises("insufficient_coins")
    given_state(GAME, state).when(0, TravelTo(city="C2")).raises("not_adjacent")
    given_state(GAME, state).when(0, TravelTo(city="A1")).raises("already_travelled")


def test_travel_costs_spirit_servant_and_city_bonus():
    def travel(tile, shops=None):  # visiting the Travel district, a discarded S10 gave a Drama Idea
        return Story(drawn={0: ["S10", "S07"]}, travel={"A1": tile}, shops=shops).visits(0, "travel").state

    state = travel("T04")  # painting
    _, after = play(state, 0, TravelTo(city="A1"))
    p = after.p[0]
    assert (
        p.coins == 2
        and p.spirit == 5
        and p.cities == ["A1"]
        and p.servants == 24
        and p.ideas["painting"] == 2
    )
    state = travel("T10")  # portfolio
    _, after = play(state, 0, TravelTo(city="A1"))
    assert after.steps[-1].kind == "take_portfolio"
    pid = after.display[0]
    _, took = play(after, 0, TakePortfolio(portfolio=pid))
    assert took.p[0].unpublished[-1] == pid and len(took.display) == 4
    state = travel("T12", ["A5", "A1", "A2", "A3", "A4", "A6"])  # special action: the pointed shop
    _, after = play(state, 0, TravelTo(city="A1"))
    assert after.p[0].spirits_tiles == 1


def test_travel_needs_a_payable_city():
    state = Story(drawn={0: ["S08", "S07"]}).gained(0, "earlier costs", coins=-3).state
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="travel")).raises("insufficient_coins")


# --- Temple Fair -----------------------------------------------------------------------------------
def test_temple_fair_example():
    """Pay 1 Coin to move 2 spaces, passing 1 Spirit and 1 Painting, land on A6: refresh the
    Society Portfolios, then take 1 newly revealed tile."""
    story = Story(drawn={0: ["S10", "S11"]}, shops=["A1", "A2", "A6", "A3", "A4", "A5"])  # S10: drama
    state = story.visits(0, "temple_fair").state
    assert state.p[0].fair == 0 and state.steps[-1].kind == "fair"
    _, after = play(state, 0, MoveServant(distance=2, clockwise=True))
    p = after.p[0]
    assert p.coins == 2 and p.spirit == 5 and p.ideas["painting"] == 2 and p.fair == 2
    assert after.steps[-1].kind == "take_portfolio" and after.steps[-1].arg == "A6"
    old = list(after.display)
    _, refreshed = play(after, 0, RefreshPortfolios())
    assert refreshed.p[0].coins == 2 and not set(refreshed.display) & set(old)
    assert RefreshPortfolios() not in GAME.legal_moves(refreshed, 0)
    new = refreshed.display[0]
    _, took = play(refreshed, 0, TakePortfolio(portfolio=new))
    assert took.p[0].unpublished[-1] == new


def test_temple_fair_costs_and_one_direction():
    story = Story(drawn={0: ["S10", "S11"]}, shops=["A1", "A2", "A3", "A4", "A6", "A5"])
    state = story.gained(0, "earlier costs", coins=-3).visits(0, "temple_fair").state
    assert state.p[0].coins == 0
    assert GAME.legal_moves(state, 0) == [
        MoveServant(distance=1, clockwise=True),
        MoveServant(distance=1, clockwise=False),
    ]
    given_state(GAME, state).when(0, MoveServant(distance=3, clockwise=True)).raises("insufficient_coins")
    _, after = play(state, 0, MoveServant(distance=1, clockwise=False))
    assert after.p[0].fair == 5 and after.p[0].ideas["novel"] == 2 and after.p[0].spirits_tiles == 1


def test_shop_a1_printing_press():
    story = Story(drawn={0: ["S10", "S11"]}, shops=["A2", "A1", "A3", "A4", "A5", "A6"])  # S10: drama
    state = story.holds(0, "B1").visits(0, "temple_fair").state
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert GAME.legal_moves(after, 0) == [TakeIdea(idea=i) for i in C.IDEAS]
    _, after = play(after, 0, TakeIdea(idea="drama"))
    assert GAME.legal_moves(after, 0) == [Publish(portfolio="B1"), Pass()]
    _, after = play(after, 0, Publish(portfolio="B1"))
    assert after.p[0].published == ["B1"] and after.displays == state.displays


def test_shop_a2_peddler_and_a4_boatman():
    story = Story(drawn={0: ["S10", "S11"]}, shops=["A1", "A2", "A4", "A3", "A5", "A6"], travel={"B1": "T10"})
    state = story.visits(0, "temple_fair").state
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert Pass() not in GAME.legal_moves(after, 0)  # "Take the Travel district action" (not "you may")
    given_state(GAME, after).when(0, Pass()).raises("not_optional")
    _, after = play(after, 0, TravelTo(city="B1"))
    assert after.p[0].coins == 3 and after.p[0].cities == ["B1"] and after.steps[-1].kind != "take_portfolio"
    _, boat = play(state, 0, MoveServant(distance=2, clockwise=True))
    assert GAME.legal_moves(boat, 0)[-1] == Pass()
    _, boat = play(boat, 0, PlaceOnBoat(boat=3))
    assert boat.p[0].coins == 1 and boat.boats[3].spaces[0] == [0, 1]

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

from .helpers import at, play, started, types


# --- Society -------------------------------------------------------------------------------------
def test_society_next_round_order_once_per_round():
    state = started()
    state.p[0].track = ["S12", "S01", "S02", "S05"]
    _, after = play(state, 0, VisitDistrict(slot=1, district="society"))
    assert after.next_order == [0] and after.p[0].society_visited
    after.steps[-1].seat = 0
    after = at(after, 0, "turn")
    after.p[0].track = ["S12", "S02"]
    _, again = play(after, 0, VisitDistrict(slot=1, district="society"))
    assert again.next_order == [0]


def test_society_refresh_once_per_turn_and_the_four_choices():
    state = at(started(), 0, "society")
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
    state.p[0].coins = 0
    given_state(GAME, state).when(0, RefreshPortfolios()).raises("insufficient_coins")


def test_society_exhausted_age_1_stack_falls_back_to_age_2():
    state = at(started(), 0, "society")
    state.stack, state.bottom = [], []
    a, b = state.display[:2]
    events, after = play(state, 0, TakePortfolios(portfolios=[a, b]))
    assert "Age2StackFormed" in types(events)
    assert len(after.display) == 4 and sum(C.PORTFOLIOS[p]["age"] == 2 for p in after.display) == 2
    # after the Round 3 swap an exhausted stack gives no more tiles
    state.portfolio_age, state.age2_formed = 2, True
    _, after = play(state, 0, TakePortfolios(portfolios=[a, b]))
    assert len(after.display) == 2


# --- Teahouse and Tavern ------------------------------------------------------------------------
def test_teahouse_servant_income_example():
    state = started()
    state.displays["teahouse"] = [["drama", -1], ["novel", 0], ["drama", -1]]
    state.p[0].track = ["S06", "S05"]  # S06: spirit bonus
    _, after = play(state, 0, VisitDistrict(slot=1, district="teahouse"))
    assert after.p[0].coins == 4 and after.p[0].spirit == 5


def test_teahouse_publish_example():
    """Green publishes a Painting: payout, a Painting Display Tile slides in with a Green Servant,
    the rightmost tile is pushed off and its Servant returns to White."""
    green, white = 0, 1
    state = at(started(), green, "publish_or_inspire", "teahouse")
    state.displays["teahouse"] = [["drama", -1], ["novel", -1], ["drama", white]]
    state.display_supply = {"drama": 2, "novel": 2, "painting": 3}
    state.p[white].servants = 24
    state.p[green].unpublished = ["A3"]
    state.p[green].ideas["painting"] = 3
    assert GAME.legal_moves(state, green)[:2] == [Publish(portfolio="A3"), DrawInspiration()]
    _, after = play(state, green, Publish(portfolio="A3"))
    g = after.p[green]
    assert g.published == ["A3"] and g.ideas["painting"] == 0
    assert g.coins == 3 + C.PORTFOLIOS["A3"]["payout"]["coin"] and g.vp == C.PORTFOLIOS["A3"]["payout"]["vp"]
    assert after.displays["teahouse"] == [["painting", green], ["drama", -1], ["novel", -1]]
    assert after.p[white].servants == 25 and g.servants == 24
    assert after.display_supply == {"drama": 3, "novel": 2, "painting": 2}


def test_publish_needs_the_ideas_cost():
    state = at(started(), 0, "publish_or_inspire", "teahouse")
    state.p[0].unpublished = ["A3"]
    given_state(GAME, state).when(0, Publish(portfolio="A3")).raises("insufficient_ideas")
    given_state(GAME, state).when(0, Publish(portfolio="B1")).raises("not_your_portfolio")


def test_draw_inspiration_example():
    state = at(started(), 0, "publish_or_inspire", "teahouse")
    state.displays["teahouse"] = [["drama", -1], ["novel", -1], ["drama", 2]]
    _, after = play(state, 0, DrawInspiration())
    assert after.p[0].ideas == {"drama": 3, "novel": 2, "painting": 1}


def test_tavern_pays_a_coin_raises_spirit_and_scores_servants():
    state = started()
    state.displays["tavern"] = [["drama", 0], ["novel", 1], ["drama", 0]]
    state.p[0].track = ["S04", "S10"]
    _, after = play(state, 0, VisitDistrict(slot=1, district="tavern"))
    p = after.p[0]
    assert p.coins == 2 and p.spirit == 5 and p.vp == 2
    assert after.steps[-1].kind == "publish_or_inspire" and after.steps[-1].arg == "tavern"


# --- Parlour --------------------------------------------------------------------------------------
def test_parlour_muse_bonus_and_hiring_on_the_second_servant():
    state = started()
    muse = state.muses[0]
    state.muse_servants = {muse: [0, 1]}
    state.p[0].servants, state.p[1].servants = 24, 24
    state.p[0].track = ["S04", "S03"]  # discard S04: painting
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
    state = started()
    state.p[0].coins = 0
    state.p[0].track = ["S04", "S03"]
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="parlour")).raises("insufficient_coins")


def test_gift_shop_hires_outside_the_parlour_and_offers_the_power():
    state = at(started(), 0, "muse", "gift")
    muse = state.muses[1]
    state.muse_servants = {muse: [0]}
    coins = state.p[0].coins
    assert Pass() in GAME.legal_moves(state, 0)
    _events, after = play(state, 0, PlaceServant(muse=muse))
    assert after.p[0].assistants == [muse] and after.p[0].coins == coins  # no muse bonus
    assert after.steps[-1].kind == "assistant_offer"


# --- Travel ----------------------------------------------------------------------------------------
def test_travel_example_adjacency():
    state = started()
    state.p[0].cities = ["D1", "A1", "A2", "A3"]
    assert reachable_cities(state, 0) == ["B1", "C1", "D2"]
    state = at(state, 0, "travel", "district")
    state.p[0].coins = 1
    assert GAME.legal_moves(state, 0) == [TravelTo(city="B1"), TravelTo(city="C1")]
    given_state(GAME, state).when(0, TravelTo(city="D2")).raises("insufficient_coins")
    given_state(GAME, state).when(0, TravelTo(city="C2")).raises("not_adjacent")
    given_state(GAME, state).when(0, TravelTo(city="A1")).raises("already_travelled")


def test_travel_costs_spirit_servant_and_city_bonus():
    state = at(started(), 0, "travel", "district")
    state.travel["A1"] = "T04"  # painting
    _, after = play(state, 0, TravelTo(city="A1"))
    p = after.p[0]
    assert (
        p.coins == 2
        and p.spirit == 5
        and p.cities == ["A1"]
        and p.servants == 24
        and p.ideas["painting"] == 2
    )
    state.travel["A1"] = "T10"  # portfolio
    _, after = play(state, 0, TravelTo(city="A1"))
    assert after.steps[-1].kind == "take_portfolio"
    pid = after.display[0]
    _, took = play(after, 0, TakePortfolio(portfolio=pid))
    assert took.p[0].unpublished[-1] == pid and len(took.display) == 4
    state.travel["A1"] = "T12"  # special action: the shop the pointer points to
    state.shops = ["A5", "A1", "A2", "A3", "A4", "A6"]
    _, after = play(state, 0, TravelTo(city="A1"))
    assert after.p[0].spirits_tiles == 1


def test_travel_needs_a_payable_city():
    state = started()
    state.p[0].coins = 0
    state.p[0].track = ["S08", "S07"]
    given_state(GAME, state).when(0, VisitDistrict(slot=1, district="travel")).raises("insufficient_coins")


# --- Temple Fair -----------------------------------------------------------------------------------
def test_temple_fair_example():
    """Pay 1 Coin to move 2 spaces, passing 1 Spirit and 1 Painting, land on A6: refresh the
    Society Portfolios, then take 1 newly revealed tile."""
    state = at(started(), 0, "fair", "district")
    state.shops = ["A1", "A2", "A6", "A3", "A4", "A5"]
    state.p[0].fair = 0
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
    state = at(started(), 0, "fair", "district")
    state.p[0].coins = 0
    assert GAME.legal_moves(state, 0) == [
        MoveServant(distance=1, clockwise=True),
        MoveServant(distance=1, clockwise=False),
    ]
    given_state(GAME, state).when(0, MoveServant(distance=3, clockwise=True)).raises("insufficient_coins")
    state.shops = ["A1", "A2", "A3", "A4", "A6", "A5"]
    _, after = play(state, 0, MoveServant(distance=1, clockwise=False))
    assert after.p[0].fair == 5 and after.p[0].ideas["novel"] == 2 and after.p[0].spirits_tiles == 1


def test_shop_a1_printing_press():
    state = at(started(), 0, "fair", "district")
    state.shops = ["A2", "A1", "A3", "A4", "A5", "A6"]
    state.p[0].unpublished = ["B1"]
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert GAME.legal_moves(after, 0) == [TakeIdea(idea=i) for i in C.IDEAS]
    _, after = play(after, 0, TakeIdea(idea="drama"))
    assert GAME.legal_moves(after, 0) == [Publish(portfolio="B1"), Pass()]
    _, after = play(after, 0, Publish(portfolio="B1"))
    assert after.p[0].published == ["B1"] and after.displays == state.displays


def test_shop_a2_peddler_and_a4_boatman():
    state = at(started(), 0, "fair", "district")
    state.shops = ["A1", "A2", "A4", "A3", "A5", "A6"]
    state.travel["B1"] = "T10"
    _, after = play(state, 0, MoveServant(distance=1, clockwise=True))
    assert Pass() not in GAME.legal_moves(after, 0)  # "Take the Travel district action" (not "you may")
    given_state(GAME, after).when(0, Pass()).raises("not_optional")
    _, after = play(after, 0, TravelTo(city="B1"))
    assert after.p[0].coins == 3 and after.p[0].cities == ["B1"] and after.steps[-1].kind != "take_portfolio"
    _, boat = play(state, 0, MoveServant(distance=2, clockwise=True))
    assert GAME.legal_moves(boat, 0)[-1] == Pass()
    _, boat = play(boat, 0, PlaceOnBoat(boat=3))
    assert boat.p[0].coins == 1 and boat.boats[3].spaces[0] == [0, 1]

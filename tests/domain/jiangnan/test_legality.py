"""The move generator and the rule checks agree (python-chess's perft spirit).

``legal_moves`` lists the candidate answers the pending step's rule accepts; ``decide`` raises what
that same rule refuses.  Over random playouts every listed move is accepted, and the commands around
them - each field given other values, in and out of range, and every other command type - are
refused with a specific rule code, never with another exception.
"""

import msgspec
import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.commands import (
    COMMANDS,
    ActivateAssistant,
    ChooseTrend,
    DraftTile,
    EndIncome,
    ExchangeIdeas,
    MoveServant,
    Pass,
    PlaceOnBoat,
    Publish,
    Rest,
    SwapActionTile,
    TakeIdeas,
    TakePortfolioAndIdea,
    TakePortfolios,
    TravelTo,
    UseSpiritsTile,
    VisitDistrict,
)
from domain.jiangnan.events import ResourcesChanged, StepBegan
from domain.jiangnan.rules import AUTO, STEPS, setup
from domain.jiangnan.state import RULES_VERSION
from domain.kernel import Rng, RuleViolation, clone
from tests.support import given, random_playout

from .helpers import opening, reach

CODES = {
    "game_over", "not_your_turn", "not_now", "not_optional", "no_such_tile", "wrong_district",
    "district_full", "insufficient_coins", "no_muse", "no_city", "already_refreshed",
    "portfolio_not_displayed", "bad_idea", "not_your_portfolio", "insufficient_ideas", "no_such_muse",
    "not_adjacent", "already_travelled", "bad_distance", "no_such_boat", "cannot_activate",
    "no_such_trend", "tile_not_available", "cannot_take_exam", "talent_not_available",
    "shop_not_pointed", "cannot_discard", "no_spirits_tile", "spirit_full", "illegal_move",
}  # fmt: skip
"""Every refusal code of the game (docs/games/jiangnan.md)."""


def _values(s, seat) -> dict[str, list]:
    """Field values to try: some legal somewhere, some out of range, some hidden (the stack, a bag)."""
    p = s.p[seat]
    others = [q for i, q in enumerate(s.p) if i != seat]
    portfolios = [*s.display[:2], *s.offer[:1], *p.unpublished[:2], *p.published[:1], *s.stack[:1]]
    portfolios += [pid for q in others for pid in q.unpublished[:1]] + ["Z9", ""]
    muses = [m for m in s.muses if m][:2] + s.muse_stack[:1] + p.assistants[:1] + ["B99"]
    return {
        "slot": [-1, 0, 1, len(p.track), 10**9],
        "district": [*C.DISTRICTS, C.REST, "nowhere"],
        "portfolio": portfolios,
        "portfolios": [portfolios[:1], portfolios[:2], portfolios[:1] * 2, portfolios[:3], []],
        "idea": [*C.IDEAS, "gold"],
        "ideas": [["drama"], ["drama", "gold"], ["novel", "painting"], ["drama"] * 3],
        "give": [[], ["drama"], ["drama", "drama"], ["gold"], ["novel", "painting", "drama"]],
        "take": [["novel"], ["novel", "novel"], ["gold"]],
        "muse": muses,
        "assistant": [*muses, "B01", "B08", "B20"],
        "city": [*C.CITIES, "Z9"],
        "distance": [-1, 0, 1, 2, 3, 4, 10**9],
        "clockwise": [True, False],
        "boat": [-1, 0, 3, C.BOATS - 1, C.BOATS, 99],
        "from_boat": [-1, 0, 2, C.BOATS],
        "to_boat": [-1, 1, 5, C.BOATS],
        "tile": [
            *p.track[:1],
            *p.used[:1],
            *p.drafted[:1],
            *s.upkeep_tiles[:1],
            *p.bag[:1],
            "S01",
            "4-15",
            "nope",
        ],
        "trend": [*C.TRENDS, "x"],
        "talent": [*s.talent_offer[:1], "A01", "A20", "Z"],
        "shop": [*s.shops[:2], "C9"],
    }


def _key(command) -> bytes:
    """A command as compared by ``decide``: lists of choices are sets."""
    fields = msgspec.structs.asdict(command)
    fields = {k: sorted(v) if isinstance(v, list) else v for k, v in fields.items()}
    return msgspec.msgpack.encode(msgspec.structs.replace(command, **fields))


def _around(s, seat, legal) -> list:
    """Commands near the listed ones (one field changed) and every command type."""
    values = _values(s, seat)
    out = []
    for move in legal:
        for field in type(move).__struct_fields__:
            out += [msgspec.structs.replace(move, **{field: v}) for v in values[field]]
    for kind in COMMANDS:
        fields = kind.__struct_fields__
        out += [kind(**{f: values[f][0] for f in fields}), kind(**{f: values[f][-1] for f in fields})]
    return out


def agree(options, seed: str, rules_version: str = RULES_VERSION) -> int:
    """Play a random game checking, at every decision, that the listed moves are accepted and the
    commands around them refused with a rule code.  Returns the number of commands tried."""
    events = setup(options, Rng(seed, 0), rules_version)
    state = GAME.fold(GAME.initial(options), events)
    chooser = Rng(seed + "/chooser")
    tried = 0
    while not state.finished:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_moves(state, seat)
        step = STEPS[state.steps[-1].kind]
        assert all(isinstance(m, (*step.answers, UseSpiritsTile)) for m in legal)
        before = msgspec.msgpack.encode(state)
        for move in legal:
            assert GAME.decide(state, seat, move, Rng(seed, len(events)))
        listed = {_key(m) for m in legal}
        for command in _around(state, seat, legal):
            if _key(command) in listed:
                continue
            try:
                GAME.decide(state, seat, command, Rng(seed, len(events)))
            except RuleViolation as refusal:
                assert refusal.code in CODES - {"not_your_turn"}, (command, refusal)
                assert refusal.rule, (command, refusal)
            else:
                raise AssertionError(f"{command!r} is accepted but not listed in {legal!r}")
            tried += 1
        for other in range(options.players):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
                for move in legal[:2]:
                    with pytest.raises(RuleViolation, match="not this seat's turn"):
                        GAME.decide(state, other, move, Rng(seed, len(events)))
        assert msgspec.msgpack.encode(state) == before, "decide must not mutate the state"
        new = GAME.decide(state, seat, chooser.choice(legal), Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    return tried


FAMILIES = [
    JiangnanOptions(players=3),
    JiangnanOptions(players=4, chapter=2),
    JiangnanOptions(players=3, chapter=4),
    JiangnanOptions(players=4, chapter=6),
    JiangnanOptions(players=2, chapter=3, variant=True),
    JiangnanOptions(players=1, chapter=5, difficulty="inferno"),
]


@pytest.mark.parametrize("options", FAMILIES, ids=lambda o: f"{o.players}p-ch{o.chapter}")
def test_anything_not_listed_is_rejected_with_a_rule_code(options):
    assert agree(options, f"agree-{options.players}-{options.chapter}") > 1000


def test_a_jiangnan_2_game_agrees_too():
    """A game set up under jiangnan-2 (its rules read the version): the same agreement."""
    assert agree(JiangnanOptions(players=3, chapter=5), "agree-legacy", "jiangnan-2") > 1000


@pytest.mark.slow
@pytest.mark.parametrize("chapter", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_generator_and_checker_agree_in_every_chapter(players, chapter):
    for i in range(2):
        options = JiangnanOptions(players=players, chapter=chapter, variant=players == 2 and i == 1)
        agree(options, f"agree-{players}-{chapter}-{i}")


@pytest.mark.parametrize(
    "options",
    [
        JiangnanOptions(players=3),
        JiangnanOptions(players=4),
        JiangnanOptions(players=3, chapter=4),
        JiangnanOptions(players=4, chapter=6),
        JiangnanOptions(players=2, chapter=3, variant=True),
        JiangnanOptions(players=1, chapter=5, difficulty="inferno"),
    ],
    ids=lambda o: f"{o.players}p-ch{o.chapter}",
)
def test_every_listed_move_is_accepted(options):
    for i in range(2):
        random_playout(
            GAME, options, f"all-{options.players}-{options.chapter}-{i}", check_all_legal_moves=True
        )


def test_every_decision_is_a_step_and_every_command_answers_one():
    """Each pending step has one rule (``STEPS``) or none to decide (``AUTO``); every command type
    but the Spirits Tile ("anytime") answers some step."""
    kinds = set()
    for options in FAMILIES:
        result = random_playout(GAME, options, "kinds")
        kinds |= {e.step.kind for e in result.events if isinstance(e, StepBegan)}
    assert kinds <= set(STEPS) | set(AUTO) and not set(STEPS) & set(AUTO)
    answered = {kind for step in STEPS.values() for kind in step.answers}
    assert answered | {UseSpiritsTile} == set(COMMANDS)


# --- refusals, from events ---------------------------------------------------------------------------
def test_a_turn_refuses_out_of_range_slots_unknown_districts_and_other_seats():
    options, events = opening(players=4)
    game = given(GAME, events, options)
    seat = GAME.to_act(game.state)[0]
    for slot in (-1, 4, 10**9):
        game.when(seat, VisitDistrict(slot=slot, district="society")).raises("no_such_tile")
        game.when(seat, Rest(slot=slot)).raises("no_such_tile")
    game.when(seat, VisitDistrict(slot=0, district="nowhere")).raises("wrong_district")
    game.when(seat, TakePortfolios(portfolios=["A1", "A2"])).raises("not_now")
    game.when(seat, Pass()).raises("not_now")
    game.when(seat, UseSpiritsTile()).raises("no_spirits_tile")
    game.when((seat + 1) % 4, Rest(slot=0)).raises("not_your_turn")


def test_a_broke_player_cannot_pay_a_visit_even_with_the_discard_bonus():
    options, events = opening(players=3, seed="broke")
    state = given(GAME, events, options).state
    seat = GAME.to_act(state)[0]
    broke = given(GAME, [*events, ResourcesChanged(seat=seat, coins=-state.p[seat].coins)], options)
    track = broke.state.p[seat].track
    refused = 0
    for slot, tile in enumerate(track):
        bonus_coins = C.ACTION_TILES[track[1 if slot == 0 else 0]]["bonus"].count("coin")
        for district in C.ACTION_TILES[tile]["districts"]:
            if district in ("parlour", "tavern") and bonus_coins == 0:
                broke.when(seat, VisitDistrict(slot=slot, district=district)).raises("insufficient_coins")
                refused += 1
    assert refused
    assert all(m in GAME.legal_moves(broke.state, seat) for m in [Rest(slot=i) for i in range(len(track))])


def test_society_refuses_wrong_counts_duplicates_and_unknown_ideas():
    options, events = opening(players=4, seed="society")
    events = reach(options, events, lambda s: bool(s.steps) and s.steps[-1].kind == "society")
    game = given(GAME, events, options)
    seat = GAME.to_act(game.state)[0]
    a, b = game.state.display[:2]
    hidden = game.state.stack[0]
    game.when(seat, TakePortfolios(portfolios=[a])).raises("portfolio_not_displayed")
    game.when(seat, TakePortfolios(portfolios=[a, a])).raises("portfolio_not_displayed")
    game.when(seat, TakePortfolios(portfolios=[a, b, hidden])).raises("portfolio_not_displayed")
    refused = game.when(seat, TakePortfolios(portfolios=[a, hidden])).raises("portfolio_not_displayed")
    assert hidden not in str(refused)
    game.when(seat, TakePortfolioAndIdea(portfolio=a, idea="gold")).raises("bad_idea")
    game.when(seat, TakeIdeas(ideas=["drama"])).raises("bad_idea")
    game.when(seat, TakeIdeas(ideas=["gold", "drama"])).raises("bad_idea")
    game.when(seat, ExchangeIdeas(give=["drama"], take=["novel"])).raises("not_now")
    events = game.when(seat, TakePortfolios(portfolios=[b, a])).events()  # a set: any order
    assert sorted(GAME.fold(clone(game.state), events).p[seat].unpublished[-2:]) == sorted([a, b])


def test_travel_and_temple_fair_refuse_unknown_cities_and_distances():
    options, events = opening(players=3, seed="travel")
    on_the_move = reach(options, events, lambda s: bool(s.steps) and s.steps[-1].kind in ("travel", "fair"))
    game = given(GAME, on_the_move, options)
    seat = GAME.to_act(game.state)[0]
    if game.state.steps[-1].kind == "travel":
        game.when(seat, TravelTo(city="Z9")).raises("not_adjacent")
        game.when(seat, TravelTo(city="A3")).raises("not_adjacent")
    else:
        for distance in (-1, 0, 4, 10**9):
            game.when(seat, MoveServant(distance=distance, clockwise=True)).raises("bad_distance")


def test_upkeep_decisions_refuse_what_is_not_on_the_board():
    options, events = opening(players=3, seed="upkeep")
    drafting = reach(options, events, lambda s: bool(s.steps) and s.steps[-1].kind == "draft")
    game = given(GAME, drafting, options)
    seat = GAME.to_act(game.state)[0]
    game.when(seat, DraftTile(tile="nope")).raises("tile_not_available")
    game.when(seat, DraftTile(tile=game.state.p[seat].track[0])).raises("tile_not_available")
    game.when(seat, ChooseTrend(trend="gold")).raises("not_now")
    game.when(seat, SwapActionTile(tile="S01", slot=-1)).raises("not_now")
    income = reach(options, events, lambda s: bool(s.steps) and s.steps[-1].kind == "income")
    game = given(GAME, income, options)
    seat = GAME.to_act(game.state)[0]
    game.when(seat, ActivateAssistant(assistant="B99")).raises("cannot_activate")
    game.when(seat, PlaceOnBoat(boat=-1)).raises("not_now")
    game.when(seat, Publish(portfolio="Z9")).raises("not_now")
    assert GAME.legal_moves(game.state, seat)[-1] in (EndIncome(), UseSpiritsTile())


def test_a_finished_game_refuses_everything():
    options = JiangnanOptions(players=3)
    result = random_playout(GAME, options, "over")
    game = given(GAME, result.events, options)
    for command in (EndIncome(), Rest(slot=0), UseSpiritsTile()):
        game.when(0, command).raises("game_over")

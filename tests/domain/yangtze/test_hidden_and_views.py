"""Hidden information (screens, the bag), views, event redaction and the replay narration."""

from __future__ import annotations

import msgspec

from domain.kernel import redact_for
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze import state as state_module
from domain.yangtze.commands import PurchaseGood, SellBundle
from domain.yangtze.events import EVENTS
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.scoring import final_scoring
from tests.support import given_state, random_playout

from .helpers import DEFAULT_RIVER, RULER, Story, daily, lux, seed_drawing, table


def test_each_seat_sees_its_own_screen_and_only_purchases_of_the_others():
    hands = [[lux(0, 0), lux(1, 1)], [daily(0, 0), daily(1, 1)]]
    state = table(hands=hands)
    seed = seed_drawing(state, daily(2, 2))
    after = (
        given_state(GAME, state)
        .when(0, PurchaseGood(slot=7), seed=seed)
        .then(given_state(GAME, state).when(0, PurchaseGood(slot=7), seed=seed).events())
    )
    bought = DEFAULT_RIVER[7]
    v0, v1, spectator = GAME.view(after, 0), GAME.view(after, 1), GAME.view(after, None)
    assert v0.known_goods == [sorted(hands[0] + [bought]), []]
    assert v1.known_goods == [[bought], sorted(hands[1])]
    assert spectator.known_goods == [[bought], []]
    assert v1.screen_counts == [3, 2] and spectator.bag_count == len(after.bag)
    # nothing in seat 1's or the spectator's view names seat 0's private goods
    for v in (v1, spectator):
        blob = msgspec.to_builtins(v)
        blob.pop("box"), blob.pop("river"), blob.pop("prices")
        assert lux(0, 0) not in _ints(blob["known_goods"]) and lux(1, 1) not in _ints(blob["known_goods"])
    assert all(lux(0, 0) not in getattr(m, "goods", []) for m in GAME.legal_moves(after, 1))


def _ints(x):
    if isinstance(x, list):
        return [i for y in x for i in _ints(y)]
    return [x]


def test_the_view_has_no_bag_contents():
    state, _ = GAME.start(YangtzeOptions(players=2), "v")
    fields = msgspec.structs.fields(type(GAME.view(state, 0)))
    assert "bag" not in {f.name for f in fields} and "bag_count" in {f.name for f in fields}


def test_the_view_is_its_own_public_contract():
    # Only view Structs (named Yangtze..., unique across games in the OpenAPI document) and plain
    # values: no internal state type leaks into what clients receive.
    _schema, components = msgspec.json.schema_components([GAME.view_type])
    assert list(components) == ["YangtzeView"]
    internal = {name for name, value in vars(state_module).items() if isinstance(value, type)}
    assert not internal & set(components)


def test_everything_is_revealed_at_the_end():
    hands = [[lux(0, 0)], [daily(0, 0)]]
    state = table(hands=hands)
    GAME.evolve(state, final_scoring(state, "test"))
    v = GAME.view(state, None)
    assert v.known_goods == hands and v.final_totals and v.final_bundles == [[[lux(0, 0)]], [[daily(0, 0)]]]


def test_error_messages_do_not_reveal_the_other_screen():
    hands = [[lux(0, 0)], [daily(3, 3)]]
    state = table(hands=hands)
    v = given_state(GAME, state).when(0, SellBundle(goods=[daily(3, 3)])).raises("good_not_held")
    assert C.good_name(daily(3, 3)) not in v.message and str(daily(3, 3)) not in v.message


def test_events_hidden_from_other_seats_are_redacted_for_them():
    result = random_playout(GAME, YangtzeOptions(players=3), "redaction")
    for event in result.events:
        seats = event.visible_to()
        if seats is None:
            continue
        for viewer in (None, 0, 1, 2):
            shown = redact_for(event, viewer)
            if viewer in seats:
                assert shown == event
            else:
                assert shown is not None and getattr(shown, "goods", None) == []
        assert redact_for(event, None, revealed=True) == event


def test_describe_narrates_every_event_in_one_line():
    seen = set()
    for i in range(6):
        result = random_playout(GAME, YangtzeOptions(players=3), f"describe-{i}")
        state = GAME.initial(YangtzeOptions(players=3))
        for event in result.events:
            for shown in (event, event.redacted() or event):
                line = GAME.describe(state, shown)
                assert isinstance(line, str) and line and "\n" not in line
            seen.add(type(event))
            state = GAME.evolve(state, event)
    assert len(seen) >= len(EVENTS) - 3


def test_describe_examples():
    state = table()
    from domain.yangtze.events import GoodPurchased, RulerDrawn

    assert (
        GAME.describe(state, GoodPurchased(seat=2, slot=3, good=lux(0, 0), price=8))
        == "Seat 2 bought silk (red) for 8"
    )
    # three rulers on the table (the first three branch-income tokens)
    state = Story().ruler_round(61).ruler_round(62).ruler_round(63).state
    assert state.rulers == [61, 62, 63] and RULER[C.TAX_MONEY] == 65
    line = GAME.describe(state, RulerDrawn(token=65, spot=3))
    assert line.startswith("Kangxi's order: pay taxes")


def test_components_are_plain_data():
    data = GAME.components()
    msgspec.json.encode(data)
    assert len(data["goods"]) == 61 and len(data["rulers"]) == 12 and len(data["branches"]) == 20


def test_legal_moves_name_only_the_seats_own_goods_or_the_rivers():
    # A seat's legal moves (its own decision or its any-time cards) never name a good behind
    # another seat's screen that the seat does not already know of.
    state, start = GAME.start(YangtzeOptions(players=3), "legal-hidden")
    result = random_playout(GAME, YangtzeOptions(players=3), "legal-hidden")
    for event in result.events[len(start) :]:
        for seat in range(3):
            allowed = set(state.screens[seat]) | {g for g in state.river if g is not None}
            for move in GAME.legal_moves(state, seat):
                named = [*getattr(move, "goods", []), getattr(move, "good", None)]
                assert {g for g in named if g is not None} <= allowed, (seat, move)
        state = GAME.evolve(state, event)

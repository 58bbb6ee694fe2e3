"""Contract checks: narration, views (their own public types), components, events, evolve."""

import msgspec

from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import events as E
from domain.pingyao.evolve import EVOLVER
from domain.pingyao.view import PingyaoView

from .helpers import BLUE, RED, Table, die
from .test_playouts import greedy_playout


def test_describe_every_event_kind():
    seen = set()
    for i in range(6):
        _, events = greedy_playout(4, f"d{i}")
        s = GAME.initial(PingyaoOptions())
        for e in events:
            text = GAME.describe(s, e)
            assert text and text != type(e).__name__
            s = GAME.evolve(s, e)
            seen.add(type(e))
    assert len(seen) >= 30


def test_view_and_components_encode():
    state, _ = GAME.start(PingyaoOptions(players=3), "view")
    for seat in (None, 0, 1, 2):
        v = GAME.view(state, seat)
        assert msgspec.json.decode(msgspec.json.encode(v))["kind"] == "pingyao"
    comp = msgspec.json.encode(GAME.components())
    assert b"assumed" in comp and len(GAME.components()["exchange_cards"]) == 18


def test_the_view_has_public_types_of_its_own_with_the_state_s_json_shape():
    """The view copies the state into view-only Structs (named Pingyao... for the OpenAPI document):
    an internal change of the state never changes the contract, and today's JSON shape is kept."""
    _, schemas = msgspec.json.schema_components([PingyaoView])
    assert all(name.startswith("Pingyao") for name in schemas), sorted(schemas)
    t = (
        Table(dice={die(RED, 1): 2})
        .branch(RED, "2red", "Lanzhou#1", silver=2, tellers=1)
        .card(RED, "X09", 2, "HO", "2red")
    )
    t.decision("place_teller", RED, region="2red", cost=2)
    s = t.state
    view = msgspec.to_builtins(GAME.view(s, BLUE))
    assert view["boards"] == msgspec.to_builtins(s.pl)
    assert view["dice"] == msgspec.to_builtins(s.dice)
    assert view["pending"] == msgspec.to_builtins(s.frames[0])


def test_events_have_distinct_names():
    assert len({t.__name__ for t in E.EVENTS}) == len(E.EVENTS)


def test_evolve_has_one_handler_per_event_type():
    """``evolve`` dispatches on the event's type: every event of the game has its handler, and
    the table names nothing else."""
    assert set(EVOLVER.handlers) == set(GAME.event_types)
    assert len(GAME.event_types) == len(set(GAME.event_types))

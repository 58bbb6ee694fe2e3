"""Take-backs: ``events.REVEALING`` names every public event that shows a seat something it could not
see before.  Pingyao's hidden facts are component identities: the branch tiles in the face-down
stacks and those drawn at Bank Escort (only the drawer sees them), the exchange cards in the deck
(its bottom holds cards a seat put back unseen) and those drawn to choose among, and the solo event
deck.  So a command that may be taken back (no private event, no REVEALING event, no random draw)
must not let any other viewer (another seat or a spectator) see a tile, card or event card its view
did not already show."""

from typing import Any

import msgspec

from domain.kernel import Rng
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao.events import REVEALING
from domain.pingyao.exchange import placements
from domain.pingyao.state import State

from .helpers import Table

_IDS = frozenset(C.TILES) | frozenset(C.CARDS) | frozenset(C.EVENT_CARDS)


def _ids(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, str):
        if value in _IDS:
            out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _ids(k, out)
            _ids(v, out)
    elif isinstance(value, list):
        for v in value:
            _ids(v, out)
    return out


def known(state: State, viewer: int | None) -> set[str]:
    """The tiles, exchange cards and event cards `viewer`'s view shows."""
    return _ids(msgspec.to_builtins(GAME.view(state, viewer)), set())


def undoable(events: list, draws: int) -> bool:
    """What the kernel would let a seat take back: no random draw, no private event, nothing in
    REVEALING."""
    return draws == 0 and all(e.visible_to() is None and type(e) not in REVEALING for e in events)


def check_no_reveal(before: State, seat: int, command: Any, position: int, seed: str) -> tuple[list, bool]:
    """Decide and fold `command`; if it is undoable, assert no other viewer learnt an identity."""
    rng = Rng(seed, position)
    events = GAME.decide(before, seat, command, rng)
    seen = {v: known(before, v) for v in [None, *range(before.players)] if v != seat}
    after = GAME.fold(msgspec.msgpack.decode(msgspec.msgpack.encode(before), type=State), events)
    checked = undoable(events, rng.draws)
    if checked:
        for viewer, was in seen.items():
            new = known(after, viewer) - was
            assert not new, f"{command!r} by seat {seat} shows {sorted(new)} to {viewer}: {events!r}"
    return events, checked


def _play(options: PingyaoOptions, seed: str) -> tuple[int, int]:
    state, events = GAME.start(options, seed)
    position = len(events)
    chooser = Rng(seed + "/chooser")
    moves = checked = 0
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        command = chooser.choice(GAME.legal_moves(state, seat))
        new, ok = check_no_reveal(state, seat, command, position, seed)
        checked += ok
        state = GAME.fold(state, new)
        position += len(new)
        moves += 1
        assert moves < 20_000
    return moves, checked


def test_undoable_commands_reveal_nothing_in_random_games():
    total = 0
    for players in (1, 2, 3, 4):
        for i in range(5):
            options = PingyaoOptions(players=players, crowdfunding=i % 2 == 1, storyline=i + 1)
            _, checked = _play(options, f"reveals-{players}-{i}")
            total += checked
    assert total > 1000, "the playouts must exercise undoable commands"


def _bottom_draw_state() -> State:
    """A table whose exchange deck's unknown part is empty: seat 1 put two cards back at its bottom
    with Ningxia, every other card was drawn and discarded.  Seat 0 has just opened Xinyizhou, whose
    exchange draws the next card - the one seat 1 put back (Ningxia), so drawing it uses no
    randomness.  The cards put back can be placed (a card that cannot is discarded face up:
    ExchangeDiscarded, also REVEALING)."""
    table = Table(players=3)
    placeable = [c for c in sorted(table.state.deck) if placements(table.state.pl[0], c, 1)]
    back = placeable[-2:]
    table.put_back(1, *back).deck(*back).decision("entry_skill", 0, skill="entry_exchange")
    state = table.state
    assert state.deck == [] and state.deck_bottom == back and GAME.to_act(state) == [0]
    return state


def test_a_card_drawn_from_the_deck_bottom_is_revealing():
    """Xinyizhou's exchange draws one card face up; with only returned cards left it is the bottom
    card, known to nobody but the seat that put it back - the take-back must be refused."""
    state = _bottom_draw_state()
    hidden = state.deck_bottom[0]
    assert all(hidden not in known(state, v) for v in (None, 0, 1, 2))
    events, checked = check_no_reveal(state, 0, K.UseEntrySkill(use=True), 1, "reveals-bottom")
    assert [type(e).__name__ for e in events if type(e) in REVEALING] == ["ExchangeCardsDrawn"]
    assert any(getattr(e, "cards", None) == [hidden] for e in events)
    assert not checked, "the draw is refused a take-back because an event in it is REVEALING"


def test_the_check_catches_a_missing_revealing_event(monkeypatch):
    """Without ExchangeCardsDrawn in REVEALING the same command counts as undoable and the check
    fails: the test above would catch the omission."""
    from domain.pingyao import events as E

    monkeypatch.setattr("tests.domain.pingyao.test_reveals.REVEALING", REVEALING - {E.ExchangeCardsDrawn})
    state = _bottom_draw_state()
    try:
        check_no_reveal(state, 0, K.UseEntrySkill(use=True), 1, "reveals-bottom")
    except AssertionError as failure:
        assert "shows" in str(failure)
    else:
        raise AssertionError("a missing revealing event went unnoticed")

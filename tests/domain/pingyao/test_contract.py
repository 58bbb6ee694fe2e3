"""Contract checks: narration, rejection of unlisted commands, views, components."""

import msgspec
import pytest

from domain.kernel import Rng, RuleViolation
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from domain.pingyao.evolve import _HANDLERS

from .test_playouts import _greedy_playout


def test_describe_every_event_kind():
    seen = set()
    for i in range(6):
        state, events = _greedy_playout(4, f"d{i}")
        s = GAME.initial(PingyaoOptions())
        for e in events:
            text = GAME.describe(s, e)
            assert text and text != type(e).__name__
            s = GAME.evolve(s, e)
            seen.add(type(e))
    assert len(seen) >= 30


def _random_commands(chooser):
    die = chooser.below(12)
    return [
        K.Decline(die=die), K.Reroll(die=die), K.DiscardDie(die=die),
        K.BankEscort(die=die, tier=chooser.between(1, 3), color=chooser.choice(C.COLORS)),
        K.WestStreet(die=die, value=chooser.between(0, 6)), K.ConfuciusTemple(die=die),
        K.MoneyHouseLend(die=die, months=chooser.between(1, 3), amount=chooser.between(1, 2)),
        K.MoneyHouseDeposit(die=die, months=chooser.between(1, 3)), K.CityGodTemple(die=die, extra=True),
        K.Yamen(die=die, tile=chooser.choice(list(C.YAMEN_TILES))), K.EndPreparation(), K.ConvertCopper(silver=5),
        K.PlaceTeller(target="3red:teller"), K.ChooseBranch(tile="Lasa#1"), K.UseEntrySkill(use=True),
        K.PlaceExchange(months=3, deposit="HO", withdraw="HO"), K.TransferFunds(source="HO"),
        K.ResolveExchange(card="X01"), K.MoveSilver(region="1red"), K.ChooseExchangeCard(card="X01"),
        K.AdjustDie(skill="die_plus", die=die), K.SwapDice(up=die, down=(die + 1) % 12), K.RecallSilver(region="1red"),
        K.PlacePublicDie(die=die, action=chooser.choice(["", *C.ACTIONS])), K.PlaceStartingBranch(color="red"),
        K.ClaimReward(accept=True), K.ClaimReward(accept=False), K.TakeYamenTile(tile="any_value"),
        K.TakeBackDie(die=die),
    ]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_unlisted_commands_are_rejected_with_a_rule_code(players):
    chooser = Rng(f"fuzz{players}")
    state, events = GAME.start(PingyaoOptions(players=players, crowdfunding=True), f"fuzz{players}")
    checked = 0
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_moves(state, seat)
        for cmd in _random_commands(chooser):
            for who in (seat, (seat + 1) % max(players, 2)):
                listed = who == seat and cmd in legal
                try:
                    GAME.decide(state, who, cmd, Rng("fuzz", len(events)))
                    assert listed, f"{cmd} accepted but not listed"
                except RuleViolation as v:
                    assert not listed and v.code and (who == seat or v.code == "not_your_turn")
                    checked += 1
        move = chooser.choice(legal)
        new = GAME.decide(state, seat, move, Rng("fuzz", len(events)))
        state = GAME.fold(state, new)
        events.extend(new)
    assert checked > 1000


def test_view_and_components_encode():
    state, _ = GAME.start(PingyaoOptions(players=3), "view")
    for seat in (None, 0, 1, 2):
        v = GAME.view(state, seat)
        assert msgspec.json.decode(msgspec.json.encode(v))["kind"] == "pingyao"
    comp = msgspec.json.encode(GAME.components())
    assert b"assumed" in comp and len(GAME.components()["exchange_cards"]) == 18


def test_events_round_trip():
    union = E.EVENTS
    assert len(set(t.__name__ for t in union)) == len(union)


def test_evolve_has_one_handler_per_event_type():
    """``evolve`` dispatches on the event's type: every event of the game has its handler, and
    the table names nothing else."""
    assert set(_HANDLERS) == set(GAME.event_types)
    assert len(GAME.event_types) == len(set(GAME.event_types))

"""Random playouts with invariants at every step: a few per player count in the default lane, the
full counts (200 per player count, greedy games reaching the late-game rules) in the slow lane."""

import msgspec
import pytest

from domain.kernel import Rng
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import components as C
from domain.pingyao.board import silver_total
from tests.support import random_playout


def check(state, events):
    assert silver_total(state) == C.SILVER_SUPPLY, "silver must be conserved"
    assert state.supply_silver >= 0
    for p in state.pl:
        assert p.copper >= 0 and p.head_office >= 0 and p.deposit_area >= 0
        assert all(
            r.silver >= 0 and r.tellers >= 0 and r.managers >= 0 and r.waiting in (0, 1)
            for r in p.regions.values()
        )
        assert all(x >= 0 for x in p.lending) and sum(p.lending) <= C.LEND_TOTAL
        assert len(p.cards) <= C.MAX_CARDS
        assert 0 <= p.reputation <= C.REPUTATION_MAX and 0 <= p.exchange <= C.EXCHANGE_MAX
    if state.drawn or state.drawn_cards:
        drawer = state.frames[0].seat if state.frames else None
        for viewer in [None, *range(state.players)]:
            if viewer == drawer:
                continue
            blob = msgspec.json.encode(GAME.view(state, viewer))
            for tile in state.drawn:
                assert tile.encode() not in blob, "drawn tiles leak"
            for card in state.drawn_cards if len(state.drawn_cards) > 1 else []:
                assert f'"{card}"'.encode() not in blob, "drawn cards leak"


def _playouts(players: int, games: int, prefix: str) -> None:
    for i in range(games):
        options = PingyaoOptions(players=players, crowdfunding=i % 2 == 1, storyline=i % 5 + 1)
        result = random_playout(GAME, options, f"{prefix}{players}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_playouts(players):
    _playouts(players, 3, "p")


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts_full(players):
    """(2 players and solo: in test_two_player.py and test_solo.py.)"""
    _playouts(players, 200, "p")


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_every_listed_move_is_accepted(players):
    for i in range(6):
        random_playout(
            GAME,
            PingyaoOptions(players=players, crowdfunding=True),
            f"all{players}-{i}",
            check_all_legal_moves=True,
        )


def greedy_playout(players, seed):
    """Prefer actions over declining so that late-game rules (tier 3, Yamen, tracks) get exercised."""
    state, events = GAME.start(PingyaoOptions(players=players, crowdfunding=True), seed)
    chooser = Rng(seed + "/greedy")
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_moves(state, seat)
        good = [m for m in legal if type(m).__name__ not in ("Decline", "EndPreparation", "DiscardDie")]
        if type(legal[0]).__name__ in (
            "AdjustDie",
            "SwapDice",
            "RecallSilver",
            "ConvertCopper",
            "EndPreparation",
        ):
            good = [m for m in legal if type(m).__name__ != "EndPreparation"] if chooser.below(3) == 0 else []
        move = chooser.choice(good or legal)
        new = GAME.decide(state, seat, move, Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events.extend(new)
        check(state, events)
    refolded = GAME.fold(GAME.initial(PingyaoOptions(players=players)), events)
    assert msgspec.msgpack.encode(refolded) == msgspec.msgpack.encode(state)
    return state, events


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_greedy_playouts_reach_late_game(players):
    kinds = set()
    for i in range(40):
        _, events = greedy_playout(players, f"g{players}-{i}")
        kinds |= {type(e).__name__ for e in events}
    for needed in (
        "BranchOpened",
        "YamenTileTaken",
        "ExchangeMatured",
        "TellerPlaced",
        "DepositSilverReturned",
        "LoansReturned",
        "DieRerolled",
        "IncomeCollected",
    ):
        assert needed in kinds

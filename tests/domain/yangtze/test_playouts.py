"""Random playouts: complete games through decide/evolve with invariants checked at every step,
and every finished game refolded to the identical state (tests.support.random_playout).

The default lane plays a few games of each kind; the slow lane (``-m slow``) the full counts.
Whether every command not listed is refused: test_legality.py."""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.kernel import Rng, redact_for, union_of
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze import events as E
from domain.yangtze.events import EVENTS
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.state import money
from tests.support import random_playout

from .helpers import thrifty_choice


class Invariants:
    """Checks every step of one game: conservation of goods and tokens, a money ledger rebuilt
    from the events, no negative money track, and no hidden good in another seat's view."""

    def __init__(self, players: int, views_every: int = 1) -> None:
        self.players = players
        self.ledger = [C.START_MONEY] * players
        self.seen = 0
        self.step = 0
        self.views_every = views_every

    def __call__(self, state, events) -> None:
        for event in events[self.seen :]:
            self._book(event)
        self.seen = len(events)
        s = state
        n = self.players
        # goods conserved
        goods_in_bag = [t for t in s.bag if C.is_good(t)]
        river = [g for g in s.river if g is not None]
        held = [g for screen in s.screens for g in screen]
        everything = goods_in_bag + river + held + s.box
        assert sorted(everything) == list(range(C.GOODS_COUNT))
        assert len(s.river) == C.RIVER_LENGTH
        # rulers and branches conserved
        rulers = [t for t in s.bag if C.is_ruler(t)] + s.rulers
        assert sorted(rulers) == list(range(C.RULER_FIRST, C.RULER_FIRST + C.RULER_COUNT))
        branches = (
            [t for t in s.bag if C.is_branch(t)] + [b for bs in s.branches for b in bs] + s.removed_branches
        )
        if s.auction_token is not None:
            branches.append(s.auction_token)
        assert sorted(branches) == list(range(C.BRANCH_FIRST, C.BRANCH_FIRST + C.BRANCH_COUNT))
        # money: never negative, track within 0..60, ledger agrees
        for seat in range(n):
            assert 0 <= s.track[seat] <= C.TRACK_MAX
            assert s.coins[seat] >= 0
            assert money(s, seat) == self.ledger[seat], (seat, money(s, seat), self.ledger[seat])
            assert set(s.public[seat]) <= set(s.screens[seat])
            assert len(s.cards[seat]) + len(s.liquidity_used[seat]) == 6 - sum(
                1 for c in (C.BUY_TWO, C.SELL_ANYTIME, C.FREE_GOOD) if c not in s.cards[seat]
            )
        # the state rests only where somebody decides
        assert s.phase in ("turn", "auction", "ruler", "over")
        if s.phase == "over":
            assert GAME.outcome(s) is not None and GAME.to_act(s) == []
            for seat in range(n):
                assert s.final_totals[seat] == sum(s.final_breakdown[seat].values())
            return
        # hidden information: no seat (or spectator) sees another seat's private goods
        self.step += 1
        if self.step % self.views_every == 0:
            for viewer in [None, *range(n)]:
                v = GAME.view(s, viewer)
                assert v.bag_count == len(s.bag)
                for other in range(n):
                    shown = set(v.known_goods[other])
                    if other == viewer:
                        assert shown == set(s.screens[other])
                    else:
                        assert shown <= set(s.public[other])
                msgspec.json.encode(v)

    def _book(self, e) -> None:
        t = type(e)
        if t is E.GoodsSold or t is E.LiquidityCardPlayed:
            self.ledger[e.seat] += e.value
        elif t is E.GoodPurchased or t is E.BranchWon:
            self.ledger[e.seat] -= e.price
        elif t is E.LiquidityBoughtBack:
            self.ledger[e.seat] -= e.value
        elif t is E.OrderExecuted:
            if e.amount >= 0:
                self.ledger[e.seat] += e.amount
            else:
                assert 0 <= e.forgiven <= -e.amount
                self.ledger[e.seat] -= -e.amount - e.forgiven


def lanes(few: tuple, full: tuple) -> pytest.MarkDecorator:
    """A few games in the default lane; *full* (the same seeds, and more) in the slow lane."""
    return pytest.mark.parametrize(
        "games, checked",
        [pytest.param(*few, id="few"), pytest.param(*full, id="full", marks=pytest.mark.slow)],
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@lanes(few=(8, 3), full=(200, 100))
def test_random_playouts(players, games, checked):
    """*games* uniform random games; in the first *checked* every legal move is tried, too."""
    reasons = set()
    for i in range(games):
        check = Invariants(players)
        result = random_playout(
            GAME,
            YangtzeOptions(players=players),
            f"yangtze-{players}-{i}",
            check=check,
            check_all_legal_moves=i < checked,
        )
        out = GAME.outcome(result.state)
        assert out is not None and out.winners
        reasons.add(result.state.final_reason)
        for event in result.events[:50]:
            assert isinstance(GAME.describe(result.state, event), str)
    assert reasons


@pytest.mark.parametrize("players", [2, 3, 4])
@lanes(few=(6, 0), full=(40, 0))
def test_thrifty_playouts_reach_the_twelfth_ruler(players, games, checked):
    """Complete games with a less wasteful policy: invariants at every step, every event
    round-trips, hidden events are redacted for the others, and the refold is identical."""
    union = union_of(EVENTS)
    ended_by_rulers = 0
    for i in range(games):
        rnd = random.Random(f"{players}-{i}")
        opts = YangtzeOptions(players=players)
        seed = f"biased-{players}-{i}"
        state, events = GAME.start(opts, seed)
        events = list(events)
        check = Invariants(players)
        moves = 0
        while GAME.outcome(state) is None:
            seats = GAME.to_act(state)
            assert seats
            seat = seats[0]
            legal = GAME.legal_moves(state, seat)
            command = thrifty_choice(rnd, state, legal)
            assert command in legal
            new = GAME.decide(state, seat, command, Rng(seed, len(events)))
            for e in new:
                assert msgspec.msgpack.decode(msgspec.msgpack.encode(e), type=union) == e
                allowed = e.visible_to()
                if allowed is not None:
                    for viewer in [None, *range(players)]:
                        if viewer not in allowed:
                            assert redact_for(e, viewer) != e
            state = GAME.fold(state, new)
            events.extend(new)
            check(state, events)
            moves += 1
            assert moves < 5000
        refolded = GAME.fold(GAME.initial(opts), events)
        assert msgspec.msgpack.encode(refolded) == msgspec.msgpack.encode(state)
        ended_by_rulers += len(state.rulers) == 12
    assert ended_by_rulers >= games // 2

"""Random playouts: complete games through decide/evolve with invariants checked at every step,
and every finished game refolded to the identical state (tests.support.random_playout)."""

from __future__ import annotations

import msgspec
import pytest

from domain.kernel import Rng, RuleViolation
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze import events as E
from domain.yangtze.bundles import possible_bundles
from domain.yangtze.commands import (
    Bid,
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    DoneSelling,
    EndTurn,
    ExchangeGood,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    ReturnGood,
    SellBundle,
)
from domain.yangtze.rules import YangtzeOptions
from domain.yangtze.state import money
from tests.support import random_playout

GAMES = 200


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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts(players):
    reasons = set()
    for i in range(GAMES):
        check = Invariants(players)
        result = random_playout(
            GAME,
            YangtzeOptions(players=players),
            f"yangtze-{players}-{i}",
            check=check,
            check_all_legal_moves=i < 100,
        )
        out = GAME.outcome(result.state)
        assert out is not None and out.winners
        reasons.add(result.state.final_reason)
        for event in result.events[:50]:
            assert isinstance(GAME.describe(result.state, event), str)
    assert reasons


def _universe(state, seat):
    """Many candidate commands, legal or not."""
    goods = sorted({g for sc in state.screens for g in sc} | {g for g in state.river if g is not None})
    cands = [EndTurn(), Pass(), DeclineOrder(), DoneSelling(), PlaySellCard()]
    cands += [PlayLiquidity(value=v) for v in (5, 10, 15, 20)]
    cands += [BuyBackLiquidity(value=v) for v in (10, 15, 20, 25)]
    cands += [ChooseRuler(spot=i) for i in range(-1, 13)]
    cands += [Bid(amount=a) for a in range(-1, money(state, seat) + 3)]
    cands += [
        PurchaseGood(slot=i, free=f, buy_two=b)
        for i in range(-1, 9)
        for f in (False, True)
        for b in (False, True)
    ]
    cands += [ReturnGood(good=g) for g in goods]
    cands += [ExchangeGood(good=g, slot=i) for g in goods for i in range(-1, 9)]
    cands += [SellBundle(goods=[g]) for g in goods]
    for sc in state.screens:
        cands += [SellBundle(goods=b) for b in possible_bundles(sc)]
    cands += [SellBundle(goods=[]), SellBundle(goods=goods[:2]), SellBundle(goods=goods[:3])]
    return cands


@pytest.mark.parametrize("players", [2, 3, 4])
def test_moves_not_listed_are_rejected(players):
    """Along random games: for every seat, a candidate command is accepted exactly when listed."""
    for i in range(4):
        result = random_playout(GAME, YangtzeOptions(players=players), f"universe-{i}")
        state = GAME.initial(YangtzeOptions(players=players))
        for k, event in enumerate(result.events):
            state = GAME.evolve(state, event)
            if k < players + 1 or k % 3 or state.phase == "over":
                continue
            before = msgspec.msgpack.encode(state)
            for seat in range(players):
                listed = GAME.legal_moves(state, seat)
                legal = {msgspec.msgpack.encode(m) for m in listed}
                assert len(legal) == len(listed), "a move is listed twice"
                for cand in _universe(state, seat):
                    key = msgspec.msgpack.encode(cand)
                    try:
                        GAME.decide(state, seat, cand, Rng("u", k))
                        accepted = True
                    except RuleViolation:
                        accepted = False
                    assert accepted == (key in legal), (cand, seat, state.phase, accepted)
            assert msgspec.msgpack.encode(state) == before, "decide must not mutate the state"


def _biased_choice(rnd, state, legal):
    """A less reckless player than uniform choice: bids small, buys when it can, sells big bundles
    sometimes, plays cards now and then — so that games reach the 12th ruler."""
    by = {}
    for m in legal:
        by.setdefault(type(m), []).append(m)
    cards = by.get(PlayLiquidity, []) + by.get(PlaySellCard, [])
    if cards and rnd.random() < 0.03:
        return rnd.choice(cards)
    if Bid in by or (Pass in by and state.phase == "auction"):
        if Bid in by and rnd.random() < 0.5:
            return by[Bid][min(len(by[Bid]) - 1, rnd.randrange(3))]
        return Pass()
    if DoneSelling in by:
        return rnd.choice(by[SellBundle]) if SellBundle in by and rnd.random() < 0.6 else DoneSelling()
    if PurchaseGood in by or EndTurn in by:
        if SellBundle in by and (PurchaseGood not in by or rnd.random() < 0.3):
            return max(by[SellBundle], key=lambda m: len(m.goods))
        if PurchaseGood in by and rnd.random() < 0.95:
            return rnd.choice(by[PurchaseGood])
        return EndTurn()
    return rnd.choice(legal)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_biased_playouts_reach_the_twelfth_ruler(players):
    """Complete games with a less wasteful policy: invariants at every step, every event
    round-trips, hidden events are redacted for the others, and the refold is identical."""
    import random

    from domain.kernel import redact_for, union_of
    from domain.yangtze.events import EVENTS

    union = union_of(EVENTS)
    ended_by_rulers = 0
    games = 40
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
            command = _biased_choice(rnd, state, legal)
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

"""The move generator and the rule checks agree (python-chess's perft spirit).

Along complete games, at every table visited and for every seat: each command ``legal_moves``
lists is accepted by ``decide``; each command it does not list -- the listed ones with one field
given other values, within and outside its range, and one command of every type -- is refused with
a ``RuleViolation`` carrying a known code and (but for the seat checks) its rulebook section, never
with another exception.  A bundle is a set: the same goods in another order are the same sale.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from domain.kernel import Command, Rng, RuleViolation
from domain.yangtze import GAME
from domain.yangtze import components as C
from domain.yangtze.commands import (
    COMMANDS,
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
from domain.yangtze.state import State, money
from tests.support import random_playout

from .helpers import tables

CODES = {
    "not_your_turn",
    "game_over",
    "good_not_held",
    "not_a_bundle",
    "selling_not_allowed",
    "no_good_there",
    "card_not_available",
    "insufficient_money",
    "bid_too_low",
    "order_mandatory",
    "no_such_ruler",
    "sale_in_progress",
    "finish_selling",
    "no_sale_open",
    "not_now",
}
"""Every refusal code Yangtze uses (part of the HTTP contract: never renamed)."""

FAR = 10**9

ONE_OF_EACH: list[Command] = [
    SellBundle(goods=[0]),
    DoneSelling(),
    PurchaseGood(slot=0),
    EndTurn(),
    Bid(amount=1),
    Pass(),
    ReturnGood(good=0),
    ExchangeGood(good=0, slot=0),
    BuyBackLiquidity(value=10),
    ChooseRuler(spot=0),
    DeclineOrder(),
    PlayLiquidity(value=10),
    PlaySellCard(),
]


def test_one_of_each_command_type():
    assert sorted(type(c).__name__ for c in ONE_OF_EACH) == sorted(t.__name__ for t in COMMANDS)


def _key(command: Command) -> bytes:
    if isinstance(command, SellBundle):
        command = SellBundle(goods=sorted(command.goods))
    return msgspec.msgpack.encode(command)


def _goods_on_table(s: State) -> list[int]:
    return sorted(
        {g for screen in s.screens for g in screen} | {g for g in s.river if g is not None} | set(s.box)
    )


def _other_ints(field: str, value: int, s: State, seat: int) -> set[int]:
    values = {value - 1, value + 1, -1, 0, FAR, -FAR}
    if field == "slot":
        values |= set(range(-1, C.RIVER_LENGTH + 1))
    elif field == "spot":
        values |= set(range(-1, C.RULER_COUNT + 1))
    elif field == "good":
        values |= {*_goods_on_table(s), C.GOODS_COUNT, C.RULER_FIRST}
    elif field == "amount":
        cash = money(s, seat) if 0 <= seat < s.players else 0
        values |= {s.high_bid, s.high_bid + 1, cash, cash + 1}
    elif field == "value":
        values |= {5, 10, 15, 20, 25, 30}
    return values - {value}


def _other_goods(goods: list[int], s: State) -> list[list[int]]:
    out = [[], [-1], [FAR], goods[::-1], goods + goods[:1], [*goods, C.RULER_FIRST]]
    out += [goods[:i] + goods[i + 1 :] for i in range(len(goods))]
    out += [[*goods, g] for g in _goods_on_table(s) if g not in goods]
    return out


def mutations(command: Command, s: State, seat: int) -> Iterator[Command]:
    """*command* with one field changed, to every interesting other value."""
    for field in command.__struct_fields__:
        value = getattr(command, field)
        if isinstance(value, bool):
            others: list = [not value]
        elif isinstance(value, int):
            others = sorted(_other_ints(field, value, s, seat))
        else:
            others = _other_goods(list(value), s)
        for other in others:
            yield msgspec.structs.replace(command, **{field: other})


def check_agreement(state: State, position: int) -> int:
    """Every seat's listed moves accepted, every nearby unlisted command refused; returns how many
    commands were tried."""
    before = msgspec.msgpack.encode(state)
    tried = 0
    for seat in [-1, *range(state.players), state.players]:
        listed = GAME.legal_moves(state, seat)
        keys = {_key(m) for m in listed}
        assert len(keys) == len(listed), "a move is listed twice"
        candidates = {msgspec.msgpack.encode(m): m for m in [*listed, *ONE_OF_EACH]}
        for move in [*listed, *ONE_OF_EACH]:
            for other in mutations(move, state, seat):
                candidates.setdefault(msgspec.msgpack.encode(other), other)
        for command in candidates.values():
            tried += 1
            try:
                GAME.decide(state, seat, command, Rng("agree", position))
            except RuleViolation as refusal:
                assert refusal.code in CODES, refusal
                assert refusal.rule or refusal.code in ("not_your_turn", "game_over"), refusal
                assert _key(command) not in keys, (seat, command, refusal)
            else:
                assert _key(command) in keys, (seat, command, "accepted but not listed")
    assert msgspec.msgpack.encode(state) == before, "decide must not mutate the state"
    return tried


def _walk(players: int, games: int, every: int) -> None:
    phases: set[str] = set()
    for i in range(games):
        for thrifty in (False, True):
            for k, (state, position) in enumerate(tables(players, f"agree-{players}-{i}", thrifty=thrifty)):
                if k % every == 0:
                    check_agreement(state, position)
                    phases.add("sale" if state.window is not None else state.phase)
    assert phases >= {"turn", "auction", "ruler"}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "games, every", [pytest.param(1, 3, id="few"), pytest.param(10, 1, id="full", marks=pytest.mark.slow)]
)
def test_generator_and_checker_agree(players, games, every):
    _walk(players, games, every)


def test_a_finished_game_refuses_everything_with_game_over():
    state = random_playout(GAME, YangtzeOptions(players=3), "agree-over").state
    for seat in (-1, 0, 1, 2, 3):
        assert GAME.legal_moves(state, seat) == []
        for command in ONE_OF_EACH:
            with pytest.raises(RuleViolation) as refusal:
                GAME.decide(state, seat, command, Rng("agree-over", 0))
            assert refusal.value.code == "game_over"


def test_generator_and_checker_agree_at_response_windows_and_debts():
    """The yangtze-3 decisions of an automatic order: a response window (``Pass`` or a card) and
    the choice of the liquidity card that settles a debt."""
    from domain.yangtze.commands import PlayLiquidity as Redeem
    from domain.yangtze.rulers import DEBT, RESPOND, waiting_for

    from .helpers import RULER, Story, daily, lux, seed_drawing

    window = Story(hands=[[], [daily(2, 0), daily(3, 0)]]).sell_card_used(0)
    debt = Story(hands=[[], [lux(0, c) for c in range(5)]]).sell_card_used(0, 1)
    debt.auction_round([(1, 73, 28)])
    seen = set()
    for story in (window, debt):
        seed = seed_drawing(story.state, RULER[C.TAX_GOODS])
        state = GAME.fold(story.state, GAME.decide(story.state, 0, PurchaseGood(slot=7), Rng(seed, 0)))
        seen.add(waiting_for(state, 1))
        check_agreement(state, 0)
        if waiting_for(state, 1) == DEBT:
            assert all(isinstance(m, Redeem) for m in GAME.legal_moves(state, 1))
    assert seen == {RESPOND, DEBT}

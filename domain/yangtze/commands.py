"""Yangtze's commands: one small decision each (imperative names)."""

from __future__ import annotations

from domain.kernel import Command


class YangtzeCommand(Command, frozen=True, tag=lambda name: f"yangtze.{name}"):
    pass


class SellBundle(YangtzeCommand, frozen=True):
    """Sell one bundle (start of the turn, with the sell card, or for a ruler's order)."""

    goods: list[int]


class DoneSelling(YangtzeCommand, frozen=True):
    """Close the out-of-turn sale opened with the sell card."""


class PurchaseGood(YangtzeCommand, frozen=True):
    """Buy the good in front of trading house *slot* (0 = open end .. 7 = Shanghai)."""

    slot: int
    free: bool = False
    """Play the free-good card on this purchase."""
    buy_two: bool = False
    """Play the buy-two card: a second purchase follows before the river is refilled."""


class EndTurn(YangtzeCommand, frozen=True):
    """Buy nothing (more) this turn."""


class Bid(YangtzeCommand, frozen=True):
    """Branches: in the auction of a drawn branch token, bid ``amount`` - more than the highest bid so
    far and no more than your money; the last bidder left pays it and takes the token."""

    amount: int


class Pass(YangtzeCommand, frozen=True):
    """Leave the branch auction."""


class ReturnGood(YangtzeCommand, frozen=True):
    """Rulers: for the order to return a good, put one of the goods behind your screen in the box.
    ``good``: the goods token's id."""

    good: int


class ExchangeGood(YangtzeCommand, frozen=True):
    """Rulers: for the exchange order, swap one of the goods behind your screen (``good``: its token id)
    with the good in front of trading house ``slot`` (0 = open end .. 7 = Shanghai)."""

    good: int
    slot: int


class BuyBackLiquidity(YangtzeCommand, frozen=True):
    """Rulers: for the buy-back order, buy back one of your used liquidity cards, paying the ``value``
    (10, 15 or 20) it brought you."""

    value: int


class ChooseRuler(YangtzeCommand, frozen=True):
    """For the repeat order: execute the order of the ruler at *spot*."""

    spot: int


class DeclineOrder(YangtzeCommand, frozen=True):
    """Do not execute an optional (question-mark) order."""


class PlayLiquidity(YangtzeCommand, frozen=True):
    """Special Cards: at any time, play your unused liquidity card of ``value`` (10, 15 or 20) to raise
    your money by that much (you must, when a ruler's tax exceeds your money); unused, it is worth 30."""

    value: int


class PlaySellCard(YangtzeCommand, frozen=True):
    """Play the sell-any-time card: sell bundles now, then DoneSelling."""


COMMANDS = (
    SellBundle,
    DoneSelling,
    PurchaseGood,
    EndTurn,
    Bid,
    Pass,
    ReturnGood,
    ExchangeGood,
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    PlayLiquidity,
    PlaySellCard,
)

"""Jiangnan commands: one small decision each, named in the imperative."""

from __future__ import annotations

from domain.kernel import Command


class JiangnanCommand(Command, frozen=True, tag=lambda name: f"jiangnan.{name}"):
    pass


class ChooseStartingPortfolio(JiangnanCommand, frozen=True):
    portfolio: str


class VisitDistrict(JiangnanCommand, frozen=True):
    """Player Turn 1: choose an Action Tile (by slot, 0 = rightmost) and its district."""

    slot: int
    district: str


class Rest(JiangnanCommand, frozen=True):
    slot: int


class UseSpiritsTile(JiangnanCommand, frozen=True):
    pass


class RefreshPortfolios(JiangnanCommand, frozen=True):
    pass


class TakePortfolios(JiangnanCommand, frozen=True):
    portfolios: list[str]


class TakePortfolioAndIdea(JiangnanCommand, frozen=True):
    portfolio: str
    idea: str


class TakeIdeas(JiangnanCommand, frozen=True):
    ideas: list[str]


class TakePortfolio(JiangnanCommand, frozen=True):
    portfolio: str


class TakeIdea(JiangnanCommand, frozen=True):
    idea: str


class Publish(JiangnanCommand, frozen=True):
    portfolio: str


class DrawInspiration(JiangnanCommand, frozen=True):
    pass


class PlaceServant(JiangnanCommand, frozen=True):
    """Place a Servant on a Muse Tile."""

    muse: str


class TravelTo(JiangnanCommand, frozen=True):
    city: str


class MoveServant(JiangnanCommand, frozen=True):
    """Temple Fair: move your Servant 1-3 spaces in one direction."""

    distance: int
    clockwise: bool


class PlaceOnBoat(JiangnanCommand, frozen=True):
    boat: int


class MoveBoatServant(JiangnanCommand, frozen=True):
    from_boat: int
    to_boat: int


class ExchangeIdeas(JiangnanCommand, frozen=True):
    give: list[str]
    take: list[str]


class SwapActionTile(JiangnanCommand, frozen=True):
    """B12: exchange a used or drafted tile with the one in ``slot`` (-1: move it down)."""

    tile: str
    slot: int


class ActivateNovel(JiangnanCommand, frozen=True):
    portfolio: str


class ActivateAssistant(JiangnanCommand, frozen=True):
    assistant: str


class EndIncome(JiangnanCommand, frozen=True):
    pass


class ChooseTrend(JiangnanCommand, frozen=True):
    trend: str


class DraftTile(JiangnanCommand, frozen=True):
    tile: str


class Pass(JiangnanCommand, frozen=True):
    """Decline an optional ("you may") action."""


COMMANDS = (
    ChooseStartingPortfolio, VisitDistrict, Rest, UseSpiritsTile, RefreshPortfolios, TakePortfolios,
    TakePortfolioAndIdea, TakeIdeas, TakePortfolio, TakeIdea, Publish, DrawInspiration, PlaceServant,
    TravelTo, MoveServant, PlaceOnBoat, MoveBoatServant, ExchangeIdeas, SwapActionTile, ActivateNovel,
    ActivateAssistant, EndIncome, ChooseTrend, DraftTile, Pass,
)

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


class TakeServantIncome(JiangnanCommand, frozen=True):
    """Personal Income d./e. (jiangnan-3): take the Coins for your Servants in the Teahouse or the
    VP for those in the Tavern now; what is not taken is taken when you end your income."""

    district: str


class EndIncome(JiangnanCommand, frozen=True):
    pass


class ChooseTrend(JiangnanCommand, frozen=True):
    trend: str


class DraftTile(JiangnanCommand, frozen=True):
    tile: str


class Pass(JiangnanCommand, frozen=True):
    """Decline an optional ("you may") action."""


# --- chapters 2-6, 2 players -----------------------------------------------------------------
class ChooseTalent(JiangnanCommand, frozen=True):
    """Talent draft (setup step 14, reverse player order)."""

    talent: str


class TakeExam(JiangnanCommand, frozen=True):
    """Society option d (side B): take the Juren or Gongshi exam; then discard and pay one by one."""


class DiscardPortfolio(JiangnanCommand, frozen=True):
    portfolio: str


class PayIdea(JiangnanCommand, frozen=True):
    idea: str


class PublishToTravel(JiangnanCommand, frozen=True):
    """Traveling Artisans (Travel side B): publish a Portfolio instead of paying the Travel Cost."""

    portfolio: str


class PublishIn(JiangnanCommand, frozen=True):
    """Shop B1: publish in the Teahouse or the Tavern, updating its Display Track."""

    portfolio: str
    district: str


class DrawPortfolio(JiangnanCommand, frozen=True):
    """Shop B6: take the top Portfolio Tile of the Society stack."""


class ChooseShop(JiangnanCommand, frozen=True):
    """Special Action Pointer B/C: activate one of the two Shops it points to."""

    shop: str


class SendVassal(JiangnanCommand, frozen=True):
    """2 players: the district (of the discarded tile) for the vassal's Scholar."""

    district: str


class DiscardTile(JiangnanCommand, frozen=True):
    """2-player advanced variant: the Action Tile (slot, 0 = rightmost) to discard."""

    slot: int


COMMANDS = (
    ChooseStartingPortfolio,
    VisitDistrict,
    Rest,
    UseSpiritsTile,
    RefreshPortfolios,
    TakePortfolios,
    TakePortfolioAndIdea,
    TakeIdeas,
    TakePortfolio,
    TakeIdea,
    Publish,
    DrawInspiration,
    PlaceServant,
    TravelTo,
    MoveServant,
    PlaceOnBoat,
    MoveBoatServant,
    ExchangeIdeas,
    SwapActionTile,
    ActivateNovel,
    ActivateAssistant,
    EndIncome,
    ChooseTrend,
    DraftTile,
    Pass,
    ChooseTalent,
    TakeExam,
    DiscardPortfolio,
    PayIdea,
    PublishToTravel,
    PublishIn,
    DrawPortfolio,
    ChooseShop,
    SendVassal,
    DiscardTile,
    TakeServantIncome,
)

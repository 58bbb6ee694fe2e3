"""Jiangnan commands: one small decision each, named in the imperative."""

from __future__ import annotations

from domain.kernel import Command


class JiangnanCommand(Command, frozen=True, tag=lambda name: f"jiangnan.{name}"):
    pass


class ChooseStartingPortfolio(JiangnanCommand, frozen=True):
    """Game Setup: keep one of the revealed starting Portfolio Tiles as your first unpublished
    Portfolio (players choose in reverse player order). ``portfolio``: the Portfolio Tile's id."""

    portfolio: str


class VisitDistrict(JiangnanCommand, frozen=True):
    """Player Turn 1: choose an Action Tile (by slot, 0 = rightmost) and its district."""

    slot: int
    district: str


class Rest(JiangnanCommand, frozen=True):
    """Rest (Player Turn 1; at Spirit 0 a Mandatory Rest): use the Action Tile in ``slot`` (0 = rightmost)
    without visiting its district - your Scholar goes to the Rest Area, you discard a tile for its Discard
    Bonus, gain 2 Coins and raise your Spirit Level by 4."""

    slot: int


class UseSpiritsTile(JiangnanCommand, frozen=True):
    """Spirit Level Track: discard a Spirits Tile whenever you are to act to raise your Spirit Level by 3
    (it can prevent a Mandatory Rest)."""


class RefreshPortfolios(JiangnanCommand, frozen=True):
    """Society 2 (1 Coin, once per turn) or Shop A6 Calligraphy Shop (free): put the displayed Portfolio
    Tiles under their stack and reveal new ones before you take yours."""


class TakePortfolios(JiangnanCommand, frozen=True):
    """Society 3a: take 2 face-up Portfolio Tiles from the display into your unpublished Portfolios.
    ``portfolios``: the ids of the two Portfolio Tiles."""

    portfolios: list[str]


class TakePortfolioAndIdea(JiangnanCommand, frozen=True):
    """Society 3b: take 1 face-up Portfolio Tile from the display and 1 Idea Tile of any type.
    ``portfolio``: the Portfolio Tile's id; ``idea``: drama, novel or painting."""

    portfolio: str
    idea: str


class TakeIdeas(JiangnanCommand, frozen=True):
    """Society 3c: take 2 Idea Tiles of any type(s) (``ideas``: drama, novel or painting, twice)."""

    ideas: list[str]


class TakePortfolio(JiangnanCommand, frozen=True):
    """Take 1 face-up Portfolio Tile from the Society display (Bonus Icons, a City Bonus, Shop A6,
    Assistant B17, or Talents A13/A15's extra tile at the Society). ``portfolio``: the tile's id."""

    portfolio: str


class TakeIdea(JiangnanCommand, frozen=True):
    """Gain 1 Idea Tile of the type you choose (Shop A1 Printing Press, Assistant B06, or Talents
    A13/A15's extra tile at the Society). ``idea``: drama, novel or painting."""

    idea: str


class Publish(JiangnanCommand, frozen=True):
    """Publish a Portfolio: pay its Ideas cost and gain its payout - Teahouse 2a / Tavern 4a (its
    Display Track gets a tile with your Servant), Shop A1 or Assistant B20 (no Display Track).
    ``portfolio``: the id of one of your unpublished Portfolio Tiles."""

    portfolio: str


class DrawInspiration(JiangnanCommand, frozen=True):
    """Teahouse 2b / Tavern 4b: instead of publishing, gain 1 Idea Tile for each Display Tile on the
    district's Display Track, of that tile's type."""


class PlaceServant(JiangnanCommand, frozen=True):
    """Place a Servant on a Muse Tile."""

    muse: str


class TravelTo(JiangnanCommand, frozen=True):
    """Travel 1-4: travel to ``city`` (next to Jinling or to a city you travelled to, not visited yet),
    paying its Travel Cost; Spirit +1, a Servant there and its City Bonus (Shop A2 Peddler, Assistant B13
    and Traveling Artisans: no cost, and only part or none of the City Bonus)."""

    city: str


class MoveServant(JiangnanCommand, frozen=True):
    """Temple Fair: move your Servant 1-3 spaces in one direction."""

    distance: int
    clockwise: bool


class PlaceOnBoat(JiangnanCommand, frozen=True):
    """Shop A4 Boatman (1 Coin) or Assistant B07: place one of your Servants on a Boat Tile on the
    river, to compete for it in Resolve Boats. ``boat``: the Boat Tile's id."""

    boat: int


class MoveBoatServant(JiangnanCommand, frozen=True):
    """Shop B4 Boatman or Assistant B14: move one of your Servants from one Boat Tile on the river to
    another. ``from_boat`` / ``to_boat``: the Boat Tiles' ids."""

    from_boat: int
    to_boat: int


class ExchangeIdeas(JiangnanCommand, frozen=True):
    """Shop B3 Gift Shop (1 Idea for 1 of another type, up to 3 times) or Assistant B08 (any 2 for any
    2): give Idea Tiles you have (``give``) for the same number of any type(s) (``take``)."""

    give: list[str]
    take: list[str]


class SwapActionTile(JiangnanCommand, frozen=True):
    """B12: exchange a used or drafted tile with the one in ``slot`` (-1: move it down)."""

    tile: str
    slot: int


class ActivateNovel(JiangnanCommand, frozen=True):
    """Personal Income b.: pay 1 Novel Idea to collect the income of one of your published Novels,
    once per round. ``portfolio``: the Novel's Portfolio Tile id."""

    portfolio: str


class ActivateAssistant(JiangnanCommand, frozen=True):
    """Personal Income c. (each hired Assistant once per round) or Shop A3 Gift Shop (the Muse you just
    placed a Servant on): use that Assistant's power. ``assistant``: its id, B01-B20."""

    assistant: str


class TakeServantIncome(JiangnanCommand, frozen=True):
    """Personal Income d./e. (jiangnan-3): take the Coins for your Servants in the Teahouse or the
    VP for those in the Tavern now; what is not taken is taken when you end your income."""

    district: str


class EndIncome(JiangnanCommand, frozen=True):
    """Personal Income: finish your income; the Coins (Teahouse) and VP (Tavern) of your Servants not
    taken yet are taken now."""


class ChooseTrend(JiangnanCommand, frozen=True):
    """Resolve Boats: as the winner of the boat below the Upkeep board, choose which of its 2 Scoring
    Trend Tiles goes on the Public Scoring Track."""

    trend: str


class DraftTile(JiangnanCommand, frozen=True):
    """Draft New Action Tiles (Rounds 1-4): when your Scholar is the leftmost in the row, take 1 Action
    Tile from the Upkeep board into your Drafted area. ``tile``: the Action Tile's id."""

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
    """Imperial Exam: discard one of your unpublished Portfolio Tiles (removed from the game), one at
    a time until the exam's 2 (Juren) or 3 (Gongshi) are discarded. ``portfolio``: the tile's id."""

    portfolio: str


class PayIdea(JiangnanCommand, frozen=True):
    """Imperial Exam: pay 1 Idea Tile of the chosen type, one at a time until the exam's 6 (Juren) or
    9 (Gongshi) are paid. ``idea``: drama, novel or painting."""

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

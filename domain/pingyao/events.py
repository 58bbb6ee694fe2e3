"""Pingyao events: facts in the past tense.  Random outcomes (dice, tiles, cards) are in them."""

from __future__ import annotations

import msgspec

from domain.kernel import Event, Seat

from .state import Frame
from .versions import UNRECORDED


class PingyaoEvent(Event, frozen=True, kw_only=True, tag=lambda n: f"pingyao.{n}"):
    frame: bool = False
    """True when this fact answers the pending sub-decision (it is removed from the queue)."""


class GameSetUp(PingyaoEvent, frozen=True, kw_only=True):
    players: int
    crowdfunding: bool
    starting: list[str]
    """The starting branch dealt to each seat (public)."""
    start_player: int
    rules_version: str = UNRECORDED
    """The rules version the game is played under to its end (setup events stored before it was
    recorded were played under ``pingyao-2``)."""


class StorylineChosen(PingyaoEvent, frozen=True, kw_only=True):
    """Solo setup: the storyline card (its Yamen tile is the player's for the whole game)."""

    storyline: int
    tile: str


class StartingBranchPlaced(PingyaoEvent, frozen=True, kw_only=True):
    """Solo setup: Taiyuan (with its silver) on the chosen Tier-1 region."""

    seat: int
    region: str


class SetupDie(msgspec.Struct, frozen=True):
    die: int
    action: str
    value: int
    space: bool
    """True: on the action space; False: in its resting area."""


class EventCardRevealed(PingyaoEvent, frozen=True, kw_only=True):
    """Solo: this round's event card and its initial set-up of public dice."""

    card: str
    dice: list[SetupDie] = []  # noqa: RUF012 - msgspec copies a mutable default


class RoundGoalMet(PingyaoEvent, frozen=True, kw_only=True):
    card: str


class RewardClaimed(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str
    accept: bool
    ongoing: bool = False


class SilverGained(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    amount: int
    reason: str = ""


class DieTakenBack(PingyaoEvent, frozen=True, kw_only=True):
    """Solo "extra action": a used teller die comes back, rerolled, and must act now."""

    seat: int
    die: int
    value: int


class RoundStarted(PingyaoEvent, frozen=True, kw_only=True):
    round: int
    start_player: int


class DiceRolled(PingyaoEvent, frozen=True, kw_only=True):
    values: list[int]
    """One value per die id (seat*3 + k; k=0 the large four-sided die); 0 = not rolled."""


class PublicDiceRolled(PingyaoEvent, frozen=True, kw_only=True):
    """Two-player game: the starting player rolls the public dice (one value per die id, 0 = not rolled)."""

    values: list[int]


class PublicDiePlaced(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    die: int
    action: str
    """The action whose resting area takes the die; "" = out of play this round."""


class DecisionQueued(PingyaoEvent, frozen=True, kw_only=True):
    frames: list[Frame]
    """Put in front of the pending decisions, in this order."""
    seat: int = -1
    bonuses: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default
    """One-time bonuses taken by seat (reputation 2/8/13 tellers, the Tier-3 Yamen teller)."""


class PhaseStarted(PingyaoEvent, frozen=True, kw_only=True):
    phase: str


class DieAdjusted(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    skill: str
    die: int
    value: int


class SilverRecalled(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    region: str
    cost: int


class CopperConverted(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    silver: int


class PreparationEnded(PingyaoEvent, frozen=True, kw_only=True):
    seat: int


class DieRerolled(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    die: int
    cost: int
    value: int


class DieDiscarded(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    die: int
    copper: int = 3


class DieDeclined(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    die: int


class DieDispatched(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    die: int
    action: str
    value: int
    bumped: int = -1
    copper: int = 0
    """Value-difference copper gained (+) or paid (-)."""


class BranchTilesDrawn(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    tier: int
    region: str
    cost: int
    count: int
    tiles: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default

    def visible_to(self) -> tuple[Seat, ...] | None:
        return (self.seat,)

    def redacted(self) -> Event | None:
        return BranchTilesDrawn(
            seat=self.seat, tier=self.tier, region=self.region, cost=self.cost, count=self.count
        )


class BranchOpened(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    region: str
    tile: str
    capital: int


class BranchTilesReturned(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    tier: int
    count: int
    tiles: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default

    def visible_to(self) -> tuple[Seat, ...] | None:
        return (self.seat,)

    def redacted(self) -> Event | None:
        return BranchTilesReturned(seat=self.seat, tier=self.tier, count=self.count, frame=self.frame)


class ReputationGained(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    amount: int
    cost: int = 0
    reason: str = ""


class CopperGained(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    amount: int
    reason: str = ""


class TellerPlaced(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    target: str
    """"<region>:teller" | "<region>:manager" | "<region>:wait"; "" = lost (no valid position)."""
    source: str = "supply"
    cost: int = 0


class TellersRecalled(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    count: int


class SilverMoved(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    source: str
    dest: str
    """"" = the player chose not to move."""
    reason: str = ""


class EntrySkillDecided(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    skill: str
    use: bool


class ExchangeCardsDrawn(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    count: int
    cards: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default

    def visible_to(self) -> tuple[Seat, ...] | None:
        # A single card goes face up onto the exchange-time track; a choice among several is private.
        return None if self.count == 1 else (self.seat,)

    def redacted(self) -> Event | None:
        return ExchangeCardsDrawn(seat=self.seat, count=self.count)


class DeckReshuffled(PingyaoEvent, frozen=True, kw_only=True):
    count: int


class ExchangeCardChosen(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str
    returned: list[str] = []  # noqa: RUF012 - msgspec copies a mutable default
    count: int = 0

    def visible_to(self) -> tuple[Seat, ...] | None:
        return (self.seat,) if self.returned else None

    def redacted(self) -> Event | None:
        return ExchangeCardChosen(seat=self.seat, card=self.card, count=self.count, frame=self.frame)


class ExchangePlaced(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str
    months: int
    deposit: str
    withdraw: str
    fee: int
    advance: bool = True


class ExchangeDiscarded(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str


class SilverLent(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    months: int
    amount: int


class DepositAccepted(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    months: int


class YamenTileTaken(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    tile: str
    copper: int
    silver: int


class IncomeCollected(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    copper: int
    parts: dict[str, int] = {}  # noqa: RUF012 - msgspec copies a mutable default


class LoansReturned(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    silver: int
    final: bool = False


class DepositInterestPaid(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    interest: int
    months_left: int


class DepositSilverReturned(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    silver: int
    shortfall: int = 0


class EmergencyTransfer(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    source: str
    dest: str
    copper: int
    fee_source: str = ""


class ExchangesAdvanced(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    due: list[str]


class ExchangeOrderChosen(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str


class ExchangeMatured(PingyaoEvent, frozen=True, kw_only=True):
    seat: int
    card: str
    withdraw: str
    paid: bool = True


class PlayerResolved(PingyaoEvent, frozen=True, kw_only=True):
    seat: int


class RoundEnded(PingyaoEvent, frozen=True, kw_only=True):
    round: int
    next_start: int


class GameEnded(PingyaoEvent, frozen=True, kw_only=True):
    pass


EVENTS = (
    GameSetUp,
    RoundStarted,
    DiceRolled,
    PublicDiceRolled,
    PublicDiePlaced,
    StorylineChosen,
    StartingBranchPlaced,
    EventCardRevealed,
    RoundGoalMet,
    RewardClaimed,
    SilverGained,
    DieTakenBack,
    DecisionQueued,
    PhaseStarted,
    DieAdjusted,
    SilverRecalled,
    CopperConverted,
    PreparationEnded,
    DieRerolled,
    DieDiscarded,
    DieDeclined,
    DieDispatched,
    BranchTilesDrawn,
    BranchOpened,
    BranchTilesReturned,
    ReputationGained,
    CopperGained,
    TellerPlaced,
    TellersRecalled,
    SilverMoved,
    EntrySkillDecided,
    ExchangeCardsDrawn,
    DeckReshuffled,
    ExchangeCardChosen,
    ExchangePlaced,
    ExchangeDiscarded,
    SilverLent,
    DepositAccepted,
    YamenTileTaken,
    IncomeCollected,
    LoansReturned,
    DepositInterestPaid,
    DepositSilverReturned,
    EmergencyTransfer,
    ExchangesAdvanced,
    ExchangeOrderChosen,
    ExchangeMatured,
    PlayerResolved,
    RoundEnded,
    GameEnded,
)


REVEALING: frozenset[type] = frozenset(
    {
        BranchOpened,
        ExchangeCardsDrawn,
        ExchangeCardChosen,
        ExchangeDiscarded,
        EventCardRevealed,
        GameEnded,
        BranchTilesDrawn,
        BranchTilesReturned,
    }
)
"""Public events that reveal information some seat could not see before (take-backs: a command
with one of these cannot be undone).  The hidden facts of Pingyao are the face-down branch-tile
stacks and the branch tiles drawn at Bank Escort (seen only by the drawer), the face-down exchange
deck (with the cards put back at its bottom) and the exchange cards drawn to choose among (seen only
by the drawer), and, solo, the face-down event deck.
BranchOpened: the tile kept from the privately drawn ones goes face up on the player board.
ExchangeCardsDrawn: a single card goes face up onto the exchange-time track - when the deck's unknown
    part is empty it is the card at the bottom of the deck (a card another seat put back unseen),
    drawn without randomness.
ExchangeCardChosen: public only when nothing goes back (never in play): the card kept from a private
    draw becomes known.
ExchangeDiscarded: a drawn card that cannot be placed goes face up onto the discard pile.
EventCardRevealed: solo, the round's event card is turned up from the face-down event deck.
GameEnded: the end-of-game view shows every seat any branch tiles still drawn.
BranchTilesDrawn, BranchTilesReturned: private already (only the drawer sees the tiles); listed so
    that the set names every event that moves a hidden tile."""

"""Pingyao commands: one small decision each."""

from __future__ import annotations

from domain.kernel import Command


class PingyaoCommand(Command, frozen=True, tag=lambda n: f"pingyao.{n}"):
    pass


# --- Two-player game: public dice draft (before each round) -------------------------------------
class PlacePublicDie(PingyaoCommand, frozen=True):
    """Put a rolled public die in an action's resting area, or (action "") out of play this round."""

    die: int
    action: str = ""


# --- Solo game ----------------------------------------------------------------------------------
class PlaceStartingBranch(PingyaoCommand, frozen=True):
    """Solo setup: Taiyuan goes on any coloured Tier-1 region."""

    color: str


class ClaimReward(PingyaoCommand, frozen=True):
    """Solo: the round goal is met - take the event card's reward or decline it."""

    accept: bool


class TakeYamenTile(PingyaoCommand, frozen=True):
    """Solo reward: a Yamen support tile, paying its silver from the head office."""

    tile: str


class TakeBackDie(PingyaoCommand, frozen=True):
    """Solo reward "gain an extra action": take back a used teller die; it is rerolled and acts."""

    die: int


# --- Preparation phase -------------------------------------------------------------------------
class AdjustDie(PingyaoCommand, frozen=True):
    """Lasa (-1) / Changde (+1)."""

    skill: str
    die: int


class SwapDice(PingyaoCommand, frozen=True):
    """Jinzhou: one die +1 and another -1."""

    up: int
    down: int


class RecallSilver(PingyaoCommand, frozen=True):
    """Jiujiang: pay 2 copper to move a silver from a branch to the head office."""

    region: str


class ConvertCopper(PingyaoCommand, frozen=True):
    """10 copper -> 1 silver into the head office (preparation only)."""

    silver: int


class EndPreparation(PingyaoCommand, frozen=True):
    pass


# --- Action phase ----------------------------------------------------------------------------------
class Reroll(PingyaoCommand, frozen=True):
    die: int


class DiscardDie(PingyaoCommand, frozen=True):
    """Fewer than 5 copper: discard the die for 3 copper."""

    die: int


class Decline(PingyaoCommand, frozen=True):
    """Assessing the situation: return the die without compensation."""

    die: int


class BankEscort(PingyaoCommand, frozen=True):
    die: int
    tier: int
    color: str
    value: int = 0
    """With the Yamen "any value" tile: the value the die is changed to (0 = unchanged)."""


class ConfuciusTemple(PingyaoCommand, frozen=True):
    die: int
    value: int = 0


class WestStreet(PingyaoCommand, frozen=True):
    die: int
    value: int = 0


class MoneyHouseLend(PingyaoCommand, frozen=True):
    """Money House, Lending: 2 silver from the head office onto loan-time position `months`."""

    die: int
    months: int
    amount: int
    value: int = 0


class MoneyHouseDeposit(PingyaoCommand, frozen=True):
    die: int
    months: int
    value: int = 0


class CityGodTemple(PingyaoCommand, frozen=True):
    die: int
    extra: bool = False
    value: int = 0


class Yamen(PingyaoCommand, frozen=True):
    die: int
    tile: str
    value: int = 0


# --- Follow-up decisions -------------------------------------------------------------------------
class ChooseBranch(PingyaoCommand, frozen=True):
    tile: str


class PlaceTeller(PingyaoCommand, frozen=True):
    """target: "<region>:teller" | "<region>:manager" | "<region>:wait"."""

    target: str


class MoveSilver(PingyaoCommand, frozen=True):
    """Confucius Temple 1-2: move a silver from the head office to a branch ("" = do not)."""

    region: str


class ChooseExchangeCard(PingyaoCommand, frozen=True):
    card: str


class PlaceExchange(PingyaoCommand, frozen=True):
    months: int
    deposit: str
    withdraw: str


class UseEntrySkill(PingyaoCommand, frozen=True):
    use: bool


class ResolveExchange(PingyaoCommand, frozen=True):
    card: str


class TransferFunds(PingyaoCommand, frozen=True):
    """Emergency fund transfer: the piaohao the silver comes from; fee_source when copper is short."""

    source: str
    fee_source: str = ""


COMMANDS = (
    PlacePublicDie,
    PlaceStartingBranch,
    ClaimReward,
    TakeYamenTile,
    TakeBackDie,
    AdjustDie,
    SwapDice,
    RecallSilver,
    ConvertCopper,
    EndPreparation,
    Reroll,
    DiscardDie,
    Decline,
    BankEscort,
    ConfuciusTemple,
    WestStreet,
    MoneyHouseLend,
    MoneyHouseDeposit,
    CityGodTemple,
    Yamen,
    ChooseBranch,
    PlaceTeller,
    MoveSilver,
    ChooseExchangeCard,
    PlaceExchange,
    UseEntrySkill,
    ResolveExchange,
    TransferFunds,
)
DISPATCH = (BankEscort, ConfuciusTemple, WestStreet, MoneyHouseLend, MoneyHouseDeposit, CityGodTemple, Yamen)
ACTION_OF = {
    BankEscort: "bank_escort",
    ConfuciusTemple: "confucius_temple",
    WestStreet: "west_street",
    MoneyHouseLend: "money_house",
    MoneyHouseDeposit: "money_house",
    CityGodTemple: "city_god_temple",
    Yamen: "yamen",
}

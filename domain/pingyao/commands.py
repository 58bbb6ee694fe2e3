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
    """Preparation Phase: finish your preparation (converting copper to silver, Lasa, Changde,
    Jinzhou and Jiujiang) for this round."""


# --- Action phase ----------------------------------------------------------------------------------
class Reroll(PingyaoCommand, frozen=True):
    """Action Phase: pay 1 copper (die showing 1-4) or 2 (5-6), Xiangyang 1 less, to reroll a teller
    die once before dispatching it; it must then act at once on the new value.
    ``die``: the teller die's index in the table's dice."""

    die: int


class DiscardDie(PingyaoCommand, frozen=True):
    """Fewer than 5 copper: discard the die for 3 copper."""

    die: int


class Decline(PingyaoCommand, frozen=True):
    """Assessing the situation: return the die without compensation."""

    die: int


class BankEscort(PingyaoCommand, frozen=True):
    """Bank Escort: dispatch the die to open a branch in the Tier ``tier`` region of ``color`` (die 1-2:
    any tier, 3-4: Tier 1-2, 5-6: Tier 1), paying 6/12/24 copper and its starting silver from the head
    office; you then keep 1 of 4 drawn branch tiles. ``die``: the teller die's index in the table's dice."""

    die: int
    tier: int
    color: str
    value: int = 0
    """With the Yamen "any value" tile: the value the die is changed to (0 = unchanged)."""


class ConfuciusTemple(PingyaoCommand, frozen=True):
    """Confucius Temple (from round 3): dispatch the die to recruit a branch teller and place it (5-6:
    2 more copper; 1-2: you may also move a silver from the head office to a branch). ``die``: its index;
    ``value``: with the Yamen "any value" tile, the value the die is changed to (0 = unchanged)."""

    die: int
    value: int = 0


class WestStreet(PingyaoCommand, frozen=True):
    """West Street: dispatch the die for an exchange - draw an exchange card and place it up to 3/2/1
    months out (die 1-2/3-4/5-6), earning its handling fee. ``die``: its index; ``value``: with the
    Yamen "any value" tile, the value the die is changed to (0 = unchanged)."""

    die: int
    value: int = 0


class MoneyHouseLend(PingyaoCommand, frozen=True):
    """Money House, Lending: 2 silver from the head office onto loan-time position `months`."""

    die: int
    months: int
    amount: int
    value: int = 0


class MoneyHouseDeposit(PingyaoCommand, frozen=True):
    """Money House, Accepting Deposits: dispatch the die to move the 2 silver of your Deposit area to
    the head office for ``months`` (up to 3/2/1 by die 1-2/3-4/5-6), paying 2 copper interest each
    Resolution phase until they go back. ``die``: its index; ``value``: as for Bank Escort."""

    die: int
    months: int
    value: int = 0


class CityGodTemple(PingyaoCommand, frozen=True):
    """City God Temple: dispatch the die to raise your reputation (die 1-2: +2 for 2 copper, 3-4: +1
    free, 5-6: +1 for 1 copper). ``extra``: with the Yamen "-1 copper coin, +1 reputation" tile and a
    3-6, 1 more copper for 1 more reputation. ``die``: its index; ``value``: as for Bank Escort."""

    die: int
    extra: bool = False
    value: int = 0


class Yamen(PingyaoCommand, frozen=True):
    """Yamen (from round 3): dispatch the die to take a Yamen support tile (``tile``: its id), paying
    0/2/4 copper (die 1-2/3-4/5-6) and the tile's silver from the head office; its benefit applies at
    once. ``die``: its index; ``value``: as for Bank Escort."""

    die: int
    tile: str
    value: int = 0


# --- Follow-up decisions -------------------------------------------------------------------------
class ChooseBranch(PingyaoCommand, frozen=True):
    """Bank Escort: keep one of the drawn branch tiles (not one with a skill you already have) and open
    it in the chosen region; the others go to the bottom of the stack. ``tile``: the branch tile's id."""

    tile: str


class PlaceTeller(PingyaoCommand, frozen=True):
    """target: "<region>:teller" | "<region>:manager" | "<region>:wait"."""

    target: str


class MoveSilver(PingyaoCommand, frozen=True):
    """Confucius Temple 1-2: move a silver from the head office to a branch ("" = do not)."""

    region: str


class ChooseExchangeCard(PingyaoCommand, frozen=True):
    """West Street with Ningxia or reputation 6: keep one of the exchange cards you drew; the others go
    to the bottom of the deck. ``card``: the exchange card's id."""

    card: str


class PlaceExchange(PingyaoCommand, frozen=True):
    """West Street step 1: place the exchange card ``months`` out on the exchange-time track, put its
    silver on the ``deposit`` piaohao and mark the ``withdraw`` piaohao that pays it when it matures.
    Piaohao: "HO" (the Pingyao Head Office) or a branch region, tier and colour ("2red")."""

    months: int
    deposit: str
    withdraw: str


class UseEntrySkill(PingyaoCommand, frozen=True):
    """Branch Skill Reference: use (``use`` true) or decline the optional on-entry skill of the branch
    you just opened (Singapore, Suzhou, Xinyizhou, Incheon, Tokyo); it is offered only once."""

    use: bool


class ResolveExchange(PingyaoCommand, frozen=True):
    """Resolution Phase 3: choose which of your maturing exchange cards resolves next (asked when they
    withdraw from different piaohao). ``card``: the exchange card's id."""

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
ACTION_OF: dict[type[Command], str] = {
    BankEscort: "bank_escort",
    ConfuciusTemple: "confucius_temple",
    WestStreet: "west_street",
    MoneyHouseLend: "money_house",
    MoneyHouseDeposit: "money_house",
    CityGodTemple: "city_god_temple",
    Yamen: "yamen",
}

"""Actions: the six action spaces - what a teller die's value allows at each (the check) and what
the action does (the effect).  `action_phase` checks the die and the bump first; each check here
gets the die's value and the copper available once the value difference is collected (Action
Phase: "they may first collect that difference and then perform the action")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.kernel import Command, Rng, Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .branches import buildable
from .decisions import Refusal, queue
from .exchange import cards_to_draw, draw_exchange, room_refusal
from .state import Frame, Player, State
from .tellers import rep_bonuses, tier3_bonus


def forbidden(state: State, action: str) -> bool:
    """Game Flow / Game Setup: "action forbidden" tiles on Yamen and Confucius Temple in rounds 1-2
    (Solo Rules, Setup: none)."""
    return action in C.LATE_ACTIONS and state.round < 3 and state.players != 1


def candidates(
    state: State, player: Player, action: str, die: int, set_value: int, value: int, avail: int
) -> list[Command]:
    """The commands that may dispatch `die` to `action` (with the Yamen "any value" `set_value`, 0 = none)
    showing `value` with `avail` copper: every field value the action's check can accept, with the
    checks that do not depend on the other fields applied first (Bank Escort's tier, the months,
    the Yamen's copper)."""
    if action == "bank_escort":
        tiers = [
            t
            for t in C.TIERS
            if _tier_refusal(player, t, value) is None and _cost_refusal(state, player, t, avail) is None
        ]
        return [K.BankEscort(die=die, tier=t, color=c, value=set_value) for t in tiers for c in C.COLORS]
    if action == "confucius_temple":
        return [K.ConfuciusTemple(die=die, value=set_value)]
    if action == "west_street":
        return [K.WestStreet(die=die, value=set_value)]
    if action == "money_house":
        months = [m for m in _MONTHS if _months_refusal(m, value) is None]
        return [
            K.MoneyHouseLend(die=die, months=m, amount=C.LEND_AMOUNT, value=set_value) for m in months
        ] + [K.MoneyHouseDeposit(die=die, months=m, value=set_value) for m in months]
    if action == "city_god_temple":
        return [
            K.CityGodTemple(die=die, value=set_value),
            K.CityGodTemple(die=die, extra=True, value=set_value),
        ]
    if action == "yamen" and _yamen_cost_refusal(player, avail - C.YAMEN_COPPER[C.band(value)]) is None:
        return [K.Yamen(die=die, tile=tile, value=set_value) for tile in state.yamen_supply]
    return []


# --- Bank Escort -----------------------------------------------------------------------------------
TIER_NOT_ALLOWED = Refusal(
    "tier_not_allowed", "the die value does not allow that tier", "Actions: die value requirements"
)
INVALID_REGION = Refusal("invalid_region", "choose a red, yellow or green region", "Bank Escort")
REGION_OCCUPIED = Refusal("region_occupied", "that region already has a branch", "Bank Escort")
ESCORT_COPPER = Refusal("insufficient_copper", "cannot pay for the branch", "Bank Escort")
ESCORT_SILVER = Refusal("insufficient_silver", "the head office lacks the starting capital", "Bank Escort")
STACK_EMPTY = Refusal("stack_empty", "no tiles of that tier remain", "Bank Escort")


def _tier_refusal(player: Player, tier: int, value: int) -> Refusal | None:
    """Actions, die value requirements: 1-2 any tier, 3-4 Tier 1-2, 5-6 Tier 1 (Yamen tile: Tier 3
    with any value)."""
    if tier not in C.tiers_for(value) and not (tier == 3 and "tier3_any" in player.yamen):
        return TIER_NOT_ALLOWED
    return None


def _region_refusal(player: Player, tier: int, color: str) -> Refusal | None:
    """Bank Escort: a region of that tier and colour without a branch."""
    if color not in C.COLORS:
        return INVALID_REGION
    if player.regions[f"{tier}{color}"].tile:
        return REGION_OCCUPIED
    return None


def _cost_refusal(state: State, player: Player, tier: int, avail: int) -> Refusal | None:
    """Bank Escort: 6/12/24 copper, 1/2/3 silver of starting capital from the head office ("If you
    cannot take enough silver ingots ... you may not perform this action"), a tile left to draw."""
    if avail < C.BUILD_COST[tier]:
        return ESCORT_COPPER
    if player.head_office < C.CAPITAL[tier]:
        return ESCORT_SILVER
    if not B.tiles_left(state, tier):
        return STACK_EMPTY
    return None


def _escort_refusal(
    state: State, player: Player, cmd: K.BankEscort, value: int, avail: int
) -> Refusal | None:
    return (
        _tier_refusal(player, cmd.tier, value)
        or _region_refusal(player, cmd.tier, cmd.color)
        or _cost_refusal(state, player, cmd.tier, avail)
    )


def _draw_tiles(state: State, tier: int, rng: Rng) -> list[str]:
    """Bank Escort: draw 4 from the tier's face-down stack (its unknown part at random); tiles put
    back "at the bottom of the corresponding tile stack" come last."""
    pool = list(state.stacks[str(tier)])
    bottom = list(state.bottoms[str(tier)])
    out = []
    for _ in range(C.ESCORT_DRAW):
        if pool:
            out.append(pool.pop(rng.below(len(pool))))
        elif bottom:
            out.append(bottom.pop(0))
    return out


def _escort(
    scratch: Scratch[State], seat: int, cmd: K.BankEscort, value: int, frames: list[Frame], bonuses: list[str]
) -> None:
    """Bank Escort: pay, draw 4 of the tier, keep one (`branches`); if none can be built (every skill
    already owned) all go back to the bottom and the copper is spent."""
    state = scratch.state
    region = f"{cmd.tier}{cmd.color}"
    tiles = _draw_tiles(state, cmd.tier, scratch.rng)
    scratch.emit(
        E.BranchTilesDrawn(
            seat=seat,
            tier=cmd.tier,
            region=region,
            cost=C.BUILD_COST[cmd.tier],
            count=len(tiles),
            tiles=tiles,
        )
    )
    if any(buildable(state, seat, t) for t in tiles):
        frames.append(Frame(kind="choose_branch", seat=seat, region=region))
    else:
        scratch.emit(E.BranchTilesReturned(seat=seat, tier=cmd.tier, count=len(tiles), tiles=tiles))


# --- Confucius Temple ------------------------------------------------------------------------------
NO_TELLER_POSITION = Refusal("no_teller_position", "no free branch-teller position", "Confucius Temple")
TEMPLE_COPPER = Refusal("insufficient_copper", "5-6 costs 2 more copper", "Confucius Temple")


def _temple_cost(value: int) -> int:
    """Confucius Temple: "Die value 5 or 6: pay an additional 2 copper coins"."""
    return 2 if C.band(value) == 2 else 0


def _temple_refusal(
    state: State, player: Player, cmd: K.ConfuciusTemple, value: int, avail: int
) -> Refusal | None:
    """Confucius Temple: a free branch-teller position is needed."""
    if not B.has_teller_target(player):
        return NO_TELLER_POSITION
    if avail < _temple_cost(value):
        return TEMPLE_COPPER
    return None


def _temple(
    scratch: Scratch[State],
    seat: int,
    cmd: K.ConfuciusTemple,
    value: int,
    frames: list[Frame],
    bonuses: list[str],
) -> None:
    """Confucius Temple: a branch teller (5-6: for 2 copper); 1-2: then a silver may move to a branch."""
    frames.append(Frame(kind="place_teller", seat=seat, cost=_temple_cost(value)))
    if C.band(value) == 0:
        frames.append(Frame(kind="move_silver", seat=seat))


# --- West Street -----------------------------------------------------------------------------------
def _street_refusal(
    state: State, player: Player, cmd: K.WestStreet, value: int, avail: int
) -> Refusal | None:
    return room_refusal(state, player)


def _street(
    scratch: Scratch[State], seat: int, cmd: K.WestStreet, value: int, frames: list[Frame], bonuses: list[str]
) -> None:
    """West Street: an exchange of up to 3/2/1 months by die value (the rest in `exchange`)."""
    frames += draw_exchange(
        scratch, seat, cards_to_draw(scratch.state.pl[seat]), C.MONTHS_BY_BAND[C.band(value)], True
    )


# --- Money House -----------------------------------------------------------------------------------
_MONTHS = range(1, max(C.MONTHS_BY_BAND) + 1)
MONTHS_NOT_ALLOWED = Refusal("months_not_allowed", "the die value limits the months", "Money House")
INVALID_LEND_AMOUNT = Refusal(
    "invalid_lend_amount", "lending takes exactly 2 silver from the head office", "Money House: Lending"
)
LEND_SILVER = Refusal("insufficient_silver", "not enough silver in the head office", "Money House: Lending")
LENDING_FULL = Refusal("lending_full", "at most 2 silver per position and 4 in all", "Money House: Lending")
DEPOSIT_TAKEN = Refusal("deposit_taken", "a deposit is already accepted", "Money House: Accepting Deposits")


def _months_refusal(months: int, value: int) -> Refusal | None:
    """Money House: lend or deposit for up to 3/2/1 months by die value."""
    if not 1 <= months <= C.MONTHS_BY_BAND[C.band(value)]:
        return MONTHS_NOT_ALLOWED
    return None


def _lend_refusal(
    state: State, player: Player, cmd: K.MoneyHouseLend, value: int, avail: int
) -> Refusal | None:
    """Money House, Lending: "Take 2 silver ingots from your Pingyao Head Office"; at most 2 per
    position and 4 in all."""
    why = _months_refusal(cmd.months, value)
    if why is not None:
        return why
    if cmd.amount != C.LEND_AMOUNT:
        return INVALID_LEND_AMOUNT
    if player.head_office < cmd.amount:
        return LEND_SILVER
    if (
        player.lending[cmd.months - 1] + cmd.amount > C.LEND_PER_POSITION
        or sum(player.lending) + cmd.amount > C.LEND_TOTAL
    ):
        return LENDING_FULL
    return None


def _deposit_refusal(
    state: State, player: Player, cmd: K.MoneyHouseDeposit, value: int, avail: int
) -> Refusal | None:
    """Money House, Accepting Deposits: one deposit marker, the 2 silver of the Deposit area."""
    why = _months_refusal(cmd.months, value)
    if why is not None:
        return why
    if player.deposit_marker or player.deposit_area < C.DEPOSIT_SILVER:
        return DEPOSIT_TAKEN
    return None


def _lend(
    scratch: Scratch[State],
    seat: int,
    cmd: K.MoneyHouseLend,
    value: int,
    frames: list[Frame],
    bonuses: list[str],
) -> None:
    scratch.emit(E.SilverLent(seat=seat, months=cmd.months, amount=cmd.amount))


def _deposit(
    scratch: Scratch[State],
    seat: int,
    cmd: K.MoneyHouseDeposit,
    value: int,
    frames: list[Frame],
    bonuses: list[str],
) -> None:
    scratch.emit(E.DepositAccepted(seat=seat, months=cmd.months))


# --- City God Temple -------------------------------------------------------------------------------
EXTRA_NOT_ALLOWED = Refusal(
    "extra_not_allowed",
    "needs the Yamen tile and a 3-6",
    "Yamen Support Tile Reference: -1 copper coin, +1 reputation",
)
CITY_GOD_COPPER = Refusal("insufficient_copper", "cannot pay for the reputation", "City God Temple")


def city_god(player: Player, value: int, extra: bool) -> tuple[int, int]:
    """City God Temple: 1-2 pay 2 for +2, 3-4 free +1, 5-6 pay 1 for +1 (reputation, copper); the
    Yamen tile adds +1 for 1 more copper; at reputation 15 it has no further effect."""
    if player.reputation >= C.REPUTATION_MAX:
        return 0, 0
    amount, cost = ((2, 2), (1, 0), (1, 1))[C.band(value)]
    if extra:
        amount, cost = amount + 1, cost + 1
    return amount, cost


def _city_god_refusal(
    state: State, player: Player, cmd: K.CityGodTemple, value: int, avail: int
) -> Refusal | None:
    if cmd.extra and not (
        "reputation_extra" in player.yamen and value >= 3 and player.reputation + 1 < C.REPUTATION_MAX
    ):
        return EXTRA_NOT_ALLOWED
    if avail < city_god(player, value, cmd.extra)[1]:
        return CITY_GOD_COPPER
    return None


def _city_god(
    scratch: Scratch[State],
    seat: int,
    cmd: K.CityGodTemple,
    value: int,
    frames: list[Frame],
    bonuses: list[str],
) -> None:
    amount, cost = city_god(scratch.state.pl[seat], value, cmd.extra)
    if amount:
        scratch.emit(E.ReputationGained(seat=seat, amount=amount, cost=cost, reason="city_god_temple"))
        rep_bonuses(scratch.state, seat, frames, bonuses)


# --- Yamen -----------------------------------------------------------------------------------------
DUPLICATE_YAMEN_TILE = Refusal("duplicate_yamen_tile", "no two tiles with the same effect", "Yamen")
YAMEN_TILE_UNAVAILABLE = Refusal("yamen_tile_unavailable", "no such tile left", "Yamen")
YAMEN_COPPER = Refusal("insufficient_copper", "cannot pay the Yamen", "Yamen")
YAMEN_SILVER = Refusal("insufficient_silver", "the head office cannot pay the tile", "Yamen")


def _yamen_cost_refusal(player: Player, copper_left: int) -> Refusal | None:
    """Yamen: the copper (`copper_left` once paid); "If your Pingyao Head Office has no silver
    available, you cannot perform this action"."""
    if copper_left < 0:
        return YAMEN_COPPER
    if player.head_office < 1:
        return YAMEN_SILVER
    return None


def yamen_tile_refusal(state: State, player: Player, tile: str, copper_left: int = 0) -> Refusal | None:
    """Yamen: not a tile the player owns ("may not own two tiles with the same effect"), one left in
    the supply, the copper, then its silver paid from the head office.  Also the solo Yamen reward
    (Event Card Reward Notes 2), which costs no copper."""
    if tile in player.yamen:
        return DUPLICATE_YAMEN_TILE
    if state.yamen_supply.get(tile, 0) <= 0:
        return YAMEN_TILE_UNAVAILABLE
    return _yamen_cost_refusal(player, copper_left) or (
        YAMEN_SILVER if player.head_office < C.YAMEN_TILES[tile].silver else None
    )


def _yamen_refusal(state: State, player: Player, cmd: K.Yamen, value: int, avail: int) -> Refusal | None:
    """Yamen: 0/2/4 copper by die value, then the tile."""
    return yamen_tile_refusal(state, player, cmd.tile, avail - C.YAMEN_COPPER[C.band(value)])


def _yamen(
    scratch: Scratch[State], seat: int, cmd: K.Yamen, value: int, frames: list[Frame], bonuses: list[str]
) -> None:
    """Yamen: "immediately gain the benefit it provides" (Tier-3 tile: the free teller at once)."""
    scratch.emit(
        E.YamenTileTaken(
            seat=seat,
            tile=cmd.tile,
            copper=C.YAMEN_COPPER[C.band(value)],
            silver=C.YAMEN_TILES[cmd.tile].silver,
        )
    )
    tier3_bonus(scratch.state, seat, frames, bonuses)


# --- by command ------------------------------------------------------------------------------------
Check = Callable[[State, Player, Any, int, int], Refusal | None]
Effect = Callable[[Scratch[State], int, Any, int, list[Frame], list[str]], None]

CHECKS: dict[type, Check] = {
    K.BankEscort: _escort_refusal,
    K.ConfuciusTemple: _temple_refusal,
    K.WestStreet: _street_refusal,
    K.MoneyHouseLend: _lend_refusal,
    K.MoneyHouseDeposit: _deposit_refusal,
    K.CityGodTemple: _city_god_refusal,
    K.Yamen: _yamen_refusal,
}
"""Each dispatch command's check: (state, player, command, die value, copper available) -> refusal."""
EFFECTS: dict[type, Effect] = {
    K.BankEscort: _escort,
    K.ConfuciusTemple: _temple,
    K.WestStreet: _street,
    K.MoneyHouseLend: _lend,
    K.MoneyHouseDeposit: _deposit,
    K.CityGodTemple: _city_god,
    K.Yamen: _yamen,
}


def perform(scratch: Scratch[State], seat: int, cmd: Any, value: int) -> None:
    """The action's effect, then the sub-decisions and bonuses it leads to."""
    frames: list[Frame] = []
    bonuses: list[str] = []
    EFFECTS[type(cmd)](scratch, seat, cmd, value, frames, bonuses)
    queue(scratch, seat, frames, bonuses)

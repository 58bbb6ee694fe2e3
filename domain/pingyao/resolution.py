"""Resolution Phase: per player, 1 lending, 2 the deposit, 3 exchange cards (round 8: everything at
position 1); a shortfall calls for an Emergency Fund Transfer."""

from __future__ import annotations

from domain.kernel import Command, Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Decision, Refusal
from .state import Frame, State
from .versions import before_4

CARD_NOT_DUE = Refusal("card_not_due", "choose one of your exchange cards maturing now", "West Street")
INVALID_SOURCE = Refusal(
    "invalid_source", "ship from another piaohao of yours that holds silver", "Emergency Fund Transfer"
)
INVALID_FEE_SOURCE = Refusal(
    "invalid_fee_source",
    "5 copper pays the fee; with fewer, a silver from another piaohao if one is left",
    "Emergency Fund Transfer",
)


def resolve_step(scratch: Scratch[State], seat: int) -> None:
    """One step of the seat's resolution (`res_stage`): lent silver shifts and returns (Money House),
    deposit interest and the deposit's silver (Money House), the exchange cards that mature (West
    Street), each payment short of silver queueing an Emergency Fund Transfer."""
    state = scratch.state
    player = state.pl[seat]
    final = (
        state.round >= C.ROUNDS
    )  # "If this is the last round (round 8), first move all ... to the 1 position"
    if state.res_stage == 0:
        scratch.emit(
            E.LoansReturned(
                seat=seat, silver=sum(player.lending) if final else player.lending[0], final=final
            )
        )
    elif state.res_stage == 1:
        left = 0 if final else player.deposit_marker - 1
        scratch.emit(
            E.DepositInterestPaid(
                seat=seat, interest=min(C.DEPOSIT_INTEREST, player.copper), months_left=left
            )
        )
    elif state.res_stage == 2:
        if player.head_office:
            scratch.emit(E.DepositSilverReturned(seat=seat, silver=min(player.head_office, state.res_owed)))
        elif any(B.silver_at(player, w) for w in B.piaohaos(player)):
            scratch.emit(E.DecisionQueued(frames=[Frame(kind="transfer", seat=seat, dest=C.HEAD_OFFICE)]))
        else:
            scratch.emit(E.DepositSilverReturned(seat=seat, silver=0, shortfall=state.res_owed))
    elif state.res_stage == 3:
        scratch.emit(
            E.ExchangesAdvanced(seat=seat, due=[c.card for c in player.cards if final or c.months <= 1])
        )
    elif not state.due:
        scratch.emit(E.PlayerResolved(seat=seat))
    else:
        cards = {c.card: c for c in player.cards}
        if not state.due_locked and len({cards[c].withdraw for c in state.due}) > 1:
            scratch.emit(E.DecisionQueued(frames=[Frame(kind="resolve_order", seat=seat)]))
            return
        card = cards[state.due[0]]
        w = card.withdraw
        if B.silver_at(player, w) >= C.CARDS[card.card].silver:
            scratch.emit(E.ExchangeMatured(seat=seat, card=card.card, withdraw=w))
        elif any(B.silver_at(player, o) for o in B.piaohaos(player) if o != w):
            scratch.emit(E.DecisionQueued(frames=[Frame(kind="transfer", seat=seat, dest=w)]))
        else:
            scratch.emit(E.ExchangeMatured(seat=seat, card=card.card, withdraw=w, paid=False))


# --- resolve_order: West Street, "the player decides the order in which they resolve" --------------
# (asked only when the cards' withdrawal piaohao differ: otherwise the order changes nothing)
def _order_candidates(state: State, frame: Frame) -> list[K.ResolveExchange]:
    return [K.ResolveExchange(card=c) for c in state.due]


def _order_refusal(state: State, frame: Frame, cmd: K.ResolveExchange) -> Refusal | None:
    if cmd.card not in state.due:
        return CARD_NOT_DUE
    return None


def _order(scratch: Scratch[State], frame: Frame, cmd: K.ResolveExchange) -> None:
    scratch.emit(E.ExchangeOrderChosen(seat=frame.seat, card=cmd.card, frame=True))


RESOLVE_ORDER = Decision("West Street", (K.ResolveExchange,), _order_candidates, _order_refusal, _order)


# --- transfer: Emergency Fund Transfer --------------------------------------------------------------
def _source_refusal(state: State, frame: Frame, source: str) -> Refusal | None:
    """Emergency Fund Transfer: "from one of their piaohao that has silver to the piaohao that needs it"."""
    player = state.pl[frame.seat]
    if source not in B.piaohaos(player) or source == frame.dest or B.silver_at(player, source) < 1:
        return INVALID_SOURCE
    return None


def _pays_fee(state: State, frame: Frame, source: str, where: str) -> bool:
    """With fewer than 5 copper, "return a silver ingot from any one of their piaohao to the supply"
    in place of the fee: a piaohao other than the one in need, with silver left after the shipment."""
    player = state.pl[frame.seat]
    return (
        where in B.piaohaos(player)
        and where != frame.dest
        and B.silver_at(player, where) - (where == source) > 0
    )


def _fee_refusal(state: State, frame: Frame, source: str, fee_source: str) -> Refusal | None:
    """Emergency Fund Transfer: "a shipping fee of 5 copper coins" (`fee_source` ""), else a silver
    (`fee_source` "" when no other silver is left: see `_copper_fee`)."""
    player = state.pl[frame.seat]
    if player.copper >= C.TRANSFER_FEE:
        ok = fee_source == ""
    elif fee_source:
        ok = _pays_fee(state, frame, source, fee_source)
    else:
        ok = not any(_pays_fee(state, frame, source, w) for w in B.piaohaos(player))
    if not ok:
        return INVALID_FEE_SOURCE
    return None


def _transfer_legal(state: State, frame: Frame) -> list[Command]:
    piaohaos = B.piaohaos(state.pl[frame.seat])
    return [
        K.TransferFunds(source=src, fee_source=fee)
        for src in piaohaos
        if _source_refusal(state, frame, src) is None
        for fee in ("", *piaohaos)
        if _fee_refusal(state, frame, src, fee) is None
    ]


def _transfer_refusal(state: State, frame: Frame, cmd: K.TransferFunds) -> Refusal | None:
    return _source_refusal(state, frame, cmd.source) or _fee_refusal(state, frame, cmd.source, cmd.fee_source)


def _copper_fee(state: State, seat: int, fee_source: str) -> int:
    """The copper the transfer costs: 5; none when a silver pays in place of the fee.  When the
    player has fewer than 5 copper and no silver but the one shipped, the rulebook is silent
    (``pingyao-4``): the fee takes all the copper the player has - the shipped silver cannot pay it
    (nothing would be shipped, for a fee), and the game keeps no debts; ``pingyao-2``/``-3``
    took nothing (docs/games/pingyao.md, "Rules audit (pingyao-4)")."""
    copper = state.pl[seat].copper
    if copper >= C.TRANSFER_FEE:
        return C.TRANSFER_FEE
    return 0 if fee_source or before_4(state.rules_version) else copper


def _transfer(scratch: Scratch[State], frame: Frame, cmd: K.TransferFunds) -> None:
    scratch.emit(
        E.EmergencyTransfer(
            seat=frame.seat,
            source=cmd.source,
            dest=frame.dest,
            copper=_copper_fee(scratch.state, frame.seat, cmd.fee_source),
            fee_source=cmd.fee_source,
            frame=True,
        )
    )


TRANSFER = Decision(
    "Emergency Fund Transfer",
    (K.TransferFunds,),
    _transfer_legal,
    _transfer_refusal,
    _transfer,
    legal=_transfer_legal,
)

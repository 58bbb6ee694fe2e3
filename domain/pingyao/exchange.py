"""West Street (西大街): exchange cards - drawing them, keeping one of several, placing one (months,
deposit and withdrawal piaohao) and its handling fee."""

from __future__ import annotations

from domain.kernel import Command, Scratch

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Decision, Refusal, queue
from .state import Frame, Player, State
from .versions import before_3

TOO_MANY_EXCHANGES = Refusal("too_many_exchanges", "at most 3 exchange cards", "West Street")
DECK_EMPTY = Refusal("deck_empty", "no exchange cards remain", "West Street")
MONTHS_BEYOND_DIE = Refusal("invalid_exchange", "the die value limits the months", "West Street")
WRONG_PIAOHAO = Refusal("invalid_exchange", "the piaohao must show the card's colour", "West Street")
SAME_PIAOHAO = Refusal(
    "invalid_exchange", "the deposit and withdrawal piaohao cannot be the same", "West Street"
)
CARD_NOT_DRAWN = Refusal(
    "card_not_drawn",
    "keep one of the exchange cards you drew",
    "Tier 1 Branches: Ningxia; City God Temple: reputation 6",
)


def room_refusal(state: State, player: Player) -> Refusal | None:
    """West Street: at most 3 exchange cards at once (3 sets of markers); a card must be left to draw."""
    if len(player.cards) >= C.MAX_CARDS:
        return TOO_MANY_EXCHANGES
    if not B.cards_left(state):
        return DECK_EMPTY
    return None


def cards_to_draw(player: Player) -> int:
    """West Street draws 1 card; Ningxia (Tier 1 Branches) and reputation 6 (City God Temple) each
    draw one more."""
    return (
        1
        + (1 if B.active(player, "extra_card") else 0)
        + (1 if player.reputation >= C.REPUTATION_EXTRA_CARD else 0)
    )


def draw_exchange(scratch: Scratch[State], seat: int, n: int, months: int, fee: bool) -> list[Frame]:
    """West Street step 1: draw `n` exchange cards; when the deck runs out the discards are shuffled
    in first ("shuffle the discard pile to form a new exchange deck").  Returns the follow-up
    decision: keep one of several, or place the single card."""
    state = scratch.state
    cards: list[str] = []
    if len(state.deck) + len(state.deck_bottom) < n and state.discards:
        scratch.emit(E.DeckReshuffled(count=len(state.discards)))
    pool = list(state.deck)
    bottom = list(state.deck_bottom)
    for _ in range(n):
        if pool:
            cards.append(pool.pop(scratch.rng.below(len(pool))))
        elif bottom:
            cards.append(bottom.pop(0))
    if cards:
        scratch.emit(E.ExchangeCardsDrawn(seat=seat, count=len(cards), cards=cards))
    if len(state.drawn_cards) > 1:
        return [Frame(kind="choose_card", seat=seat, months=months, fee=fee)]
    if state.drawn_cards:
        return offer_exchange(scratch, seat, state.drawn_cards[0], months, fee)
    return []


def offer_exchange(scratch: Scratch[State], seat: int, card: str, months: int, fee: bool) -> list[Frame]:
    """West Street: "If you are unable to choose a valid deposit location and withdrawal location
    as required by the card, you must immediately discard the exchange card and end the action"."""
    if not placements(scratch.state.pl[seat], card, months):
        scratch.emit(E.ExchangeDiscarded(seat=seat, card=card))
        return []
    return [Frame(kind="place_exchange", seat=seat, card=card, months=months, fee=fee)]


def _piaohao_refusal(player: B.PlayerBoard, where: str, color: str) -> Refusal | None:
    """West Street: a piaohao of the card's colour - "Your Pingyao Head Office and each tier of branch
    are all treated as piaohao"; the head office (and Kaifeng) are all three colours."""
    if where not in B.piaohaos(player) or color not in B.colors_of(player, where):
        return WRONG_PIAOHAO
    return None


def _months_refusal(limit: int, months: int) -> Refusal | None:
    """West Street: up to 3/2/1 months by die value (Solo Reward Note 1: a 2-month one may go at 1)."""
    if not 1 <= months <= limit:
        return MONTHS_BEYOND_DIE
    return None


def _withdraw_refusal(
    player: B.PlayerBoard, card: C.ExchangeCard, deposit: str, withdraw: str
) -> Refusal | None:
    """West Street, Note: "the deposit location and withdrawal location of an exchange cannot be the
    same piaohao"."""
    if withdraw == deposit:
        return SAME_PIAOHAO
    return _piaohao_refusal(player, withdraw, card.withdraw)


def placement_refusal(
    player: Player, card: str, limit: int, months: int, deposit: str, withdraw: str
) -> Refusal | None:
    """West Street, step 1: the months, a deposit and a withdrawal piaohao of the card's colours."""
    c = C.CARDS[card]
    return (
        _months_refusal(limit, months)
        or _piaohao_refusal(player, deposit, c.deposit)
        or _withdraw_refusal(player, c, deposit, withdraw)
    )


def placements(player: B.PlayerBoard, card: str, limit: int) -> list[tuple[int, str, str]]:
    """Every placement `placement_refusal` allows, its checks applied field by field."""
    c = C.CARDS[card]
    piaohaos = B.piaohaos(player)
    pairs = [
        (d, w)
        for d in piaohaos
        if _piaohao_refusal(player, d, c.deposit) is None
        for w in piaohaos
        if _withdraw_refusal(player, c, d, w) is None
    ]
    return [(m, d, w) for m in range(1, limit + 1) if _months_refusal(limit, m) is None for d, w in pairs]


def exchange_fee(player: B.PlayerBoard, card: str, withdraw: str) -> int:
    """West Street, handling fee: the card's base; withdrawal at the head office -1, Tier 2 +1,
    Tier 3 +2; Exchange track 3 and 6 each +1 (the position before this exchange's advance);
    Yamen tile "+3 copper coins per exchange handling fee"; never below 0."""
    fee = C.CARDS[card].fee
    if withdraw == C.HEAD_OFFICE:
        fee += C.HEAD_OFFICE_FEE_ADJUST
    else:
        fee += C.WITHDRAW_FEE_ADJUST[C.TILES[player.regions[withdraw].tile].tier]
    fee += sum(b for pos, b in C.EXCHANGE_FEE_BONUS.items() if player.exchange >= pos)
    if "exchange_fee" in player.yamen:
        fee += 3
    return max(0, fee)


# --- choose_card: Ningxia (Tier 1 Branches) / reputation 6 - keep one of the drawn cards -------------
def _choose_candidates(state: State, frame: Frame) -> list[K.ChooseExchangeCard]:
    return [K.ChooseExchangeCard(card=c) for c in state.drawn_cards]


def _choose_refusal(state: State, frame: Frame, cmd: K.ChooseExchangeCard) -> Refusal | None:
    if cmd.card not in state.drawn_cards:
        return CARD_NOT_DRAWN
    return None


def _choose(scratch: Scratch[State], frame: Frame, cmd: K.ChooseExchangeCard) -> None:
    """Ningxia: "the unchosen card goes to the bottom of the exchange deck"."""
    rest = [c for c in scratch.state.drawn_cards if c != cmd.card]
    scratch.emit(
        E.ExchangeCardChosen(seat=frame.seat, card=cmd.card, returned=rest, count=len(rest), frame=True)
    )
    queue(scratch, frame.seat, offer_exchange(scratch, frame.seat, cmd.card, frame.months, frame.fee), [])


CHOOSE_CARD = Decision(
    "Tier 1 Branches: Ningxia", (K.ChooseExchangeCard,), _choose_candidates, _choose_refusal, _choose
)


# --- place_exchange: West Street step 1 -------------------------------------------------------------
def _place_legal(state: State, frame: Frame) -> list[Command]:
    return [
        K.PlaceExchange(months=m, deposit=d, withdraw=w)
        for m, d, w in placements(state.pl[frame.seat], frame.card, frame.months)
    ]


def _place_refusal(state: State, frame: Frame, cmd: K.PlaceExchange) -> Refusal | None:
    return placement_refusal(
        state.pl[frame.seat], frame.card, frame.months, cmd.months, cmd.deposit, cmd.withdraw
    )


def advances(state: State, frame: Frame) -> bool:
    """West Street: "each time you complete an exchange action, advance your meeple 1 space on the
    ... Exchange progress track".  The exchanges Xinyizhou and Incheon grant "without collecting
    the handling fee" advance it too (``pingyao-3``; Event Card Reward Notes 1 treats a granted
    exchange as advancing it) - in ``pingyao-2`` they did not."""
    return frame.fee or not before_3(state.rules_version)


def _place(scratch: Scratch[State], frame: Frame, cmd: K.PlaceExchange) -> None:
    """West Street: 1 silver to the deposit piaohao, the fee once (none for Xinyizhou and Incheon),
    the Exchange track +1."""
    fee = exchange_fee(scratch.state.pl[frame.seat], frame.card, cmd.withdraw) if frame.fee else 0
    scratch.emit(
        E.ExchangePlaced(
            seat=frame.seat,
            card=frame.card,
            months=cmd.months,
            deposit=cmd.deposit,
            withdraw=cmd.withdraw,
            fee=fee,
            advance=advances(scratch.state, frame),
            frame=True,
        )
    )


PLACE_EXCHANGE = Decision(
    "West Street", (K.PlaceExchange,), _place_legal, _place_refusal, _place, legal=_place_legal
)

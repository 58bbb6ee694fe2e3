"""The table of one Yangtze game: a mutable, msgpack-encodable record folded from events, and the
few questions every section of the rules asks of it."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from domain.kernel.table import TableState

from .versions import YANGTZE_2


class State(msgspec.Struct, kw_only=True):
    rules_version: str | UnsetType = UNSET
    """The rules this game is played under, from ``GameSetUp`` (read it with :func:`rules_of`).
    UNSET for a yangtze-2 game, so that its state encodes exactly as it did under yangtze-2 (the
    final-state digests of its records still verify)."""
    players: int = 0
    table: TableState | UnsetType = UNSET
    """The table around the game: clocks, replaced seats, take-backs (``domain.kernel.table``);
    UNSET until the first table event, so a state without one encodes as it always did."""
    phase: str = "setup"
    """"turn" (the active seat sells and buys), "refill" (drawing from the bag; never waits),
    "auction" (a branch is auctioned), "ruler" (a ruler's order goes round), "over"."""
    stage: str = "sell"
    """Within "turn": "sell" (start of the turn: sell bundles, then buy) or "second" (the second
    purchase of the buy-two card)."""
    active: int = 0
    bag: list[int] = []
    """Tokens still in the bag (hidden; only its count is public).  Draws pick an index with the Rng."""
    river: list[int | None] = []
    """Goods in front of the trading houses, index 0 at the open end; None is an empty place."""
    screens: list[list[int]] = []
    """Goods behind each player's screen."""
    public: list[list[int]] = []
    """The goods behind each screen that every seat knows of (bought from or exchanged with the river)."""
    track: list[int] = []
    """Money on each money track (0..60)."""
    coins: list[int] = []
    """50-coins of each player."""
    cards: list[list[str]] = []
    """Unused special cards of each player."""
    liquidity_used: list[list[int]] = []
    """Values of the liquidity cards each player has used (and could buy back)."""
    branches: list[list[int]] = []
    rulers: list[int] = []
    """Ruler tokens placed so far, in spot order (Nurhaci first)."""
    box: list[int] = []
    """Goods sold or returned (out of the game)."""
    removed_branches: list[int] = []
    """Branch tokens nobody bid for."""
    refills: int = 0
    """Goods still to be drawn onto the river this turn."""
    acted: bool = False
    """Somebody bought or sold during the current turn."""
    idle: int = 0
    """Consecutive turns in which nobody bought or sold."""
    # --- branch auction
    auction_token: int | None = None
    auction_in: list[int] = []
    """Seats still bidding, in player order starting with the drawer."""
    auction_turn: int | None = None
    high_bid: int = 0
    high_bidder: int | None = None
    # --- ruler order
    ruler_queue: list[int] = []
    """Seats the current ruler's order still applies to, the first one now."""
    ruler_current: int | None = None
    """The ruler token whose order applies to ruler_queue[0] (another one after a repeat order)."""
    responded: bool | UnsetType = UNSET
    """True once ruler_queue[0] has passed its chance to play a card before the current order
    (yangtze-3); UNSET otherwise (never set in a yangtze-2 game, whose encoding stays unchanged)."""
    # --- sell-any-time card
    window: int | None = None
    """A seat selling bundles out of turn with its sell card."""
    # --- final scoring
    final_reason: str = ""
    final_bundles: list[list[list[int]]] = []
    final_breakdown: list[dict[str, int]] = []
    final_totals: list[int] = []


def rules_of(state: State) -> str:
    """The rules version the game is played under (:mod:`.versions`)."""
    return YANGTZE_2 if state.rules_version is UNSET else state.rules_version


def money(state: State, seat: int) -> int:
    """All of a player's money: the track plus the 50-coins."""
    return state.track[seat] + 50 * state.coins[seat]


def can_pay(state: State, seat: int, amount: int) -> bool:
    """2. Purchase One Good: "Purchases that would exceed the money amount of the player are not
    allowed"; likewise bids (Branches) and buy-backs (Rulers)."""
    return amount <= money(state, seat)


def river_slots(state: State) -> list[int]:
    """The trading houses with a good in front of them (2. Purchase One Good: only the goods on
    the river may be purchased)."""
    return [slot for slot, good in enumerate(state.river) if good is not None]


def copy_state(state: State) -> State:
    """A private copy for a decision that looks ahead through its own events: every list the
    handlers mutate is copied, nothing else (cheaper than a msgpack round trip)."""
    return msgspec.structs.replace(
        state,
        bag=list(state.bag),
        river=list(state.river),
        screens=[list(x) for x in state.screens],
        public=[list(x) for x in state.public],
        track=list(state.track),
        coins=list(state.coins),
        cards=[list(x) for x in state.cards],
        liquidity_used=[list(x) for x in state.liquidity_used],
        branches=[list(x) for x in state.branches],
        rulers=list(state.rulers),
        box=list(state.box),
        removed_branches=list(state.removed_branches),
        auction_in=list(state.auction_in),
        ruler_queue=list(state.ruler_queue),
    )

"""Yangtze's rules: setup, decide, legal_moves (evolve is in :mod:`.evolve`, to_act in :mod:`.flow`).

Flow (rulebook "Game Play"): a turn is "sell bundles, then purchase one good"; a purchase empties
a place on the river, which is refilled from the bag; a ruler or branch drawn on the way is dealt
with ("Rulers", "Branches") before the next draw.

One legality source: each decision the game can wait for lives in the module of its rulebook
section as a pair -- ``decide_*`` raises the first rule a command breaks, ``*_moves`` lists the
commands that break none, built from the same rule functions -- and both entry points below pick
the pair with :func:`_pending`.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from domain.kernel import Command, Event, GameOver, InvalidOptions, NotYourTurn, Options, Rng, Seat
from domain.kernel.decision import Decision

from . import components as C
from .auction import AUCTION
from .cards import ANY_TIME, SALE, any_time_moves, decide_any_time, no_sale_open
from .commands import DoneSelling, PlayLiquidity
from .events import GameSetUp, StartingGoodsDrawn
from .flow import settle
from .rulers import RULER_ORDER, owes, waits_on_cards
from .state import State
from .turn import TURN, to_act
from .versions import RULES_VERSION, VERSIONS


class YangtzeOptions(Options, frozen=True, kw_only=True):
    players: Annotated[int, Meta(ge=2, le=4, description="2 to 4 players")] = 4


# --- setup (rulebook "Game Setup") ----------------------------------------------------------------
def initial(options: YangtzeOptions) -> State:
    return State()


def setup(options: YangtzeOptions, rng: Rng, rules_version: str = RULES_VERSION) -> list[Event]:
    """The opening events under *rules_version* (the current one; an earlier one to replay a game
    set up under it -- its draws are the same, only ``GameSetUp.rules_version`` differs)."""
    if options.players not in (2, 3, 4):
        raise InvalidOptions("Yangtze is played by 2 to 4 players")
    if rules_version not in VERSIONS:
        raise InvalidOptions(f"Yangtze is judged under {', '.join(VERSIONS)}")
    # Rulers and branches drawn during setup go straight back into the bag, so each draw is a
    # uniform choice among the goods still in the bag.
    goods = list(range(C.GOODS_COUNT))
    drawn = []
    for _ in range(C.RIVER_LENGTH):
        drawn.append(goods.pop(rng.below(len(goods))))
    # Each good is pushed in at the open end, so the first one drawn ends up at Shanghai.
    events: list[Event] = [GameSetUp(players=options.players, river=drawn[::-1], rules_version=rules_version)]
    for seat in range(options.players):
        mine = [goods.pop(rng.below(len(goods))) for _ in range(C.START_GOODS)]
        events.append(StartingGoodsDrawn(seat=seat, goods=mine, count=len(mine)))
    return events


# --- the decision the game waits for ---------------------------------------------------------------
# Each is the kernel's Decision, asked of (state, seat); its play returns the events and whether
# the game then goes on by itself (:func:`.flow.settle`).
_BY_PHASE: dict[str, Decision] = {
    "turn": TURN,  # Game Play: sell, then purchase
    "auction": AUCTION,  # Branches
    "ruler": RULER_ORDER,  # Rulers
}


def _seated(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and 0 <= seat < state.players


def _pending(state: State, seat: Any) -> Decision | None:
    """The decision the game waits for from *seat* now, or None (also for anything not a seat)."""
    if seat not in to_act(state):
        return None
    return SALE if state.window is not None else _BY_PHASE[state.phase]


def decide(state: State, seat: Seat, command: Command, rng: Rng) -> list[Event]:
    if state.phase == "over":
        raise GameOver()
    if isinstance(command, ANY_TIME):
        if not _seated(state, seat):
            raise NotYourTurn()
        if not (isinstance(command, PlayLiquidity) and waits_on_cards(state, seat)):
            return decide_any_time(state, seat, command)
        # The card may be what the pending order waited for (a debt, or a response window it
        # closes): the game then goes on by itself.
        return settle(state, decide_any_time(state, seat, command, forced=owes(state, seat)), rng)
    pending = _pending(state, seat)
    if pending is None:
        raise NotYourTurn()
    if isinstance(command, DoneSelling) and state.window is None:
        raise no_sale_open().error()
    refusal = pending.check(state, seat, command)
    if refusal is not None:
        raise refusal.error()
    events, goes_on = pending.play(state, seat, command)
    return settle(state, events, rng) if goes_on else events


def legal_moves(state: State, seat: Seat) -> list[Command]:
    """The decision asked of *seat* now, plus its any-time cards (Special Cards: liquidity, sell)."""
    if state.phase == "over" or not _seated(state, seat):
        return []
    pending = _pending(state, seat)
    moves: list[Command] = [] if pending is None else pending.legal_answers(state, seat)
    any_time_moves(state, seat, moves)
    return moves

"""Branch auctions (rulebook "Branches"): a drawn branch token is auctioned at once.

The drawer bids or passes first, then the others in player order, "until there's only one player
left with the highest bid"; a pass leaves the auction; nobody bidding puts the token in the box.
"""

from __future__ import annotations

from domain.kernel import Command, Event
from domain.kernel.decision import Decision, Refusal

from .commands import Bid, Pass
from .events import BidPlaced, BranchDiscarded, BranchWon, Passed
from .state import State, money

R_BRANCH = "Yangtze: Branches"


def bid_range(state: State, seat: int) -> range:
    """Branches: "make a higher bid" (at least 1); "Bidding higher than the player's money level is
    not allowed"."""
    return range(state.high_bid + 1, money(state, seat) + 1)


def bid_refusal(state: State, seat: int, amount: int) -> Refusal | None:
    amounts = bid_range(state, seat)
    if amount in amounts:
        return None
    if amount < amounts.start:
        return Refusal("bid_too_low", f"bid more than {state.high_bid}", R_BRANCH)
    return Refusal("insufficient_money", "you may not bid more than your money", R_BRANCH)


def _auction_check(state: State, seat: int, command: Command) -> Refusal | None:
    """Branches: bid higher, within your money, or pass."""
    match command:
        case Bid(amount=amount):
            return bid_refusal(state, seat, amount)
        case Pass():
            return None
    return Refusal("not_now", "a branch is being auctioned: bid or pass", R_BRANCH)


def _auction_play(state: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """The bid or the pass; the flag says whether the auction is over (the game then goes on)."""
    token = state.auction_token
    assert token is not None
    if isinstance(command, Bid):
        amount = command.amount
        if len(state.auction_in) == 1:
            # The last seat in may still bid alone: it wins at its bid.
            return [
                BidPlaced(seat=seat, amount=amount),
                BranchWon(seat=seat, token=token, price=amount),
            ], True
        return [BidPlaced(seat=seat, amount=amount)], False
    left = [x for x in state.auction_in if x != seat]
    if not left:
        return [Passed(seat=seat), BranchDiscarded(token=token)], True
    if len(left) == 1 and state.high_bidder == left[0]:
        return [Passed(seat=seat), BranchWon(seat=left[0], token=token, price=state.high_bid)], True
    return [Passed(seat=seat)], False


def _auction_moves(state: State, seat: int) -> list[Command]:
    return [Pass(), *map(Bid, bid_range(state, seat))]


AUCTION = Decision(R_BRANCH, (Bid, Pass), _auction_moves, _auction_check, _auction_play, legal=_auction_moves)
"""The bidder's decision while a branch token is auctioned."""

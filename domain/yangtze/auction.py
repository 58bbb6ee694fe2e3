"""Branch auctions (rulebook "Branches"): a drawn branch token is auctioned at once.

The drawer bids or passes first, then the others in player order, "until there's only one player
left with the highest bid"; a pass leaves the auction; nobody bidding puts the token in the box.
"""

from __future__ import annotations

from domain.kernel import Command, Event, RuleViolation

from .commands import Bid, Pass
from .events import BidPlaced, BranchDiscarded, BranchWon, Passed
from .state import State, money

R_BRANCH = "Yangtze: Branches"


def bid_range(state: State, seat: int) -> range:
    """Branches: "make a higher bid" (at least 1); "Bidding higher than the player's money level is
    not allowed"."""
    return range(state.high_bid + 1, money(state, seat) + 1)


def bid_refusal(state: State, seat: int, amount: int) -> RuleViolation | None:
    amounts = bid_range(state, seat)
    if amount in amounts:
        return None
    if amount < amounts.start:
        return RuleViolation("bid_too_low", f"bid more than {state.high_bid}", rule=R_BRANCH)
    return RuleViolation("insufficient_money", "you may not bid more than your money", rule=R_BRANCH)


def decide_auction(state: State, seat: int, command: Command) -> tuple[list[Event], bool]:
    """The bidder's decision; the flag says whether the auction is over (the game then goes on)."""
    token = state.auction_token
    assert token is not None
    match command:
        case Bid(amount=amount):
            refusal = bid_refusal(state, seat, amount)
            if refusal is not None:
                raise refusal
            if len(state.auction_in) == 1:
                # The last seat in may still bid alone: it wins at its bid.
                return [
                    BidPlaced(seat=seat, amount=amount),
                    BranchWon(seat=seat, token=token, price=amount),
                ], True
            return [BidPlaced(seat=seat, amount=amount)], False
        case Pass():
            left = [x for x in state.auction_in if x != seat]
            if not left:
                return [Passed(seat=seat), BranchDiscarded(token=token)], True
            if len(left) == 1 and state.high_bidder == left[0]:
                return [Passed(seat=seat), BranchWon(seat=left[0], token=token, price=state.high_bid)], True
            return [Passed(seat=seat)], False
    raise RuleViolation("not_now", "a branch is being auctioned: bid or pass", rule=R_BRANCH)


def auction_moves(state: State, seat: int, moves: list[Command]) -> None:
    moves.append(Pass())
    moves.extend(map(Bid, bid_range(state, seat)))

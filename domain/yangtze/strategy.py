"""Yangtze's "heuristic" bot: a one-ply player that weighs each legal move by what the rulebook pays
at "End of Game and Final Scoring" -- "The player who has the highest amount of money after the
final valuation wins" -- from the seat's own view only.

What it values, in the rulebook's words:

* **Sale of Goods Bundles.** Goods are worth what the goods behind the screen bring sold in their
  best bundles (as the final scoring sells them), plus the prospect of growing each bundle
  ("the value of the bundles depends on the number of tokens in the bundle"): a bundle whose good
  or colour still has tiles on the river or unseen, and turns enough left to buy them, is worth
  more than its present price. A purchase is worth that gain less the trading house's price
  (:func:`purchase_value`); a sale is made when it loses no prospect, or when the money is needed
  for a purchase worth more than what the sale gives up (:func:`sale_value`).
* **Special Cards.** An unused liquidity card "is worth 30" at the end, more than the 10, 15 or 20
  it brings now: the bot never plays one unless a tax forces it (then the largest, which leaves the
  most money). The free-good card is spent on a dear purchase or late in the game; the buy-two card
  when a second purchase is also worth making. Buying back a liquidity card for less than 30 is
  always taken.
* **Branches Scoring.** A branch token at auction is worth its marginal set bonus ("15 for 2, 30
  for 3, 50 for 4" different types of one colour), its marginal "most / second most" money against
  the branches everybody can see, and the branch income still to come from the rulers not yet
  drawn, less the branch tax; the bot raises by one while the price is below that worth. While
  branches remain in the bag it keeps money in hand for their auctions ("Bidding higher than the
  player's money level is not allowed"): a purchase that spends below that reserve must gain more,
  and a sale that loses no prospect is made to refill it.
* **Rulers.** Optional orders are executed only when they gain (exchange a good, sell a bundle,
  buy back a card); the repeat order picks the face-up ruler that does the most for the seat; a
  good to return is the one whose loss costs least.
* **Game Play, note.** A round in which nobody acts ends the game: the bot ends its turn idle only
  when that is harmless or when, by its estimate of everybody's final money, it is ahead.

What it deliberately ignores: the sell-any-time card (the final scoring sells every good anyway),
response windows before automatic orders (it passes), what the others may hold behind their screens
beyond a count, whether it already sold this turn (an idle turn is judged as if it had not), and
any lookahead on the bag's draws or on the others' bids.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.kernel import Command, Rng

from . import components as C
from .bundles import best_partition, bundle_value
from .commands import (
    Bid,
    BuyBackLiquidity,
    ChooseRuler,
    DeclineOrder,
    DoneSelling,
    EndTurn,
    ExchangeGood,
    Pass,
    PlayLiquidity,
    PlaySellCard,
    PurchaseGood,
    ReturnGood,
    SellBundle,
)
from .scoring import branch_majorities, branch_sets
from .versions import YANGTZE_2
from .view import YangtzeView

EXPECTED_PRICE = 6.5
"""What a further good of a bundle is expected to cost (the middle of the trading houses' 4..10)."""
PROSPECT_SHARE = 0.5
"""Share of the tiles of a bundle's good or colour passing the river that the bot expects to get."""
PROSPECT_DISCOUNT = 0.7
"""How much of a bundle's prospect counts (the river may not bring the tiles in time)."""
HORIZON = 4.0
"""The most purchases ahead the prospect of a bundle counts on: the river changes every turn, and
a round in which nobody acts can end the game long before the last ruler."""
MAJORITY_WEIGHT = 1.0
"""How much of a branch's "most / second most" money, judged against today's holdings, counts."""
BID_MARGIN = 2.0
"""How far below its worth the bot stops raising for a branch."""
RESERVE = 30
"""Money the bot likes to keep in hand while branches remain in the bag, to bid at their auctions."""
RESERVE_WEIGHT = 0.6
"""What each unit of money below :data:`RESERVE` costs a purchase (or earns a sale)."""
GOODS_RISK = 0.3
"""Expected loss per good held to the goods tax and the return order still to come, per such ruler."""

_GROUP_TABLES: list[tuple[tuple[int, list[int]], tuple[int, list[int]]]] = [
    (
        (C.good_kind(g), C.BUNDLE_VALUES[C.category(g)]["good"]),
        (100 + C.colour(g), C.BUNDLE_VALUES[C.category(g)]["colour"]),
    )
    for g in range(C.GOODS_COUNT)
]
"""For each good (static component data): (group key, value table) of its "same goods" bundle
and of its "same colour" bundle."""


def _group_members() -> dict[int, frozenset[int]]:
    members: dict[int, set[int]] = {}
    for g, groups in enumerate(_GROUP_TABLES):
        for key, _table in groups:
            members.setdefault(key, set()).add(g)
    return {key: frozenset(goods) for key, goods in members.items()}


_GROUP_MEMBERS = _group_members()
"""The goods of each group key (static component data)."""
_RULER_TOKENS = range(C.RULER_FIRST, C.RULER_FIRST + C.RULER_COUNT)


# --- what the view tells ---------------------------------------------------------------------------
class _Table:
    """The facts of one decision, read once from the view."""

    def __init__(self, view: YangtzeView, seat: int) -> None:
        self.view = view
        self.seat = seat
        self.players = view.players
        self.screen = list(view.known_goods[seat])
        self.cash = view.track[seat] + C.COIN_VALUE * view.coins[seat]
        self.cards = view.cards[seat]
        seen = set(view.box) | set(self.screen)
        for other in range(view.players):
            if other != seat:
                seen.update(view.known_goods[other])
        self.on_river = [g for g in view.river if g is not None]
        seen.update(self.on_river)
        unseen = [g for g in range(C.GOODS_COUNT) if g not in seen]
        self.obtainable = set(unseen) | set(self.on_river)
        placed = set(view.rulers)
        self.rulers_left = C.RULER_COUNT - len(view.rulers)
        self.orders_left = [C.ruler_order(t) for t in _RULER_TOKENS if t not in placed]
        branches_out = sum(len(b) for b in view.branches) + len(view.removed_branches)
        branches_out += view.auction_token is not None
        goods_in_bag = max(0, view.bag_count - self.rulers_left - (C.BRANCH_COUNT - branches_out))
        r = self.rulers_left
        turns = goods_in_bag * r / (r + 1) if r > 0 else 0.0
        self.my_turns = min(HORIZON, turns / self.players)
        """Purchases the seat may still make: the goods the bag is expected to yield before the
        last ruler, shared among the players (at most :data:`HORIZON`)."""
        self.branches_in_bag = C.BRANCH_COUNT - branches_out
        self.memo: dict[tuple[int, ...], float] = {}

    def reserve_cost(self, cash_after: int) -> float:
        """Branches: money spent below the reserve can no longer bid for the branches to come."""
        if self.branches_in_bag <= 0 or self.rulers_left <= 0:
            return 0.0
        short = max(0, RESERVE - cash_after) - max(0, RESERVE - self.cash)
        return RESERVE_WEIGHT * short

    # --- 1. Sale of Goods Bundles, with the prospect of growing each bundle ----------------------
    def goods_worth(self, goods: Sequence[int]) -> float:
        key = tuple(sorted(goods))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = bundles_with_prospect(key, self.obtainable, self.my_turns)
            found -= GOODS_RISK * len(key) * self.goods_rulers_left()
        return found

    def goods_rulers_left(self) -> int:
        return sum(1 for kind, _t in self.orders_left if kind in (C.TAX_GOODS, C.RETURN_GOOD))


def _interpolate(table: list[int], size: float) -> float:
    """A bundle's value at a fractional *size* (table: value by size - 1; 0 for no goods)."""
    size = min(size, float(len(table)))
    low = int(size)
    lo = table[low - 1] if low >= 1 else 0
    if low >= len(table):
        return float(lo)
    hi = table[low]
    return lo + (hi - lo) * (size - low)


def bundles_with_prospect(goods: tuple[int, ...], obtainable: set[int], my_turns: float) -> float:
    """1. Sale of Goods Bundles: the best partition's value, plus each bundle's prospect of growth
    -- the tiles of its good or colour still obtainable, as many as the seat's turns allow, at the
    expected price -- discounted, and never more tiles in all than the seat has purchases left."""
    value, parts = best_partition(list(goods))
    if my_turns <= 0 or not parts:
        return float(value)
    pool = max(1, len(obtainable))
    prospects = []
    for part in parts:
        size = len(part)
        groups: tuple[tuple[int, list[int]], ...]
        if size == 1:
            groups = _GROUP_TABLES[part[0]]
        else:
            a, b = part[0], part[1]
            groups = tuple(gt for gt in _GROUP_TABLES[a] if gt in _GROUP_TABLES[b])
        best = (0.0, 0.0)
        for key, table in groups:
            free = len(_GROUP_MEMBERS[key] & obtainable)
            if not free or size >= len(table):
                continue
            extra = min(free, my_turns * PROSPECT_SHARE * min(1.0, 8 * free / pool))
            gain = _interpolate(table, size + extra) - table[size - 1] - extra * EXPECTED_PRICE
            if gain > best[0]:
                best = (gain, extra)
        if best[0] > 0:
            prospects.append(best)
    if not prospects:
        return float(value)
    wanted = sum(extra for _g, extra in prospects)
    scale = min(1.0, my_turns / wanted) if wanted > 0 else 1.0
    return value + PROSPECT_DISCOUNT * scale * sum(gain for gain, _e in prospects)


# --- 2. Purchase One Good (and the cards that change it) -------------------------------------------
def free_card_keep(table: _Table) -> float:
    """Special Cards, free good: what keeping the card is worth -- a dear good later, if turns remain."""
    if table.my_turns <= 1:
        return 0.0
    return 8.0 if table.my_turns > 4 else 5.0


def buy_two_keep(table: _Table) -> float:
    """Special Cards, buy two goods: what keeping the card is worth for a later turn."""
    return 0.0 if table.my_turns <= 2 else 2.0


def purchase_value(table: _Table, screen: list[int], slot: int, free: bool) -> float:
    """2. Purchase One Good: what the good adds to the goods behind the screen, less its price (or
    less the free-good card, when it is played)."""
    good = table.view.river[slot]
    if good is None:
        return -1e9
    gain = table.goods_worth([*screen, good]) - table.goods_worth(screen)
    if free:
        return gain - free_card_keep(table)
    return gain - C.PRICES[slot] - table.reserve_cost(table.cash - C.PRICES[slot])


def best_second(table: _Table, screen: list[int], cash: int, taken: int, free_left: bool) -> float:
    """The best purchase the buy-two card's second purchase could make (0 when none gains)."""
    best = 0.0
    for slot, good in enumerate(table.view.river):
        if good is None or slot == taken:
            continue
        for free in (False, True) if free_left else (False,):
            if not free and C.PRICES[slot] > cash:
                continue
            best = max(best, purchase_value(table, screen, slot, free))
    return best


def buy_two_value(table: _Table, move: PurchaseGood, free_left: bool) -> float:
    """Special Cards, buy two goods: worth playing only when a second purchase also gains."""
    good = table.view.river[move.slot]
    if good is None:
        return -1e6
    cash_after = table.cash - (0 if move.free else C.PRICES[move.slot])
    second = best_second(table, [*table.screen, good], cash_after, move.slot, free_left and not move.free)
    return second - buy_two_keep(table) if second > 0 else -1e6


# --- 1. Sell a Bundle of Goods --------------------------------------------------------------------
def sale_value(table: _Table, goods: list[int]) -> float:
    """1. Sell a Bundle of Goods: the money the bundle brings plus what the remaining goods are
    worth, against what all of them are worth kept (0: the sale loses no prospect)."""
    rest = list(table.screen)
    for g in goods:
        rest.remove(g)
    value = bundle_value(goods)
    return (
        value
        + table.goods_worth(rest)
        - table.goods_worth(table.screen)
        - table.reserve_cost(table.cash + value)
    )


# --- Branches --------------------------------------------------------------------------------------
def branch_worth(table: _Table, token: int) -> float:
    """Branches Scoring: the token's marginal set bonus and "most / second most" money against
    the branches on the table, plus the branch income of the rulers still to come, less their
    branch tax."""
    seat = table.seat
    holdings = [list(b) for b in table.view.branches]
    before_sets = sum(branch_sets(holdings[seat]).values())
    before_major = sum(branch_majorities(holdings)[seat])
    holdings[seat].append(token)
    after_sets = sum(branch_sets(holdings[seat]).values())
    after_major = sum(branch_majorities(holdings)[seat])
    typ = C.branch_type(token)
    held_types = {C.branch_type(b) for b in table.view.branches[seat]}
    income = 0
    for kind, types in table.orders_left:
        if kind == C.BRANCH_INCOME and typ in types:
            if table.view.rules_version == YANGTZE_2 or typ not in held_types:
                income += C.BRANCH_INCOME_STEP
        elif kind == C.TAX_BRANCHES:
            income -= 1
    # Majorities can still change hands while branches remain in the bag.
    return (after_sets - before_sets) + MAJORITY_WEIGHT * (after_major - before_major) + income


def choose_bid(table: _Table, legal: Sequence[Command], rng: Rng) -> Command:
    token = table.view.auction_token
    bids = [m for m in legal if isinstance(m, Bid)]
    passing = next(m for m in legal if isinstance(m, Pass))
    if token is None or not bids or table.view.high_bidder == table.seat:
        return passing
    worth = branch_worth(table, token) - BID_MARGIN
    lowest = min(bids, key=lambda command: command.amount)
    if lowest.amount <= worth:
        return lowest
    return passing


# --- Rulers ----------------------------------------------------------------------------------------
def return_loss(table: _Table, good: int) -> float:
    rest = list(table.screen)
    rest.remove(good)
    return table.goods_worth(table.screen) - table.goods_worth(rest)


def exchange_gain(table: _Table, good: int, slot: int) -> float:
    taken = table.view.river[slot]
    if taken is None:
        return -1e9
    rest = list(table.screen)
    rest.remove(good)
    rest.append(taken)
    return table.goods_worth(rest) - table.goods_worth(table.screen)


def order_worth(table: _Table, kind: str, types: tuple[int, ...]) -> float:
    """Rulers, repeat order: what executing *kind* would do for the seat."""
    view = table.view
    seat = table.seat
    if kind == C.BRANCH_INCOME:
        held = [C.branch_type(b) for b in view.branches[seat]]
        if view.rules_version == YANGTZE_2:
            return C.BRANCH_INCOME_STEP * sum(1 for x in held if x in types)
        return C.BRANCH_INCOME_STEP * len(set(types).intersection(held))
    if kind == C.TAX_MONEY:
        return -(max(0, view.track[seat]) // 10)
    if kind == C.TAX_GOODS:
        return -len(table.screen)
    if kind == C.TAX_BRANCHES:
        return -len(view.branches[seat])
    if kind == C.RETURN_GOOD:
        return -min((return_loss(table, g) for g in table.screen), default=0.0)
    if kind == C.SELL_BUNDLE:
        return max([0.0, *(sale_value(table, b) for b in _partition_bundles(table.screen))])
    if kind == C.BUY_BACK_LIQUIDITY:
        values = [x for x in view.liquidity_used[seat] if x <= table.cash]
        return max(0.0, C.LIQUIDITY_FINAL_VALUE - min(values)) if values else 0.0
    if kind == C.EXCHANGE_GOOD:
        slots = [s for s, g in enumerate(view.river) if g is not None]
        return max([0.0, *(exchange_gain(table, g, s) for g in table.screen for s in slots)])
    return 0.0


def _partition_bundles(screen: list[int]) -> list[list[int]]:
    return [sorted(b) for b in best_partition(list(screen))[1]]


def choose_order(table: _Table, legal: Sequence[Command], rng: Rng) -> Command:
    decline = next((m for m in legal if isinstance(m, DeclineOrder)), None)
    scored: list[tuple[float, Command]] = []
    for m in legal:
        if isinstance(m, ReturnGood):
            scored.append((-return_loss(table, m.good), m))
        elif isinstance(m, SellBundle):
            scored.append((sale_value(table, m.goods), m))
        elif isinstance(m, BuyBackLiquidity):
            scored.append((C.LIQUIDITY_FINAL_VALUE - m.value - 0.01 * m.value, m))
        elif isinstance(m, ExchangeGood):
            scored.append((exchange_gain(table, m.good, m.slot), m))
        elif isinstance(m, ChooseRuler):
            kind, types = C.ruler_order(table.view.rulers[m.spot])
            scored.append((order_worth(table, kind, types), m))
    if not scored:
        return decline if decline is not None else legal[0]
    best = _best(scored, rng)
    if decline is not None and max(s for s, _m in scored) <= 0.5:
        return decline
    return best


# --- the final valuation, estimated from the view ---------------------------------------------------
def estimated_totals(table: _Table) -> list[int]:
    """End of Game and Final Scoring, estimated for every seat from what this seat sees: money, the
    known goods' bundles (3 for each good unseen behind a screen), branches, unused liquidity."""
    view = table.view
    majorities = branch_majorities([list(b) for b in view.branches])
    out = []
    for seat in range(view.players):
        known = view.known_goods[seat]
        goods = best_partition(list(known))[0] + 3 * (view.screen_counts[seat] - len(known))
        liquidity = sum(1 for c in view.cards[seat] if c in C.LIQUIDITY)
        out.append(
            view.track[seat]
            + C.COIN_VALUE * view.coins[seat]
            + goods
            + sum(branch_sets(view.branches[seat]).values())
            + sum(majorities[seat])
            + C.LIQUIDITY_FINAL_VALUE * liquidity
        )
    return out


def idle_end_value(table: _Table) -> float:
    """Game Play, note: ending the turn idle when everybody else has been idle for a round ends the
    game -- welcome when ahead, to be avoided when behind."""
    view = table.view
    if view.idle + 1 < view.players:
        return 0.0
    totals = estimated_totals(table)
    mine = totals[table.seat]
    best_other = max(x for s, x in enumerate(totals) if s != table.seat)
    return 50.0 if mine > best_other + 5 else -50.0


# --- the turn --------------------------------------------------------------------------------------
def choose_turn(table: _Table, legal: Sequence[Command], rng: Rng) -> Command:
    view = table.view
    free_left = C.FREE_GOOD in table.cards
    scored: list[tuple[float, Command]] = []
    best_purchase = 0.0
    dearest_wanted = 0
    for m in legal:
        if isinstance(m, PurchaseGood):
            value = purchase_value(table, table.screen, m.slot, m.free)
            if m.buy_two:
                value += buy_two_value(table, m, free_left)
            scored.append((value, m))
            best_purchase = max(best_purchase, value)
        elif isinstance(m, EndTurn):
            scored.append((idle_end_value(table) if not _acted_this_turn(table) else 0.0, m))
    # A purchase out of reach: what it would gain once a sale has raised the money.
    for slot, good in enumerate(view.river):
        if good is None or C.PRICES[slot] <= table.cash:
            continue
        value = purchase_value(table, table.screen, slot, False)
        if value > 0:
            dearest_wanted = max(dearest_wanted, C.PRICES[slot])
            best_purchase = max(best_purchase, value)
    for m in legal:
        if isinstance(m, SellBundle):
            value = sale_value(table, m.goods)
            if value < -0.01:
                # A sale is worth its loss only for a purchase it makes affordable.
                if dearest_wanted and table.cash + bundle_value(m.goods) >= dearest_wanted:
                    value += best_purchase
                elif table.cash < 10 and len(m.goods) >= 2:
                    value += 0.5 * best_purchase
            else:
                value += 0.2
            scored.append((value, m))
    if not scored:
        return _fallback(legal, rng)
    return _best(scored, rng)


def _acted_this_turn(table: _Table) -> bool:
    """Whether the seat already bought (the buy-two card's second purchase): ending then is no idle turn."""
    return table.view.stage == "second"


# --- choosing --------------------------------------------------------------------------------------
def _best(scored: list[tuple[float, Command]], rng: Rng) -> Command:
    top = max(s for s, _m in scored)
    return rng.choice([m for s, m in scored if s >= top - 1e-9])


def _fallback(legal: Sequence[Command], rng: Rng) -> Command:
    """Never a card when anything else will do; a forced liquidity card: the largest."""
    plain = [m for m in legal if not isinstance(m, (PlayLiquidity, PlaySellCard))]
    if plain:
        for kind in (Pass, DoneSelling, DeclineOrder, EndTurn):
            for m in plain:
                if isinstance(m, kind):
                    return m
        return rng.choice(plain)
    cards = [m for m in legal if isinstance(m, PlayLiquidity)]
    if cards:
        return max(cards, key=lambda command: command.value)
    return legal[0]


def heuristic(view: YangtzeView, seat: int, legal: Sequence[Command], rng: Rng) -> Command:
    """The heuristic bot's move: one of *legal*, chosen from *view* alone."""
    if len(legal) == 1:
        return legal[0]
    t = _Table(view, seat)
    plain = [m for m in legal if not isinstance(m, (PlayLiquidity, PlaySellCard))]
    if not plain:
        return _fallback(legal, rng)
    if view.window == seat:
        return next((m for m in plain if isinstance(m, DoneSelling)), _fallback(legal, rng))
    if view.phase == "auction":
        return choose_bid(t, plain, rng)
    if view.phase == "ruler":
        if any(isinstance(m, Pass) for m in plain):
            return next(m for m in plain if isinstance(m, Pass))
        return choose_order(t, plain, rng)
    if view.phase == "turn":
        return choose_turn(t, plain, rng)
    return _fallback(legal, rng)

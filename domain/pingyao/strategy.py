"""Pingyao's ``heuristic`` bot: a one-ply player that prices every legal move in final points.

What it values, in the rulebook's words (How to Score, Game End):

- **"Every 10 copper coins converts to 1 point" and "every silver ingot ... is worth 1 point"**: a
  board is worth its end-game score now (copper at a tenth of a point, silver in the head office,
  on branches and coming back from the Lending area at one point each), less what it already owes
  - one silver per exchange card still to mature, the deposit's two silver and its interest.
- **"Earning more copper coins each round is the most important way to score"**: the Income Phase
  still to come - branches' effective silver (Tier 1/2/3 at 2/3/4 copper), Tier-2 income skills,
  the Yamen income tiles - counts once per income left, and the Lending area pays 2/3/5 copper
  per lent silver (by reputation) for the months each ingot has left.
- **Bank Escort**: a new branch's price (6/12/24 copper and 1/2/3 silver of capital) against the
  income of its capital, its points (Tier 2: 1, Tier 3: 2), Tier 1's reputation and its skill
  (kept tile: the skill's worth to this board, half of it while no branch teller activates it).
- **West Street**: the handling fee (withdrawal at Tier 2 +1, Tier 3 +2, the head office -1, the
  Exchange track's +1 at 3 and 6), the Exchange track's end points, silver deposited where it
  raises effective silver, a withdrawal from a piaohao that will hold silver (an Emergency Fund
  Transfer costs 5 copper) and does not cut income.
- **Money House**: lending for the longest months the die allows; accepting deposits only pays
  its interest, so it is taken only when nothing better is open.
- **City God Temple** and **Confucius Temple**: reputation's lending rates (4, 10), free branch
  tellers (2, 8, 13), the extra exchange card (6) and end points (12, 14, 15); a branch teller on
  a teller position activates the skill, on a management position raises effective silver, and
  every 2 on branches score 1 point.
- **Yamen**: a support tile's income, points or use to this board, against its silver and copper.
- **Bumping**: the value difference paid or gained; **rerolls** when the expected best action
  after the reroll beats the best one now by more than the fee; the Tier-1 die skills when the
  new value opens a better action.
- Solo: progress toward the storyline card's unmet conditions.

What it deliberately ignores: the other seats' plans (it never blocks an action on purpose, and
drafts the two-player public dice out of play), the order the dice will act in later this round,
the exact exchange card it will draw (it prices the average card), and Tokyo's teller reset.
It sees only the seat's view and the legal moves, and uses the title's static component data and
pure board helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain.kernel import Command, Rng

from . import board as B
from . import commands as K
from . import components as C
from .exchange import exchange_fee, placements
from .view import PingyaoDieView, PingyaoPlayerView, PingyaoView

Board = PingyaoPlayerView
_replace = msgspec.structs.replace

# --- Rule-derived weights ---------------------------------------------------------------------------
TELLER_BONUS_WORTH = 0.9
"""City God Temple, above the track: a free branch teller (about half a point on a branch plus what
its position gives)."""
INACTIVE_SKILL_SHARE = 0.5
"""A branch skill waiting for its branch teller counts at half its worth."""
CARD_SLOT_MONTH = 0.08
"""West Street: a card on the track holds one of the 3 sets of markers for each month it waits."""
TRANSFER_PENALTY = C.TRANSFER_FEE / 10 + 0.2
"""Emergency Fund Transfer: 5 copper per silver shipped."""
GOAL_STEP = 1.2
"""Solo, Game End: each step toward an unmet condition of the storyline card."""
REFILL_PENALTY = 0.3
"""A head office short of silver for a later maturity: copper converted in a Preparation phase."""


def incomes_left(view: PingyaoView) -> int:
    """Game Flow: 8 rounds; the Income Phase comes after the Action Phase of each round."""
    if view.phase == "end":
        return 0
    if view.phase == "resolution":
        return max(0, C.ROUNDS - view.round)
    return max(0, C.ROUNDS - max(view.round, 1) + 1)


# --- The board's worth in final points ---------------------------------------------------------------
_FLAT_SKILLS = {
    "die_minus": 0.12,
    "die_plus": 0.12,
    "die_swap": 0.1,
    "reroll_discount": 0.06,
    "extra_card": 0.1,
    "recall_silver": 0.03,
}
"""Tier-1 skills: worth per income left (a better die value, a cheaper reroll, a choice of card)."""


def skill_worth(player: Board, region: str, incomes_left: int) -> float:
    """Branch Skill Reference: what a branch's skill is worth to this board (in points) once active."""
    t = player.regions[region].tile
    if not t:
        return 0.0
    sk = C.TILES[t].skill
    if sk.startswith("income_") and sk[7:] in C.COLORS:  # Lu'an and twins
        return B.count_color(player, sk[7:]) * incomes_left / 10
    if sk == "income_rep":  # Guilin
        return (player.reputation + incomes_left // 2) // 4 * incomes_left / 10
    if sk == "income_exchange":  # Liuzhou
        return (player.exchange + incomes_left // 2) // 3 * incomes_left / 10
    if sk.startswith("end_") and sk[4:] in C.COLORS:  # Guangzhou and twins
        return float(B.count_color(player, sk[4:]))
    if sk == "end_rep":  # Shuntian
        return float((player.reputation + incomes_left // 2) // 5)
    if sk == "end_tellers":  # Taipei
        r = player.regions[region]
        return r.tellers + r.managers + 1.0
    if sk == "end_exchange":  # Jinan
        return float((player.exchange + incomes_left // 2) // 3)
    if sk == "end_macau":  # Macau: 4 silver on it
        return 3.0 if player.regions[region].silver >= 4 else 1.2
    return _FLAT_SKILLS.get(sk, 0.0) * incomes_left


_TIER_RATE = {r: C.INCOME_RATE[C.region_tier(r)] for r in C.REGIONS}
_TIER_POINTS = {r: C.END_POINTS_TIER[C.region_tier(r)] for r in C.REGIONS}
_REP_POINTS = [
    sum(v for k, v in C.REPUTATION_END_POINTS.items() if rep >= k) for rep in range(C.REPUTATION_MAX + 1)
]
_EXCHANGE_POINTS = [
    sum(v for k, v in C.EXCHANGE_END_POINTS.items() if x >= k) for x in range(C.EXCHANGE_MAX + 1)
]
_FEE_BONUS = [
    sum(b for pos, b in C.EXCHANGE_FEE_BONUS.items() if x >= pos) for x in range(C.EXCHANGE_MAX + 1)
]
_LEND_RATE = [C.lending_rate(rep) for rep in range(C.REPUTATION_MAX + 1)]
_STAFFED_TIER2 = (0, 3, 7, 11)
"""Yamen Support Tile Reference: +3/+7/+11 copper for 1/2/3 staffed Tier-2 branches."""


FEE_BONUS_PER_INCOME = 0.06
"""Exchange track 3 and 6: +1 copper on each exchange to come (about 0.6 per round)."""
EXTRA_CARD_PER_INCOME = 0.04
"""Reputation 6: one more exchange card to choose from."""
TRACK_PACE = 1.2
"""Spaces a track can still climb per round left, for the chance of reaching a milestone."""


def _reputation_milestones(incomes_left: int) -> tuple[tuple[int, float], ...]:
    """City God Temple: free branch tellers at 2, 8 and 13, lending +1 at 4 and +2 more at 10, the
    extra exchange card at 6; end points 1, 2 and 3 at 12, 14 and 15."""
    lend = 2 * min(incomes_left, 3) / 10
    return (
        (2, TELLER_BONUS_WORTH),
        (4, lend),
        (6, EXTRA_CARD_PER_INCOME * incomes_left),
        (8, TELLER_BONUS_WORTH),
        (10, 2 * lend),
        (12, 1.0),
        (13, TELLER_BONUS_WORTH),
        (14, 2.0),
        (15, 3.0),
    )


def _exchange_milestones(incomes_left: int) -> tuple[tuple[int, float], ...]:
    """West Street: the Exchange track's +1 handling fee at 3 and 6; end points at 9-12."""
    fee = FEE_BONUS_PER_INCOME * incomes_left
    return ((3, fee), (6, fee), (9, 1.0), (10, 1.0), (11, 2.0), (12, 2.0))


def _track_promise(level: int, incomes_left: int, milestones: tuple[tuple[int, float], ...]) -> float:
    """The milestones ahead on a track, each at the chance of reaching it in the rounds left."""
    reach = 1 + TRACK_PACE * incomes_left
    total = 0.0
    for at, worth in milestones:
        if at > level:
            d = at - level
            if d >= reach:
                break
            total += worth * 0.7 * (1 - d / reach)
    return total


def _rep(player: Board) -> int:
    return max(0, min(C.REPUTATION_MAX, player.reputation))


def _exch(player: Board) -> int:
    return max(0, min(C.EXCHANGE_MAX, player.exchange))


def board_value(player: Board, incomes_left: int, goals: dict[str, int] | None = None) -> float:
    """The board's end-game worth in points (How to Score): score now (Game End 1-6), the Income
    Phases to come (Income Phase 1-4), what the tracks and waiting skills promise, less what is
    owed (exchange cards' withdrawals, the deposit)."""
    rep, ex = _rep(player), _exch(player)
    silver = player.head_office + sum(player.lending)
    points = (
        player.copper / 10
        + _REP_POINTS[rep]
        + _EXCHANGE_POINTS[ex]
        + (4 if "flat_points" in player.yamen else 0)
    )
    income = 0
    tier1 = 0
    staffed2 = 0
    on_branches = 0
    branches = tier3 = 0
    colours = {"red": 0, "yellow": 0, "green": 0}
    active: dict[str, str] = {}
    waiting: list[str] = []
    regions = player.regions
    for r in C.REGIONS:
        reg = regions[r]
        if not reg.tile:
            continue
        tile = C.TILES[reg.tile]
        silver += reg.silver
        points += _TIER_POINTS[r]
        branches += 1
        tier3 += r[0] == "3"
        used = min(reg.silver, tile.effective + reg.managers)
        income += used * _TIER_RATE[r]
        if tile.tier == 1:
            tier1 += used
        staff = reg.tellers + reg.managers
        on_branches += staff
        if r[0] == "2" and staff:
            staffed2 += 1
        if tile.skill == "tricolor":
            for c in colours:
                colours[c] += 1
        else:
            colours[r[1:]] += 1
        if reg.tellers >= tile.positions:
            active.setdefault(tile.skill, r)
        else:
            waiting.append(r)
    points += silver + on_branches / 2
    # Income Phase 3: Tier-2 income skills; Game End 6: end-game skills (active ones, exact).
    skill_income = 0
    end_points = 0.0
    for sk, r in active.items():
        kind, _, what = sk.partition("_")
        if kind == "income":
            if what in colours:
                skill_income += colours[what]
            elif what == "rep":
                skill_income += rep // 4
            elif what == "exchange":
                skill_income += ex // 3
        elif kind == "end":
            if what in colours:
                end_points += colours[what]
            elif what == "rep":
                end_points += rep // 5
            elif what == "tellers":
                end_points += regions[r].tellers + regions[r].managers
            elif what == "exchange":
                end_points += ex // 3
            elif what == "macau":
                end_points += 3 if regions[r].silver >= 4 else 0
            elif what == "flat":
                end_points += 1
        elif incomes_left > 0:
            end_points += _FLAT_SKILLS.get(sk, 0.0) * incomes_left
    points += end_points
    yamen = 0
    if "tier1_income" in player.yamen:
        yamen += 2 * tier1
    if "tier2_staffed" in player.yamen:
        yamen += _STAFFED_TIER2[min(staffed2, 3)]
    points += (income + skill_income + yamen) * incomes_left / 10
    if incomes_left > 0:
        rate = _LEND_RATE[rep] + (1.5 if "lending_income" in player.yamen else 0.0)
        lend = player.lending
        points += (
            lend[0] * rate * min(1, incomes_left)
            + lend[1] * rate * min(2, incomes_left)
            + lend[2] * rate * min(3, incomes_left)
        ) / 10
        # What the tracks still promise: lending at the reputation's rate, progress toward the
        # next end points, the Exchange track's fee bonuses on the exchanges to come.
        points += _LEND_RATE[rep] * min(incomes_left, 3) / 10
        points += _FEE_BONUS[ex] * FEE_BONUS_PER_INCOME * incomes_left
        if rep >= C.REPUTATION_EXTRA_CARD:
            points += EXTRA_CARD_PER_INCOME * incomes_left
        points += _track_promise(rep, incomes_left, _reputation_milestones(incomes_left)) + _track_promise(
            ex, incomes_left, _exchange_milestones(incomes_left)
        )
        for r in waiting:  # a skill waiting for its branch teller
            points += INACTIVE_SKILL_SHARE * skill_worth(player, r, incomes_left)
    # What is owed: a silver per exchange card, the deposit's silver and interest.
    points -= len(player.cards)
    if player.deposit_marker:
        points -= (
            C.DEPOSIT_SILVER + C.DEPOSIT_INTEREST * min(player.deposit_marker, max(incomes_left, 1)) / 10
        )
    if player.cards or player.deposit_marker:
        points -= _shortfall_penalty(player, incomes_left)
    if goals:
        have = {
            "reputation": rep,
            "exchange": ex,
            "branches": branches,
            "tier3": tier3,
            "tellers": on_branches,
        }
        points += sum(GOAL_STEP * min(have[k], v) for k, v in goals.items() if k in have)
    return points


def _shortfall_penalty(player: Board, incomes_left: int) -> float:
    """Emergency Fund Transfer: a piaohao that cannot pay what matures (exchange cards' withdrawals;
    the deposit's 2 silver from the head office) ships silver at 5 copper each.  The head office can
    still be refilled in a Preparation phase (10 copper = 1 silver) before a later maturity."""
    final = incomes_left <= 1
    due_now: dict[str, int] = {}
    due_all: dict[str, int] = {}
    for c in player.cards:
        due_all[c.withdraw] = due_all.get(c.withdraw, 0) + 1
        if final or c.months <= 1:
            due_now[c.withdraw] = due_now.get(c.withdraw, 0) + 1
    if player.deposit_marker:
        due_all[C.HEAD_OFFICE] = due_all.get(C.HEAD_OFFICE, 0) + C.DEPOSIT_SILVER
        if final or player.deposit_marker <= 1:
            due_now[C.HEAD_OFFICE] = due_now.get(C.HEAD_OFFICE, 0) + C.DEPOSIT_SILVER
    penalty = 0.0
    for where, n in due_all.items():
        have = player.head_office if where == C.HEAD_OFFICE else player.regions[where].silver
        short_now = max(0, due_now.get(where, 0) - have)
        short_all = max(0, n - have)
        later = short_all - short_now
        penalty += TRANSFER_PENALTY * short_now
        penalty += (REFILL_PENALTY if where == C.HEAD_OFFICE else TRANSFER_PENALTY) * later
    return penalty


# --- The decision context ----------------------------------------------------------------------------
_PLACEHOLDER = {
    tier: next(k for k, t in sorted(C.TILES.items()) if t.tier == tier and t.positions == 1 and not t.promo)
    for tier in C.TIERS
}
"""A representative branch tile of each tier (its skill waits for a teller) for an unknown draw."""


class Ctx:
    """One decision: the seat's board, the incomes left, the board's worth now."""

    __slots__ = ("L", "base", "cache", "goals", "last", "p", "seat", "street", "view")

    def __init__(
        self, view: PingyaoView, seat: int, board: Board | None = None, street: dict[int, float] | None = None
    ) -> None:
        self.view, self.seat = view, seat
        self.p: Board = view.boards[seat] if board is None else board
        self.L = incomes_left(view)
        self.goals: dict[str, int] | None = None
        if view.players == 1 and view.storyline in C.STORYLINES:
            story = C.STORYLINES[view.storyline]
            self.goals = {**story.normal, **{k: v for k, v in story.hard.items() if k not in story.normal}}
        self.last: tuple[Board, float] | None = None
        self.cache: dict[Any, float] = {}
        self.street: dict[int, float] = {} if street is None else street
        """West Street's worth by months allowed (shared by boards that differ in copper and silver)."""
        self.base = self.value(self.p)

    def value(self, player: Board) -> float:
        """`board_value`, remembered for the boards this decision looks at more than once."""
        last = self.last
        if last is not None and last[0] is player:
            return last[1]
        v = board_value(player, self.L, self.goals)
        self.last = (player, v)
        return v

    def delta(self, before: Board, after: Board) -> float:
        """What a change of board is worth."""
        return board_value(after, self.L, self.goals) - self.value(before)

    def gain(self, player: Board) -> float:
        return board_value(player, self.L, self.goals) - self.base


def _with_region(player: Board, region: str, **changes: Any) -> Board:
    reg = _replace(player.regions[region], **changes)
    return _replace(player, regions={**player.regions, region: reg})


def _with_silver(player: Board, where: str, n: int) -> Board:
    if where == C.HEAD_OFFICE:
        return _replace(player, head_office=player.head_office + n)
    return _with_region(player, where, silver=player.regions[where].silver + n)


def _with_reputation(player: Board, n: int) -> Board:
    return _replace(player, reputation=min(C.REPUTATION_MAX, player.reputation + n))


def _rep_bonus_worth(ctx: Ctx, player: Board, before: int, after: int) -> float:
    """City God Temple, above the track: reputation 2, 8 and 13 each give a free branch teller."""
    n = sum(1 for t in C.REPUTATION_TELLER_BONUS if before < t <= after and f"rep{t}" not in player.bonuses)
    return n * TELLER_BONUS_WORTH if ctx.L > 0 else n * 0.5


# --- Action Phase: dispatching a die ------------------------------------------------------------------
def _occupants(view: PingyaoView, action: str) -> list[PingyaoDieView]:
    return [d for d in view.dice if d.action == action and d.where in ("space", "rest")]


def bump_copper(view: PingyaoView, seat: int, die: int, action: str, value: int, set_value: bool) -> int:
    """Action Phase, bumping: a lower value pays the difference (large die 1 less), a higher one
    gains it (large die +1); the Yamen "any value" tile gains it either way."""
    d = view.dice[die]
    space = next((x for x in _occupants(view, action) if x.where == "space"), None)
    if space is None:
        return 0
    sv = space.value
    if value < sv:
        return sv - value if set_value else -max(0, sv - value - (1 if d.large else 0))
    return value - sv + (1 if d.large else 0)


def _escort_worth(ctx: Ctx, player: Board, tier: int, color: str) -> float:
    """Bank Escort: pay 6/12/24 copper, move 1/2/3 silver of capital to the new branch; a Tier-1
    branch +1 reputation."""
    region = f"{tier}{color}"
    player = _replace(
        player, copper=player.copper - C.BUILD_COST[tier], head_office=player.head_office - C.CAPITAL[tier]
    )
    waiting = player.regions[region].waiting
    player = _with_region(player, region, tile=_PLACEHOLDER[tier], silver=C.CAPITAL[tier])
    extra = 0.0
    if tier == 1:
        before = player.reputation
        player = _with_reputation(player, 1)
        extra += _rep_bonus_worth(ctx, player, before, player.reputation)
    if waiting:
        player = _with_region(player, region, waiting=0, tellers=1)
    fresh_colour = color not in {c for r in B.branch_regions(ctx.p) for c in B.colors_of(ctx.p, r)}
    extra += 0.3 if fresh_colour and ctx.L > 1 else 0.0  # West Street: more piaohao colours
    extra += _tile_choice_bonus(tier) if ctx.L > 0 else 0.0
    return ctx.gain(player) + extra


def _tile_choice_bonus(tier: int) -> float:
    """Bank Escort: keeping the best of 4 drawn tiles beats the placeholder's skill."""
    return {1: 0.3, 2: 0.5, 3: 0.6}[tier]


def _temple_worth(ctx: Ctx, player: Board, value: int) -> float:
    """Confucius Temple: a branch teller (5-6: 2 more copper; 1-2: a silver may also go to a branch)."""
    cost = 2 if C.band(value) == 2 else 0
    player = _replace(player, copper=player.copper - cost)
    best = max((_teller_gain(ctx, player, t) for t in B.teller_targets(player)), default=0.0)
    worth = best - cost / 10
    if C.band(value) == 0 and player.head_office > 0:
        worth += max(
            0.0, max((_move_silver_gain(ctx, player, r) for r in B.branch_regions(player)), default=0.0)
        )
    return worth


def _teller_gain(ctx: Ctx, player: Board, target: str) -> float:
    """Confucius Temple: a teller on a teller position activates the skill, on a management position
    raises effective silver; waiting on an empty region it sits idle until a branch opens."""
    region, _, slot = target.partition(":")
    reg = player.regions[region]
    if slot == "teller":
        q = _with_region(player, region, tellers=reg.tellers + 1)
    elif slot == "manager":
        q = _with_region(player, region, managers=reg.managers + 1)
    elif slot == "wait":
        return (0.1 + 0.05 * C.region_tier(region)) if ctx.L > 2 else 0.0
    else:
        return 0.0
    return ctx.delta(player, q)


def _move_silver_gain(ctx: Ctx, player: Board, region: str) -> float:
    """Confucius Temple 1-2: a silver from the head office to a branch (worth it below its effective
    silver); the head office keeps silver for lending and capital."""
    q = _replace(_with_silver(player, region, 1), head_office=player.head_office - 1)
    keep = 0.15 if player.head_office <= 2 else 0.0
    return ctx.delta(player, q) - keep


def _street_worth(ctx: Ctx, player: Board, value: int) -> float:
    """West Street: the average exchange card's best placement (with several cards drawn - Ningxia,
    reputation 6 - the best of them)."""
    months = C.MONTHS_BY_BAND[C.band(value)]
    found = ctx.street.get(months)
    if found is not None:
        return found
    values = sorted(
        max(
            (
                _placement_worth(ctx, player, card, m, d, w)
                for m, d, w in placements(player, card, months)
                if m == 1 or m == months
            ),
            default=0.0,
        )
        for card in _CARD_KINDS
    )
    draws = (
        1
        + (1 if B.active(player, "extra_card") else 0)
        + (1 if player.reputation >= C.REPUTATION_EXTRA_CARD else 0)
    )
    n = len(values)
    # (int ** int is typed Any: a negative exponent would make it a float)
    worth: float = sum(v * (((i + 1) ** draws - i**draws) / n**draws) for i, v in enumerate(values))
    ctx.street[months] = worth
    return worth


_CARD_KINDS = tuple(
    sorted({(c.deposit, c.withdraw): k for k, c in sorted(C.CARDS.items()) if c.fee == 2}.values())
)
"""One exchange card per deposit/withdraw colour pair, at the middle handling fee."""


def _pending_withdrawals(player: Board, where: str) -> int:
    return sum(1 for c in player.cards if c.withdraw == where)


def _placement_worth(ctx: Ctx, player: Board, card: str, months: int, deposit: str, withdraw: str) -> float:
    """West Street step 1: the fee now, the silver deposited, the Exchange track +1; at maturity a
    silver leaves the withdrawal piaohao (an Emergency Fund Transfer if it has none; income lost if
    that silver was effective)."""
    fee = exchange_fee(player, card, withdraw)
    q = _replace(
        _with_silver(player, deposit, 1),
        copper=player.copper + fee,
        exchange=min(C.EXCHANGE_MAX, player.exchange + 1),
    )
    q = _replace(q, cards=[*player.cards, _CardStub(card, months, deposit, withdraw)])
    worth = ctx.delta(player, q)
    later = max(0, ctx.L - months)
    at_w = B.silver_at(q, withdraw) - _pending_withdrawals(player, withdraw)
    if at_w >= 1 and withdraw != C.HEAD_OFFICE:
        reg = q.regions[withdraw]
        cap = C.TILES[reg.tile].effective + reg.managers
        if at_w <= cap:  # the silver withdrawn was earning
            worth -= C.INCOME_RATE[C.region_tier(withdraw)] * later / 10
    if ctx.L > 1:
        worth -= CARD_SLOT_MONTH * (months - 1)
    return worth


class _CardStub(msgspec.Struct):
    card: str
    months: int
    deposit: str
    withdraw: str


def _lend_worth(ctx: Ctx, player: Board, months: int) -> float:
    """Money House, Lending: 2 silver from the head office onto loan-time position `months`."""
    lending = list(player.lending)
    lending[months - 1] += C.LEND_AMOUNT
    q = _replace(player, head_office=player.head_office - C.LEND_AMOUNT, lending=lending)
    return ctx.gain(q) - 0.05 * max(0, 3 - player.head_office)


def _deposit_worth(ctx: Ctx, player: Board, months: int) -> float:
    """Money House, Accepting Deposits: 2 silver in now, 2 copper interest each Resolution phase,
    the 2 silver back from the head office when the marker leaves the track."""
    q = _replace(
        player,
        head_office=player.head_office + C.DEPOSIT_SILVER,
        deposit_area=player.deposit_area - C.DEPOSIT_SILVER,
        deposit_marker=months,
    )
    return ctx.gain(q)


def _city_god_worth(ctx: Ctx, player: Board, value: int, extra: bool) -> float:
    """City God Temple: 1-2 pay 2 for +2, 3-4 +1 free, 5-6 pay 1 for +1 (the Yamen tile: 1 more copper
    for 1 more)."""
    if player.reputation >= C.REPUTATION_MAX:
        return 0.0
    amount, cost = ((2, 2), (1, 0), (1, 1))[C.band(value)]
    if extra:
        amount, cost = amount + 1, cost + 1
    q = _with_reputation(_replace(player, copper=player.copper - cost), amount)
    return ctx.gain(q) + _rep_bonus_worth(ctx, player, player.reputation, q.reputation)


def yamen_tile_worth(ctx: Ctx, player: Board, tile: str, copper: int) -> float:
    """Yamen Support Tile Reference: the tile's effect for the rest of the game, against its silver
    from the head office and the copper by die value."""
    L = ctx.L
    q = _replace(
        player, copper=player.copper - copper, head_office=player.head_office - C.YAMEN_TILES[tile].silver
    )
    q = _replace(q, yamen=[*player.yamen, tile])
    worth = ctx.gain(q)
    if tile == "any_value":
        worth += 0.12 * L
    elif tile == "exchange_fee":
        worth += 0.3 * 0.8 * L
    elif tile == "reputation_extra":
        worth += 0.05 * L
    elif tile == "tier3_any":
        worth += 0.1 * L
    elif tile == "tier1_income":
        worth += 0.08 * L  # more Tier-1 branches to come
    elif tile == "tier2_staffed":
        worth += 0.1 * L
    elif tile == "lending_income" and sum(player.lending) == 0:
        worth += 0.15 * min(L, 4)
    return worth


def dispatch_worth(ctx: Ctx, cmd: Any) -> float:
    """A die sent to an action: the action's worth plus the bump's copper."""
    view, player = ctx.view, ctx.p
    d = view.dice[cmd.die]
    value = cmd.value or d.value
    action = K.ACTION_OF[type(cmd)]
    delta = bump_copper(view, ctx.seat, cmd.die, action, value, bool(cmd.value))
    return delta / 10 + action_worth(ctx, _replace(player, copper=player.copper + delta), cmd, value)


def action_worth(ctx: Ctx, player: Board, cmd: Any, value: int) -> float:
    t = type(cmd)
    if t is K.BankEscort:
        return _escort_worth(ctx, player, cmd.tier, cmd.color)
    if t is K.ConfuciusTemple:
        return _temple_worth(ctx, player, value)
    if t is K.WestStreet:
        return _street_worth(ctx, player, value)
    if t is K.MoneyHouseLend:
        return _lend_worth(ctx, player, cmd.months)
    if t is K.MoneyHouseDeposit:
        return _deposit_worth(ctx, player, cmd.months)
    if t is K.CityGodTemple:
        return _city_god_worth(ctx, player, value, cmd.extra)
    if t is K.Yamen:
        return yamen_tile_worth(ctx, player, cmd.tile, C.YAMEN_COPPER[C.band(value)])
    return 0.0


# --- What a die value would open (rerolls, die skills) ------------------------------------------------
def _closed(view: PingyaoView, action: str) -> bool:
    """Game Flow: Confucius Temple and Yamen open in round 3 (solo: from the start)."""
    return action in C.LATE_ACTIONS and view.round < 3 and view.players != 1


def options_for_value(ctx: Ctx, die: int, value: int) -> list[Any]:
    """The dispatches a die showing `value` would have (an approximation of the legal moves: the
    same-value block, a full resting area, copper, silver and room)."""
    view, player = ctx.view, ctx.p
    out: list[Any] = []
    for action in C.ACTIONS:
        if _closed(view, action):
            continue
        occ = _occupants(view, action)
        if any(x.value == value for x in occ):
            continue
        resting = sum(1 for x in occ if x.where == "rest" and not (x.owner < 0 and view.players == 2))
        if any(x.where == "space" for x in occ) and resting >= C.resting_capacity(action):
            continue
        avail = player.copper + bump_copper(view, ctx.seat, die, action, value, False)
        if avail < 0:
            continue
        if action == "bank_escort":
            for tier in C.tiers_for(value):
                if avail < C.BUILD_COST[tier] or player.head_office < C.CAPITAL[tier]:
                    continue
                if not view.stack_counts.get(str(tier), 0):
                    continue
                out += [
                    K.BankEscort(die=die, tier=tier, color=c)
                    for c in C.COLORS
                    if not player.regions[f"{tier}{c}"].tile
                ]
        elif action == "confucius_temple":
            if B.has_teller_target(player) and avail >= (2 if C.band(value) == 2 else 0):
                out.append(K.ConfuciusTemple(die=die))
        elif action == "west_street":
            if len(player.cards) < C.MAX_CARDS:
                out.append(K.WestStreet(die=die))
        elif action == "money_house":
            months = C.MONTHS_BY_BAND[C.band(value)]
            for m in range(1, months + 1):
                if (
                    player.head_office >= 2
                    and player.lending[m - 1] + 2 <= 2
                    and sum(player.lending) + 2 <= C.LEND_TOTAL
                ):
                    out.append(K.MoneyHouseLend(die=die, months=m, amount=C.LEND_AMOUNT))
            if not player.deposit_marker and player.deposit_area >= C.DEPOSIT_SILVER:
                out.append(K.MoneyHouseDeposit(die=die, months=1))
        elif action == "city_god_temple":
            if avail >= ((2, 0, 1)[C.band(value)]):
                out.append(K.CityGodTemple(die=die))
        elif action == "yamen":
            left = avail - C.YAMEN_COPPER[C.band(value)]
            if left >= 0:
                out += [
                    K.Yamen(die=die, tile=t)
                    for t, n in view.yamen_supply.items()
                    if n > 0 and t not in player.yamen and player.head_office >= C.YAMEN_TILES[t].silver
                ]
    return out


def best_at_value(ctx: Ctx, die: int, value: int) -> float:
    """The best a die showing `value` could do now (declining is worth nothing)."""
    key = ("best", die, value)
    found = ctx.cache.get(key)
    if found is None:
        view, player = ctx.view, ctx.p
        best = 0.0
        for cmd in options_for_value(ctx, die, value):
            action = K.ACTION_OF[type(cmd)]
            delta = bump_copper(view, ctx.seat, die, action, value, False)
            best = max(
                best,
                delta / 10 + action_worth(ctx, _replace(player, copper=player.copper + delta), cmd, value),
            )
        found = ctx.cache[key] = best
    return found


def reroll_price(player: Board, value: int) -> int:
    """Action Phase: 2 copper for a 5-6, 1 for 1-4; Xiangyang and the solo reward each 1 less."""
    cost = C.reroll_cost(value)
    if B.active(player, "reroll_discount"):
        cost -= 1
    if any(C.EVENT_CARDS[c].reward == "reroll_discount" for c in player.ongoing if c in C.EVENT_CARDS):
        cost -= 1
    return max(0, cost)


def _reroll_worth(ctx: Ctx, die: int) -> float:
    """A reroll: the expected best action on the new value, less the fee."""
    d = ctx.view.dice[die]
    sides = C.DIE_SIDES[d.large]
    mean = sum(best_at_value(ctx, die, v) for v in range(1, sides + 1)) / sides
    return mean - reroll_price(ctx.p, d.value) / 10


def _die_skill_worth(ctx: Ctx, cmd: Any) -> float:
    """Tier 1 Branches: Lasa / Changde / Jinzhou are worth the better action the new values open."""
    dice = ctx.view.dice
    changes = [(cmd.die, +1 if cmd.skill == "die_plus" else -1)] if isinstance(cmd, K.AdjustDie) else []
    if isinstance(cmd, K.SwapDice):
        changes = [(cmd.up, +1), (cmd.down, -1)]
    worth = 0.0
    for die, step in changes:
        v = dice[die].value
        worth += best_at_value(ctx, die, v + step) - best_at_value(ctx, die, v)
    return worth - 0.05


# --- The sub-decisions ------------------------------------------------------------------------------
def _branch_tile_worth(ctx: Ctx, tile: str) -> float:
    """Bank Escort: the kept tile - its effective silver's income, its skill's worth (immediate
    on-entry skills at their effect)."""
    pend = ctx.view.pending
    region = pend.region if pend is not None else ""
    if not region:
        return 0.0
    player = ctx.p
    t = C.TILES[tile]
    reg = player.regions[region]
    q = _with_region(player, region, tile=tile, silver=reg.silver + C.CAPITAL[C.region_tier(region)])
    if reg.waiting and t.positions:
        q = _with_region(q, region, waiting=0, tellers=1)
    worth = ctx.gain(q)
    if ctx.L <= 0:
        return worth
    sk = t.skill
    if sk == "entry_rep1":
        worth += _rep_step(ctx, 1)
    elif sk == "entry_rep2":
        worth += _rep_step(ctx, 2) - 0.2
    elif sk == "entry_teller":
        worth += TELLER_BONUS_WORTH - 0.2
    elif sk == "entry_exchange":
        worth += 0.4
    elif sk == "entry_copper_exchange":
        worth += 0.6
    elif sk == "tricolor":
        worth += 0.4
    elif sk == "entry_reset":
        worth += 0.1
    return worth


def _rep_step(ctx: Ctx, n: int) -> float:
    player = ctx.p
    q = _with_reputation(player, n)
    return ctx.gain(q) + _rep_bonus_worth(ctx, player, player.reputation, q.reputation)


def _place_exchange_worth(ctx: Ctx, cmd: K.PlaceExchange) -> float:
    pend = ctx.view.pending
    card = pend.card if pend is not None else ""
    if card not in C.CARDS:
        return 0.0
    return _placement_worth(ctx, ctx.p, card, cmd.months, cmd.deposit, cmd.withdraw)


def _choose_card_worth(ctx: Ctx, card: str) -> float:
    pend = ctx.view.pending
    months = pend.months if pend is not None else 1
    return max(
        (_placement_worth(ctx, ctx.p, card, m, d, w) for m, d, w in placements(ctx.p, card, months)),
        default=-0.5,
    )


def _silver_keep_worth(ctx: Ctx, player: Board, where: str) -> float:
    """What a piaohao loses with one silver less (an Emergency Fund Transfer's source or fee)."""
    if B.silver_at(player, where) < 1:
        return 99.0
    q = _with_silver(player, where, -1)
    due = _pending_withdrawals(player, where)
    short = 0.6 if B.silver_at(q, where) < due else 0.0
    return -ctx.delta(player, q) + short


def _transfer_worth(ctx: Ctx, cmd: K.TransferFunds) -> float:
    worth = -_silver_keep_worth(ctx, ctx.p, cmd.source)
    if cmd.fee_source:
        q = _with_silver(ctx.p, cmd.source, -1)
        worth -= _silver_keep_worth(ctx, q, cmd.fee_source)
    return worth


def _resolve_worth(ctx: Ctx, card: str) -> float:
    """Resolve first the card whose withdrawal piaohao has silver to pay it."""
    c = next((c for c in ctx.p.cards if c.card == card), None)
    if c is None:
        return 0.0
    return float(min(B.silver_at(ctx.p, c.withdraw), 3))


def _convert_worth(ctx: Ctx, silver: int) -> float:
    """Preparation Phase 3: 10 copper = 1 silver changes no score, so it is worth what the silver
    opens this round (a branch's capital, lending, a Yamen tile) for the dice rolled."""
    player = ctx.p
    if ctx.L <= 1:
        return -0.01
    q = _replace(player, copper=player.copper - 10 * silver, head_office=player.head_office + silver)
    return _dice_prospects(Ctx(ctx.view, ctx.seat, q, ctx.street)) - _dice_prospects(ctx) - 0.01 * silver


def _dice_prospects(ctx: Ctx) -> float:
    """The best action one of the seat's rolled dice could take (the others' at a share)."""
    key = ("prospects",)
    found = ctx.cache.get(key)
    if found is None:
        mine = [i for i, d in enumerate(ctx.view.dice) if d.owner == ctx.seat and d.where == "number"]
        bests = sorted((best_at_value(ctx, i, ctx.view.dice[i].value) for i in mine), reverse=True)
        found = ctx.cache[key] = sum(b * (0.5 if k else 1.0) for k, b in enumerate(bests))
    return found


def _recall_worth(ctx: Ctx, region: str) -> float:
    """Jiujiang: 2 copper to bring a silver beyond a branch's effective silver back to the head office."""
    player = ctx.p
    q = _replace(
        _with_silver(player, region, -1), head_office=player.head_office + 1, copper=player.copper - 2
    )
    worth = ctx.gain(q)
    return worth + (0.15 if player.head_office < 2 and ctx.L >= 2 else 0.0)


# --- The strategy ------------------------------------------------------------------------------------
def _worth(ctx: Ctx, cmd: Command) -> float:
    t = type(cmd)
    if t in _DISPATCH:
        return dispatch_worth(ctx, cmd)
    handler = _HANDLERS.get(t)
    return handler(ctx, cmd) if handler is not None else 0.0


_DISPATCH = frozenset(K.DISPATCH)
_HANDLERS: dict[type, Callable[[Ctx, Any], float]] = {
    K.Reroll: lambda ctx, command: _reroll_worth(ctx, command.die),
    K.DiscardDie: lambda ctx, command: C.DISCARD_COPPER / 10,
    K.Decline: lambda ctx, command: 0.0,
    K.AdjustDie: _die_skill_worth,
    K.SwapDice: _die_skill_worth,
    K.RecallSilver: lambda ctx, command: _recall_worth(ctx, command.region),
    K.ConvertCopper: lambda ctx, command: _convert_worth(ctx, command.silver),
    K.EndPreparation: lambda ctx, command: 0.0,
    K.ChooseBranch: lambda ctx, command: _branch_tile_worth(ctx, command.tile),
    K.PlaceTeller: lambda ctx, command: _teller_gain(ctx, ctx.p, command.target) if command.target else -0.01,
    K.MoveSilver: lambda ctx, command: (
        _move_silver_gain(ctx, ctx.p, command.region) if command.region else 0.0
    ),
    K.ChooseExchangeCard: lambda ctx, command: _choose_card_worth(ctx, command.card),
    K.PlaceExchange: _place_exchange_worth,
    K.UseEntrySkill: lambda ctx, command: (
        (0.0 if ctx.view.pending and ctx.view.pending.skill == "entry_reset" else 0.5) if command.use else 0.0
    ),
    K.ResolveExchange: lambda ctx, command: _resolve_worth(ctx, command.card),
    K.TransferFunds: _transfer_worth,
    K.PlacePublicDie: lambda ctx, command: 0.1 if command.action == "" else 0.0,
    K.PlaceStartingBranch: lambda ctx, command: 0.0,
    K.ClaimReward: lambda ctx, command: 0.5 if command.accept else 0.0,
    K.TakeYamenTile: lambda ctx, command: yamen_tile_worth(ctx, ctx.p, command.tile, 0),
    K.TakeBackDie: lambda ctx, command: 0.0,
}


def heuristic(view: PingyaoView, seat: int, legal: Sequence[Command], rng: Rng) -> Command:
    """The move worth the most final points (How to Score), ties broken by `rng`."""
    if len(legal) == 1:
        return legal[0]
    ctx = Ctx(view, seat)
    best: list[Command] = []
    top = float("-inf")
    for cmd in legal:
        w = _worth(ctx, cmd)
        if w > top + 1e-9:
            top, best = w, [cmd]
        elif w > top - 1e-9:
            best.append(cmd)
    return best[0] if len(best) == 1 else rng.choice(best)


__all__ = ["heuristic"]

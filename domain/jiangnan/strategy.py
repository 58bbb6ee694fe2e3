"""Jiangnan's ``heuristic`` bot: a one-ply player that prices every legal answer in VP.

It decides from the seat's view alone (``JiangnanView``: the boards, every player board, its own
draw bag) and the printed component data; it never sees another bag, the stacks or the seed.

What it values, in the rulebook's words:

- **Publishing Portfolios** ("the main source of VP"): the Payout (Coins, VP), the Upkeep income
  (Dramas' Coins, Novels' VP for a Novel Idea), every **Public Scoring** still to come for the
  Portfolio's type (2/3/4 VP per matching item in Rounds 2/4/6, for the trends already on the
  track and, at one half, the two trends of each Boat still to be resolved), the Final Scoring
  **sets** of a Drama, a Novel and a Painting, the **Scoring Goal Tiles** that count it, and the
  Servant it places on a Display Track (Teahouse Coins, Tavern VP).
- **Ideas** are worth most while an unpublished Portfolio still lacks them, else a third of a VP
  ("1 VP for every 3 Idea Tiles"); **Coins** pay the Tavern, Parlour, Travel and Temple Fair and
  count for the Gold trend; a **held Portfolio** is worth its publication minus the Ideas still
  missing and the Spirit it consumes each round.
- **Consume Spirits**: it keeps its Spirit Level above the round's consumption (1 + unpublished
  Portfolios + Assistants) to avoid a **Mandatory Rest**, resting or using a Spirits Tile when it
  must.
- **Assistants** (3 VP or N² at the end, the Hired Assistants trend, their Upkeep power) and
  **Scenery** (2 VP or 1+..+N, the Scenery trend) from the Parlour and Travel.
- **Resolve Boats**: a Servant on the Boat below the district it visits is worth the Scoring Trend
  it lets it choose (the trend that favours it most over its rivals) or the Scoring Goal it
  contests; it chooses trends and drafts Action Tiles (two districts, good Discard Bonus) the same
  way.

What it deliberately ignores: the order of tiles in its own bag (it does not plan future turns),
what rivals will do next, turn order beyond a small bonus for the Society marker, and the finer
Talent and Assistant combos (it values each power by a flat estimate).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.kernel import Command, Rng

from . import components as C
from .commands import (
    ActivateAssistant,
    ActivateNovel,
    ChooseShop,
    ChooseStartingPortfolio,
    ChooseTalent,
    ChooseTrend,
    DiscardPortfolio,
    DiscardTile,
    DrawInspiration,
    DrawPortfolio,
    EndIncome,
    ExchangeIdeas,
    MoveBoatServant,
    MoveServant,
    Pass,
    PayIdea,
    PlaceOnBoat,
    PlaceServant,
    Publish,
    PublishIn,
    PublishToTravel,
    RefreshPortfolios,
    Rest,
    SendVassal,
    SwapActionTile,
    TakeExam,
    TakeIdea,
    TakeIdeas,
    TakePortfolio,
    TakePortfolioAndIdea,
    TakePortfolios,
    TakeServantIncome,
    TravelTo,
    UseSpiritsTile,
    VisitDistrict,
)
from .view import JiangnanPlayerView, JiangnanView

TYPES = ("drama", "novel", "painting")
PHASES = ("setup", "start", "actions", "income", "boats", "trend", "draft", "drafting", "events")
"""Phases of a round before its Upkeep Events (Public Scoring happens in "events")."""
MANDATORY_REST_VP = 6.0
TURN_VP = 5.0
"""What a turn is worth, roughly: the price of the turns a Portfolio will still need."""
IDEAS_PER_TURN = 2.0
"""Ideas of the types needed that a turn brings (Draw Inspiration, the Society, bonuses)."""
HOLD_SHARE = 0.8
"""A held Portfolio is published later: this share of its value now."""
SPIRIT_HOLD_VP = 0.8
SPIRIT_DEEP_VP = 1.6
"""A Spirit point consumed beyond 3 a round (past what visits regain) costs this much more."""
"""Consume Spirits: what a Spirit point consumed by an unpublished Portfolio each round costs."""
"""What a Mandatory Rest costs: a lost turn, less the Rest's own Coins and Spirit."""
TALENT_RANK = ("acclaim", "royalty", "patron", "frugal", "charming", "wealthy", "wanderer", "calm", "captain")
DISTRICT_WEIGHT = {
    "teahouse": 1.0,
    "tavern": 0.9,
    "society": 0.9,
    "temple_fair": 0.6,
    "travel": 0.6,
    "parlour": 0.5,
}
"""Drafting: how useful a district on an Action Tile tends to be."""


# --- the seat's own board, as a small mutable copy (to price "after the Discard Bonus") ---------
class Me:
    __slots__ = ("assistants", "cities", "coins", "ideas", "published", "spirit", "unpublished", "vp")

    def __init__(self, player: JiangnanPlayerView) -> None:
        self.coins = player.coins
        self.vp = player.vp
        self.spirit = player.spirit
        self.ideas = {t: player.ideas.get(t, 0) for t in TYPES}
        self.unpublished = list(player.unpublished)
        self.published = list(player.published)
        self.assistants = list(player.assistants)
        self.cities = list(player.cities)

    def copy(self) -> Me:
        other = Me.__new__(Me)
        other.coins, other.vp, other.spirit = self.coins, self.vp, self.spirit
        other.ideas = dict(self.ideas)
        other.unpublished = list(self.unpublished)
        other.published = list(self.published)
        other.assistants = list(self.assistants)
        other.cities = list(self.cities)
        return other


class Ctx:
    """What every price needs: the view, the seat, the future Public Scoring weights."""

    def __init__(self, view: JiangnanView, seat: int) -> None:
        self.v = view
        self.seat = seat
        self.p = view.player_boards[seat]
        self.me = Me(self.p)
        self.round = max(1, view.round)
        self.before_events = view.phase in PHASES
        self.power = C.TALENT_POWER.get(self.p.talent) if self.p.talent else None
        cfg = view.board.config
        self.advanced_final = cfg.overlay == "B"
        self.rivals = [s for s in range(view.players) if s != seat]
        if view.board.bot is not None:
            self.rivals.append(view.board.bot)
        self.incomes_left = (C.ROUNDS - self.round) + (1 if view.phase in PHASES[:4] else 0)
        self.turns_left = self._turns_left()
        self.trend_w = self._trend_weights()

    # -- time ------------------------------------------------------------------------------------
    def _turns_left(self) -> int:
        """My turns still to come, this one included (3 a round)."""
        used_this_round = C.SCHOLARS - self.p.scholars if self.v.phase == "actions" else 3
        return max(0, 3 - used_this_round) + 3 * (C.ROUNDS - self.round)

    def last_round(self) -> bool:
        return self.round >= C.ROUNDS

    # -- Public Scoring --------------------------------------------------------------------------
    def trend_boats(self) -> list[tuple[int, int]]:
        """(boat, round it is resolved) for the Boats still showing two Scoring Trends."""
        view = self.v
        first = self.round if view.phase in ("setup", "start", "actions", "income") else self.round + 1
        out = []
        for k, b in enumerate(
            b for b in reversed(view.board.river) if b >= 0 and len(view.board.boats[b].trends) == 2
        ):
            out.append((b, first + k))
        return out

    def scorings_left(self) -> list[int]:
        return [
            r for r in sorted(C.PUBLIC_SCORING) if r > self.round or (r == self.round and self.before_events)
        ]

    def _trend_weights(self) -> dict[str, float]:
        """VP per unit of each trend's metric, kept to the end, from the Public Scorings to come."""
        w = dict.fromkeys(C.TRENDS, 0.0)
        boats = self.trend_boats()
        track = self.v.board.trend_track
        for r in self.scorings_left():
            per = C.PUBLIC_SCORING[r]
            for t in C.TRENDS:
                count: float = track.count(t)
                for b, when in boats:
                    if when <= r and t in self.v.board.boats[b].trends:
                        count += 0.5
                w[t] += per * count
        return w

    def per_tile_after(self, rnd: int) -> int:
        """VP a single Scoring Trend Tile chosen in Round ``rnd`` pays per matching item."""
        return sum(vp for r, vp in C.PUBLIC_SCORING.items() if r >= rnd)

    # -- metrics (table.metric, from the view) -------------------------------------------------------
    def metric(self, colour: int, kind: str, me: Me | None = None) -> float:
        p = self.v.player_boards[colour]
        published = me.published if me is not None and colour == self.seat else p.published
        if kind in TYPES:
            return sum(1 for pid in published if C.PORTFOLIOS[pid]["type"] == kind) + p.degree
        if kind == "gold":
            coins = me.coins if me is not None and colour == self.seat else p.coins
            return coins // 5
        if kind == "assistant":
            return len(me.assistants if me is not None and colour == self.seat else p.assistants)
        if kind == "scenery":
            cities = me.cities if me is not None and colour == self.seat else p.cities
            return sum(C.CITY_SCENERY[c] for c in cities)
        if kind == "spirit":
            return p.spirit
        if kind == "most_type":
            return max(self.metric(colour, k, me) for k in TYPES)
        if kind == "least_type":
            return min(self.metric(colour, k, me) for k in TYPES)
        if kind == "published":
            return sum(self.metric(colour, k, me) for k in TYPES)
        return 0.0

    def projected(self, colour: int, kind: str) -> float:
        """A metric at the end of the game, guessed: now plus a steady rate for the rounds left."""
        rounds = C.ROUNDS - self.round + (0.5 if self.before_events else 0)
        rate = {"drama": 0.5, "novel": 0.5, "painting": 0.5, "assistant": 0.25, "scenery": 0.35}
        rate |= {"published": 1.5, "most_type": 0.7, "least_type": 0.3}
        return self.metric(colour, kind) + rate.get(kind, 0.0) * rounds


# --- prices of resources ---------------------------------------------------------------------
def coin_value(cx: Ctx, me: Me) -> float:
    """Coins pay visits (Tavern, Parlour, Travel, Temple Fair) and count for the Gold trend."""
    gold = (cx.trend_w["gold"] + _goal_weight(cx, "gold")) / 5
    if cx.last_round() and cx.turns_left <= 1:
        return gold
    base = 0.55 if me.coins >= 3 else 0.8
    return base + gold


def idea_value(cx: Ctx, me: Me, kind: str) -> float:
    """An Idea Tile: worth most while an unpublished Portfolio of its type lacks it."""
    need = sum(C.PORTFOLIOS[pid]["cost"] for pid in me.unpublished if C.PORTFOLIOS[pid]["type"] == kind)
    end = 1 / 3
    if me.ideas[kind] < need and cx.turns_left > 0:
        return 1.3
    if cx.turns_left <= 1:
        return end
    # a spare Idea may serve a Portfolio taken later
    return 0.45 if me.ideas[kind] < 6 else end


def spirit_consumption(cx: Ctx, me: Me) -> int:
    assistants = 0 if cx.power == "calm" else len(me.assistants)
    return 1 + len(me.unpublished) + assistants


def consumptions_left(cx: Ctx) -> int:
    """Consume Spirits still to come (Rounds 1-5; skipped in Round 6)."""
    phases = (*PHASES, "board")
    return max(0, C.ROUNDS - cx.round - (0 if cx.v.phase in phases else 1))


def spirit_burden(cx: Ctx, me: Me, rounds: int) -> float:
    """What the Spirit consumed over ``rounds`` rounds costs: a point or two a round is regained by
    visits (Tavern, Parlour, Travel: +1); more needs Rests (+4 for a whole turn)."""
    c = spirit_consumption(cx, me)
    return rounds * (SPIRIT_HOLD_VP * min(c, 3) + SPIRIT_DEEP_VP * max(0, c - 3))


def spirit_utility(cx: Ctx, me: Me, spirit: int) -> float:
    """Consume Spirits: at 0 after the round's consumption, a Mandatory Rest (not in Round 6)."""
    spirit = max(0, min(C.SPIRIT_MAX, spirit))
    if cx.last_round():
        return 0.05 * spirit
    after = spirit - spirit_consumption(cx, me)
    u = -MANDATORY_REST_VP if after <= 0 else 0.0
    return u + 0.45 * min(max(after, 0), 3)


def gain_value(cx: Ctx, me: Me, icons: Sequence[str], apply: bool = True) -> float:
    """Bonus Icons: Coins, VP, Spirit, Ideas, a Portfolio, a Special Action (applied to ``me``)."""
    total = 0.0
    double = 1
    for icon in icons:
        if icon == "vp":
            total += 1 * double
            if apply:
                me.vp += 1
        elif icon == "coin":
            total += coin_value(cx, me)
            if apply:
                me.coins += 1
        elif icon == "spirit":
            total += spirit_utility(cx, me, me.spirit + 1) - spirit_utility(cx, me, me.spirit)
            if apply:
                me.spirit = min(C.SPIRIT_MAX, me.spirit + 1)
        elif icon in TYPES:
            total += idea_value(cx, me, icon)
            if apply:
                me.ideas[icon] += 1
        elif icon == "portfolio":
            best = max((hold_value(cx, me, pid) for pid in cx.v.board.portfolio_display), default=0.0)
            total += max(0.0, best)
        elif icon == "special":
            total += max((shop_value(cx, me, s, visit=False) for s in cx.v.board.pointed_shops), default=0.0)
    return total


# --- Publish a Portfolio -------------------------------------------------------------------------
def set_value(cx: Ctx, me: Me, kind: str) -> float:
    """Final Scoring: sets of a Drama, a Novel and a Painting (4 VP, Advanced 5)."""
    counts = {t: cx.metric(cx.seat, t, me) for t in TYPES}
    per = C.FINAL_SET_VP_B if cx.advanced_final else C.FINAL_SET_VP
    if counts[kind] == min(counts.values()) and list(counts.values()).count(counts[kind]) == 1:
        return per  # completes a set
    # a step towards the next set when this type is not the most published one
    return per * 0.35 if counts[kind] < max(counts.values()) or len(set(counts.values())) == 1 else 0.0


def _goal_weight(cx: Ctx, kind: str) -> float:
    """Scoring Goal Tiles: the expected VP per item of a metric from the goals in play or to come."""
    total = 0.0
    for g in _goals_in_play(cx):
        k = C.GOALS[g]
        if k == kind or (k == "published" and kind in TYPES):
            first, second = C.GOAL_VPS[g]
            total += 0.4 * first + 0.25 * second
    return total


def goal_item_value(cx: Ctx, me: Me, kind: str) -> float:
    """A published Portfolio of ``kind`` for the goals counting most/least published type too."""
    v = _goal_weight(cx, kind)
    counts = {t: cx.metric(cx.seat, t, me) for t in TYPES}
    for g in _goals_in_play(cx):
        k = C.GOALS[g]
        first, second = C.GOAL_VPS[g]
        if (k == "most_type" and counts[kind] >= max(counts.values())) or (
            k == "least_type" and counts[kind] <= min(counts.values())
        ):
            v += 0.4 * first + 0.25 * second
    return v


def _goals_in_play(cx: Ctx) -> list[str]:
    board = cx.v.board
    return (
        [goal for x in board.river if x >= 0 and (goal := board.boats[x].goal)] + list(board.goal_column)
    )[:5]


def published_value(cx: Ctx, me: Me, pid: str, where: str = "") -> float:
    """What publishing ``pid`` brings (Payout, income, trends, sets, goals, a Display Servant),
    Ideas not counted."""
    d = C.PORTFOLIOS[pid]
    kind = d["type"]
    x = 2 if cx.power == "acclaim" else 1
    value = x * d["payout"].get("vp", 0) + x * d["payout"].get("coin", 0) * coin_value(cx, me)
    royal = 2 if cx.power == "royalty" else 1
    incomes = cx.incomes_left
    if d["income"].get("coin"):
        value += royal * d["income"]["coin"] * incomes * 0.6
    if d["income"].get("vp"):
        value += max(0.0, royal * d["income"]["vp"] - 0.7) * incomes * 0.8
    value += cx.trend_w[kind] + set_value(cx, me, kind) + goal_item_value(cx, me, kind)
    if where in ("teahouse", "tavern") and cx.turns_left > 1:
        patron = 2 if cx.power == "patron" else 1
        stay = min(2.0, cx.incomes_left)
        value += patron * stay * (0.8 * coin_value(cx, me) if where == "teahouse" else 0.9)
    # one unpublished Portfolio fewer to consume Spirit
    if not cx.last_round():
        after = me.copy()
        after.unpublished.remove(pid) if pid in after.unpublished else None
        value += spirit_utility(cx, after, me.spirit) - spirit_utility(cx, me, me.spirit)
    return value


def publish_gain(cx: Ctx, me: Me, pid: str, where: str = "", apply: bool = False) -> float | None:
    """Publish now (None if the Ideas cost cannot be paid): its value less the Ideas it uses."""
    d = C.PORTFOLIOS[pid]
    kind = d["type"]
    if pid not in me.unpublished or me.ideas[kind] < d["cost"]:
        return None
    value = published_value(cx, me, pid, where)
    after = me.copy()
    after.unpublished.remove(pid)
    after.ideas[kind] -= d["cost"]
    # the Ideas paid: their worth to the remaining Portfolios (or at the end)
    spent = 0.0
    for _ in range(d["cost"]):
        spent += idea_value(cx, after, kind) if after.ideas[kind] < _need(after, kind) else 1 / 3
    value -= min(spent, d["cost"] * 0.5)
    if apply:
        me.unpublished.remove(pid)
        me.published.append(pid)
        me.ideas[kind] -= d["cost"]
    return value


def _need(me: Me, kind: str) -> int:
    return sum(C.PORTFOLIOS[p]["cost"] for p in me.unpublished if C.PORTFOLIOS[p]["type"] == kind)


def best_publish(cx: Ctx, me: Me, where: str = "") -> tuple[float, str | None]:
    best, best_pid = 0.0, None
    for pid in me.unpublished:
        g = publish_gain(cx, me, pid, where)
        if g is not None and g > best:
            best, best_pid = g, pid
    return best, best_pid


def backlog_turns(me: Me) -> float:
    """Turns the unpublished Portfolios still need: a visit each, and a third of a turn per Idea
    missing (Draw Inspiration gives about 3)."""
    missing = sum(max(0, _need(me, t) - me.ideas[t]) for t in TYPES)
    return len(me.unpublished) + missing / IDEAS_PER_TURN


def hold_value(cx: Ctx, me: Me, pid: str) -> float:
    """A Portfolio taken now: its publication later, less the turns it will take (its visit and the
    Ideas still missing) and the Spirit it consumes while unpublished."""
    after = me.copy()
    after.unpublished.append(pid)
    future = cx.turns_left - (1 if cx.v.step is not None and cx.v.step.kind == "turn" else 0)
    need_after = backlog_turns(after)
    if need_after > future:
        return -2.0 - 3.0 * (need_after - future)
    value = HOLD_SHARE * published_value(cx, me, pid) - TURN_VP * (need_after - backlog_turns(me))
    if not cx.last_round():
        held = min(2, consumptions_left(cx))
        value -= spirit_burden(cx, after, held) - spirit_burden(cx, me, held)
        value += spirit_utility(cx, after, me.spirit) - spirit_utility(cx, me, me.spirit)
    return value


# --- Society -----------------------------------------------------------------------------------
def best_ideas(cx: Ctx, me: Me, n: int, apply: bool = True) -> tuple[float, list[str]]:
    total, chosen = 0.0, []
    for _ in range(n):
        kind = max(TYPES, key=lambda idea: (idea_value(cx, me, idea), -me.ideas[idea]))
        total += gain_value(cx, me, [kind], apply=True) if apply else idea_value(cx, me, kind)
        chosen.append(kind)
    return total, chosen


def take_portfolios_value(cx: Ctx, me: Me, pids: Sequence[str], ideas: Sequence[str] = ()) -> float:
    """Society 3a/3b: Portfolios taken one after the other (each priced with the ones before in
    hand: their Ideas and Spirit add up), then the Ideas."""
    m = me.copy()
    value = 0.0
    for pid in pids:
        value += hold_value(cx, m, pid)
        m.unpublished.append(pid)
    return value + gain_value(cx, m, list(ideas))


def society_options(cx: Ctx, me: Me) -> float:
    """Society 3: the best of 2 Portfolios, 1 Portfolio and an Idea, 2 Ideas."""
    display = list(cx.v.board.portfolio_display)
    best = best_ideas(cx, me.copy(), 2)[0]
    ranked = sorted(display, key=lambda pid: hold_value(cx, me, pid), reverse=True)
    if ranked:
        m = me.copy()
        value = hold_value(cx, m, ranked[0])
        m.unpublished.append(ranked[0])
        best = max(best, value + best_ideas(cx, m, 1)[0])
    if len(ranked) >= 2:
        best = max(best, take_portfolios_value(cx, me, ranked[:2]))
    return best


def exam_value(cx: Ctx, me: Me) -> float:
    """Imperial Degree: counts as 1 (Juren) / 2 (Gongshi) published Portfolios of each type."""
    value = 0.0
    for kind in TYPES:
        value += cx.trend_w[kind] + _goal_weight(cx, kind)
    value += C.FINAL_SET_VP_B if cx.advanced_final else C.FINAL_SET_VP
    exam = C.EXAMS.get(cx.p.degree + 1)
    if exam is None:
        return -99.0
    value -= exam["ideas"] * 0.6
    worst = sorted(hold_value(cx, me, pid) for pid in me.unpublished)[: exam["portfolios"]]
    value -= sum(max(0.0, h) for h in worst)
    return value


# --- Parlour -------------------------------------------------------------------------------------
def assistant_value(cx: Ctx, me: Me, muse: str) -> float:
    """A hired Assistant: Final Scoring (3 VP or N²), the Assistants trend and goal, its power each
    Upkeep, less the Spirit it consumes."""
    n = len(me.assistants)
    final = (2 * n + 1) if cx.advanced_final else C.FINAL_ASSISTANT_VP
    power = 1.2 * cx.incomes_left
    value = final + cx.trend_w["assistant"] + _goal_weight(cx, "assistant") + power
    if cx.power != "calm" and not cx.last_round():
        after = me.copy()
        after.assistants.append(muse)
        value += spirit_utility(cx, after, me.spirit) - spirit_utility(cx, me, me.spirit)
        rounds = consumptions_left(cx)
        value -= spirit_burden(cx, after, rounds) - spirit_burden(cx, me, rounds)
    return value


def muse_value(cx: Ctx, me: Me, muse: str, bonus: bool) -> float:
    mine = cx.v.board.muse_servants.get(muse, []).count(cx.seat)
    value = gain_value(cx, me.copy(), C.MUSE_BONUS.get(muse, [])) if bonus else 0.0
    hire = assistant_value(cx, me, muse)
    if mine >= 1:
        value += hire
    else:
        value += 0.3 * hire if cx.turns_left > 2 else 0.0
    return value


def best_muse(cx: Ctx, me: Me, bonus: bool) -> float:
    return max((muse_value(cx, me, m, bonus) for m in cx.v.board.muses if m), default=0.0)


# --- Travel --------------------------------------------------------------------------------------
def reachable(me: Me) -> list[str]:
    return [
        c
        for c in C.CITIES
        if c not in me.cities and (C.CITY_PREVIOUS[c] is None or C.CITY_PREVIOUS[c] in me.cities)
    ]


def scenery_value(cx: Ctx, me: Me) -> float:
    n = sum(C.CITY_SCENERY[c] for c in me.cities)
    final = (n + 1) if cx.advanced_final else C.FINAL_SCENERY_VP
    return final + cx.trend_w["scenery"] + _goal_weight(cx, "scenery")


def city_value(cx: Ctx, me: Me, city: str, how: str) -> float:
    """Travel: the Travel Cost (``how`` "district"), Spirit +1, the City Bonus, a Scenery symbol."""
    m = me.copy()
    value = 0.0
    if how == "district":
        price = 0 if cx.power == "frugal" else C.CITY_COST[city]
        if price > m.coins:
            return -99.0
        value -= price * coin_value(cx, m)
        m.coins -= price
    if how != "free":
        value += gain_value(cx, m, ["spirit"])
    bonus = C.TRAVEL_TILES[cx.v.board.travel_tiles[city]]
    if how in ("district", "peddler", "peddler_away"):
        ideas = [t for t in bonus if t in TYPES]
        if cx.power == "wanderer" and how in ("district", "peddler"):
            ideas = ideas * 2
        value += gain_value(cx, m, ideas)
        if how == "district":
            value += gain_value(cx, m, [t for t in bonus if t in ("portfolio", "special")])
    value += scenery_value(cx, m)
    # open the path further (a next city)
    value += 0.2 * sum(1 for c in C.CITIES if C.CITY_PREVIOUS[c] == city)
    return value


def best_city(cx: Ctx, me: Me, how: str) -> float:
    return max((city_value(cx, me, c, how) for c in reachable(me)), default=0.0)


# --- Temple Fair and its Shops --------------------------------------------------------------------
def shop_value(cx: Ctx, me: Me, shop: str, visit: bool = True) -> float:
    board = cx.v.board
    m = me.copy()
    if shop == "A1":  # an Idea, then publish
        v = best_ideas(cx, m, 1)[0]
        return v + best_publish(cx, m)[0]
    if shop == "A2":
        return max(0.0, best_city(cx, me, "peddler" if visit else "peddler_away"))
    if shop == "A3":
        return max(0.0, best_muse(cx, me, bonus=False)) + 0.8
    if shop == "A4":
        if me.coins < 1:
            return 0.0
        return max(
            0.0, max((boat_value(cx, x) for x in board.river if x >= 0), default=0.0) - coin_value(cx, me)
        )
    if shop == "A5":
        return 1.0 if board.spirits_supply > 0 else 0.0
    if shop == "A6":
        return max(0.0, max((hold_value(cx, me, pid) for pid in board.portfolio_display), default=0.0)) + 0.3
    if shop == "B1":
        if me.coins < 1:
            return 0.0
        return max(0.0, best_publish(cx, me, "teahouse")[0] - coin_value(cx, me))
    if shop == "B2":
        return 0.4
    if shop == "B3":
        return 0.4 * sum(1 for t in TYPES if me.ideas[t] < _need(me, t))
    if shop == "B4":
        return 0.5
    if shop == "B5":
        return gain_value(cx, m, ["coin"] * C.B5_COINS)
    if shop == "B6":
        return 1.5 if cx.turns_left > 3 and len(me.unpublished) < 3 else 0.0
    return 0.0


def fair_move_value(cx: Ctx, me: Me, distance: int, clockwise: bool, district: bool = True) -> float:
    m = me.copy()
    value = 0.0
    if district:
        price = 0 if cx.power == "frugal" else C.FAIR_MOVES[distance]
        if price > m.coins:
            return -99.0
        value -= price * coin_value(cx, m)
        m.coins -= price
    pos = cx.p.fair
    double = 2 if district and cx.power == "wanderer" else 1
    for _ in range(distance):
        if clockwise:
            path, pos = pos, (pos + 1) % C.FAIR_SPACES
        else:
            pos = (pos - 1) % C.FAIR_SPACES
            path = pos
        value += gain_value(cx, m, C.PASSING_BONUS[path] * double)
    if district and cx.v.board.shops:
        value += shop_value(cx, m, cx.v.board.shops[pos])
    return value


def best_fair(cx: Ctx, me: Me) -> float:
    return max(fair_move_value(cx, me, d, cw) for d in C.FAIR_MOVES for cw in (True, False))


# --- Resolve Boats and Scoring Goals ---------------------------------------------------------------
def _owner(cx: Ctx, colour: int) -> int:
    view = cx.v
    if view.board.config.vassals and colour >= view.players:
        return colour - view.players
    return colour


def boat_counts(cx: Ctx, boat: int, district: str | None = None) -> dict[int, int]:
    """Servants per player on a boat, with the Scholars already below its district this round."""
    counts: dict[int, int] = {}
    for colour, count in cx.v.board.boats[boat].spaces:
        if colour >= 0 and count > 0:
            o = _owner(cx, colour)
            counts[o] = counts.get(o, 0) + count
    if district is not None:
        for colour in cx.v.board.scholar_tracks.get(district, []):
            o = _owner(cx, colour)
            counts[o] = counts.get(o, 0) + 1
    return counts


def trend_gain(cx: Ctx, trend: str, rnd: int) -> float:
    """Choosing ``trend``: my projected metric against my rivals' mean, times what the tile pays."""
    mine = cx.projected(cx.seat, trend)
    rivals = [cx.projected(r, trend) for r in cx.rivals] or [0.0]
    return (mine - sum(rivals) / len(rivals)) * cx.per_tile_after(rnd)


def boat_value(cx: Ctx, boat: int, district: str | None = None) -> float:
    """One more Servant of mine on ``boat``: the trend it lets me choose, or the goal it contests."""
    b = cx.v.board.boats[boat]
    counts = boat_counts(cx, boat, district)
    mine = counts.get(cx.seat, 0)
    best_rival = max((n for o, n in counts.items() if o != cx.seat), default=0)
    if len(b.trends) == 2:
        when = dict(cx.trend_boats()).get(boat, cx.round)
        gains = [trend_gain(cx, t, when) for t in b.trends]
        swing = max(gains) - sum(gains) / 2
        later = 1.0 if when == cx.round else 0.5
        if mine + 1 > best_rival and mine <= best_rival:
            return swing * later
        if mine + 1 == best_rival:
            return 0.4 * swing * later
        return 0.1 * swing * later
    if b.goal:
        kind = C.GOALS[b.goal]
        first, second = C.GOAL_VPS[b.goal]
        if kind == "own_servants":
            amount = mine + 2.0
        elif kind == "all_servants":
            amount = sum(counts.values()) + 3.0
        else:
            amount = cx.projected(cx.seat, kind)
        others = [*sorted((n for o, n in counts.items() if o != cx.seat), reverse=True), 0, 0]
        place_before = _place(mine, others)
        place_after = _place(mine + 1, others)
        pay = {0: first, 1: second}
        delta = pay.get(place_after, 0) - pay.get(place_before, 0)
        margin = 0.6 if delta else 0.15
        extra = (first - second) * 0.15 if place_before == 0 else 0.0
        own = first * 0.5 if kind == "own_servants" and place_after == 0 else 0.0
        return (max(delta, 0) * margin + extra) * amount + own
    return 0.0


def _place(mine: int, others: list[int]) -> int:
    """My place on a boat (0 first) if I keep ``mine`` Servants; ties count against me."""
    return sum(1 for n in others if n >= mine) if mine > 0 else 9


def district_boat_value(cx: Ctx, district: str) -> float:
    board = cx.v.board
    if district not in board.districts:
        return 0.0
    boat = board.river[board.districts.index(district)]
    return boat_value(cx, boat, district) if boat >= 0 else 0.0


# --- Player Turn: choose a district ---------------------------------------------------------------
def district_value(cx: Ctx, me: Me, district: str) -> float:
    """Player Turn 3: the district's action, priced after the Discard Bonus (``me``)."""
    board = cx.v.board
    m = me.copy()
    price = 0 if cx.power == "frugal" else C.DISTRICT_COST.get(district, 0)
    value = -price * coin_value(cx, m)
    m.coins -= price
    if district == "society":
        if not cx.p.society_visited:
            value += 0.6
        return value + society_options(cx, m)
    if district in ("teahouse", "tavern"):
        patron = 2 if cx.power == "patron" else 1
        servants = sum(1 for _, o in board.display_tracks.get(district, []) if o == cx.seat) * patron
        if district == "teahouse":
            value += servants * coin_value(cx, m)
            m.coins += servants
        else:
            value += gain_value(cx, m, ["spirit"]) + servants
        inspire = gain_value(cx, m.copy(), [str(k) for k, _ in board.display_tracks.get(district, [])])
        return value + max(inspire, best_publish(cx, m, district)[0])
    if district == "parlour":
        value += gain_value(cx, m, ["spirit"])
        return value + best_muse(cx, m, bonus=True)
    if district == "travel":
        best = best_city(cx, m, "district")
        if board.config.artisans:
            for pid in m.unpublished:
                g = publish_gain(cx, m, pid)
                if g is not None:
                    mm = m.copy()
                    publish_gain(cx, mm, pid, apply=True)
                    best = max(
                        best, g + max((city_value(cx, mm, c, "artisan") for c in reachable(mm)), default=0)
                    )
        return value + best
    if district == "temple_fair":
        return value + best_fair(cx, m)
    return value


def discard_value(cx: Ctx, me: Me, tile: str) -> float:
    return gain_value(cx, me, C.ACTION_TILES[tile]["bonus"])


def turn_value(cx: Ctx, cmd: VisitDistrict | Rest) -> float:
    track = cx.p.track
    rest = track[: cmd.slot] + track[cmd.slot + 1 :]
    me = cx.me.copy()
    value = 0.0
    variant = cx.v.board.config.variant
    if rest:
        if variant:
            value += max(discard_value(cx, me.copy(), t) for t in rest)
            chosen = max(rest, key=lambda tile: discard_value(cx, me.copy(), tile))
            discard_value(cx, me, chosen)
        else:
            value += discard_value(cx, me, rest[0])
    if isinstance(cmd, Rest):
        value += gain_value(cx, me, ["coin", "coin"])
        value += spirit_utility(cx, me, me.spirit + 4) - spirit_utility(cx, me, me.spirit)
        return value - 1.5
    value += district_value(cx, me, cmd.district) + district_boat_value(cx, cmd.district)
    return value


# --- Upkeep ----------------------------------------------------------------------------------------
def activation_value(cx: Ctx, assistant: str) -> float:
    me = cx.me.copy()
    board = cx.v.board
    teahouse = sum(1 for _, o in board.display_tracks.get("teahouse", []) if o == cx.seat)
    tavern = sum(1 for _, o in board.display_tracks.get("tavern", []) if o == cx.seat)
    table = {
        "B01": lambda: spirit_utility(cx, me, me.spirit + 2) - spirit_utility(cx, me, me.spirit),
        "B02": lambda: (1 + teahouse) * coin_value(cx, me),
        "B03": lambda: (
            max((shop_value(cx, me, s, visit=False) for s in board.pointed_shops), default=0)
            - coin_value(cx, me)
        ),
        "B04": lambda: idea_value(cx, me, "painting"),
        "B05": lambda: 0.5,
        "B06": lambda: best_ideas(cx, me, 1, apply=False)[0],
        "B07": lambda: (
            max((boat_value(cx, x) for x in board.river if x >= 0), default=0) - 2 * coin_value(cx, me)
        ),
        "B08": lambda: 0.3,
        "B09": lambda: idea_value(cx, me, "drama"),
        "B10": lambda: 2 * coin_value(cx, me),
        "B11": lambda: 1.0 + tavern,
        "B12": lambda: -0.1,
        "B13": lambda: best_city(cx, me, "free") - coin_value(cx, me),
        "B14": lambda: -0.1,
        "B15": lambda: best_muse(cx, me, bonus=False) - coin_value(cx, me),
        "B16": lambda: idea_value(cx, me, "novel"),
        "B17": lambda: (
            max((hold_value(cx, me, p) for p in board.portfolio_display), default=0) - coin_value(cx, me)
        ),
        "B18": lambda: 1.0 if cx.turns_left > 3 and len(me.unpublished) < 3 else -0.5,
        "B19": lambda: 2.0,
        "B20": lambda: best_publish(cx, me)[0] - 2 * coin_value(cx, me),
    }
    f = table.get(assistant)
    return f() if f else 0.0


def draft_value(cx: Ctx, tile: str) -> float:
    d = C.ACTION_TILES[tile]
    weights = sorted((DISTRICT_WEIGHT.get(x, 0.5) for x in d["districts"]), reverse=True)
    value = 2 * weights[0] + (0.8 * weights[1] if len(weights) > 1 else 0.0)
    me = cx.me.copy()
    for icon in d["bonus"]:
        if icon in ("portfolio", "special"):
            value += 1.2
        else:
            value += gain_value(cx, me, [icon])
    return value


def tile_keep_value(cx: Ctx, tile: str) -> float:
    d = C.ACTION_TILES[tile]
    return max(DISTRICT_WEIGHT.get(x, 0.5) for x in d["districts"])


# --- the strategy ------------------------------------------------------------------------------------
def _spirits_tile_now(cx: Ctx) -> bool:
    """Use a Spirits Tile to prevent a Mandatory Rest (or when the round's consumption would hit 0)."""
    step = cx.v.step
    if step is None or cx.p.spirits_tiles == 0 or cx.p.spirit >= C.SPIRIT_MAX:
        return False
    if step.kind == "mandatory_rest":
        return True
    if cx.last_round():
        return False
    if step.kind in ("income", "trend", "draft") or (step.kind == "turn" and cx.p.scholars <= 1):
        return cx.p.spirit - spirit_consumption(cx, cx.me) <= 0 and cx.p.spirit <= 3
    return False


def score(cx: Ctx, cmd: Command) -> float:
    view, me = cx.v, cx.me
    step = view.step
    kind = step.kind if step else ""
    match cmd:
        case VisitDistrict() | Rest() if kind in ("turn", "mandatory_rest"):
            if isinstance(cmd, Rest) and kind == "mandatory_rest":
                rest = cx.p.track[: cmd.slot] + cx.p.track[cmd.slot + 1 :]
                bonus = discard_value(cx, me.copy(), rest[0]) if rest else 0.0
                return bonus - tile_keep_value(cx, cx.p.track[cmd.slot]) * 0.1
            return turn_value(cx, cmd)
        case ChooseStartingPortfolio(portfolio=pid):
            return hold_value(cx, me, pid) - C.PORTFOLIOS[pid]["cost"] * 0.2
        case ChooseTalent(talent=t):
            p = C.TALENT_POWER.get(t)
            return -TALENT_RANK.index(p) if p in TALENT_RANK else -20.0
        case DiscardTile(slot=slot):
            tile = cx.p.track[slot]
            return discard_value(cx, me.copy(), tile) - 0.5 * tile_keep_value(cx, tile)
        case SendVassal(district=d):
            full = len(view.board.scholar_tracks.get(d, [])) >= C.SCHOLAR_SPACES
            return 0.0 if full else district_boat_value(cx, d)
        case RefreshPortfolios():
            display = view.board.portfolio_display
            best = max((hold_value(cx, me, pid) for pid in display), default=-1.0)
            if kind == "take_portfolio":
                return 0.8 if best < 1.0 else -1.0
            return (1.2 - best) - coin_value(cx, me) if best < 0.5 and cx.turns_left > 3 else -5.0
        case TakePortfolios(portfolios=pids):
            return max(take_portfolios_value(cx, me, pids), take_portfolios_value(cx, me, pids[::-1]))
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):
            return take_portfolios_value(cx, me, [pid], [idea])
        case TakeIdeas(ideas=ideas):
            return gain_value(cx, me.copy(), ideas)
        case TakeExam():
            return exam_value(cx, me)
        case TakePortfolio(portfolio=pid):
            return hold_value(cx, me, pid)
        case TakeIdea(idea=idea):
            return idea_value(cx, me, idea) - 0.01 * me.ideas[idea]
        case Publish(portfolio=pid):
            where = step.arg if kind == "publish_or_inspire" and step else ""
            g = publish_gain(cx, me, pid, where)
            return -99.0 if g is None else g
        case PublishIn(portfolio=pid, district=d):
            g = publish_gain(cx, me, pid, d)
            return -99.0 if g is None else g - coin_value(cx, me)
        case PublishToTravel(portfolio=pid):
            g = publish_gain(cx, me, pid)
            if g is None:
                return -99.0
            m = me.copy()
            publish_gain(cx, m, pid, apply=True)
            return g + max((city_value(cx, m, c, "artisan") for c in reachable(m)), default=0.0)
        case DrawInspiration():
            track = view.board.display_tracks.get(step.arg if step else "teahouse", [])
            return gain_value(cx, me.copy(), [str(k) for k, _ in track])
        case PlaceServant(muse=muse):
            return muse_value(cx, me, muse, bonus=bool(step and step.arg == "parlour"))
        case TravelTo(city=city):
            how = step.arg if step else "district"
            return city_value(cx, me, city, how)
        case MoveServant(distance=d, clockwise=cw):
            district = bool(step and step.arg == "district")
            return fair_move_value(cx, me, d, cw, district)
        case ChooseShop(shop=shop):
            return shop_value(cx, me, shop, visit=bool(step and step.arg == "visit"))
        case PlaceOnBoat(boat=b):
            price = coin_value(cx, me) if step and step.arg == "A4" else 0.0
            return boat_value(cx, b) - price
        case MoveBoatServant(from_boat=a, to_boat=b):
            return boat_value(cx, b) - boat_value(cx, a) - 0.3
        case ExchangeIdeas(give=give, take=take):
            m = me.copy()
            before = sum(idea_value(cx, m, t) for t in give)
            for t in give:
                m.ideas[t] -= 1
            lost = sum(idea_value(cx, m, t) for t in give)
            after = gain_value(cx, m, take)
            return after - max(before, lost) - 0.05
        case SwapActionTile():
            return -1.0
        case DrawPortfolio():
            return 1.0 if cx.turns_left > 3 and len(me.unpublished) < 3 else -1.0
        case ActivateNovel(portfolio=pid):
            x = 2 if cx.power == "royalty" else 1
            return x * C.PORTFOLIOS[pid]["income"].get("vp", 0) - idea_value(cx, me, "novel")
        case ActivateAssistant(assistant=a):
            return activation_value(cx, a)
        case TakeServantIncome():
            return 0.05
        case EndIncome():
            return 0.0
        case ChooseTrend(trend=t):
            return trend_gain(cx, t, cx.round)
        case DiscardPortfolio(portfolio=pid):
            return -hold_value(cx, me, pid)
        case PayIdea(idea=idea):
            return me.ideas[idea] - _need(me, idea)
        case Pass():
            return 0.0
        case UseSpiritsTile():
            return -50.0
    return 0.0


def heuristic(view: JiangnanView, seat: int, legal: Sequence[Command], rng: Rng) -> Command:
    """The ``heuristic`` level: the legal answer with the highest price (ties broken by ``rng``)."""
    if len(legal) == 1:
        return legal[0]
    cx = Ctx(view, seat)
    if _spirits_tile_now(cx):
        for m in legal:
            if isinstance(m, UseSpiritsTile):
                return m
    scored = [(score(cx, m), i) for i, m in enumerate(legal)]
    top = max(s for s, _ in scored)
    best = [legal[i] for s, i in scored if s >= top - 1e-9]
    return best[0] if len(best) == 1 else rng.choice(best)


__all__ = ["heuristic"]

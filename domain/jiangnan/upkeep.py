"""II. Upkeep Phase: 1 Personal Income, 2 Resolve Boats, 3 Draft New Action Tiles, 4 Upkeep Events
(refills, Public Scoring, bags, the Age 2 swap, the end of the game), 5 Update Board Status,
6 Consume Spirits and Mandatory Rest."""

from __future__ import annotations

from typing import Any

from domain.kernel import RuleViolation

from . import components as C
from .assistants import activate, activation_refusal
from .bot import bot_income
from .commands import ActivateAssistant, ActivateNovel, ChooseTrend, DraftTile, EndIncome, TakeServantIncome
from .events import (
    ActionTileDrafted,
    Age2Swapped,
    BagRefilled,
    BoatServantPlaced,
    BoatsSlid,
    CharmReplaced,
    FinalScored,
    IncomeBegan,
    NovelIncomeActivated,
    PhaseBegan,
    PointerRotated,
    PublicScored,
    ScholarsRecovered,
    ServantIncomeTaken,
    SpiritConsumed,
    SpiritsTileUsed,
    TilePoolSet,
    TrendChosen,
    TurnOrderAdjusted,
    UpkeepTilesRefilled,
)
from .play import Play, Step, draw_tile, gain, refusal
from .portfolios import replenish_display
from .scoring import final_scoring
from .state import Frame, State
from .table import boat_ranking, metric, power, river_boats, scorers, servants_on_display, since


# --- 1. Personal Income -------------------------------------------------------------------------------
def phase_income(c: Play) -> None:
    """Player by player in turn order.  "Each tile may only be activated once per round. You may
    activate them in any order to your benefit": a. the Dramas' Coins are taken first (more Coins
    earlier never hurts, and a Drama published later pays at once); b. Novels, c. Assistant Powers
    and (jiangnan-3) d./e. the Teahouse Coins and Tavern VP for the Servants on their Display
    Tracks are then taken one at a time, in the order the player chooses - a Servant added to a
    Display Track by an Assistant Power (B03 -> Shop B1) earns its income if taken after it.
    jiangnan-2 paid d./e. at once, with a."""
    s = c.state
    if s.income_pos >= len(s.order):
        c.emit(PhaseBegan(phase="boats", round=s.round))
        return
    seat = s.order[s.income_pos]
    c.emit(IncomeBegan(seat=seat))
    p = s.p[seat]
    if seat == s.cfg.bot:
        bot_income(c, seat)
        return
    royal = 2 if power(s, seat) == "royalty" else 1  # A06/A08: double Drama and Novel income
    coins = sum(C.PORTFOLIOS[pid]["income"].get("coin", 0) for pid in p.published)
    gain(c, seat, {"coin": royal * coins}, "drama income")
    legacy = not since(s, "jiangnan-3")
    if legacy:  # jiangnan-2: d./e. at once
        for district in SERVANT_INCOME:
            take_servant_income(c, seat, district)
    if any(_income_check(s, seat, None, m) is None for m in _activations(s, seat)):
        c.push("income", seat)
    elif not legacy:  # nothing can change the Display Tracks any more: the order does not matter
        for district in SERVANT_INCOME:
            take_servant_income(c, seat, district)


SERVANT_INCOME = {"teahouse": "coin", "tavern": "vp"}
"""d. 1 Coin per Servant in the Teahouse, e. 1 VP per Servant in the Tavern."""


def take_servant_income(c: Play, seat: int, district: str) -> None:
    """d./e.: the income of the player's Servants on the district's Display Track (A02/A11:
    doubled), once per round."""
    s = c.state
    count = servants_on_display(s, district, seat)
    if since(s, "jiangnan-3"):
        if count == 0 or district in s.p[seat].income_used:
            return
        c.emit(ServantIncomeTaken(seat=seat, district=district))
    patron = 2 if power(s, seat) == "patron" else 1  # A02/A11: double servant income
    gain(c, seat, {SERVANT_INCOME[district]: patron * count}, f"{district} servants")


def _activations(s: State, seat: int) -> list[Any]:
    p = s.p[seat]
    novels: list[Any] = [
        ActivateNovel(portfolio=pid) for pid in p.published if C.PORTFOLIOS[pid]["type"] == "novel"
    ]
    return novels + [ActivateAssistant(assistant=a) for a in p.assistants]


def _income_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    servants: list[Any] = [TakeServantIncome(district=d) for d in SERVANT_INCOME]
    return [*_activations(s, seat), *servants, EndIncome()]


def _income_check(s: State, seat: int, f: Frame | None, cmd: Any) -> RuleViolation | None:
    """b. a published Novel for 1 Novel Idea, c. a hired Assistant's power, d./e. the Servants'
    income (jiangnan-3): each once per round."""
    p = s.p[seat]
    if isinstance(cmd, ActivateNovel):
        pid = cmd.portfolio
        novel = pid in p.published and C.PORTFOLIOS[pid]["type"] == "novel"
        if novel and pid not in p.income_used and p.ideas["novel"] >= 1:
            return None
        return refusal(
            "cannot_activate", "pay 1 Novel Idea for a published Novel, once per round", "Personal Income"
        )
    if isinstance(cmd, ActivateAssistant):
        a = cmd.assistant
        if a not in p.assistants or a in p.income_used:
            return refusal("cannot_activate", "a hired Assistant's power, once per round", "Personal Income")
        return activation_refusal(s, seat, a, "List of Assistant Powers")
    if isinstance(cmd, TakeServantIncome):
        if cmd.district not in SERVANT_INCOME:
            why = "Servants earn income in the Teahouse and the Tavern"
            return refusal("wrong_district", why, "Personal Income")
        if not since(s, "jiangnan-3") or cmd.district in p.income_used:
            return refusal("cannot_activate", "that income was already taken this round", "Personal Income")
        if servants_on_display(s, cmd.district, seat) == 0:
            return refusal("cannot_activate", "you have no Servants on that Display Track", "Personal Income")
        return None
    return None  # EndIncome: done activating


def _income_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    if isinstance(cmd, ActivateNovel):
        pid = cmd.portfolio
        gain(c, seat, {"novel": -1}, "novel income")
        c.emit(NovelIncomeActivated(seat=seat, portfolio=pid))
        x = 2 if power(c.state, seat) == "royalty" else 1  # A06/A08: double income
        gain(c, seat, {k: x * v for k, v in C.PORTFOLIOS[pid]["income"].items()}, "novel income")
    elif isinstance(cmd, ActivateAssistant):
        activate(c, seat, cmd.assistant, income=True)
    elif isinstance(cmd, TakeServantIncome):
        take_servant_income(c, seat, cmd.district)
    else:  # EndIncome: the Servants' income not taken yet is taken now (jiangnan-3)
        if since(c.state, "jiangnan-3"):
            for district in SERVANT_INCOME:
                take_servant_income(c, seat, district)
        c.end_step()


# --- 2. Resolve Boats ----------------------------------------------------------------------------------
def phase_boats(c: Play) -> None:
    """Servants from each Scholar Track, right to left (not the Rest Area); slide the boats; the
    majority (ties: further right) chooses the Scoring Trend.  Assumed: the Bot takes the rightmost
    trend; nobody on the boat: the rightmost trend."""
    s = c.state
    for i, d in enumerate(s.districts):
        boat = s.river[i]
        if boat >= 0:
            for seat in list(s.tracks[d]):
                c.emit(BoatServantPlaced(seat=seat, boat=boat))
    c.emit(BoatsSlid())
    ranking = boat_ranking(s, s.upkeep_boat)
    if ranking and power(s, ranking[0]) == "captain":  # A07/A14: 3 VP for first place
        gain(c, ranking[0], {"vp": C.CAPTAIN_VP}, "first place on the boat")
    if ranking and ranking[0] == s.cfg.bot:
        c.emit(TrendChosen(seat=ranking[0], trend=s.boats[s.upkeep_boat].trends[-1]))
        c.emit(PhaseBegan(phase="draft", round=s.round))
    elif ranking:
        c.emit(PhaseBegan(phase="trend", round=s.round))
        c.push("trend", ranking[0])
    else:
        c.emit(TrendChosen(seat=-1, trend=s.boats[s.upkeep_boat].trends[-1]))
        c.emit(PhaseBegan(phase="draft", round=s.round))


def _trend_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [ChooseTrend(trend=t) for t in s.boats[s.upkeep_boat].trends]


def _trend_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.trend in s.boats[s.upkeep_boat].trends:
        return None
    return refusal("no_such_trend", "choose one of the 2 Scoring Trends on the boat", "Resolve Boats")


def _trend_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    c.emit(TrendChosen(seat=seat, trend=cmd.trend))


def phase_trend(c: Play) -> None:
    """The trend was chosen: on to Draft New Action Tiles."""
    c.emit(PhaseBegan(phase="draft", round=c.state.round))


# --- 3. Draft New Action Tiles ---------------------------------------------------------------------
def draft_order(s: State) -> list[int]:
    """The Scholar Markers form a row left to right over the districts, Rest Area last; only main
    colours draft (2-Player Rules)."""
    queue: list[int] = []
    for d in [*s.districts, C.REST]:
        queue += [seat for seat in reversed(s.tracks[d]) if seat < s.players]
    return queue


def phase_draft(c: Play) -> None:
    """Rounds 1-4 (in Rounds 5-6 the Scholars just return)."""
    s = c.state
    if s.round in C.DRAFT_ROUNDS:
        c.emit(PhaseBegan(phase="drafting", round=s.round, queue=draft_order(s)))
    else:
        c.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=s.round))


def phase_drafting(c: Play) -> None:
    """The leftmost Scholar's player drafts, until every Scholar is recovered."""
    s = c.state
    if s.draft_queue and s.upkeep_tiles:
        c.push("draft", s.draft_queue[0])
    else:
        c.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=s.round))


def _draft_candidates(s: State, seat: int, f: Frame) -> list[Any]:
    return [DraftTile(tile=t) for t in sorted(set(s.upkeep_tiles))]


def _draft_check(s: State, seat: int, f: Frame, cmd: Any) -> RuleViolation | None:
    if cmd.tile in s.upkeep_tiles:
        return None
    return refusal(
        "tile_not_available", "that Action Tile is not on the Upkeep board", "Draft New Action Tiles"
    )


def _draft_play(c: Play, seat: int, f: Frame, cmd: Any) -> None:
    c.end_step()
    c.emit(ActionTileDrafted(seat=seat, tile=cmd.tile))


# --- 4. Upkeep Events -------------------------------------------------------------------------------
def public_points(s: State, seat: int, per_match: int) -> int:
    """Public Scoring: every Scoring Trend Tile on the track scores (duplicates score twice)."""
    return per_match * sum(metric(s, seat, t) for t in s.trend_track)


def phase_events(c: Play) -> None:
    """a. Refill Action Tiles (Rounds 1-3; Mixed Ages: the silver, then the gold bag), b. Public
    Scoring (2, 4, 6), c. Refill Draw Bags (2, 4), d. Swap Age 2 Portfolio Tiles (3), e. Game End (6)."""
    s = c.state
    r = s.round
    if r in C.REFILL_AGE:
        count = (C.DRAFT_TILES if s.cfg.upkeep == "A" else C.DRAFT_TILES_B)[s.players]
        if s.cfg.mixed_ages:
            pool = list(s.tile_pool) if r != 2 else C.tile_pool([3, 4], s.cfg.advanced_tiles)
            tiles = c.rng.sample(pool, min(count, len(pool)))
            c.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
            c.emit(TilePoolSet(pool=sorted(t for t in pool if t not in tiles) if r == 2 else []))
        else:
            pool = C.tile_pool([C.REFILL_AGE[r]], s.cfg.advanced_tiles)
            tiles = c.rng.sample(pool, min(count, len(pool)))
            c.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
    if r in C.PUBLIC_SCORING:
        c.emit(PublicScored(vp=[public_points(s, seat, C.PUBLIC_SCORING[r]) for seat in range(scorers(s))]))
    if r in C.BAG_REFILL_ROUNDS:
        for seat in s.order:
            c.emit(BagRefilled(seat=seat))
            if seat != s.cfg.bot:
                for _ in range(C.TRACK_SIZE):
                    draw_tile(c, seat)
    if r == C.SWAP_ROUND:
        c.emit(Age2Swapped(stack=age2_stack(s)))
        replenish_display(c)
    if r == C.ROUNDS:
        if any(s.boats[b].goal == "G" for b in river_boats(s)):
            # Spirits Tiles ("anytime") before Final Scoring when Goal G scores the Spirit Level.
            for seat in range(scorers(s)):
                while s.p[seat].spirits_tiles > 0 and s.p[seat].spirit < C.SPIRIT_MAX:
                    c.emit(SpiritsTileUsed(seat=seat))
                    gain(c, seat, {"spirit": 3}, "spirits tile")
        c.emit(FinalScored(breakdown=final_scoring(s)))
        return
    c.emit(PhaseBegan(phase="board", round=r))


def age2_stack(s: State) -> list[str]:
    """d. Swap Age 2 Portfolio Tiles: "Shuffle all Age 2 Portfolio Tiles facedown together to form
    a new stack" - those still in the Society district (its stack and display) once the Age 2
    stack was formed, every one otherwise; not the players' (held or published), nor those
    discarded by an Imperial Exam ("Discarded Portfolio Tiles are removed from the game").
    jiangnan-2 took every Age 2 tile no player held, exam discards included."""
    if not since(s, "jiangnan-3"):
        held = {pid for p in s.p for pid in p.unpublished + p.published}
        return [pid for pid in C.portfolios_of_age(2) if pid not in held]
    if not s.age2_formed:
        return C.portfolios_of_age(2)
    society = {*s.stack, *s.display, *(pid for batch in s.bottom for pid in batch)}
    return [pid for pid in C.portfolios_of_age(2) if pid in society]


# --- 5. Update Board Status -------------------------------------------------------------------------
def phase_board(c: Play) -> None:
    """Rotate the pointer, adjust the turn order, a new Charm Tile (Charming Scholar)."""
    s = c.state
    c.emit(PointerRotated(pointer=(s.pointer + 1) % C.FAIR_SPACES))
    order = list(s.next_order) + [seat for seat in s.order if seat not in s.next_order]
    c.emit(TurnOrderAdjusted(order=order))
    if s.cfg.charm and s.charm_column:  # the bottom one of the column
        c.emit(CharmReplaced(charm=s.charm_column[-1]))
    c.emit(PhaseBegan(phase="spirits", round=s.round))


# --- 6. Consume Spirits, Mandatory Rest ------------------------------------------------------------------
def phase_spirits(c: Play) -> None:
    """1, plus 1 per unpublished Portfolio and per Assistant (A01: not the Assistants); the Bot's
    Spirit Level never changes."""
    s = c.state
    for seat in s.order:
        if seat == s.cfg.bot:
            continue
        p = s.p[seat]
        assistants = 0 if power(s, seat) == "calm" else len(p.assistants)
        amount = min(p.spirit, 1 + len(p.unpublished) + assistants)
        c.emit(SpiritConsumed(seat=seat, amount=amount))
    queue = [seat for seat in s.order if seat != s.cfg.bot and s.p[seat].spirit == 0]
    c.emit(PhaseBegan(phase="mandatory", round=s.round, queue=queue))


def phase_mandatory(c: Play) -> None:
    """At Spirit 0 a Rest action at once (a Spirits Tile may prevent it); then the next round."""
    s = c.state
    if s.mandatory:
        seat = s.mandatory[0]
        if s.p[seat].track and s.p[seat].spirit == 0:
            c.push("mandatory_rest", seat)
        else:  # pragma: no cover - defensive: nothing to rest with
            c.emit(PhaseBegan(phase="mandatory", round=s.round, queue=s.mandatory[1:]))
        return
    c.emit(PhaseBegan(phase="actions", round=s.round + 1))


STEPS = {
    "income": Step(
        "Personal Income",
        (ActivateNovel, ActivateAssistant, TakeServantIncome, EndIncome),
        _income_candidates,
        _income_check,
        _income_play,
    ),
    "trend": Step("Resolve Boats", (ChooseTrend,), _trend_candidates, _trend_check, _trend_play),
    "draft": Step("Draft New Action Tiles", (DraftTile,), _draft_candidates, _draft_check, _draft_play),
}

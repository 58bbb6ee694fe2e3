"""II. Upkeep Phase: 1 Personal Income, 2 Resolve Boats, 3 Draft New Action Tiles, 4 Upkeep Events
(refills, Public Scoring, bags, the Age 2 swap, the end of the game), 5 Update Board Status,
6 Consume Spirits and Mandatory Rest."""

from __future__ import annotations

from typing import Any

from domain.kernel.decision import Decision, Refusal

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
from .play import Play, draw_tile, gain, refusal
from .portfolios import replenish_display
from .scoring import final_scoring
from .state import Frame, State
from .table import boat_ranking, metric, power, river_boats, scorers, servants_on_display, since


# --- 1. Personal Income -------------------------------------------------------------------------------
def phase_income(scratch: Play) -> None:
    """Player by player in turn order.  "Each tile may only be activated once per round. You may
    activate them in any order to your benefit": a. the Dramas' Coins are taken first (more Coins
    earlier never hurts, and a Drama published later pays at once); b. Novels, c. Assistant Powers
    and (jiangnan-3) d./e. the Teahouse Coins and Tavern VP for the Servants on their Display
    Tracks are then taken one at a time, in the order the player chooses - a Servant added to a
    Display Track by an Assistant Power (B03 -> Shop B1) earns its income if taken after it.
    jiangnan-2 paid d./e. at once, with a."""
    state = scratch.state
    if state.income_pos >= len(state.order):
        scratch.emit(PhaseBegan(phase="boats", round=state.round))
        return
    seat = state.order[state.income_pos]
    scratch.emit(IncomeBegan(seat=seat))
    player = state.p[seat]
    if seat == state.cfg.bot:
        bot_income(scratch, seat)
        return
    royal = 2 if power(state, seat) == "royalty" else 1  # A06/A08: double Drama and Novel income
    coins = sum(C.PORTFOLIOS[pid]["income"].get("coin", 0) for pid in player.published)
    gain(scratch, seat, {"coin": royal * coins}, "drama income")
    legacy = not since(state, "jiangnan-3")
    if legacy:  # jiangnan-2: d./e. at once
        for district in SERVANT_INCOME:
            take_servant_income(scratch, seat, district)
    if any(_income_check(state, seat, None, m) is None for m in _activations(state, seat)):
        scratch.push("income", seat)
    elif not legacy:  # nothing can change the Display Tracks any more: the order does not matter
        for district in SERVANT_INCOME:
            take_servant_income(scratch, seat, district)


SERVANT_INCOME = {"teahouse": "coin", "tavern": "vp"}
"""d. 1 Coin per Servant in the Teahouse, e. 1 VP per Servant in the Tavern."""


def take_servant_income(scratch: Play, seat: int, district: str) -> None:
    """d./e.: the income of the player's Servants on the district's Display Track (A02/A11:
    doubled), once per round."""
    state = scratch.state
    count = servants_on_display(state, district, seat)
    if since(state, "jiangnan-3"):
        if count == 0 or district in state.p[seat].income_used:
            return
        scratch.emit(ServantIncomeTaken(seat=seat, district=district))
    patron = 2 if power(state, seat) == "patron" else 1  # A02/A11: double servant income
    gain(scratch, seat, {SERVANT_INCOME[district]: patron * count}, f"{district} servants")


def _activations(state: State, seat: int) -> list[Any]:
    player = state.p[seat]
    novels: list[Any] = [
        ActivateNovel(portfolio=pid) for pid in player.published if C.PORTFOLIOS[pid]["type"] == "novel"
    ]
    return novels + [ActivateAssistant(assistant=a) for a in player.assistants]


def _income_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    servants: list[Any] = [TakeServantIncome(district=d) for d in SERVANT_INCOME]
    return [*_activations(state, seat), *servants, EndIncome()]


def _income_check(state: State, seat: int, frame: Frame | None, cmd: Any) -> Refusal | None:
    """b. a published Novel for 1 Novel Idea, c. a hired Assistant's power, d./e. the Servants'
    income (jiangnan-3): each once per round."""
    player = state.p[seat]
    if isinstance(cmd, ActivateNovel):
        pid = cmd.portfolio
        novel = pid in player.published and C.PORTFOLIOS[pid]["type"] == "novel"
        if novel and pid not in player.income_used and player.ideas["novel"] >= 1:
            return None
        return refusal(
            "cannot_activate", "pay 1 Novel Idea for a published Novel, once per round", "Personal Income"
        )
    if isinstance(cmd, ActivateAssistant):
        a = cmd.assistant
        if a not in player.assistants or a in player.income_used:
            return refusal("cannot_activate", "a hired Assistant's power, once per round", "Personal Income")
        return activation_refusal(state, seat, a, "List of Assistant Powers")
    if isinstance(cmd, TakeServantIncome):
        if cmd.district not in SERVANT_INCOME:
            why = "Servants earn income in the Teahouse and the Tavern"
            return refusal("wrong_district", why, "Personal Income")
        if not since(state, "jiangnan-3") or cmd.district in player.income_used:
            return refusal("cannot_activate", "that income was already taken this round", "Personal Income")
        if servants_on_display(state, cmd.district, seat) == 0:
            return refusal("cannot_activate", "you have no Servants on that Display Track", "Personal Income")
        return None
    return None  # EndIncome: done activating


def _income_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    if isinstance(cmd, ActivateNovel):
        pid = cmd.portfolio
        gain(scratch, seat, {"novel": -1}, "novel income")
        scratch.emit(NovelIncomeActivated(seat=seat, portfolio=pid))
        x = 2 if power(scratch.state, seat) == "royalty" else 1  # A06/A08: double income
        gain(scratch, seat, {k: x * v for k, v in C.PORTFOLIOS[pid]["income"].items()}, "novel income")
    elif isinstance(cmd, ActivateAssistant):
        activate(scratch, seat, cmd.assistant, income=True)
    elif isinstance(cmd, TakeServantIncome):
        take_servant_income(scratch, seat, cmd.district)
    else:  # EndIncome: the Servants' income not taken yet is taken now (jiangnan-3)
        if since(scratch.state, "jiangnan-3"):
            for district in SERVANT_INCOME:
                take_servant_income(scratch, seat, district)
        scratch.end_step()


# --- 2. Resolve Boats ----------------------------------------------------------------------------------
def phase_boats(scratch: Play) -> None:
    """Servants from each Scholar Track, right to left (not the Rest Area); slide the boats; the
    majority (ties: further right) chooses the Scoring Trend.  Assumed: the Bot takes the rightmost
    trend; nobody on the boat: the rightmost trend."""
    state = scratch.state
    for i, d in enumerate(state.districts):
        boat = state.river[i]
        if boat >= 0:
            for seat in list(state.tracks[d]):
                scratch.emit(BoatServantPlaced(seat=seat, boat=boat))
    scratch.emit(BoatsSlid())
    ranking = boat_ranking(state, state.upkeep_boat)
    if ranking and power(state, ranking[0]) == "captain":  # A07/A14: 3 VP for first place
        gain(scratch, ranking[0], {"vp": C.CAPTAIN_VP}, "first place on the boat")
    if ranking and ranking[0] == state.cfg.bot:
        scratch.emit(TrendChosen(seat=ranking[0], trend=state.boats[state.upkeep_boat].trends[-1]))
        scratch.emit(PhaseBegan(phase="draft", round=state.round))
    elif ranking:
        scratch.emit(PhaseBegan(phase="trend", round=state.round))
        scratch.push("trend", ranking[0])
    else:
        scratch.emit(TrendChosen(seat=-1, trend=state.boats[state.upkeep_boat].trends[-1]))
        scratch.emit(PhaseBegan(phase="draft", round=state.round))


def _trend_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [ChooseTrend(trend=t) for t in state.boats[state.upkeep_boat].trends]


def _trend_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.trend in state.boats[state.upkeep_boat].trends:
        return None
    return refusal("no_such_trend", "choose one of the 2 Scoring Trends on the boat", "Resolve Boats")


def _trend_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(TrendChosen(seat=seat, trend=cmd.trend))


def phase_trend(scratch: Play) -> None:
    """The trend was chosen: on to Draft New Action Tiles."""
    scratch.emit(PhaseBegan(phase="draft", round=scratch.state.round))


# --- 3. Draft New Action Tiles ---------------------------------------------------------------------
def draft_order(state: State) -> list[int]:
    """The Scholar Markers form a row left to right over the districts, Rest Area last; only main
    colours draft (2-Player Rules)."""
    queue: list[int] = []
    for d in [*state.districts, C.REST]:
        queue += [seat for seat in reversed(state.tracks[d]) if seat < state.players]
    return queue


def phase_draft(scratch: Play) -> None:
    """Rounds 1-4 (in Rounds 5-6 the Scholars just return)."""
    state = scratch.state
    if state.round in C.DRAFT_ROUNDS:
        scratch.emit(PhaseBegan(phase="drafting", round=state.round, queue=draft_order(state)))
    else:
        scratch.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=state.round))


def phase_drafting(scratch: Play) -> None:
    """The leftmost Scholar's player drafts, until every Scholar is recovered."""
    state = scratch.state
    if state.draft_queue and state.upkeep_tiles:
        scratch.push("draft", state.draft_queue[0])
    else:
        scratch.emit(ScholarsRecovered(), PhaseBegan(phase="events", round=state.round))


def _draft_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [DraftTile(tile=t) for t in sorted(set(state.upkeep_tiles))]


def _draft_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.tile in state.upkeep_tiles:
        return None
    return refusal(
        "tile_not_available", "that Action Tile is not on the Upkeep board", "Draft New Action Tiles"
    )


def _draft_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(ActionTileDrafted(seat=seat, tile=cmd.tile))


# --- 4. Upkeep Events -------------------------------------------------------------------------------
def public_points(state: State, seat: int, per_match: int) -> int:
    """Public Scoring: every Scoring Trend Tile on the track scores (duplicates score twice)."""
    return per_match * sum(metric(state, seat, t) for t in state.trend_track)


def phase_events(scratch: Play) -> None:
    """a. Refill Action Tiles (Rounds 1-3; Mixed Ages: the silver, then the gold bag), b. Public
    Scoring (2, 4, 6), c. Refill Draw Bags (2, 4), d. Swap Age 2 Portfolio Tiles (3), e. Game End (6)."""
    state = scratch.state
    r = state.round
    if r in C.REFILL_AGE:
        count = (C.DRAFT_TILES if state.cfg.upkeep == "A" else C.DRAFT_TILES_B)[state.players]
        if state.cfg.mixed_ages:
            pool = list(state.tile_pool) if r != 2 else C.tile_pool([3, 4], state.cfg.advanced_tiles)
            tiles = scratch.rng.sample(pool, min(count, len(pool)))
            scratch.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
            scratch.emit(TilePoolSet(pool=sorted(t for t in pool if t not in tiles) if r == 2 else []))
        else:
            pool = C.tile_pool([C.REFILL_AGE[r]], state.cfg.advanced_tiles)
            tiles = scratch.rng.sample(pool, min(count, len(pool)))
            scratch.emit(UpkeepTilesRefilled(tiles=sorted(tiles)))
    if r in C.PUBLIC_SCORING:
        scratch.emit(
            PublicScored(
                vp=[public_points(state, seat, C.PUBLIC_SCORING[r]) for seat in range(scorers(state))]
            )
        )
    if r in C.BAG_REFILL_ROUNDS:
        for seat in state.order:
            scratch.emit(BagRefilled(seat=seat))
            if seat != state.cfg.bot:
                for _ in range(C.TRACK_SIZE):
                    draw_tile(scratch, seat)
    if r == C.SWAP_ROUND:
        scratch.emit(Age2Swapped(stack=age2_stack(state)))
        replenish_display(scratch)
    if r == C.ROUNDS:
        if any(state.boats[b].goal == "G" for b in river_boats(state)):
            # Spirits Tiles ("anytime") before Final Scoring when Goal G scores the Spirit Level.
            for seat in range(scorers(state)):
                while state.p[seat].spirits_tiles > 0 and state.p[seat].spirit < C.SPIRIT_MAX:
                    scratch.emit(SpiritsTileUsed(seat=seat))
                    gain(scratch, seat, {"spirit": 3}, "spirits tile")
        scratch.emit(FinalScored(breakdown=final_scoring(state)))
        return
    scratch.emit(PhaseBegan(phase="board", round=r))


def age2_stack(state: State) -> list[str]:
    """d. Swap Age 2 Portfolio Tiles: "Shuffle all Age 2 Portfolio Tiles facedown together to form
    a new stack" - those still in the Society district (its stack and display) once the Age 2
    stack was formed, every one otherwise; not the players' (held or published), nor those
    discarded by an Imperial Exam ("Discarded Portfolio Tiles are removed from the game").
    jiangnan-2 took every Age 2 tile no player held, exam discards included."""
    if not since(state, "jiangnan-3"):
        held = {pid for p in state.p for pid in p.unpublished + p.published}
        return [pid for pid in C.portfolios_of_age(2) if pid not in held]
    if not state.age2_formed:
        return C.portfolios_of_age(2)
    society = {*state.stack, *state.display, *(pid for batch in state.bottom for pid in batch)}
    return [pid for pid in C.portfolios_of_age(2) if pid in society]


# --- 5. Update Board Status -------------------------------------------------------------------------
def phase_board(scratch: Play) -> None:
    """Rotate the pointer, adjust the turn order, a new Charm Tile (Charming Scholar)."""
    state = scratch.state
    scratch.emit(PointerRotated(pointer=(state.pointer + 1) % C.FAIR_SPACES))
    order = list(state.next_order) + [seat for seat in state.order if seat not in state.next_order]
    scratch.emit(TurnOrderAdjusted(order=order))
    if state.cfg.charm and state.charm_column:  # the bottom one of the column
        scratch.emit(CharmReplaced(charm=state.charm_column[-1]))
    scratch.emit(PhaseBegan(phase="spirits", round=state.round))


# --- 6. Consume Spirits, Mandatory Rest ------------------------------------------------------------------
def phase_spirits(scratch: Play) -> None:
    """1, plus 1 per unpublished Portfolio and per Assistant (A01: not the Assistants); the Bot's
    Spirit Level never changes."""
    state = scratch.state
    for seat in state.order:
        if seat == state.cfg.bot:
            continue
        player = state.p[seat]
        assistants = 0 if power(state, seat) == "calm" else len(player.assistants)
        amount = min(player.spirit, 1 + len(player.unpublished) + assistants)
        scratch.emit(SpiritConsumed(seat=seat, amount=amount))
    queue = [seat for seat in state.order if seat != state.cfg.bot and state.p[seat].spirit == 0]
    scratch.emit(PhaseBegan(phase="mandatory", round=state.round, queue=queue))


def phase_mandatory(scratch: Play) -> None:
    """At Spirit 0 a Rest action at once (a Spirits Tile may prevent it); then the next round."""
    state = scratch.state
    if state.mandatory:
        seat = state.mandatory[0]
        if state.p[seat].track and state.p[seat].spirit == 0:
            scratch.push("mandatory_rest", seat)
        else:  # pragma: no cover - defensive: nothing to rest with
            scratch.emit(PhaseBegan(phase="mandatory", round=state.round, queue=state.mandatory[1:]))
        return
    scratch.emit(PhaseBegan(phase="actions", round=state.round + 1))


STEPS = {
    "income": Decision(
        "Personal Income",
        (ActivateNovel, ActivateAssistant, TakeServantIncome, EndIncome),
        _income_candidates,
        _income_check,
        _income_play,
    ),
    "trend": Decision("Resolve Boats", (ChooseTrend,), _trend_candidates, _trend_check, _trend_play),
    "draft": Decision("Draft New Action Tiles", (DraftTile,), _draft_candidates, _draft_check, _draft_play),
}

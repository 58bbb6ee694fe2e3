"""``evolve``: apply one fact to the table, in place.  Never validates, never fails.

One small function per event, named after it; ``HANDLERS`` maps each event type to its function,
so applying a fact costs one dictionary look-up whatever the event."""

from __future__ import annotations

from domain.kernel.evolver import Evolver, Handler
from domain.kernel.table import handlers as table_handlers

from .components import (
    BOAT_SPACES,
    DISPLAY_TILES_PER_TYPE,
    FAIR_START,
    IDEAS,
    MUSE_DISPLAY,
    REST,
    START_COINS,
    START_IDEAS,
    START_SPIRIT,
    STARTING_TILES,
)
from .events import (
    ActionTileDrafted,
    ActionTileDrawn,
    ActionTileSwapped,
    Age2StackFormed,
    Age2Swapped,
    AssistantActivated,
    BagRefilled,
    BoatServantMoved,
    BoatServantPlaced,
    BoatsSlid,
    BotMuseHired,
    BotTileDrawn,
    CharmReplaced,
    Configured,
    DegreeEarned,
    DisplayFormed,
    DisplayTileAdded,
    FairMoved,
    FinalScored,
    GameSetUp,
    IncomeBegan,
    MuseHired,
    MuseRevealed,
    MusesFormed,
    NovelIncomeActivated,
    OrderMarkerPlaced,
    PhaseBegan,
    PointerRotated,
    PortfolioDiscarded,
    PortfolioPublished,
    PortfolioRevealed,
    PortfoliosRefreshed,
    PortfolioTaken,
    PublicScored,
    ResourcesChanged,
    ScholarPlaced,
    ScholarsRecovered,
    ServantIncomeTaken,
    ServantOnMuse,
    SpiritConsumed,
    SpiritsTileTaken,
    SpiritsTileUsed,
    StartingPortfolioChosen,
    StepBegan,
    StepEnded,
    TalentChosen,
    TileChosen,
    TileDiscarded,
    TilePoolSet,
    Travelled,
    TrendChosen,
    TurnBegan,
    TurnEnded,
    TurnOrderAdjusted,
    UpkeepTilesRefilled,
)
from .state import Boat, Player, State, new_player
from .table import to_act


def take_servant(p: Player) -> None:
    if p.servants > 0:
        p.servants -= 1
    else:
        p.proxies += 1


def return_servant(p: Player, n: int = 1) -> None:
    for _ in range(n):
        if p.proxies > 0:
            p.proxies -= 1
        else:
            p.servants += 1


def _boat_add(state: State, boat: Boat, seat: int) -> None:
    for space in boat.spaces:
        if space[0] == seat:
            space[1] += 1
            return
    for space in boat.spaces:
        if space[0] == -1:
            space[0], space[1] = seat, 1
            return
    boat.spaces.append([seat, 1])


def _from_stack(state: State, portfolio: str) -> None:
    if portfolio in state.stack:
        state.stack.remove(portfolio)
        return
    for batch in state.bottom:
        if portfolio in batch:
            batch.remove(portfolio)
            break
    state.bottom = [b for b in state.bottom if b]


def _resources_changed(s: State, e: ResourcesChanged) -> None:
    p = s.p[e.seat]
    p.coins += e.coins
    p.vp += e.vp
    p.spirit += e.spirit
    if e.drama:
        p.ideas["drama"] += e.drama
    if e.novel:
        p.ideas["novel"] += e.novel
    if e.painting:
        p.ideas["painting"] += e.painting


def _step_began(s: State, e: StepBegan) -> None:
    step = e.step
    s.steps.append(step)
    if step.kind == "mandatory_rest" and step.seat in s.mandatory:
        s.mandatory.remove(step.seat)


def _step_ended(s: State, e: StepEnded) -> None:
    s.steps.pop()


def _action_tile_drawn(s: State, e: ActionTileDrawn) -> None:
    tile = e.tile
    p = s.p[e.seat]
    if tile is not None:
        p.bag.remove(tile)
        p.track.append(tile)


def _tile_chosen(s: State, e: TileChosen) -> None:
    p = s.p[e.seat]
    p.track.remove(e.tile)
    p.used.append(e.tile)


def _tile_discarded(s: State, e: TileDiscarded) -> None:
    p = s.p[e.seat]
    p.track.remove(e.tile)
    p.discarded.append(e.tile)


def _scholar_placed(s: State, e: ScholarPlaced) -> None:
    s.tracks[e.district].append(e.seat)
    s.p[e.seat].scholars -= 1


def _turn_began(s: State, e: TurnBegan) -> None:
    s.turn_pos = e.pos + 1


def _turn_ended(s: State, e: TurnEnded) -> None:
    s.p[e.seat].refreshed = False


def _order_marker_placed(s: State, e: OrderMarkerPlaced) -> None:
    s.next_order.append(e.seat)
    s.p[e.seat].society_visited = True


def _portfolio_revealed(s: State, e: PortfolioRevealed) -> None:
    _from_stack(s, e.portfolio)
    (s.offer if e.to == "offer" else s.display).append(e.portfolio)


def _portfolio_taken(s: State, e: PortfolioTaken) -> None:
    if e.source == "display":
        s.display.remove(e.portfolio)
    else:
        _from_stack(s, e.portfolio)
    s.p[e.seat].unpublished.append(e.portfolio)


def _portfolios_refreshed(s: State, e: PortfoliosRefreshed) -> None:
    if e.returned:
        s.bottom.append(sorted(e.returned))
    s.display = []
    if e.paid and e.seat >= 0:
        s.p[e.seat].refreshed = True


def _portfolio_published(s: State, e: PortfolioPublished) -> None:
    p = s.p[e.seat]
    p.unpublished.remove(e.portfolio)
    p.published.append(e.portfolio)


def _display_tile_added(s: State, e: DisplayTileAdded) -> None:
    kind, seat = e.kind, e.seat
    track = s.displays[e.district]
    if len(track) >= 3:
        old_kind, old_seat = track.pop()
        s.display_supply[str(old_kind)] += 1
        if isinstance(old_seat, int) and old_seat >= 0:
            return_servant(s.p[old_seat])
    track.insert(0, [kind, seat])
    s.display_supply[kind] -= 1
    if seat >= 0:
        take_servant(s.p[seat])


def _servant_on_muse(s: State, e: ServantOnMuse) -> None:
    take_servant(s.p[e.seat])
    s.muse_servants.setdefault(e.muse, []).append(e.seat)


def _muse_hired(s: State, e: MuseHired) -> None:
    muse = e.muse
    for other in s.muse_servants.pop(muse, []):
        return_servant(s.p[other])
    s.muses = [None if m == muse else m for m in s.muses]
    s.p[e.seat].assistants.append(muse)


def _muse_revealed(s: State, e: MuseRevealed) -> None:
    s.muse_stack.remove(e.muse)
    for i, m in enumerate(s.muses):
        if m is None:
            s.muses[i] = e.muse
            break


def _travelled(s: State, e: Travelled) -> None:
    take_servant(s.p[e.seat])
    s.p[e.seat].cities.append(e.city)


def _fair_moved(s: State, e: FairMoved) -> None:
    s.p[e.seat].fair = e.to


def _spirits_tile_taken(s: State, e: SpiritsTileTaken) -> None:
    s.spirits_supply -= 1
    s.p[e.seat].spirits_tiles += 1


def _spirits_tile_used(s: State, e: SpiritsTileUsed) -> None:
    s.spirits_supply += 1
    s.p[e.seat].spirits_tiles -= 1


def _boat_servant_placed(s: State, e: BoatServantPlaced) -> None:
    take_servant(s.p[e.seat])
    _boat_add(s, s.boats[e.boat], e.seat)


def _boat_servant_moved(s: State, e: BoatServantMoved) -> None:
    seat = e.seat
    for space in s.boats[e.from_boat].spaces:
        if space[0] == seat:
            space[1] -= 1
            if space[1] == 0:
                space[0] = -1
            break
    _boat_add(s, s.boats[e.to_boat], seat)


def _boats_slid(s: State, e: BoatsSlid) -> None:
    s.upkeep_boat = s.river[-1]
    s.river = [-1, *s.river[:-1]]


def _trend_chosen(s: State, e: TrendChosen) -> None:
    s.trend_track.append(e.trend)
    boat = s.boats[s.upkeep_boat]
    for seat, count in boat.spaces:
        if seat >= 0:
            return_servant(s.p[seat], count)
    boat.spaces = [[-1, 0] for _ in range(BOAT_SPACES)]
    boat.trends = []
    if s.round < 6 and s.goals:
        boat.goal = s.goals.pop()
        s.river[0] = s.upkeep_boat
    s.upkeep_boat = -1


def _assistant_activated(s: State, e: AssistantActivated) -> None:
    if e.income:
        s.p[e.seat].income_used.append(e.assistant)


def _novel_income_activated(s: State, e: NovelIncomeActivated) -> None:
    s.p[e.seat].income_used.append(e.portfolio)


def _servant_income_taken(s: State, e: ServantIncomeTaken) -> None:
    s.p[e.seat].income_used.append(e.district)


def _action_tile_swapped(s: State, e: ActionTileSwapped) -> None:
    tile, slot = e.tile, e.slot
    p = s.p[e.seat]
    area = p.used if tile in p.used else p.drafted
    area.remove(tile)
    if slot < 0:
        p.track.append(tile)
    else:
        area.append(p.track[slot])
        p.track[slot] = tile


def _action_tile_drafted(s: State, e: ActionTileDrafted) -> None:
    s.upkeep_tiles.remove(e.tile)
    p = s.p[e.seat]
    p.drafted.append(e.tile)
    p.acquired += 1
    if s.draft_queue:
        s.draft_queue.pop(0)


def _scholars_recovered(s: State, e: ScholarsRecovered) -> None:
    for key in s.tracks:
        s.tracks[key] = []
    for p in s.p:
        p.scholars = 3
    s.draft_queue = []


def _upkeep_tiles_refilled(s: State, e: UpkeepTilesRefilled) -> None:
    s.upkeep_tiles = list(e.tiles)


def _public_scored(s: State, e: PublicScored) -> None:
    for seat, v in enumerate(e.vp):
        s.p[seat].vp += v


def _bag_refilled(s: State, e: BagRefilled) -> None:
    p = s.p[e.seat]
    p.bag = sorted(p.bag + p.track + p.used + p.drafted)
    p.track, p.used, p.drafted = [], [], []


def _age2_stack_formed(s: State, e: Age2StackFormed) -> None:
    s.stack = list(e.stack)
    s.bottom = []
    s.age2_formed = True


def _age2_swapped(s: State, e: Age2Swapped) -> None:
    s.display = []
    s.bottom = []
    s.stack = list(e.stack)
    s.portfolio_age = 2
    s.age2_formed = True


def _pointer_rotated(s: State, e: PointerRotated) -> None:
    s.pointer = e.pointer


def _turn_order_adjusted(s: State, e: TurnOrderAdjusted) -> None:
    s.order = list(e.order)
    s.next_order = []
    for p in s.p:
        p.society_visited = False


def _spirit_consumed(s: State, e: SpiritConsumed) -> None:
    s.p[e.seat].spirit -= e.amount


def _phase_began(s: State, e: PhaseBegan) -> None:
    phase = e.phase
    s.phase = phase
    s.round = e.round
    if phase == "actions":
        s.turn_pos = 0
    elif phase == "income":
        s.income_pos = 0
        for p in s.p:
            p.income_used = []
    elif phase == "drafting":
        s.draft_queue = list(e.queue)
    elif phase == "mandatory":
        s.mandatory = list(e.queue)


def _income_began(s: State, e: IncomeBegan) -> None:
    s.income_pos += 1


def _starting_portfolio_chosen(s: State, e: StartingPortfolioChosen) -> None:
    s.offer.remove(e.portfolio)
    s.p[e.seat].unpublished.append(e.portfolio)


def _display_formed(s: State, e: DisplayFormed) -> None:
    s.display = s.offer
    s.offer = []


def _final_scored(s: State, e: FinalScored) -> None:
    breakdown = e.breakdown
    s.final = [dict(b) for b in breakdown]
    for seat, b in enumerate(breakdown):
        s.p[seat].vp += sum(v for k, v in b.items() if k != "before")
    s.finished = True
    s.phase = "end"


def _game_set_up(s: State, e: GameSetUp) -> None:
    s.rules_version = e.rules_version
    s.players = e.players
    s.chapter = e.chapter
    s.districts = list(e.districts)
    s.order = list(e.order)
    s.p = [
        new_player(
            coins=START_COINS,
            spirit=START_SPIRIT,
            ideas=dict.fromkeys(IDEAS, START_IDEAS),
            bag=sorted(STARTING_TILES),
            fair=FAIR_START,
        )
        for _ in range(e.players)
    ]
    s.tracks = {d: [] for d in e.districts}
    s.tracks[REST] = []
    s.shops = list(e.shops)
    s.pointer = e.pointer
    s.travel = dict(e.travel)
    s.displays = {d: [[k, -1] for k in kinds] for d, kinds in e.displays.items()}
    s.display_supply = dict.fromkeys(IDEAS, DISPLAY_TILES_PER_TYPE)
    for kinds in e.displays.values():
        for k in kinds:
            s.display_supply[k] -= 1
    s.muses = list(e.muses) + [None] * (MUSE_DISPLAY - len(e.muses))
    s.muse_stack = sorted(e.muse_stack)
    s.muse_servants = {}
    s.upkeep_tiles = list(e.upkeep_tiles)
    s.goals = list(e.goals)
    s.boats = [Boat(trends=list(t), spaces=[[-1, 0] for _ in range(BOAT_SPACES)]) for t in e.boat_trends]
    s.river = list(range(len(s.boats)))
    s.stack = sorted(e.portfolio_stack)
    s.spirits_supply = 6


def _configured(s: State, e: Configured) -> None:
    s.config = e.cfg
    for colour in range(len(s.p), e.colours):
        if colour == e.cfg.bot:  # the Bot: 12 starting tiles in its bag, 0 Coins and 0 Ideas
            s.p.append(
                new_player(
                    coins=0, spirit=START_SPIRIT, ideas=dict.fromkeys(IDEAS, 0), bag=sorted(STARTING_TILES)
                )
            )
        else:  # a vassal colour: only Scholars and Servants
            s.p.append(new_player(coins=0, spirit=START_SPIRIT, ideas=dict.fromkeys(IDEAS, 0), acquired=0))
    s.talent_offer = list(e.talent_offer)
    s.charm = e.charm
    s.charm_column = list(e.charm_column)
    s.tile_pool = list(e.tile_pool)


def _talent_chosen(s: State, e: TalentChosen) -> None:
    talent = e.talent
    p = s.p[e.seat]
    p.talent = talent
    if talent in s.talent_offer:
        s.talent_offer.remove(talent)
    if talent == "A12":  # Ma Xianglan: 9 Coins instead of 3, 3 Ideas of each type instead of 1
        p.coins += 6
        for i in IDEAS:
            p.ideas[i] += 2


def _muses_formed(s: State, e: MusesFormed) -> None:
    s.muses = list(e.muses) + [None] * (MUSE_DISPLAY - len(e.muses))
    s.muse_stack = sorted(e.muse_stack)
    s.talent_offer = []


def _degree_earned(s: State, e: DegreeEarned) -> None:
    s.p[e.seat].degree = e.degree


def _portfolio_discarded(s: State, e: PortfolioDiscarded) -> None:
    s.p[e.seat].unpublished.remove(e.portfolio)


def _charm_replaced(s: State, e: CharmReplaced) -> None:
    s.charm = e.charm
    if s.charm_column:
        s.charm_column.pop()


def _tile_pool_set(s: State, e: TilePoolSet) -> None:
    s.tile_pool = list(e.pool)


def _bot_tile_drawn(s: State, e: BotTileDrawn) -> None:
    p = s.p[e.seat]
    p.bag.remove(e.tile)
    p.used.append(e.tile)


def _bot_muse_hired(s: State, e: BotMuseHired) -> None:
    s.muse_stack.remove(e.muse)
    s.p[e.seat].assistants.append(e.muse)


HANDLERS: dict[type, Handler] = {
    ResourcesChanged: _resources_changed,
    StepBegan: _step_began,
    StepEnded: _step_ended,
    ActionTileDrawn: _action_tile_drawn,
    TileChosen: _tile_chosen,
    TileDiscarded: _tile_discarded,
    ScholarPlaced: _scholar_placed,
    TurnBegan: _turn_began,
    TurnEnded: _turn_ended,
    OrderMarkerPlaced: _order_marker_placed,
    PortfolioRevealed: _portfolio_revealed,
    PortfolioTaken: _portfolio_taken,
    PortfoliosRefreshed: _portfolios_refreshed,
    PortfolioPublished: _portfolio_published,
    DisplayTileAdded: _display_tile_added,
    ServantOnMuse: _servant_on_muse,
    MuseHired: _muse_hired,
    MuseRevealed: _muse_revealed,
    Travelled: _travelled,
    FairMoved: _fair_moved,
    SpiritsTileTaken: _spirits_tile_taken,
    SpiritsTileUsed: _spirits_tile_used,
    BoatServantPlaced: _boat_servant_placed,
    BoatServantMoved: _boat_servant_moved,
    BoatsSlid: _boats_slid,
    TrendChosen: _trend_chosen,
    AssistantActivated: _assistant_activated,
    NovelIncomeActivated: _novel_income_activated,
    ServantIncomeTaken: _servant_income_taken,
    ActionTileSwapped: _action_tile_swapped,
    ActionTileDrafted: _action_tile_drafted,
    ScholarsRecovered: _scholars_recovered,
    UpkeepTilesRefilled: _upkeep_tiles_refilled,
    PublicScored: _public_scored,
    BagRefilled: _bag_refilled,
    Age2StackFormed: _age2_stack_formed,
    Age2Swapped: _age2_swapped,
    PointerRotated: _pointer_rotated,
    TurnOrderAdjusted: _turn_order_adjusted,
    SpiritConsumed: _spirit_consumed,
    PhaseBegan: _phase_began,
    IncomeBegan: _income_began,
    StartingPortfolioChosen: _starting_portfolio_chosen,
    DisplayFormed: _display_formed,
    FinalScored: _final_scored,
    GameSetUp: _game_set_up,
    Configured: _configured,
    TalentChosen: _talent_chosen,
    MusesFormed: _muses_formed,
    DegreeEarned: _degree_earned,
    PortfolioDiscarded: _portfolio_discarded,
    CharmReplaced: _charm_replaced,
    TilePoolSet: _tile_pool_set,
    BotTileDrawn: _bot_tile_drawn,
    BotMuseHired: _bot_muse_hired,
}


EVOLVER: Evolver[State] = Evolver(HANDLERS | table_handlers(State, to_act))
"""Jiangnan's events and the table's (``domain.kernel.table.handlers``)."""
evolve = EVOLVER.evolve
fold = EVOLVER.fold

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


def take_servant(player: Player) -> None:
    if player.servants > 0:
        player.servants -= 1
    else:
        player.proxies += 1


def return_servant(player: Player, n: int = 1) -> None:
    for _ in range(n):
        if player.proxies > 0:
            player.proxies -= 1
        else:
            player.servants += 1


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


def _resources_changed(state: State, event: ResourcesChanged) -> None:
    player = state.p[event.seat]
    player.coins += event.coins
    player.vp += event.vp
    player.spirit += event.spirit
    if event.drama:
        player.ideas["drama"] += event.drama
    if event.novel:
        player.ideas["novel"] += event.novel
    if event.painting:
        player.ideas["painting"] += event.painting


def _step_began(state: State, event: StepBegan) -> None:
    step = event.step
    state.steps.append(step)
    if step.kind == "mandatory_rest" and step.seat in state.mandatory:
        state.mandatory.remove(step.seat)


def _step_ended(state: State, event: StepEnded) -> None:
    state.steps.pop()


def _action_tile_drawn(state: State, event: ActionTileDrawn) -> None:
    tile = event.tile
    player = state.p[event.seat]
    if tile is not None:
        player.bag.remove(tile)
        player.track.append(tile)


def _tile_chosen(state: State, event: TileChosen) -> None:
    player = state.p[event.seat]
    player.track.remove(event.tile)
    player.used.append(event.tile)


def _tile_discarded(state: State, event: TileDiscarded) -> None:
    player = state.p[event.seat]
    player.track.remove(event.tile)
    player.discarded.append(event.tile)


def _scholar_placed(state: State, event: ScholarPlaced) -> None:
    state.tracks[event.district].append(event.seat)
    state.p[event.seat].scholars -= 1


def _turn_began(state: State, event: TurnBegan) -> None:
    state.turn_pos = event.pos + 1


def _turn_ended(state: State, event: TurnEnded) -> None:
    state.p[event.seat].refreshed = False


def _order_marker_placed(state: State, event: OrderMarkerPlaced) -> None:
    state.next_order.append(event.seat)
    state.p[event.seat].society_visited = True


def _portfolio_revealed(state: State, event: PortfolioRevealed) -> None:
    _from_stack(state, event.portfolio)
    (state.offer if event.to == "offer" else state.display).append(event.portfolio)


def _portfolio_taken(state: State, event: PortfolioTaken) -> None:
    if event.source == "display":
        state.display.remove(event.portfolio)
    else:
        _from_stack(state, event.portfolio)
    state.p[event.seat].unpublished.append(event.portfolio)


def _portfolios_refreshed(state: State, event: PortfoliosRefreshed) -> None:
    if event.returned:
        state.bottom.append(sorted(event.returned))
    state.display = []
    if event.paid and event.seat >= 0:
        state.p[event.seat].refreshed = True


def _portfolio_published(state: State, event: PortfolioPublished) -> None:
    player = state.p[event.seat]
    player.unpublished.remove(event.portfolio)
    player.published.append(event.portfolio)


def _display_tile_added(state: State, event: DisplayTileAdded) -> None:
    kind, seat = event.kind, event.seat
    track = state.displays[event.district]
    if len(track) >= 3:
        old_kind, old_seat = track.pop()
        state.display_supply[str(old_kind)] += 1
        if isinstance(old_seat, int) and old_seat >= 0:
            return_servant(state.p[old_seat])
    track.insert(0, [kind, seat])
    state.display_supply[kind] -= 1
    if seat >= 0:
        take_servant(state.p[seat])


def _servant_on_muse(state: State, event: ServantOnMuse) -> None:
    take_servant(state.p[event.seat])
    state.muse_servants.setdefault(event.muse, []).append(event.seat)


def _muse_hired(state: State, event: MuseHired) -> None:
    muse = event.muse
    for other in state.muse_servants.pop(muse, []):
        return_servant(state.p[other])
    state.muses = [None if m == muse else m for m in state.muses]
    state.p[event.seat].assistants.append(muse)


def _muse_revealed(state: State, event: MuseRevealed) -> None:
    state.muse_stack.remove(event.muse)
    for i, m in enumerate(state.muses):
        if m is None:
            state.muses[i] = event.muse
            break


def _travelled(state: State, event: Travelled) -> None:
    take_servant(state.p[event.seat])
    state.p[event.seat].cities.append(event.city)


def _fair_moved(state: State, event: FairMoved) -> None:
    state.p[event.seat].fair = event.to


def _spirits_tile_taken(state: State, event: SpiritsTileTaken) -> None:
    state.spirits_supply -= 1
    state.p[event.seat].spirits_tiles += 1


def _spirits_tile_used(state: State, event: SpiritsTileUsed) -> None:
    state.spirits_supply += 1
    state.p[event.seat].spirits_tiles -= 1


def _boat_servant_placed(state: State, event: BoatServantPlaced) -> None:
    take_servant(state.p[event.seat])
    _boat_add(state, state.boats[event.boat], event.seat)


def _boat_servant_moved(state: State, event: BoatServantMoved) -> None:
    seat = event.seat
    for space in state.boats[event.from_boat].spaces:
        if space[0] == seat:
            space[1] -= 1
            if space[1] == 0:
                space[0] = -1
            break
    _boat_add(state, state.boats[event.to_boat], seat)


def _boats_slid(state: State, event: BoatsSlid) -> None:
    state.upkeep_boat = state.river[-1]
    state.river = [-1, *state.river[:-1]]


def _trend_chosen(state: State, event: TrendChosen) -> None:
    state.trend_track.append(event.trend)
    boat = state.boats[state.upkeep_boat]
    for seat, count in boat.spaces:
        if seat >= 0:
            return_servant(state.p[seat], count)
    boat.spaces = [[-1, 0] for _ in range(BOAT_SPACES)]
    boat.trends = []
    if state.round < 6 and state.goals:
        boat.goal = state.goals.pop()
        state.river[0] = state.upkeep_boat
    state.upkeep_boat = -1


def _assistant_activated(state: State, event: AssistantActivated) -> None:
    if event.income:
        state.p[event.seat].income_used.append(event.assistant)


def _novel_income_activated(state: State, event: NovelIncomeActivated) -> None:
    state.p[event.seat].income_used.append(event.portfolio)


def _servant_income_taken(state: State, event: ServantIncomeTaken) -> None:
    state.p[event.seat].income_used.append(event.district)


def _action_tile_swapped(state: State, event: ActionTileSwapped) -> None:
    tile, slot = event.tile, event.slot
    player = state.p[event.seat]
    area = player.used if tile in player.used else player.drafted
    area.remove(tile)
    if slot < 0:
        player.track.append(tile)
    else:
        area.append(player.track[slot])
        player.track[slot] = tile


def _action_tile_drafted(state: State, event: ActionTileDrafted) -> None:
    state.upkeep_tiles.remove(event.tile)
    player = state.p[event.seat]
    player.drafted.append(event.tile)
    player.acquired += 1
    if state.draft_queue:
        state.draft_queue.pop(0)


def _scholars_recovered(state: State, event: ScholarsRecovered) -> None:
    for key in state.tracks:
        state.tracks[key] = []
    for p in state.p:
        p.scholars = 3
    state.draft_queue = []


def _upkeep_tiles_refilled(state: State, event: UpkeepTilesRefilled) -> None:
    state.upkeep_tiles = list(event.tiles)


def _public_scored(state: State, event: PublicScored) -> None:
    for seat, v in enumerate(event.vp):
        state.p[seat].vp += v


def _bag_refilled(state: State, event: BagRefilled) -> None:
    player = state.p[event.seat]
    player.bag = sorted(player.bag + player.track + player.used + player.drafted)
    player.track, player.used, player.drafted = [], [], []


def _age2_stack_formed(state: State, event: Age2StackFormed) -> None:
    state.stack = list(event.stack)
    state.bottom = []
    state.age2_formed = True


def _age2_swapped(state: State, event: Age2Swapped) -> None:
    state.display = []
    state.bottom = []
    state.stack = list(event.stack)
    state.portfolio_age = 2
    state.age2_formed = True


def _pointer_rotated(state: State, event: PointerRotated) -> None:
    state.pointer = event.pointer


def _turn_order_adjusted(state: State, event: TurnOrderAdjusted) -> None:
    state.order = list(event.order)
    state.next_order = []
    for p in state.p:
        p.society_visited = False


def _spirit_consumed(state: State, event: SpiritConsumed) -> None:
    state.p[event.seat].spirit -= event.amount


def _phase_began(state: State, event: PhaseBegan) -> None:
    phase = event.phase
    state.phase = phase
    state.round = event.round
    if phase == "actions":
        state.turn_pos = 0
    elif phase == "income":
        state.income_pos = 0
        for p in state.p:
            p.income_used = []
    elif phase == "drafting":
        state.draft_queue = list(event.queue)
    elif phase == "mandatory":
        state.mandatory = list(event.queue)


def _income_began(state: State, event: IncomeBegan) -> None:
    state.income_pos += 1


def _starting_portfolio_chosen(state: State, event: StartingPortfolioChosen) -> None:
    state.offer.remove(event.portfolio)
    state.p[event.seat].unpublished.append(event.portfolio)


def _display_formed(state: State, event: DisplayFormed) -> None:
    state.display = state.offer
    state.offer = []


def _final_scored(state: State, event: FinalScored) -> None:
    breakdown = event.breakdown
    state.final = [dict(b) for b in breakdown]
    for seat, b in enumerate(breakdown):
        state.p[seat].vp += sum(v for k, v in b.items() if k != "before")
    state.finished = True
    state.phase = "end"


def _game_set_up(state: State, event: GameSetUp) -> None:
    state.rules_version = event.rules_version
    state.players = event.players
    state.chapter = event.chapter
    state.districts = list(event.districts)
    state.order = list(event.order)
    state.p = [
        new_player(
            coins=START_COINS,
            spirit=START_SPIRIT,
            ideas=dict.fromkeys(IDEAS, START_IDEAS),
            bag=sorted(STARTING_TILES),
            fair=FAIR_START,
        )
        for _ in range(event.players)
    ]
    state.tracks = {d: [] for d in event.districts}
    state.tracks[REST] = []
    state.shops = list(event.shops)
    state.pointer = event.pointer
    state.travel = dict(event.travel)
    state.displays = {d: [[k, -1] for k in kinds] for d, kinds in event.displays.items()}
    state.display_supply = dict.fromkeys(IDEAS, DISPLAY_TILES_PER_TYPE)
    for kinds in event.displays.values():
        for k in kinds:
            state.display_supply[k] -= 1
    state.muses = list(event.muses) + [None] * (MUSE_DISPLAY - len(event.muses))
    state.muse_stack = sorted(event.muse_stack)
    state.muse_servants = {}
    state.upkeep_tiles = list(event.upkeep_tiles)
    state.goals = list(event.goals)
    state.boats = [
        Boat(trends=list(t), spaces=[[-1, 0] for _ in range(BOAT_SPACES)]) for t in event.boat_trends
    ]
    state.river = list(range(len(state.boats)))
    state.stack = sorted(event.portfolio_stack)
    state.spirits_supply = 6


def _configured(state: State, event: Configured) -> None:
    state.config = event.cfg
    for colour in range(len(state.p), event.colours):
        if colour == event.cfg.bot:  # the Bot: 12 starting tiles in its bag, 0 Coins and 0 Ideas
            state.p.append(
                new_player(
                    coins=0, spirit=START_SPIRIT, ideas=dict.fromkeys(IDEAS, 0), bag=sorted(STARTING_TILES)
                )
            )
        else:  # a vassal colour: only Scholars and Servants
            state.p.append(
                new_player(coins=0, spirit=START_SPIRIT, ideas=dict.fromkeys(IDEAS, 0), acquired=0)
            )
    state.talent_offer = list(event.talent_offer)
    state.charm = event.charm
    state.charm_column = list(event.charm_column)
    state.tile_pool = list(event.tile_pool)


def _talent_chosen(state: State, event: TalentChosen) -> None:
    talent = event.talent
    player = state.p[event.seat]
    player.talent = talent
    if talent in state.talent_offer:
        state.talent_offer.remove(talent)
    if talent == "A12":  # Ma Xianglan: 9 Coins instead of 3, 3 Ideas of each type instead of 1
        player.coins += 6
        for i in IDEAS:
            player.ideas[i] += 2


def _muses_formed(state: State, event: MusesFormed) -> None:
    state.muses = list(event.muses) + [None] * (MUSE_DISPLAY - len(event.muses))
    state.muse_stack = sorted(event.muse_stack)
    state.talent_offer = []


def _degree_earned(state: State, event: DegreeEarned) -> None:
    state.p[event.seat].degree = event.degree


def _portfolio_discarded(state: State, event: PortfolioDiscarded) -> None:
    state.p[event.seat].unpublished.remove(event.portfolio)


def _charm_replaced(state: State, event: CharmReplaced) -> None:
    state.charm = event.charm
    if state.charm_column:
        state.charm_column.pop()


def _tile_pool_set(state: State, event: TilePoolSet) -> None:
    state.tile_pool = list(event.pool)


def _bot_tile_drawn(state: State, event: BotTileDrawn) -> None:
    player = state.p[event.seat]
    player.bag.remove(event.tile)
    player.used.append(event.tile)


def _bot_muse_hired(state: State, event: BotMuseHired) -> None:
    state.muse_stack.remove(event.muse)
    state.p[event.seat].assistants.append(event.muse)


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

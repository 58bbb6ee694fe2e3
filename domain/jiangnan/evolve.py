"""``evolve``: apply one fact to the table, in place.  Never validates, never fails."""

from __future__ import annotations

from .components import DISPLAY_TILES_PER_TYPE, IDEAS, MUSE_DISPLAY, START_COINS, START_IDEAS, START_SPIRIT, STARTING_TILES, BOAT_SPACES, REST
from .events import *  # noqa: F403
from .state import Boat, Player, State, new_player


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


def evolve(state: State, event) -> State:  # noqa: C901 - one branch per fact
    s = state
    match event:
        case ResourcesChanged(seat=seat):
            p = s.p[seat]
            p.coins += event.coins
            p.vp += event.vp
            p.spirit += event.spirit
            if event.drama:
                p.ideas["drama"] += event.drama
            if event.novel:
                p.ideas["novel"] += event.novel
            if event.painting:
                p.ideas["painting"] += event.painting
        case StepBegan(step=step):
            s.steps.append(step)
            if step.kind == "mandatory_rest" and step.seat in s.mandatory:
                s.mandatory.remove(step.seat)
        case StepEnded():
            s.steps.pop()
        case ActionTileDrawn(seat=seat, tile=tile):
            p = s.p[seat]
            if tile is not None:
                p.bag.remove(tile)
                p.track.append(tile)
        case TileChosen(seat=seat, tile=tile):
            p = s.p[seat]
            p.track.remove(tile)
            p.used.append(tile)
        case TileDiscarded(seat=seat, tile=tile):
            p = s.p[seat]
            p.track.remove(tile)
            p.discarded.append(tile)
        case ScholarPlaced(seat=seat, district=district):
            s.tracks[district].append(seat)
            s.p[seat].scholars -= 1
        case TurnBegan(pos=pos):
            s.turn_pos = pos + 1
        case TurnEnded(seat=seat):
            s.p[seat].refreshed = False
        case OrderMarkerPlaced(seat=seat):
            s.next_order.append(seat)
            s.p[seat].society_visited = True
        case PortfolioRevealed(portfolio=portfolio, to=to):
            _from_stack(s, portfolio)
            (s.offer if to == "offer" else s.display).append(portfolio)
        case PortfolioTaken(seat=seat, portfolio=portfolio, source=source):
            if source == "display":
                s.display.remove(portfolio)
            else:
                _from_stack(s, portfolio)
            s.p[seat].unpublished.append(portfolio)
        case PortfoliosRefreshed(seat=seat, returned=returned, paid=paid):
            if returned:
                s.bottom.append(sorted(returned))
            s.display = []
            if paid and seat >= 0:
                s.p[seat].refreshed = True
        case PortfolioPublished(seat=seat, portfolio=portfolio):
            p = s.p[seat]
            p.unpublished.remove(portfolio)
            p.published.append(portfolio)
        case DisplayTileAdded(district=district, kind=kind, seat=seat):
            track = s.displays[district]
            if len(track) >= 3:
                old_kind, old_seat = track.pop()
                s.display_supply[str(old_kind)] += 1
                if isinstance(old_seat, int) and old_seat >= 0:
                    return_servant(s.p[old_seat])
            track.insert(0, [kind, seat])
            s.display_supply[kind] -= 1
            if seat >= 0:
                take_servant(s.p[seat])
        case ServantOnMuse(seat=seat, muse=muse):
            take_servant(s.p[seat])
            s.muse_servants.setdefault(muse, []).append(seat)
        case MuseHired(seat=seat, muse=muse):
            for other in s.muse_servants.pop(muse, []):
                return_servant(s.p[other])
            s.muses = [None if m == muse else m for m in s.muses]
            s.p[seat].assistants.append(muse)
        case MuseRevealed(muse=muse):
            s.muse_stack.remove(muse)
            for i, m in enumerate(s.muses):
                if m is None:
                    s.muses[i] = muse
                    break
        case Travelled(seat=seat, city=city):
            take_servant(s.p[seat])
            s.p[seat].cities.append(city)
        case FairMoved(seat=seat, to=to):
            s.p[seat].fair = to
        case SpiritsTileTaken(seat=seat):
            s.spirits_supply -= 1
            s.p[seat].spirits_tiles += 1
        case SpiritsTileUsed(seat=seat):
            s.spirits_supply += 1
            s.p[seat].spirits_tiles -= 1
        case BoatServantPlaced(seat=seat, boat=boat):
            take_servant(s.p[seat])
            _boat_add(s, s.boats[boat], seat)
        case BoatServantMoved(seat=seat, from_boat=from_boat, to_boat=to_boat):
            for space in s.boats[from_boat].spaces:
                if space[0] == seat:
                    space[1] -= 1
                    if space[1] == 0:
                        space[0] = -1
                    break
            _boat_add(s, s.boats[to_boat], seat)
        case BoatsSlid():
            s.upkeep_boat = s.river[-1]
            s.river = [-1] + s.river[:-1]
        case TrendChosen(trend=trend):
            s.trend_track.append(trend)
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
        case AssistantActivated(seat=seat, assistant=assistant, income=income):
            if income:
                s.p[seat].income_used.append(assistant)
        case NovelIncomeActivated(seat=seat, portfolio=portfolio):
            s.p[seat].income_used.append(portfolio)
        case ActionTileSwapped(seat=seat, tile=tile, slot=slot):
            p = s.p[seat]
            area = p.used if tile in p.used else p.drafted
            area.remove(tile)
            if slot < 0:
                p.track.append(tile)
            else:
                area.append(p.track[slot])
                p.track[slot] = tile
        case ActionTileDrafted(seat=seat, tile=tile):
            s.upkeep_tiles.remove(tile)
            s.p[seat].drafted.append(tile)
            s.p[seat].acquired += 1
            if s.draft_queue:
                s.draft_queue.pop(0)
        case ScholarsRecovered():
            for key in s.tracks:
                s.tracks[key] = []
            for p in s.p:
                p.scholars = 3
            s.draft_queue = []
        case UpkeepTilesRefilled(tiles=tiles):
            s.upkeep_tiles = list(tiles)
        case PublicScored(vp=vp):
            for seat, v in enumerate(vp):
                s.p[seat].vp += v
        case BagRefilled(seat=seat):
            p = s.p[seat]
            p.bag = sorted(p.bag + p.track + p.used + p.drafted)
            p.track, p.used, p.drafted = [], [], []
        case Age2StackFormed(stack=stack):
            s.stack = list(stack)
            s.bottom = []
            s.age2_formed = True
        case Age2Swapped(stack=stack):
            s.display = []
            s.bottom = []
            s.stack = list(stack)
            s.portfolio_age = 2
            s.age2_formed = True
        case PointerRotated(pointer=pointer):
            s.pointer = pointer
        case TurnOrderAdjusted(order=order):
            s.order = list(order)
            s.next_order = []
            for p in s.p:
                p.society_visited = False
        case SpiritConsumed(seat=seat, amount=amount):
            s.p[seat].spirit -= amount
        case PhaseBegan(phase=phase, round=rnd, queue=queue):
            s.phase = phase
            s.round = rnd
            if phase == "actions":
                s.turn_pos = 0
            elif phase == "income":
                s.income_pos = 0
                for p in s.p:
                    p.income_used = []
            elif phase == "drafting":
                s.draft_queue = list(queue)
            elif phase == "mandatory":
                s.mandatory = list(queue)
        case IncomeBegan():
            s.income_pos += 1
        case StartingPortfolioChosen(seat=seat, portfolio=portfolio):
            s.offer.remove(portfolio)
            s.p[seat].unpublished.append(portfolio)
        case DisplayFormed():
            s.display = s.offer
            s.offer = []
        case FinalScored(breakdown=breakdown):
            s.final = [dict(b) for b in breakdown]
            for seat, b in enumerate(breakdown):
                s.p[seat].vp += sum(v for k, v in b.items() if k != "before")
            s.finished = True
            s.phase = "end"
        case GameSetUp():
            _set_up(s, event)
        case Configured():
            _configure(s, event)
        case TalentChosen(seat=seat, talent=talent):
            p = s.p[seat]
            p.talent = talent
            if talent in s.talent_offer:
                s.talent_offer.remove(talent)
            if talent == "A12":  # Ma Xianglan: 9 Coins instead of 3, 3 Ideas of each type instead of 1
                p.coins += 6
                for i in IDEAS:
                    p.ideas[i] += 2
        case MusesFormed(muses=muses, muse_stack=stack):
            s.muses = list(muses) + [None] * (MUSE_DISPLAY - len(muses))
            s.muse_stack = sorted(stack)
            s.talent_offer = []
        case DegreeEarned(seat=seat, degree=degree):
            s.p[seat].degree = degree
        case PortfolioDiscarded(seat=seat, portfolio=portfolio):
            s.p[seat].unpublished.remove(portfolio)
        case CharmReplaced(charm=charm):
            s.charm = charm
            if s.charm_column:
                s.charm_column.pop()
        case TilePoolSet(pool=pool):
            s.tile_pool = list(pool)
        case BotTileDrawn(seat=seat, tile=tile):
            p = s.p[seat]
            p.bag.remove(tile)
            p.used.append(tile)
        case BotMuseHired(seat=seat, muse=muse):
            s.muse_stack.remove(muse)
            s.p[seat].assistants.append(muse)
    return s


def _configure(s: State, e: Configured) -> None:
    s.config = e.cfg
    for colour in range(len(s.p), e.colours):
        if colour == e.cfg.bot:  # the Bot: 12 starting tiles in its bag, 0 Coins and 0 Ideas
            s.p.append(new_player(coins=0, spirit=START_SPIRIT, ideas={i: 0 for i in IDEAS}, bag=sorted(STARTING_TILES)))
        else:  # a vassal colour: only Scholars and Servants
            s.p.append(new_player(coins=0, spirit=START_SPIRIT, ideas={i: 0 for i in IDEAS}, acquired=0))
    s.talent_offer = list(e.talent_offer)
    s.charm = e.charm
    s.charm_column = list(e.charm_column)
    s.tile_pool = list(e.tile_pool)


def _set_up(s: State, e: GameSetUp) -> None:
    s.players = e.players
    s.chapter = e.chapter
    s.districts = list(e.districts)
    s.order = list(e.order)
    s.p = [
        new_player(coins=START_COINS, spirit=START_SPIRIT, ideas={i: START_IDEAS for i in IDEAS}, bag=sorted(STARTING_TILES))
        for _ in range(e.players)
    ]
    s.tracks = {d: [] for d in e.districts}
    s.tracks[REST] = []
    s.shops = list(e.shops)
    s.pointer = e.pointer
    s.travel = dict(e.travel)
    s.displays = {d: [[k, -1] for k in kinds] for d, kinds in e.displays.items()}
    s.display_supply = {i: DISPLAY_TILES_PER_TYPE for i in IDEAS}
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

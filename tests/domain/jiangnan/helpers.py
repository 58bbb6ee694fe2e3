"""Scenario helpers for the Jiangnan rule tests.

New tests start from events: :func:`opening` gives the events of a game up to its first turn,
:func:`reach` plays on until a decision of some kind is pending; ``tests.support.given`` folds
them (add facts such as ``ResourcesChanged`` to set a scene).  :class:`Story` tells a table as
the events of one game, situation by situation (a rule test never assigns a state field).
"""

import msgspec

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.commands import Rest, VisitDistrict
from domain.jiangnan.events import (
    ActionTileDrafted,
    ActionTileDrawn,
    Age2Swapped,
    BagRefilled,
    BoatServantPlaced,
    BoatsSlid,
    CharmReplaced,
    Configured,
    DegreeEarned,
    DisplayTileAdded,
    FinalScored,
    GameSetUp,
    MuseHired,
    MuseRevealed,
    MusesFormed,
    OrderMarkerPlaced,
    PhaseBegan,
    PortfolioDiscarded,
    PortfolioPublished,
    PortfolioRevealed,
    PortfolioTaken,
    ResourcesChanged,
    ScholarPlaced,
    ScholarsRecovered,
    ServantOnMuse,
    SpiritsTileTaken,
    StepBegan,
    StepEnded,
    TileChosen,
    Travelled,
    TrendChosen,
    TurnBegan,
    TurnOrderAdjusted,
    UpkeepTilesRefilled,
)
from domain.jiangnan.play import Play
from domain.jiangnan.rules import advance
from domain.jiangnan.rules import setup as setup_under
from domain.jiangnan.scoring import final_scoring
from domain.jiangnan.state import RULES_VERSION, Frame
from domain.kernel import Rng, clone
from tests.support import given_state


def started(players: int = 4, seed: str = "t"):
    """A game after the starting portfolio choice: round 1, first turn of seat order[0]."""
    state, _ = GAME.start(JiangnanOptions(players=players), seed)
    while state.phase == "start":
        seat = GAME.to_act(state)[0]
        move = GAME.legal_moves(state, seat)[0]
        state = GAME.fold(state, GAME.decide(state, seat, move, Rng(seed, 1)))
    return state


def opening(seed: str = "t", rules_version: str = RULES_VERSION, talent: str | None = None, **options):
    """The options and events of a new game up to its first turn: Game Setup under *rules_version*
    (an earlier one: a game set up before the bump), then each starting Portfolio and Talent taken
    with the first legal move (*talent*: taken by the first player offered it)."""
    opts = JiangnanOptions(**options)
    events = setup_under(opts, Rng(seed, 0), rules_version)
    state = GAME.fold(GAME.initial(opts), events)
    while state.phase == "start":
        seat = GAME.to_act(state)[0]
        moves = GAME.legal_moves(state, seat)
        wanted = [m for m in moves if getattr(m, "talent", None) == talent]
        new = GAME.decide(state, seat, (wanted or moves)[0], Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    return opts, events


def reach(options, events, until, seed: str = "reach", limit: int = 5000):
    """Play random legal moves (never a Spirits Tile) after *events* until ``until(state)``: the
    events so far, or None if the game ended first."""
    events = list(events)
    state = GAME.fold(GAME.initial(options), events)
    chooser = Rng(seed)
    for _ in range(limit):
        if until(state):
            return events
        if state.finished:
            return None
        seat = GAME.to_act(state)[0]
        moves = [m for m in GAME.legal_moves(state, seat) if type(m).__name__ != "UseSpiritsTile"]
        new = GAME.decide(state, seat, chooser.choice(moves), Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    raise AssertionError("condition never reached")


def play(state, seat, command, seed: str = "x"):
    """Decide (checking decide does not mutate) and fold: (events, new state)."""
    events = given_state(GAME, state).when(seat, command, seed=seed).events()
    return events, GAME.fold(clone(state), events)


def run(state, seed: str = "x"):
    """Run the automatic steps from the current phase: (events, new state)."""
    c = Play(state, Rng(seed))
    advance(c)
    return c.events, c.state


def drive(state, until, seed: str = "drive", limit: int = 5000):
    """Play the first legal move until ``until(state)``."""
    for i in range(limit):
        if until(state) or state.finished:
            return state
        seat = GAME.to_act(state)[0]
        moves = [m for m in GAME.legal_moves(state, seat) if type(m).__name__ != "UseSpiritsTile"]
        state = GAME.fold(state, GAME.decide(state, seat, moves[0], Rng(seed, i)))
    raise AssertionError("condition never reached")


def drafted_per_round(events, players: int) -> dict[int, list[int]]:
    """How many Action Tiles each player drafted in each round (Draft New Action Tiles)."""
    counts: dict[int, list[int]] = {}
    round_ = 0
    for e in events:
        if type(e).__name__ == "PhaseBegan":
            round_ = e.round
        if type(e).__name__ == "ActionTileDrafted":
            counts.setdefault(round_, [0] * players)[e.seat] += 1
    return counts


def types(events):
    return [type(e).__name__ for e in events]


# --- tables folded from events only ---------------------------------------------------------------
_STARTING = frozenset(C.STARTING_TILES)


class Story:
    """A Jiangnan table told as the events a game could have produced (no state field is assigned):
    Game Setup with the random draws named here (Shop order, Travel Tiles, Display Tiles, Muses,
    Talent offer, each player's first Action Tiles), the starting Portfolios and Talents, then what
    the methods add.  ``state`` folds the events.  A method tells one situation of the rulebook; where
    a game would also have recorded how it came about (the turns before, a cost already paid), only the
    facts the rule under test reads are told."""

    def __init__(
        self,
        players: int = 4,
        seed: str = "t",
        *,
        drawn: dict[int, list[str]] | None = None,
        shops: list[str] | None = None,
        travel: dict[str, str] | None = None,
        teahouse: list[str] | None = None,
        tavern: list[str] | None = None,
        muses: list[str] | None = None,
        upkeep_tiles: list[str] | None = None,
        goal_column: list[str] | None = None,
        boat_trends: dict[int, list[str]] | None = None,
        starting: dict[int, str] | None = None,
        bot_portfolio: str | None = None,
        talent_offer: list[str] | None = None,
        talent_picks: dict[int, str] | None = None,
        **options,
    ) -> None:
        """Game Setup (steps 1-14) under *options*, with these random draws: *drawn* (seat: tiles)
        the first Action Tiles each seat drew, rightmost first (the rest as drawn); *shops* the Shop
        Tiles in pointer order; *travel* the Travel Tiles of some cities (the tiles they displace go
        where these were); *teahouse* the Display Tiles dealt to the Teahouse and *tavern* the
        Tavern's (by default the other three); *muses* Muses revealed (with others up to 4);
        *upkeep_tiles* the Upkeep board's; *goal_column* the Scoring Goal Tiles (the last comes
        first); *boat_trends* (boat: [left, right]) a boat's Scoring Trends; *bot_portfolio* the
        solo Bot's starting Portfolio; *talent_offer* the Talents drawn for the draft.  Then each
        seat of *starting* keeps that starting Portfolio and each seat of *talent_picks* takes that
        Talent (the other seats: the first they may)."""
        self.options = JiangnanOptions(players=players, **options)
        self.seed = seed
        events = setup_under(self.options, Rng(seed, 0), RULES_VERSION)
        retold = []
        for e in events:
            if isinstance(e, GameSetUp):
                e = _set_up(
                    e, shops, travel, (teahouse, tavern), muses, upkeep_tiles, goal_column, boat_trends
                )
            elif isinstance(e, Configured) and talent_offer is not None:
                e = msgspec.structs.replace(e, talent_offer=sorted(talent_offer))
            elif isinstance(e, PortfolioTaken | PortfolioPublished) and bot_portfolio is not None:
                assert not any(
                    isinstance(r, PortfolioRevealed) and r.portfolio == bot_portfolio for r in retold
                )
                e = msgspec.structs.replace(e, portfolio=bot_portfolio)
            retold.append(e)
        self.events = _drawn(retold, drawn or {})
        wanted, kept = dict(talent_picks or {}), dict(starting or {})
        state = self.state
        while state.phase == "start":
            seat = GAME.to_act(state)[0]
            moves = GAME.legal_moves(state, seat)
            if state.steps[-1].kind == "pick_talent":
                mine = [m for m in moves if m.talent == wanted.get(seat)]
                others = [m for m in moves if m.talent not in wanted.values()]
            else:
                mine = [m for m in moves if m.portfolio == kept.get(seat)]
                others = [m for m in moves if m.portfolio not in kept.values()]
            assert mine or seat not in (wanted if state.steps[-1].kind == "pick_talent" else kept), (
                "not offered"
            )
            new = GAME.decide(state, seat, (mine or others)[0], Rng(seed, len(self.events)))
            if muses is not None:
                new = [
                    msgspec.structs.replace(e, **_muses_formed(e, muses)) if isinstance(e, MusesFormed) else e
                    for e in new
                ]
            state = GAME.fold(state, new)
            self.events += new

    @property
    def state(self):
        return GAME.fold(GAME.initial(self.options), self.events)

    def _tell(self, *events) -> "Story":
        self.events += events
        return self

    # --- moves played ---------------------------------------------------------------------------
    def plays(self, seat: int, *commands) -> "Story":
        """The seat played these commands, one after the other (each checked by the rules)."""
        for command in commands:
            state = self.state
            self.events += GAME.decide(state, seat, command, Rng(self.seed, len(self.events)))
        return self

    def visits(self, seat: int, district: str, *answers) -> "Story":
        """Player Turn 1-3: the seat visited the district with the leftmost Action Tile showing it (not
        the rightmost, which it discarded), then gave *answers* to the decisions that followed."""
        track = self.state.p[seat].track
        slot = max(i for i, t in enumerate(track) if district in C.ACTION_TILES[t]["districts"])
        return self.plays(seat, VisitDistrict(slot=slot, district=district), *answers)

    def rested(self, *seats: int) -> "Story":
        """Rest: each seat, in this order, took its turn resting with its rightmost Action Tile."""
        for seat in seats:
            self.plays(seat, Rest(slot=0))
        return self

    def runs(self) -> "Story":
        """Gameplay: the automatic steps and phases ran on until somebody had to decide."""
        c = Play(self.state, Rng(self.seed, len(self.events)))
        advance(c)
        return self._tell(*c.events)

    # --- facts of earlier turns -----------------------------------------------------------------
    def gained(self, seat: int, why: str, **delta: int) -> "Story":
        """The seat gained (negative: paid) Coins, VP, Spirit or Ideas for *why* (a Bonus Icon, a
        district action, a cost)."""
        return self._tell(ResourcesChanged(seat=seat, why=why, **delta))

    def scholars(self, district: str, *seats: int) -> "Story":
        """Player Turn 3: these seats' Scholars were placed on the district's Scholar Track (or the
        Rest Area, ``"rest"``), in this order."""
        return self._tell(*(ScholarPlaced(seat=s, district=district) for s in seats))

    def boarded(self, boat: int, *seats: int) -> "Story":
        """Upkeep 2a / Shop A4 Boatman: one Servant of each seat named (a seat named twice: two) was
        placed on the boat, in this order."""
        return self._tell(*(BoatServantPlaced(seat=s, boat=boat) for s in seats))

    def display_tiles(self, district: str, *tiles: tuple[str, int]) -> "Story":
        """Teahouse 2a / Tavern 4a: Portfolios of these types were published in the district, each
        sliding its Display Tile in with a Servant of the seat ``(kind, seat)``, in this order (the
        rightmost tile pushed off)."""
        return self._tell(*(DisplayTileAdded(district=district, kind=k, seat=s) for k, s in tiles))

    def holds(self, seat: int, *portfolios: str) -> "Story":
        """The seat took these Portfolio Tiles (from the Society display when shown there, else drawn
        from the stack: Shop B6, Assistant B18)."""
        state = self.state
        for pid in portfolios:
            assert not any(pid in p.unpublished + p.published for i, p in enumerate(state.p) if i != seat), (
                pid
            )
            if pid not in state.p[seat].unpublished:
                source = "display" if pid in state.display else "stack"
                self.events.append(PortfolioTaken(seat=seat, portfolio=pid, source=source))
        return self

    def published(self, seat: int, *portfolios: str, where: str = "teahouse") -> "Story":
        """The seat held and published these Portfolio Tiles (the Ideas paid and the payout not told)."""
        self.holds(seat, *portfolios)
        return self._tell(*(PortfolioPublished(seat=seat, portfolio=p, where=where) for p in portfolios))

    def discarded_portfolios(self, seat: int, *portfolios: str) -> "Story":
        """Imperial Exam: the seat discarded these Portfolio Tiles it held."""
        return self._tell(*(PortfolioDiscarded(seat=seat, portfolio=p) for p in portfolios))

    def hired(self, seat: int, *muses: str) -> "Story":
        """Parlour 3: the seat's second Servant on each Muse (one shown now) hired it as an Assistant;
        the Servants came back and the space was refilled from the Muse stack."""
        for muse in muses:
            state = self.state
            self.events += [ServantOnMuse(seat=seat, muse=muse)] * 2 + [MuseHired(seat=seat, muse=muse)]
            if state.muse_stack:
                self.events.append(MuseRevealed(muse=state.muse_stack[0]))
        return self

    def servant_on_muse(self, seat: int, muse: str) -> "Story":
        """Parlour 3: the seat placed a Servant on the Muse (its bonus not told)."""
        return self._tell(ServantOnMuse(seat=seat, muse=muse))

    def travelled(self, seat: int, *cities: str) -> "Story":
        """Travel: the seat's Servants went to these cities (their costs and bonuses not told)."""
        return self._tell(*(Travelled(seat=seat, city=c) for c in cities))

    def spirits_tiles(self, seat: int, n: int = 1) -> "Story":
        """Shop A5 Liquor Shop: the seat took *n* Spirits Tiles."""
        return self._tell(*[SpiritsTileTaken(seat=seat)] * n)

    def used(self, seat: int, *tiles: str) -> "Story":
        """Player Turn 1 and 4: the seat used these Action Tiles of its track in earlier turns (the
        districts not told) and refilled the track from its bag."""
        for t in tiles:
            self.events.append(TileChosen(seat=seat, tile=t, district=C.REST))
            self.events.append(ActionTileDrawn(seat=seat, tile=self.state.p[seat].bag[0]))
        return self

    def degree(self, seat: int, degree: int) -> "Story":
        """Imperial Exam: the seat earned the Juren (1) or Gongshi (2) degree."""
        return self._tell(DegreeEarned(seat=seat, degree=degree))

    def trends(self, *trends: str) -> "Story":
        """Upkeep 2b-d, one round after another: the rightmost boat slid to the Upkeep board, nobody's
        Servants were on it and its trend (these, in order) went to the Scoring Trend Track; the boat
        came back leftmost with the bottom Scoring Goal Tile (rounds 1-5)."""
        for t in trends:
            self.events += [BoatsSlid(), TrendChosen(seat=-1, trend=t)]
        return self

    def visited_society(self, *seats: int) -> "Story":
        """Society 1: these seats placed their markers on the Next Round Turn Order Track, in order."""
        return self._tell(*(OrderMarkerPlaced(seat=s) for s in seats))

    def turn_order(self, *order: int) -> "Story":
        """Upkeep 5a: the turn order adjusted to *order*."""
        return self._tell(TurnOrderAdjusted(order=list(order)))

    def final_scored(self) -> "Story":
        """Upkeep 4 of Round 6: the game ended with Final Scoring."""
        return self._tell(FinalScored(breakdown=final_scoring(self.state)))

    def charm(self, charm: str) -> "Story":
        """Charming Scholar: the Charm Tile *charm* came into play."""
        return self._tell(CharmReplaced(charm=charm))

    def stack_drawn(self) -> "Story":
        """Shop B6 / Assistant B18: the face-down Portfolio stack was drawn to its last tile (the
        seats in turn drew one each)."""
        state = self.state
        seats = state.players
        return self._tell(
            *(
                PortfolioTaken(seat=i % seats, portfolio=pid, source="stack")
                for i, pid in enumerate(state.stack)
            )
        )

    def age2_swapped(self) -> "Story":
        """Upkeep 4 (Round 3): the Age 1 Portfolios were swapped for the shuffled Age 2 stack and the
        Society display refilled from it."""
        stack = sorted(C.portfolios_of_age(2))
        return self._tell(Age2Swapped(stack=stack), *(PortfolioRevealed(portfolio=p) for p in stack[:4]))

    # --- rounds and phases ----------------------------------------------------------------------
    def upkeep(self, phase: str, round_: int | None = None) -> "Story":
        """The Action Phase of *round_* (default: the current one) is over, its remaining turns not
        told, and the Upkeep Phase has reached *phase* (income, boats, draft, events, board, spirits)."""
        state = self.state
        self.events += [StepEnded()] * len(state.steps)
        return self._tell(PhaseBegan(phase=phase, round=state.round if round_ is None else round_))

    def next_round(
        self, drafted: dict[int, list[str]] | None = None, drawn: dict[int, list[str]] | None = None
    ) -> "Story":
        """Upkeep 3 and 4 of this round, its turns not told: the Scholars came back, each seat of
        *drafted* drafted those tiles from the Upkeep board, the draw bags were refilled, and the next
        round began with each seat drawing its track (*drawn*: rightmost first; the rest at random)."""
        drafted, drawn = drafted or {}, drawn or {}
        state = self.state
        self.events += [StepEnded()] * len(state.steps)
        self.events.append(ScholarsRecovered())
        wanted = [t for tiles in drafted.values() for t in tiles]
        missing = [t for t in wanted if t not in state.upkeep_tiles]
        if missing:
            self.events.append(
                UpkeepTilesRefilled(tiles=sorted(state.upkeep_tiles[len(missing) :] + missing))
            )
        queue = [s for s, tiles in drafted.items() for _ in tiles]
        self.events.append(PhaseBegan(phase="drafting", round=state.round, queue=queue))
        self.events += [ActionTileDrafted(seat=s, tile=t) for s, tiles in drafted.items() for t in tiles]
        self.events += [BagRefilled(seat=s) for s in range(state.players)]
        self.events.append(PhaseBegan(phase="actions", round=state.round + 1))
        state = self.state
        rng = Rng(self.seed, len(self.events))
        for seat in range(state.players):
            bag = list(state.p[seat].bag)
            tiles = list(drawn.get(seat, []))
            for t in tiles:
                bag.remove(t)
            while len(tiles) < 4 and bag:
                tiles.append(bag.pop(rng.below(len(bag))))
            self.events += [ActionTileDrawn(seat=seat, tile=t) for t in tiles]
        first = state.order[0]
        return self._tell(TurnBegan(seat=first, pos=0), StepBegan(step=Frame(kind="turn", seat=first)))


def _set_up(e, shops, travel, displays, muses, upkeep_tiles, goals, boat_trends):
    """The Game Setup event with these random draws."""
    fields = {}
    if shops is not None:
        fields["shops"] = list(shops)
    if travel:
        tiles = dict(e.travel)
        for city, tile in travel.items():
            other = next(c for c, t in tiles.items() if t == tile)
            tiles[other], tiles[city] = tiles[city], tile
        fields["travel"] = tiles
    teahouse, tavern = displays
    if teahouse is not None:
        rest = [k for k in C.IDEAS for _ in range(2)]
        for k in teahouse:
            rest.remove(k)
        assert tavern is None or sorted(tavern) == sorted(rest), "2 Display Tiles of each type"
        fields["displays"] = {"teahouse": list(teahouse), "tavern": list(tavern or rest)}
    if muses is not None and e.muses:
        fields.update(_muses_formed(e, muses))
    if upkeep_tiles is not None:
        fields["upkeep_tiles"] = sorted(upkeep_tiles)
    if goals is not None:
        fields["goals"] = list(goals)
    if boat_trends:
        trends = [list(t) for t in e.boat_trends]
        for boat, pair in boat_trends.items():
            same = [i for i, t in enumerate(trends) if set(t) == set(pair)]
            if same:
                trends[same[0]] = trends[boat]
            trends[boat] = list(pair)
        fields["boat_trends"] = trends
    return msgspec.structs.replace(e, **fields)


def _muses_formed(e, muses):
    """*muses* shown, with the ones drawn up to 4; the rest of the pool stays in the stack."""
    pool = [*e.muses, *e.muse_stack]
    assert set(muses) <= set(pool), "the Muses come from this game's pool"
    shown = [*muses, *(m for m in e.muses if m not in muses)][: C.MUSE_DISPLAY]
    return {"muses": shown, "muse_stack": sorted(m for m in pool if m not in shown)}


def _drawn(events, drawn):
    """The setup events with each seat of *drawn* drawing those tiles first (rightmost first)."""
    out = []
    assert all(set(tiles) <= _STARTING for tiles in drawn.values()), "first draws: starting tiles"
    queues = {}
    for seat, tiles in drawn.items():
        mine = [e.tile for e in events if isinstance(e, ActionTileDrawn) and e.seat == seat]
        queues[seat] = list(tiles) + [t for t in mine if t not in tiles]
    for e in events:
        if isinstance(e, ActionTileDrawn) and e.seat in queues:
            e = ActionTileDrawn(seat=e.seat, tile=queues[e.seat].pop(0))
        out.append(e)
    return out


def final_scoring_example(**options):
    """The rulebook's Final Scoring example told as events: the boat that took Scoring Goal A came
    leftmost, held by orange (2 servants), green and white (1 each); orange published 5 Dramas, a
    Novel and 2 Paintings, hired 2 Assistants, visited 4 cities and keeps 4 Ideas; green published 3
    Dramas (the last one of Age 2).  Returns the story and the seats (orange, green, white)."""
    orange, green, white = 3, 1, 2
    theirs = {orange: ["C1", "B1", "B2", "B3", "B4", "B5", "A1", "A2"], green: ["B6", "B7"]}
    seed = options.pop("seed", "t")
    opts = JiangnanOptions(**options)
    offer = GAME.fold(GAME.initial(opts), setup_under(opts, Rng(seed, 0), RULES_VERSION)).offer
    spare = [pid for pid in offer if pid not in theirs[orange] + theirs[green]]
    starting = {seat: theirs[seat][0] if seat == orange else spare.pop() for seat in range(opts.players)}
    starting[green] = next(pid for pid in theirs[green] if pid in offer)
    story = Story(seed=seed, goal_column=["B", "C", "D", "E", "A"], starting=starting, **options)
    story.trends("drama")
    story.boarded(story.state.river[0], orange, orange, green, white)
    story.published(orange, *theirs[orange])
    story.published(green, *theirs[green])
    story.hired(orange, *story.state.muses[:2])
    story.travelled(orange, "A1", "A2", "B1", "B2").gained(orange, "inspiration", drama=1)
    story.age2_swapped().published(green, "B8")
    return story, (orange, green, white)

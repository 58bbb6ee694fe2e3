"""evolve(state, event): applies a fact in place.  Never validates, never fails."""

from __future__ import annotations

from typing import Any

from domain.kernel.evolver import Evolver, Handler
from domain.kernel.table import handlers as table_handlers

from . import components as C
from . import events as E
from .state import Card, Die, Player, Region, State
from .turn import to_act


def _piaohao_add(p: Player, where: str, n: int) -> None:
    if where == C.HEAD_OFFICE:
        p.head_office += n
    else:
        p.regions[where].silver += n


_STACKS = {cf: {str(t): tuple(C.stack_tiles(t, cf)) for t in C.TIERS} for cf in (False, True)}
"""The face-down tile stacks of each tier, without and with the crowdfunding tiles (worked out
once: they depend only on the component lists)."""
_DECK = tuple(sorted(C.CARDS))
"""The exchange deck at setup (every exchange card)."""


def _set_up(s: State, e: E.GameSetUp) -> None:
    """Game Setup: 10 copper, 2 silver in the head office, the starting branch on the Tier-1
    region of its colour, the Deposit area, 3 teller dice (Two-Player Game Rules / Solo Rules,
    Setup: public dice; solo 1 + 1 silver), face-down tile stacks, the exchange deck, Yamen tiles."""
    s.players, s.crowdfunding, s.start_player = e.players, e.crowdfunding, e.start_player
    s.rules_version = e.rules_version
    s.pl, s.dice = [], []
    placed = 0
    for seat in range(e.players):
        p = Player(
            copper=C.START_COPPER,
            head_office=C.START_HEAD_OFFICE_SILVER,
            deposit_area=C.START_DEPOSIT_AREA_SILVER,
            regions={r: Region() for r in C.REGIONS},
        )
        tile = C.TILES[e.starting[seat]]
        region = p.regions[f"1{tile.color}"]
        region.tile, region.silver = e.starting[seat], C.START_BRANCH_SILVER
        placed += p.head_office + region.silver + p.deposit_area
        s.pl.append(p)
        for k in range(3):
            s.dice.append(Die(owner=seat, large=k == 0))
    if e.players == 2:  # Two-player game: the two unused colours' dice are public
        for k in range(C.PUBLIC_DICE_2P):
            s.dice.append(Die(owner=-1, large=k % 3 == 0, where="pool"))
    if e.players == 1:  # Solo: the 9 other dice are public; 1 + 1 starting silver; the storyline tile
        for k in range(C.SOLO_PUBLIC_DICE):
            s.dice.append(Die(owner=-1, large=k % 3 == 0, where="pool"))
        p = s.pl[0]
        p.head_office = C.SOLO_START_SILVER
        p.regions[f"1{C.TILES[e.starting[0]].color}"].silver = C.SOLO_START_SILVER
        placed = p.head_office + C.SOLO_START_SILVER + p.deposit_area
    s.supply_silver = C.SILVER_SUPPLY - placed
    s.stacks = {key: list(tiles) for key, tiles in _STACKS[e.crowdfunding].items()}
    s.bottoms = {str(t): [] for t in C.TIERS}
    s.deck = list(_DECK)
    copies = C.yamen_copies(e.players)
    s.yamen_supply = {k: copies for k, t in C.YAMEN_TILES.items() if e.crowdfunding or not t.promo}


def _storyline(s: State, e: E.StorylineChosen) -> None:
    """Solo Rules, Storyline Cards: the top half's Yamen tile is held for the entire game."""
    s.storyline = e.storyline
    s.pl[0].yamen.append(e.tile)
    if s.yamen_supply.get(e.tile, 0) > 0:
        s.yamen_supply[e.tile] -= 1


def _round_started(s: State, e: E.RoundStarted) -> None:
    """Game Flow: rounds 1-2 use 2 teller dice (the third ordinary die joins in round 3; Solo
    Rules, Setup: all 3 from the start; Two-Player Game Rules: 2 four- and 2 six-sided public dice)."""
    s.round, s.start_player, s.phase = e.round, e.start_player, "prep"
    s.acted, s.forced_die = {}, -1
    for p in s.pl:
        p.used_round = []
    solo, two_player, first_rounds = s.players == 1, s.players == 2, e.round < 3
    for i, d in enumerate(s.dice):
        early = first_rounds and i % 3 == 2  # the third die of a colour joins in round 3
        if d.owner >= 0:
            d.where = "storage" if early and not solo else "number"
        else:
            d.where = "storage" if early and two_player else "pool"
        d.value, d.action, d.rerolled = 3, "", False


def _public_rolled(s: State, e: E.PublicDiceRolled) -> None:
    for d, v in zip(s.dice, e.values, strict=False):
        if v:
            d.value, d.where = v, "draft"


def _starting_placed(s: State, e: E.StartingBranchPlaced) -> None:
    p = s.pl[e.seat]
    for r in C.REGIONS:
        reg = p.regions[r]
        if reg.tile and C.TILES[reg.tile].tier == 0 and r != e.region:
            p.regions[e.region].tile, p.regions[e.region].silver = reg.tile, reg.silver
            reg.tile, reg.silver = "", 0


def _event_card(s: State, e: E.EventCardRevealed) -> None:
    """Solo Rules, Event Cards: the initial set-up's dice sit in resting areas / on action spaces."""
    s.event_card, s.goal_met, s.round_actions = e.card, False, {}
    s.events_seen.append(e.card)
    for sd in e.dice:
        d = s.dice[sd.die]
        d.value, d.action, d.where = sd.value, sd.action, "space" if sd.space else "rest"


def _goal_met(s: State, e: E.RoundGoalMet) -> None:
    s.goal_met = True


def _reward(s: State, e: E.RewardClaimed) -> None:
    if e.accept and e.ongoing:
        s.pl[e.seat].ongoing.append(e.card)


def _silver_gained(s: State, e: E.SilverGained) -> None:
    s.pl[e.seat].head_office += e.amount
    s.supply_silver -= e.amount


def _taken_back(s: State, e: E.DieTakenBack) -> None:
    d = s.dice[e.die]
    d.where, d.value, d.action, d.rerolled = "hand", e.value, "", False
    s.forced_die = e.die


def _public_placed(s: State, e: E.PublicDiePlaced) -> None:
    d = s.dice[e.die]
    d.where, d.action = ("rest", e.action) if e.action else ("out", "")


def _dice_rolled(s: State, e: E.DiceRolled) -> None:
    for d, v in zip(s.dice, e.values, strict=False):
        if v:
            d.value = v


def _queued(s: State, e: E.DecisionQueued) -> None:
    if e.frames:
        s.frames[0:0] = e.frames  # the slice assignment copies the list
    if e.bonuses:
        s.pl[e.seat].bonuses.extend(e.bonuses)


def _phase(s: State, e: E.PhaseStarted) -> None:
    s.phase = e.phase
    if e.phase == "resolution":
        s.res_index = s.res_stage = s.res_owed = 0
        s.due, s.due_locked = [], False


def _adjusted(s: State, e: E.DieAdjusted) -> None:
    s.dice[e.die].value = e.value
    s.pl[e.seat].used_round.append(e.skill)


def _recalled(s: State, e: E.SilverRecalled) -> None:
    p = s.pl[e.seat]
    p.regions[e.region].silver -= 1
    p.head_office += 1
    p.copper -= e.cost
    p.used_round.append("recall_silver")


def _converted(s: State, e: E.CopperConverted) -> None:
    """Preparation Phase 3: 10 copper coins = 1 silver ingot into the head office."""
    p = s.pl[e.seat]
    p.copper -= 10 * e.silver
    p.head_office += e.silver
    s.supply_silver -= e.silver


def _count_turn(s: State, d: Die) -> None:
    """Action Phase: equal values take turns round the table, one die per player per turn."""
    if d.where == "number":
        key = str(d.value)
        row = s.acted.get(key)
        if row is None:
            row = s.acted[key] = [0] * s.players
        row[d.owner] += 1


def _rerolled(s: State, e: E.DieRerolled) -> None:
    d = s.dice[e.die]
    _count_turn(s, d)
    d.where, d.value, d.rerolled = "hand", e.value, True
    s.pl[e.seat].copper -= e.cost
    s.forced_die = e.die


def _discarded(s: State, e: E.DieDiscarded) -> None:
    d = s.dice[e.die]
    _count_turn(s, d)
    d.where = "done"
    s.pl[e.seat].copper += e.copper
    s.forced_die = -1


def _declined(s: State, e: E.DieDeclined) -> None:
    d = s.dice[e.die]
    _count_turn(s, d)
    d.where = "done"
    s.forced_die = -1


def _dispatched(s: State, e: E.DieDispatched) -> None:
    """Action Phase: the die goes on the action space, the bumped die to the resting area, and
    the value difference is paid or gained."""
    d = s.dice[e.die]
    _count_turn(s, d)
    d.value, d.where, d.action = e.value, "space", e.action
    if s.players == 1:
        s.round_actions[e.action] = s.round_actions.get(e.action, 0) + 1
    if e.bumped >= 0:
        s.dice[e.bumped].where = "rest"
    s.pl[e.seat].copper += e.copper
    s.forced_die = -1


def _tiles_drawn(s: State, e: E.BranchTilesDrawn) -> None:
    s.pl[e.seat].copper -= e.cost
    key = str(e.tier)
    stack, bottom = s.stacks[key], s.bottoms[key]
    for t in e.tiles:
        if t in stack:
            stack.remove(t)
        elif t in bottom:
            bottom.remove(t)
    s.drawn, s.drawn_tier, s.drawn_region = list(e.tiles), e.tier, e.region


def _opened(s: State, e: E.BranchOpened) -> None:
    """Bank Escort: the branch takes its starting capital from the head office."""
    p = s.pl[e.seat]
    r = p.regions[e.region]
    r.tile = e.tile
    r.silver += e.capital
    p.head_office -= e.capital
    if e.tile in s.drawn:
        s.drawn.remove(e.tile)


def _tiles_returned(s: State, e: E.BranchTilesReturned) -> None:
    """Bank Escort: "place the other 3 face-down at the bottom of the corresponding tile stack"."""
    s.bottoms[str(e.tier)].extend(e.tiles)
    s.drawn, s.drawn_tier, s.drawn_region = [], 0, ""


def _reputation(s: State, e: E.ReputationGained) -> None:
    """Reputation progress track, 1-15 (City God Temple: no effect beyond 15)."""
    p = s.pl[e.seat]
    p.copper -= e.cost
    p.reputation = min(C.REPUTATION_MAX, p.reputation + e.amount)


def _copper(s: State, e: E.CopperGained) -> None:
    s.pl[e.seat].copper += e.amount


def _teller(s: State, e: E.TellerPlaced) -> None:
    """Confucius Temple: teller position (activates the skill), management position (+1
    effective silver) or a branch-less region (waits)."""
    p = s.pl[e.seat]
    p.copper -= e.cost
    if e.source.endswith(":wait"):
        p.regions[e.source.split(":")[0]].waiting -= 1
    if not e.target:
        return
    region, slot = e.target.split(":")
    r = p.regions[region]
    if slot == "teller":
        r.tellers += 1
    elif slot == "manager":
        r.managers += 1
    else:
        r.waiting += 1


def _recalled_tellers(s: State, e: E.TellersRecalled) -> None:
    """Tier 3 Branches, Tokyo: recall all of your branch tellers."""
    for r in s.pl[e.seat].regions.values():
        r.tellers = r.managers = r.waiting = 0


def _silver_moved(s: State, e: E.SilverMoved) -> None:
    if e.dest:
        p = s.pl[e.seat]
        _piaohao_add(p, e.source, -1)
        _piaohao_add(p, e.dest, 1)


def _cards_drawn(s: State, e: E.ExchangeCardsDrawn) -> None:
    for c in e.cards:
        if c in s.deck:
            s.deck.remove(c)
        elif c in s.deck_bottom:
            s.deck_bottom.remove(c)
    s.drawn_cards = list(e.cards)


def _reshuffled(s: State, e: E.DeckReshuffled) -> None:
    """West Street: the discard pile is shuffled to form a new exchange deck."""
    s.deck = sorted(s.deck + s.deck_bottom + s.discards)
    s.deck_bottom, s.discards = [], []


def _card_chosen(s: State, e: E.ExchangeCardChosen) -> None:
    s.drawn_cards = [e.card] if e.card else []
    s.deck_bottom.extend(e.returned)


def _placed(s: State, e: E.ExchangePlaced) -> None:
    """West Street: 1 silver from the supply to the deposit piaohao, the handling fee, the card on
    the exchange-time track and the Exchange progress track +1 (capped at 12)."""
    p = s.pl[e.seat]
    silver = C.CARDS[e.card].silver
    s.supply_silver -= silver
    _piaohao_add(p, e.deposit, silver)
    p.copper += e.fee
    if e.advance:
        p.exchange = min(C.EXCHANGE_MAX, p.exchange + 1)
    p.cards.append(Card(card=e.card, months=e.months, deposit=e.deposit, withdraw=e.withdraw))
    s.drawn_cards = []


def _card_discarded(s: State, e: E.ExchangeDiscarded) -> None:
    s.discards.append(e.card)
    s.drawn_cards = []


def _lent(s: State, e: E.SilverLent) -> None:
    """Money House, Lending: silver from the head office onto the loan-time track."""
    p = s.pl[e.seat]
    p.head_office -= e.amount
    p.lending[e.months - 1] += e.amount


def _deposit(s: State, e: E.DepositAccepted) -> None:
    """Money House, Accepting Deposits: 2 silver from the Deposit area to the head office."""
    p = s.pl[e.seat]
    p.deposit_area -= C.DEPOSIT_SILVER
    p.head_office += C.DEPOSIT_SILVER
    p.deposit_marker = e.months


def _yamen(s: State, e: E.YamenTileTaken) -> None:
    """Yamen: copper and the tile's silver from the head office go to the supply."""
    p = s.pl[e.seat]
    p.copper -= e.copper
    p.head_office -= e.silver
    s.supply_silver += e.silver
    s.yamen_supply[e.tile] -= 1
    p.yamen.append(e.tile)


def _income(s: State, e: E.IncomeCollected) -> None:
    s.pl[e.seat].copper += e.copper


def _loans(s: State, e: E.LoansReturned) -> None:
    """Resolution Phase 1 / Money House: lent silver shifts left; what leaves position 1 returns
    to the head office (round 8: all of it)."""
    p = s.pl[e.seat]
    p.head_office += e.silver
    p.lending = [0, 0, 0] if e.final else [p.lending[1], p.lending[2], 0]
    s.res_stage = 1 if p.deposit_marker else 3


def _interest(s: State, e: E.DepositInterestPaid) -> None:
    """Resolution Phase 2 / Money House: 2 copper interest, the deposit marker moves left."""
    p = s.pl[e.seat]
    p.copper -= e.interest
    p.deposit_marker = e.months_left
    if e.months_left == 0:
        s.res_owed, s.res_stage = C.DEPOSIT_SILVER, 2
    else:
        s.res_stage = 3


def _deposit_returned(s: State, e: E.DepositSilverReturned) -> None:
    """Money House: when the marker moves off the track, 2 silver go back to the Deposit area."""
    p = s.pl[e.seat]
    p.head_office -= e.silver
    p.deposit_area += e.silver + e.shortfall
    s.supply_silver -= e.shortfall
    s.res_owed -= e.silver + e.shortfall
    if s.res_owed <= 0:
        s.res_stage = 3


def _emergency(s: State, e: E.EmergencyTransfer) -> None:
    """Emergency Fund Transfer: a silver moves; its copper fee, or another silver to the supply."""
    p = s.pl[e.seat]
    _piaohao_add(p, e.source, -1)
    _piaohao_add(p, e.dest, 1)
    p.copper -= e.copper
    if e.fee_source:
        _piaohao_add(p, e.fee_source, -1)
        s.supply_silver += 1


def _advanced(s: State, e: E.ExchangesAdvanced) -> None:
    """Resolution Phase 3 / West Street: cards move one space down; those at 1 mature."""
    for c in s.pl[e.seat].cards:
        if c.card not in e.due:
            c.months -= 1
    s.due, s.due_locked, s.res_stage = list(e.due), False, 4


def _order(s: State, e: E.ExchangeOrderChosen) -> None:
    s.due.remove(e.card)
    s.due.insert(0, e.card)
    s.due_locked = True


def _matured(s: State, e: E.ExchangeMatured) -> None:
    """West Street, resolving an exchange card: the silver leaves the withdrawal piaohao."""
    p = s.pl[e.seat]
    if e.paid:
        silver = C.CARDS[e.card].silver
        _piaohao_add(p, e.withdraw, -silver)
        s.supply_silver += silver
    p.cards = [c for c in p.cards if c.card != e.card]
    s.discards.append(e.card)
    if e.card in s.due:
        s.due.remove(e.card)
    s.due_locked = False


def _player_resolved(s: State, e: E.PlayerResolved) -> None:
    s.res_index += 1
    s.res_stage = s.res_owed = 0
    s.due, s.due_locked = [], False


def _round_ended(s: State, e: E.RoundEnded) -> None:
    """Resolution Phase: teller dice come back; the starting-player marker passes clockwise."""
    s.start_player = e.next_start
    s.event_card = ""
    for d in s.dice:
        if d.where != "storage":
            d.where = "pool"


def _ended(s: State, e: E.GameEnded) -> None:
    s.phase = "end"


def _nothing(s: State, e: Any) -> None:
    pass


HANDLERS: dict[type, Handler] = {
    E.GameSetUp: _set_up,
    E.RoundStarted: _round_started,
    E.DiceRolled: _dice_rolled,
    E.PublicDiceRolled: _public_rolled,
    E.PublicDiePlaced: _public_placed,
    E.StorylineChosen: _storyline,
    E.StartingBranchPlaced: _starting_placed,
    E.EventCardRevealed: _event_card,
    E.RoundGoalMet: _goal_met,
    E.RewardClaimed: _reward,
    E.SilverGained: _silver_gained,
    E.DieTakenBack: _taken_back,
    E.DecisionQueued: _queued,
    E.PhaseStarted: _phase,
    E.DieAdjusted: _adjusted,
    E.SilverRecalled: _recalled,
    E.CopperConverted: _converted,
    E.PreparationEnded: _nothing,
    E.DieRerolled: _rerolled,
    E.DieDiscarded: _discarded,
    E.DieDeclined: _declined,
    E.DieDispatched: _dispatched,
    E.BranchTilesDrawn: _tiles_drawn,
    E.BranchOpened: _opened,
    E.BranchTilesReturned: _tiles_returned,
    E.ReputationGained: _reputation,
    E.CopperGained: _copper,
    E.TellerPlaced: _teller,
    E.TellersRecalled: _recalled_tellers,
    E.SilverMoved: _silver_moved,
    E.EntrySkillDecided: _nothing,
    E.ExchangeCardsDrawn: _cards_drawn,
    E.DeckReshuffled: _reshuffled,
    E.ExchangeCardChosen: _card_chosen,
    E.ExchangePlaced: _placed,
    E.ExchangeDiscarded: _card_discarded,
    E.SilverLent: _lent,
    E.DepositAccepted: _deposit,
    E.YamenTileTaken: _yamen,
    E.IncomeCollected: _income,
    E.LoansReturned: _loans,
    E.DepositInterestPaid: _interest,
    E.DepositSilverReturned: _deposit_returned,
    E.EmergencyTransfer: _emergency,
    E.ExchangesAdvanced: _advanced,
    E.ExchangeOrderChosen: _order,
    E.ExchangeMatured: _matured,
    E.PlayerResolved: _player_resolved,
    E.RoundEnded: _round_ended,
    E.GameEnded: _ended,
}


def _close_frame(state: State, event: Any) -> None:
    """An event that closes a frame of the pending decision stack pops it (``event.frame``)."""
    if event.frame and state.frames:
        state.frames.pop(0)


EVOLVER: Evolver[State] = Evolver(HANDLERS | table_handlers(State, to_act), after_each=_close_frame)
"""Pingyao's events and the table's (``domain.kernel.table.handlers``); every event may close a frame."""
evolve = EVOLVER.evolve
fold = EVOLVER.fold

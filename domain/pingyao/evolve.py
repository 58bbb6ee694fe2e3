"""evolve(state, event): applies a fact in place.  Never validates, never fails."""

from __future__ import annotations

from typing import Any

from domain.kernel.evolver import Evolver, Handler
from domain.kernel.table import handlers as table_handlers

from . import components as C
from . import events as E
from .state import Card, Die, Player, Region, State
from .turn import to_act


def _piaohao_add(player: Player, where: str, n: int) -> None:
    if where == C.HEAD_OFFICE:
        player.head_office += n
    else:
        player.regions[where].silver += n


_STACKS = {cf: {str(t): tuple(C.stack_tiles(t, cf)) for t in C.TIERS} for cf in (False, True)}
"""The face-down tile stacks of each tier, without and with the crowdfunding tiles (worked out
once: they depend only on the component lists)."""
_DECK = tuple(sorted(C.CARDS))
"""The exchange deck at setup (every exchange card)."""


def _set_up(state: State, event: E.GameSetUp) -> None:
    """Game Setup: 10 copper, 2 silver in the head office, the starting branch on the Tier-1
    region of its colour, the Deposit area, 3 teller dice (Two-Player Game Rules / Solo Rules,
    Setup: public dice; solo 1 + 1 silver), face-down tile stacks, the exchange deck, Yamen tiles."""
    state.players, state.crowdfunding, state.start_player = (
        event.players,
        event.crowdfunding,
        event.start_player,
    )
    state.rules_version = event.rules_version
    state.pl, state.dice = [], []
    placed = 0
    for seat in range(event.players):
        p = Player(
            copper=C.START_COPPER,
            head_office=C.START_HEAD_OFFICE_SILVER,
            deposit_area=C.START_DEPOSIT_AREA_SILVER,
            regions={r: Region() for r in C.REGIONS},
        )
        tile = C.TILES[event.starting[seat]]
        region = p.regions[f"1{tile.color}"]
        region.tile, region.silver = event.starting[seat], C.START_BRANCH_SILVER
        placed += p.head_office + region.silver + p.deposit_area
        state.pl.append(p)
        for k in range(3):
            state.dice.append(Die(owner=seat, large=k == 0))
    if event.players == 2:  # Two-player game: the two unused colours' dice are public
        for k in range(C.PUBLIC_DICE_2P):
            state.dice.append(Die(owner=-1, large=k % 3 == 0, where="pool"))
    if event.players == 1:  # Solo: the 9 other dice are public; 1 + 1 starting silver; the storyline tile
        for k in range(C.SOLO_PUBLIC_DICE):
            state.dice.append(Die(owner=-1, large=k % 3 == 0, where="pool"))
        p = state.pl[0]
        p.head_office = C.SOLO_START_SILVER
        p.regions[f"1{C.TILES[event.starting[0]].color}"].silver = C.SOLO_START_SILVER
        placed = p.head_office + C.SOLO_START_SILVER + p.deposit_area
    state.supply_silver = C.SILVER_SUPPLY - placed
    state.stacks = {key: list(tiles) for key, tiles in _STACKS[event.crowdfunding].items()}
    state.bottoms = {str(t): [] for t in C.TIERS}
    state.deck = list(_DECK)
    copies = C.yamen_copies(event.players)
    state.yamen_supply = {k: copies for k, t in C.YAMEN_TILES.items() if event.crowdfunding or not t.promo}


def _storyline(state: State, event: E.StorylineChosen) -> None:
    """Solo Rules, Storyline Cards: the top half's Yamen tile is held for the entire game."""
    state.storyline = event.storyline
    state.pl[0].yamen.append(event.tile)
    if state.yamen_supply.get(event.tile, 0) > 0:
        state.yamen_supply[event.tile] -= 1


def _round_started(state: State, event: E.RoundStarted) -> None:
    """Game Flow: rounds 1-2 use 2 teller dice (the third ordinary die joins in round 3; Solo
    Rules, Setup: all 3 from the start; Two-Player Game Rules: 2 four- and 2 six-sided public dice)."""
    state.round, state.start_player, state.phase = event.round, event.start_player, "prep"
    state.acted, state.forced_die = {}, -1
    for p in state.pl:
        p.used_round = []
    solo, two_player, first_rounds = state.players == 1, state.players == 2, event.round < 3
    for i, d in enumerate(state.dice):
        early = first_rounds and i % 3 == 2  # the third die of a colour joins in round 3
        if d.owner >= 0:
            d.where = "storage" if early and not solo else "number"
        else:
            d.where = "storage" if early and two_player else "pool"
        d.value, d.action, d.rerolled = 3, "", False


def _public_rolled(state: State, event: E.PublicDiceRolled) -> None:
    for d, v in zip(state.dice, event.values, strict=False):
        if v:
            d.value, d.where = v, "draft"


def _starting_placed(state: State, event: E.StartingBranchPlaced) -> None:
    player = state.pl[event.seat]
    for r in C.REGIONS:
        reg = player.regions[r]
        if reg.tile and C.TILES[reg.tile].tier == 0 and r != event.region:
            player.regions[event.region].tile, player.regions[event.region].silver = reg.tile, reg.silver
            reg.tile, reg.silver = "", 0


def _event_card(state: State, event: E.EventCardRevealed) -> None:
    """Solo Rules, Event Cards: the initial set-up's dice sit in resting areas / on action spaces."""
    state.event_card, state.goal_met, state.round_actions = event.card, False, {}
    state.events_seen.append(event.card)
    for sd in event.dice:
        die = state.dice[sd.die]
        die.value, die.action, die.where = sd.value, sd.action, "space" if sd.space else "rest"


def _goal_met(state: State, event: E.RoundGoalMet) -> None:
    state.goal_met = True


def _reward(state: State, event: E.RewardClaimed) -> None:
    if event.accept and event.ongoing:
        state.pl[event.seat].ongoing.append(event.card)


def _silver_gained(state: State, event: E.SilverGained) -> None:
    state.pl[event.seat].head_office += event.amount
    state.supply_silver -= event.amount


def _taken_back(state: State, event: E.DieTakenBack) -> None:
    die = state.dice[event.die]
    die.where, die.value, die.action, die.rerolled = "hand", event.value, "", False
    state.forced_die = event.die


def _public_placed(state: State, event: E.PublicDiePlaced) -> None:
    die = state.dice[event.die]
    die.where, die.action = ("rest", event.action) if event.action else ("out", "")


def _dice_rolled(state: State, event: E.DiceRolled) -> None:
    for d, v in zip(state.dice, event.values, strict=False):
        if v:
            d.value = v


def _queued(state: State, event: E.DecisionQueued) -> None:
    if event.frames:
        state.frames[0:0] = event.frames  # the slice assignment copies the list
    if event.bonuses:
        state.pl[event.seat].bonuses.extend(event.bonuses)


def _phase(state: State, event: E.PhaseStarted) -> None:
    state.phase = event.phase
    if event.phase == "resolution":
        state.res_index = state.res_stage = state.res_owed = 0
        state.due, state.due_locked = [], False


def _adjusted(state: State, event: E.DieAdjusted) -> None:
    state.dice[event.die].value = event.value
    state.pl[event.seat].used_round.append(event.skill)


def _recalled(state: State, event: E.SilverRecalled) -> None:
    player = state.pl[event.seat]
    player.regions[event.region].silver -= 1
    player.head_office += 1
    player.copper -= event.cost
    player.used_round.append("recall_silver")


def _converted(state: State, event: E.CopperConverted) -> None:
    """Preparation Phase 3: 10 copper coins = 1 silver ingot into the head office."""
    player = state.pl[event.seat]
    player.copper -= 10 * event.silver
    player.head_office += event.silver
    state.supply_silver -= event.silver


def _count_turn(state: State, die: Die) -> None:
    """Action Phase: equal values take turns round the table, one die per player per turn."""
    if die.where == "number":
        key = str(die.value)
        row = state.acted.get(key)
        if row is None:
            row = state.acted[key] = [0] * state.players
        row[die.owner] += 1


def _rerolled(state: State, event: E.DieRerolled) -> None:
    die = state.dice[event.die]
    _count_turn(state, die)
    die.where, die.value, die.rerolled = "hand", event.value, True
    state.pl[event.seat].copper -= event.cost
    state.forced_die = event.die


def _discarded(state: State, event: E.DieDiscarded) -> None:
    die = state.dice[event.die]
    _count_turn(state, die)
    die.where = "done"
    state.pl[event.seat].copper += event.copper
    state.forced_die = -1


def _declined(state: State, event: E.DieDeclined) -> None:
    die = state.dice[event.die]
    _count_turn(state, die)
    die.where = "done"
    state.forced_die = -1


def _dispatched(state: State, event: E.DieDispatched) -> None:
    """Action Phase: the die goes on the action space, the bumped die to the resting area, and
    the value difference is paid or gained."""
    die = state.dice[event.die]
    _count_turn(state, die)
    die.value, die.where, die.action = event.value, "space", event.action
    if state.players == 1:
        state.round_actions[event.action] = state.round_actions.get(event.action, 0) + 1
    if event.bumped >= 0:
        state.dice[event.bumped].where = "rest"
    state.pl[event.seat].copper += event.copper
    state.forced_die = -1


def _tiles_drawn(state: State, event: E.BranchTilesDrawn) -> None:
    state.pl[event.seat].copper -= event.cost
    key = str(event.tier)
    stack, bottom = state.stacks[key], state.bottoms[key]
    for t in event.tiles:
        if t in stack:
            stack.remove(t)
        elif t in bottom:
            bottom.remove(t)
    state.drawn, state.drawn_tier, state.drawn_region = list(event.tiles), event.tier, event.region


def _opened(state: State, event: E.BranchOpened) -> None:
    """Bank Escort: the branch takes its starting capital from the head office."""
    player = state.pl[event.seat]
    r = player.regions[event.region]
    r.tile = event.tile
    r.silver += event.capital
    player.head_office -= event.capital
    if event.tile in state.drawn:
        state.drawn.remove(event.tile)


def _tiles_returned(state: State, event: E.BranchTilesReturned) -> None:
    """Bank Escort: "place the other 3 face-down at the bottom of the corresponding tile stack"."""
    state.bottoms[str(event.tier)].extend(event.tiles)
    state.drawn, state.drawn_tier, state.drawn_region = [], 0, ""


def _reputation(state: State, event: E.ReputationGained) -> None:
    """Reputation progress track, 1-15 (City God Temple: no effect beyond 15)."""
    player = state.pl[event.seat]
    player.copper -= event.cost
    player.reputation = min(C.REPUTATION_MAX, player.reputation + event.amount)


def _copper(state: State, event: E.CopperGained) -> None:
    state.pl[event.seat].copper += event.amount


def _teller(state: State, event: E.TellerPlaced) -> None:
    """Confucius Temple: teller position (activates the skill), management position (+1
    effective silver) or a branch-less region (waits)."""
    player = state.pl[event.seat]
    player.copper -= event.cost
    if event.source.endswith(":wait"):
        player.regions[event.source.split(":")[0]].waiting -= 1
    if not event.target:
        return
    region, slot = event.target.split(":")
    r = player.regions[region]
    if slot == "teller":
        r.tellers += 1
    elif slot == "manager":
        r.managers += 1
    else:
        r.waiting += 1


def _recalled_tellers(state: State, event: E.TellersRecalled) -> None:
    """Tier 3 Branches, Tokyo: recall all of your branch tellers."""
    for r in state.pl[event.seat].regions.values():
        r.tellers = r.managers = r.waiting = 0


def _silver_moved(state: State, event: E.SilverMoved) -> None:
    if event.dest:
        player = state.pl[event.seat]
        _piaohao_add(player, event.source, -1)
        _piaohao_add(player, event.dest, 1)


def _cards_drawn(state: State, event: E.ExchangeCardsDrawn) -> None:
    for c in event.cards:
        if c in state.deck:
            state.deck.remove(c)
        elif c in state.deck_bottom:
            state.deck_bottom.remove(c)
    state.drawn_cards = list(event.cards)


def _reshuffled(state: State, event: E.DeckReshuffled) -> None:
    """West Street: the discard pile is shuffled to form a new exchange deck."""
    state.deck = sorted(state.deck + state.deck_bottom + state.discards)
    state.deck_bottom, state.discards = [], []


def _card_chosen(state: State, event: E.ExchangeCardChosen) -> None:
    state.drawn_cards = [event.card] if event.card else []
    state.deck_bottom.extend(event.returned)


def _placed(state: State, event: E.ExchangePlaced) -> None:
    """West Street: 1 silver from the supply to the deposit piaohao, the handling fee, the card on
    the exchange-time track and the Exchange progress track +1 (capped at 12)."""
    player = state.pl[event.seat]
    silver = C.CARDS[event.card].silver
    state.supply_silver -= silver
    _piaohao_add(player, event.deposit, silver)
    player.copper += event.fee
    if event.advance:
        player.exchange = min(C.EXCHANGE_MAX, player.exchange + 1)
    player.cards.append(
        Card(card=event.card, months=event.months, deposit=event.deposit, withdraw=event.withdraw)
    )
    state.drawn_cards = []


def _card_discarded(state: State, event: E.ExchangeDiscarded) -> None:
    state.discards.append(event.card)
    state.drawn_cards = []


def _lent(state: State, event: E.SilverLent) -> None:
    """Money House, Lending: silver from the head office onto the loan-time track."""
    player = state.pl[event.seat]
    player.head_office -= event.amount
    player.lending[event.months - 1] += event.amount


def _deposit(state: State, event: E.DepositAccepted) -> None:
    """Money House, Accepting Deposits: 2 silver from the Deposit area to the head office."""
    player = state.pl[event.seat]
    player.deposit_area -= C.DEPOSIT_SILVER
    player.head_office += C.DEPOSIT_SILVER
    player.deposit_marker = event.months


def _yamen(state: State, event: E.YamenTileTaken) -> None:
    """Yamen: copper and the tile's silver from the head office go to the supply."""
    player = state.pl[event.seat]
    player.copper -= event.copper
    player.head_office -= event.silver
    state.supply_silver += event.silver
    state.yamen_supply[event.tile] -= 1
    player.yamen.append(event.tile)


def _income(state: State, event: E.IncomeCollected) -> None:
    state.pl[event.seat].copper += event.copper


def _loans(state: State, event: E.LoansReturned) -> None:
    """Resolution Phase 1 / Money House: lent silver shifts left; what leaves position 1 returns
    to the head office (round 8: all of it)."""
    player = state.pl[event.seat]
    player.head_office += event.silver
    player.lending = [0, 0, 0] if event.final else [player.lending[1], player.lending[2], 0]
    state.res_stage = 1 if player.deposit_marker else 3


def _interest(state: State, event: E.DepositInterestPaid) -> None:
    """Resolution Phase 2 / Money House: 2 copper interest, the deposit marker moves left."""
    player = state.pl[event.seat]
    player.copper -= event.interest
    player.deposit_marker = event.months_left
    if event.months_left == 0:
        state.res_owed, state.res_stage = C.DEPOSIT_SILVER, 2
    else:
        state.res_stage = 3


def _deposit_returned(state: State, event: E.DepositSilverReturned) -> None:
    """Money House: when the marker moves off the track, 2 silver go back to the Deposit area."""
    player = state.pl[event.seat]
    player.head_office -= event.silver
    player.deposit_area += event.silver + event.shortfall
    state.supply_silver -= event.shortfall
    state.res_owed -= event.silver + event.shortfall
    if state.res_owed <= 0:
        state.res_stage = 3


def _emergency(state: State, event: E.EmergencyTransfer) -> None:
    """Emergency Fund Transfer: a silver moves; its copper fee, or another silver to the supply."""
    player = state.pl[event.seat]
    _piaohao_add(player, event.source, -1)
    _piaohao_add(player, event.dest, 1)
    player.copper -= event.copper
    if event.fee_source:
        _piaohao_add(player, event.fee_source, -1)
        state.supply_silver += 1


def _advanced(state: State, event: E.ExchangesAdvanced) -> None:
    """Resolution Phase 3 / West Street: cards move one space down; those at 1 mature."""
    for c in state.pl[event.seat].cards:
        if c.card not in event.due:
            c.months -= 1
    state.due, state.due_locked, state.res_stage = list(event.due), False, 4


def _order(state: State, event: E.ExchangeOrderChosen) -> None:
    state.due.remove(event.card)
    state.due.insert(0, event.card)
    state.due_locked = True


def _matured(state: State, event: E.ExchangeMatured) -> None:
    """West Street, resolving an exchange card: the silver leaves the withdrawal piaohao."""
    player = state.pl[event.seat]
    if event.paid:
        silver = C.CARDS[event.card].silver
        _piaohao_add(player, event.withdraw, -silver)
        state.supply_silver += silver
    player.cards = [c for c in player.cards if c.card != event.card]
    state.discards.append(event.card)
    if event.card in state.due:
        state.due.remove(event.card)
    state.due_locked = False


def _player_resolved(state: State, event: E.PlayerResolved) -> None:
    state.res_index += 1
    state.res_stage = state.res_owed = 0
    state.due, state.due_locked = [], False


def _round_ended(state: State, event: E.RoundEnded) -> None:
    """Resolution Phase: teller dice come back; the starting-player marker passes clockwise."""
    state.start_player = event.next_start
    state.event_card = ""
    for d in state.dice:
        if d.where != "storage":
            d.where = "pool"


def _ended(state: State, event: E.GameEnded) -> None:
    state.phase = "end"


def _nothing(state: State, event: Any) -> None:
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

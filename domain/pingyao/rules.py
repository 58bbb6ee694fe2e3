"""Pingyao rules: decide / to_act / legal_moves and the automatic flow between decisions.

``decide`` validates a command against ``legal_moves`` (the single source of truth), then applies
its events to a scratch copy and runs the automatic steps (rolls, income, resolution) until some
seat must decide again; every fact it produces is an event.
"""

from __future__ import annotations

from typing import Annotated, Callable

from msgspec import Meta

from domain.kernel import Command, Event, GameOver, InvalidOptions, NotYourTurn, Options, Rng, RuleViolation, Seat, clone

from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .evolve import evolve
from .state import Frame, Player, State

Emit = Callable[[Event], None]


class PingyaoOptions(Options, frozen=True, kw_only=True):
    players: Annotated[int, Meta(ge=1, le=4, description="1 (solo campaign), 2 (public dice), 3 or 4")] = 4
    crowdfunding: Annotated[
        bool, Meta(description="Add the crowdfunding promo branch tiles and the two extra Yamen support tiles")
    ] = False
    storyline: Annotated[
        int, Meta(ge=1, le=5, description="Solo (players=1): the storyline card the player chooses (ignored otherwise)")
    ] = 1


def initial(options: PingyaoOptions) -> State:
    return State()


def setup(options: PingyaoOptions, rng: Rng) -> list[Event]:
    """Game Setup 2-3: deal the starting branches (Three-Player / Two-Player Game Rules: which
    ones; Solo Rules, Setup: Taiyuan only); Taiyuan's holder is the starting player."""
    if options.players not in (1, 2, 3, 4):
        raise InvalidOptions("Pingyao is played by 1 (solo), 2, 3 or 4 players")
    solo = options.players == 1
    if solo and options.storyline not in C.STORYLINES:
        raise InvalidOptions(f"the storyline card must be one of {sorted(C.STORYLINES)}")
    starting = ["Taiyuan"] if solo else list(C.STARTING_BY_PLAYERS[options.players])
    rng.shuffle(starting)
    out: list[Event] = []
    s = State()

    def emit(e: Event) -> None:
        out.append(e)
        evolve(s, e)

    emit(E.GameSetUp(players=options.players, crowdfunding=options.crowdfunding, starting=starting,
                     start_player=starting.index("Taiyuan")))
    if solo:  # Solo setup: the storyline card's Yamen tile; Taiyuan goes on any coloured Tier-1 region
        emit(E.StorylineChosen(storyline=options.storyline, tile=C.STORYLINES[options.storyline].yamen))
        emit(E.DecisionQueued(frames=[Frame(kind="starting_region", seat=0)]))
    _advance(s, rng, emit)
    return out


# --- whose turn --------------------------------------------------------------------------------
def acting_turn(s: State) -> tuple[int, list[int]] | None:
    """Action Phase: the highest value acts first; equal values go round the table from the
    starting player, one die per player in turn (a player with equal dice picks which).
    A rerolled die acts at once (Action Phase: reroll, "regardless of whether it is that die's
    original turn")."""
    if s.forced_die >= 0:
        return s.dice[s.forced_die].owner, [s.forced_die]
    best = 0
    for d in s.dice:
        if d.where == "number" and d.value > best:
            best = d.value
    if not best:
        return None
    n = s.players
    acted = s.acted.get(str(best)) or [0] * n
    seats = {d.owner for d in s.dice if d.where == "number" and d.value == best}
    seat = min(seats, key=lambda x: (acted[x], (x - s.start_player) % n))
    return seat, [i for i, d in enumerate(s.dice) if d.owner == seat and d.where == "number" and d.value == best]


def to_act(s: State) -> list[Seat]:
    if s.phase == "end":
        return []
    if s.frames:
        return [s.frames[0].seat]
    if s.phase == "action":
        turn = acting_turn(s)
        if turn is not None:
            return [turn[0]]
    return []


# --- legal moves ---------------------------------------------------------------------------------
def legal_moves(s: State, seat: Seat) -> list[Command]:
    if seat not in to_act(s):
        return []
    if s.frames:
        return _frame_moves(s, s.frames[0])
    turn = acting_turn(s)
    assert turn is not None
    out: list[Command] = []
    for die in turn[1]:
        out.extend(_die_moves(s, seat, die))
    return out


def _die_range(large: bool) -> int:
    """The faces of a teller die: the large die is four-sided (see components.DIE_SIDES)."""
    return C.DIE_SIDES[large]


def _reroll_price(p: Player, value: int) -> int:
    """Action Phase: the reroll fee, less Xiangyang (Tier 1 Branches) and the solo ongoing
    event-card reward (Round Goals and Rewards)."""
    cost = C.reroll_cost(value)
    if B.active(p, "reroll_discount"):
        cost -= 1  # Xiangyang: reroll costs 1 less
    if any(C.EVENT_CARDS[c].reward == "reroll_discount" for c in p.ongoing):
        cost -= 1  # solo ongoing event-card reward
    return max(0, cost)


def _die_moves(s: State, seat: int, die: int) -> list[Command]:
    """Action Phase: dispatch to an action (Yamen Support Tile Reference: "change a dispatched
    teller die to any value"), reroll once, discard for 3 copper with fewer than 5 (Note), or
    decline (Assessing the Situation)."""
    p = s.pl[seat]
    d = s.dice[die]
    out: list[Command] = []
    values = [0]
    if "any_value" in p.yamen and "any_value" not in p.used_round:
        values += list(range(1, _die_range(d.large) + 1))
    for action in C.ACTIONS:
        for v in values:
            check = bump(s, seat, die, action, v)
            if isinstance(check, str):
                continue
            out.extend(_action_moves(s, seat, die, action, v, check[0]))
    if not d.rerolled and p.copper >= _reroll_price(p, d.value):  # Action Phase: "each teller die may only be rerolled once"
        out.append(K.Reroll(die=die))
    if p.copper < C.DISCARD_BELOW:  # Action Phase, Note: fewer than 5 copper -> discard the die for 3 copper
        out.append(K.DiscardDie(die=die))
    out.append(K.Decline(die=die))  # Assessing the Situation: return the die, no compensation
    return out


def bump(s: State, seat: int, die: int, action: str, set_value: int) -> tuple[int, int] | str:
    """Action Phase, bumping a die already on an action space: (copper difference, bumped die)
    or the rule code that forbids it.  Case 1 lower pays the difference (large die 1 less),
    case 2 higher gains it (large die +1), case 3 an equal value on the space or in the resting
    area blocks; Components 7 (effect area): a full resting area blocks further bumping."""
    if action in C.LATE_ACTIONS and s.round < 3 and s.players != 1:
        # Game Flow / Setup: "action forbidden" tiles until round 3 (Solo Rules, Setup: none)
        return "action_closed"
    d = s.dice[die]
    v = set_value or d.value
    space = -1
    resting = 0
    for i, x in enumerate(s.dice):
        if x.action == action and x.where in ("space", "rest"):
            if x.value == v:
                return "same_value_blocked"
            if x.where == "space":
                space = i
            elif not (x.owner < 0 and s.players == 2):  # 2p public dice only block
                resting += 1
    delta = 0
    if space >= 0:
        if resting >= C.resting_capacity(s.players):
            return "resting_area_full"
        sv = s.dice[space].value
        if v < sv:
            if set_value:
                delta = sv - v  # Yamen "any value": gain the difference instead of paying
            else:
                delta = -max(0, sv - v - (1 if d.large else 0))
        else:
            delta = v - sv + (1 if d.large else 0)
    if s.pl[seat].copper + delta < 0:  # case 1: "you must first pay copper coins equal to the difference"
        return "insufficient_copper"
    return delta, space


def _action_moves(s: State, seat: int, die: int, action: str, v: int, delta: int) -> list[Command]:
    """Actions: what each action allows for the die's value.  The value difference is collected
    first, so it can pay for the action (Action Phase: "they may first collect that difference")."""
    p = s.pl[seat]
    value = v or s.dice[die].value
    bd = C.band(value)
    avail = p.copper + delta
    out: list[Command] = []
    if action == "bank_escort":  # Actions: die value requirements; Bank Escort: cost, capital
        tiers = list(C.tiers_for(value))
        if "tier3_any" in p.yamen and 3 not in tiers:  # Yamen tile: Tier 3 with any die value
            tiers.append(3)
        for t in tiers:
            if avail < C.BUILD_COST[t] or p.head_office < C.CAPITAL[t] or not B.tiles_left(s, t):
                continue
            for c in C.COLORS:
                if not p.regions[f"{t}{c}"].tile:
                    out.append(K.BankEscort(die=die, tier=t, color=c, value=v))
    elif action == "confucius_temple":  # Confucius Temple: 5-6 pay 2 more; needs a free position
        if avail >= (2 if bd == 2 else 0) and B.teller_targets(p):
            out.append(K.ConfuciusTemple(die=die, value=v))
    elif action == "west_street":  # West Street: at most 3 exchange cards at once
        if len(p.cards) < C.MAX_CARDS and B.cards_left(s):
            out.append(K.WestStreet(die=die, value=v))
    elif action == "money_house":  # Money House: Lending or Accepting Deposits, months by die value
        limit = C.MONTHS_BY_BAND[bd]
        total = sum(p.lending)
        a = C.LEND_AMOUNT  # Money House, Lending: always 2 silver from the head office
        for m in range(1, limit + 1):
            if p.lending[m - 1] + a <= C.LEND_PER_POSITION and total + a <= C.LEND_TOTAL and p.head_office >= a:
                out.append(K.MoneyHouseLend(die=die, months=m, amount=a, value=v))
        if p.deposit_marker == 0 and p.deposit_area >= C.DEPOSIT_SILVER:  # one deposit marker, 2 silver
            for m in range(1, limit + 1):
                out.append(K.MoneyHouseDeposit(die=die, months=m, value=v))
    elif action == "city_god_temple":  # City God Temple (+ Yamen tile "-1 copper, +1 reputation")
        cost = _city_god(p, value, False)[1]
        if avail >= cost:
            out.append(K.CityGodTemple(die=die, value=v))
            if _extra_ok(p, value) and avail >= cost + 1:
                out.append(K.CityGodTemple(die=die, extra=True, value=v))
    elif action == "yamen":  # Yamen: copper by value, the tile's silver, no duplicates, HO not empty
        if p.head_office >= 1 and avail >= C.YAMEN_COPPER[bd]:
            for tile, left in s.yamen_supply.items():
                if left > 0 and tile not in p.yamen and p.head_office >= C.YAMEN_TILES[tile].silver:
                    out.append(K.Yamen(die=die, tile=tile, value=v))
    return out


def _city_god(p: Player, value: int, extra: bool) -> tuple[int, int]:
    """City God Temple: 1-2 pay 2 for +2; 3-4 free +1; 5-6 pay 1 for +1 (reputation, cost).
    At reputation 15 the action has no further effect."""
    if p.reputation >= C.REPUTATION_MAX:
        return 0, 0
    amount, cost = ((2, 2), (1, 0), (1, 1))[C.band(value)]
    if extra:
        amount, cost = amount + 1, cost + 1
    return amount, cost


def _extra_ok(p: Player, value: int) -> bool:
    """Yamen Support Tile Reference: "-1 copper coin, +1 reputation" with a die value of 3-6."""
    return "reputation_extra" in p.yamen and value >= 3 and p.reputation + 1 < C.REPUTATION_MAX


def _frame_moves(s: State, f: Frame) -> list[Command]:
    """The pending sub-decision's choices (each names the rule it comes from)."""
    p = s.pl[f.seat]
    out: list[Command] = []
    if f.kind == "prep":
        return _prep_moves(s, f.seat)
    if f.kind == "public_die":
        return _public_die_moves(s)
    if f.kind == "starting_region":  # Solo Rules, Setup: Taiyuan on any coloured Tier-1 region
        return [K.PlaceStartingBranch(color=c) for c in C.COLORS]
    if f.kind == "round_reward":  # Solo Rules, Round Goals and Rewards 1: "you may choose to decline"
        return ([K.ClaimReward(accept=True)] if reward_possible(s, f.card) else []) + [K.ClaimReward(accept=False)]
    if f.kind == "reward_yamen":
        return [K.TakeYamenTile(tile=t) for t in _reward_tiles(s, p)]
    if f.kind == "extra_action":
        return [K.TakeBackDie(die=i) for i in _used_dice(s, f.seat)]
    if f.kind == "choose_branch":  # Bank Escort: keep one of the 4; Actions: no two identical skills
        owned = B.skills(p)
        return [K.ChooseBranch(tile=t) for t in s.drawn if C.TILES[t].skill not in owned]
    if f.kind == "place_teller":  # Confucius Temple: teller position, management position or empty region
        if f.cost > p.copper:
            return [K.PlaceTeller(target="")]
        targets = B.teller_targets(p, f.region)
        if f.region:  # Actions: a waiting teller "may" move onto the new branch (or stay)
            targets.append(f"{f.region}:wait")
        return [K.PlaceTeller(target=t) for t in targets] or [K.PlaceTeller(target="")]
    if f.kind == "move_silver":  # Confucius Temple 1-2: "you may move 1 silver ingot" to any branch
        out = [K.MoveSilver(region="")]
        if p.head_office > 0:
            out += [K.MoveSilver(region=r) for r in B.branch_regions(p)]
        return out
    if f.kind == "choose_card":  # Ningxia (Tier 1 Branches) / reputation 6: keep one of the drawn cards
        return [K.ChooseExchangeCard(card=c) for c in s.drawn_cards]
    if f.kind == "place_exchange":  # West Street, step 1: months, deposit and withdrawal piaohao
        return [K.PlaceExchange(months=m, deposit=d, withdraw=w) for m, d, w in _placements(p, f.card, f.months)]
    if f.kind == "entry_skill":  # Branch Skill Reference: immediate on-entry effects are optional ("may")
        return [K.UseEntrySkill(use=True), K.UseEntrySkill(use=False)]
    if f.kind == "resolve_order":  # West Street: "the player decides the order in which they resolve"
        return [K.ResolveExchange(card=c) for c in s.due]
    if f.kind == "transfer":  # Emergency Fund Transfer: 5 copper, or a silver to the supply instead
        sources = [x for x in B.piaohaos(p) if x != f.dest and B.silver_at(p, x) > 0]
        for src in sources:
            if p.copper >= C.TRANSFER_FEE:
                out.append(K.TransferFunds(source=src))
                continue
            fees = [x for x in B.piaohaos(p) if x != f.dest and B.silver_at(p, x) - (x == src) > 0]
            out += [K.TransferFunds(source=src, fee_source=x) for x in fees] or [K.TransferFunds(source=src)]
        return out
    return out


def _reward_tiles(s: State, p: Player) -> list[str]:
    """Solo Rules, Event Card Reward Notes 2: a Yamen support tile still costs its silver from the head office."""
    if p.head_office < 1:
        return []
    return [t for t, left in s.yamen_supply.items()
            if left > 0 and t not in p.yamen and p.head_office >= C.YAMEN_TILES[t].silver]


def _used_dice(s: State, seat: int) -> list[int]:
    """Solo Rules, Event Card Reward Notes 3: the teller dice already used for an action this round."""
    return [i for i, d in enumerate(s.dice) if d.owner == seat and d.where in ("space", "rest")]


def reward_possible(s: State, card: str) -> bool:
    """Solo Rules, Round Goals and Rewards: whether the event card's reward can be taken now
    (it may always be declined)."""
    ev = C.EVENT_CARDS[card]
    p = s.pl[0]
    if ev.reward == "exchange":
        return len(p.cards) < C.MAX_CARDS and B.cards_left(s) > 0
    if ev.reward == "yamen":
        return bool(_reward_tiles(s, p))
    if ev.reward == "extra_action":
        return bool(_used_dice(s, 0))
    return True


def _public_die_moves(s: State) -> list[Command]:
    """Two-Player Game Rules: each rolled public die goes to an action's resting area (at most one
    public die each; rounds 1-2 not Confucius Temple or Yamen) or out of play this round."""
    taken = {d.action for d in s.dice if d.owner < 0 and d.where == "rest"}
    actions = [a for a in C.ACTIONS if a not in taken and not (s.round < 3 and a in C.LATE_ACTIONS)]
    out: list[Command] = []
    for i, d in enumerate(s.dice):
        if d.where == "draft":
            out += [K.PlacePublicDie(die=i, action=a) for a in actions]
            out.append(K.PlacePublicDie(die=i, action=""))
    return out


def _placements(p: Player, card: str, months: int) -> list[tuple[int, str, str]]:
    """West Street: deposit and withdrawal piaohao of the card's colours, never the same one."""
    c = C.CARDS[card]
    deps = [x for x in B.piaohaos(p) if c.deposit in B.colors_of(p, x)]
    wds = [x for x in B.piaohaos(p) if c.withdraw in B.colors_of(p, x)]
    pairs = [(d, w) for d in deps for w in wds if d != w]
    return [(m, d, w) for m in range(1, months + 1) for d, w in pairs]


def _prep_moves(s: State, seat: int) -> list[Command]:
    """Preparation Phase 2-3: Tier-1 activation skills (Tier 1 Branches: Lasa, Changde, Jinzhou,
    Jiujiang; once per round, within the die's range, no wrapping) and copper -> silver."""
    p = s.pl[seat]
    out: list[Command] = []
    mine = [i for i, d in enumerate(s.dice) if d.owner == seat and d.where == "number"]
    if B.active(p, "die_minus") and "die_minus" not in p.used_round:
        out += [K.AdjustDie(skill="die_minus", die=i) for i in mine if s.dice[i].value > 1]
    if B.active(p, "die_plus") and "die_plus" not in p.used_round:
        out += [K.AdjustDie(skill="die_plus", die=i) for i in mine if s.dice[i].value < _die_range(s.dice[i].large)]
    if B.active(p, "die_swap") and "die_swap" not in p.used_round:
        out += [K.SwapDice(up=a, down=b) for a in mine for b in mine
                if a != b and s.dice[a].value < _die_range(s.dice[a].large) and s.dice[b].value > 1]
    if B.active(p, "recall_silver") and "recall_silver" not in p.used_round and p.copper >= 2:
        out += [K.RecallSilver(region=r) for r in B.branch_regions(p) if p.regions[r].silver > 0]
    out += [K.ConvertCopper(silver=n) for n in range(1, p.copper // 10 + 1)]
    out.append(K.EndPreparation())
    return out


# --- decide ------------------------------------------------------------------------------------------
def decide(state: State, seat: Seat, command: Command, rng: Rng) -> list[Event]:
    if state.phase == "end":
        raise GameOver()
    if seat not in to_act(state):
        raise NotYourTurn()
    legal = legal_moves(state, seat)
    if command not in legal:
        raise _why(state, seat, command)
    s = clone(state)
    out: list[Event] = []

    def emit(e: Event) -> None:
        out.append(e)
        evolve(s, e)

    _handle(s, seat, command, rng, emit)
    _advance(s, rng, emit)
    return out


_FRAME_RULE = {
    "choose_card": "Branch Skill Reference: Ningxia", "entry_skill": "Branch Skill Reference",
    "resolve_order": "West Street", "transfer": "Emergency Fund Transfer", "move_silver": "Confucius Temple",
}


def _why(s: State, seat: int, cmd: Command) -> RuleViolation:
    """The rule a command not among the legal moves breaks (a stable code)."""
    f = s.frames[0] if s.frames else None
    expected = {
        "prep": (K.AdjustDie, K.SwapDice, K.RecallSilver, K.ConvertCopper, K.EndPreparation),
        "public_die": (K.PlacePublicDie,), "starting_region": (K.PlaceStartingBranch,),
        "round_reward": (K.ClaimReward,), "reward_yamen": (K.TakeYamenTile,), "extra_action": (K.TakeBackDie,),
        "choose_branch": (K.ChooseBranch,), "place_teller": (K.PlaceTeller,), "move_silver": (K.MoveSilver,),
        "choose_card": (K.ChooseExchangeCard,), "place_exchange": (K.PlaceExchange,),
        "entry_skill": (K.UseEntrySkill,), "resolve_order": (K.ResolveExchange,), "transfer": (K.TransferFunds,),
    }
    if f is not None:
        if not isinstance(cmd, expected[f.kind]):
            return RuleViolation("wrong_decision", f"a {f.kind} decision is pending", rule="Game Flow")
        if isinstance(cmd, K.ConvertCopper):
            return RuleViolation("insufficient_copper", "10 copper per silver", rule="Preparation phase 3")
        if isinstance(cmd, (K.AdjustDie, K.SwapDice, K.RecallSilver)):
            return RuleViolation("skill_unavailable", "that skill cannot be used now", rule="Tier 1 branches")
        if isinstance(cmd, K.PlaceTeller):
            return RuleViolation("invalid_position", "no such free branch-teller position", rule="Confucius Temple")
        if isinstance(cmd, K.PlaceExchange):
            return RuleViolation("invalid_exchange", "deposit/withdrawal must match the card's colours, differ, "
                                 "and the months the die allows", rule="West Street")
        if isinstance(cmd, K.PlacePublicDie):
            d = s.dice[cmd.die] if 0 <= cmd.die < len(s.dice) else None
            if d is None or d.where != "draft":
                return RuleViolation("not_a_public_die", "choose one of the rolled public dice",
                                     rule="Two-player game rules")
            if cmd.action in C.LATE_ACTIONS and s.round < 3:
                return RuleViolation("action_closed", "rounds 1-2: not Confucius Temple or Yamen",
                                     rule="Two-player game rules")
            if cmd.action in C.ACTIONS:
                return RuleViolation("public_die_limit", "each resting area holds at most 1 public die",
                                     rule="Two-player game rules")
            return RuleViolation("unknown_action", "no such action", rule="Two-player game rules")
        if isinstance(cmd, K.PlaceStartingBranch):
            return RuleViolation("invalid_region", "choose red, yellow or green", rule="Solo rules: Setup")
        if isinstance(cmd, K.ClaimReward):
            return RuleViolation("reward_unavailable", "the reward cannot be taken now; it may be declined",
                                 rule="Solo rules: Event Card Reward Notes")
        if isinstance(cmd, K.TakeYamenTile):
            return RuleViolation("yamen_tile_unavailable", "not available, already owned or the head office "
                                 "cannot pay its silver", rule="Solo rules: Event Card Reward Notes 2")
        if isinstance(cmd, K.TakeBackDie):
            return RuleViolation("die_not_used", "take back one of your teller dice already used this round",
                                 rule="Solo rules: Event Card Reward Notes 3")
        if isinstance(cmd, K.ChooseBranch):
            return RuleViolation("invalid_branch", "choose one of the drawn tiles without a skill you already have",
                                 rule="Bank Escort")
        return RuleViolation("illegal_choice", "that choice is not available", rule=_FRAME_RULE.get(f.kind, "Game Flow"))
    turn = acting_turn(s)
    assert turn is not None
    if not isinstance(cmd, (K.Reroll, K.DiscardDie, K.Decline) + K.DISPATCH):
        return RuleViolation("wrong_decision", "it is the action phase: act with a teller die", rule="Action Phase")
    die = getattr(cmd, "die", -1)
    if die not in turn[1]:
        return RuleViolation("not_this_die", "it is not this die's turn to act", rule="Action phase")
    p = s.pl[seat]
    d = s.dice[die]
    if isinstance(cmd, K.Reroll):
        if d.rerolled:
            return RuleViolation("already_rerolled", "each teller die may be rerolled once", rule="Action phase")
        return RuleViolation("insufficient_copper", "cannot pay the reroll fee", rule="Action Phase")
    if isinstance(cmd, K.DiscardDie):
        return RuleViolation("too_much_copper", "only with fewer than 5 copper", rule="Action Phase: Note")
    action = K.ACTION_OF[type(cmd)]
    v = getattr(cmd, "value", 0)
    if v and ("any_value" not in p.yamen or "any_value" in p.used_round or not 1 <= v <= _die_range(d.large)):
        return RuleViolation("value_change_unavailable", "no Yamen tile to change the die's value",
                             rule="Yamen Support Tile Reference")
    check = bump(s, seat, die, action, v)
    if isinstance(check, str):
        return RuleViolation(check, f"cannot dispatch to {action}: {check.replace('_', ' ')}", rule="Action phase: bumping")
    value = v or d.value
    avail = p.copper + check[0]
    if isinstance(cmd, K.BankEscort):
        if cmd.tier not in C.tiers_for(value) and not (cmd.tier == 3 and "tier3_any" in p.yamen):
            return RuleViolation("tier_not_allowed", "the die value does not allow that tier", rule="Bank Escort")
        if cmd.color not in C.COLORS or p.regions[f"{cmd.tier}{cmd.color}"].tile:
            return RuleViolation("region_occupied", "that region already has a branch", rule="Bank Escort")
        if avail < C.BUILD_COST[cmd.tier]:
            return RuleViolation("insufficient_copper", "cannot pay for the branch", rule="Bank Escort")
        if p.head_office < C.CAPITAL[cmd.tier]:
            return RuleViolation("insufficient_silver", "the head office lacks the starting capital", rule="Bank Escort")
        return RuleViolation("stack_empty", "no tiles of that tier remain", rule="Bank Escort")
    if isinstance(cmd, K.WestStreet):
        if len(p.cards) >= C.MAX_CARDS:
            return RuleViolation("too_many_exchanges", "at most 3 exchange cards", rule="West Street")
        return RuleViolation("deck_empty", "no exchange cards remain", rule="West Street")
    if isinstance(cmd, K.MoneyHouseLend):
        if not 1 <= cmd.months <= C.MONTHS_BY_BAND[C.band(value)]:
            return RuleViolation("months_not_allowed", "the die value limits the months", rule="Money House")
        if cmd.amount != C.LEND_AMOUNT:
            return RuleViolation("invalid_lend_amount", "lending takes exactly 2 silver from the head office",
                                 rule="Money House: Lending")
        if p.head_office < cmd.amount:
            return RuleViolation("insufficient_silver", "not enough silver in the head office", rule="Money House")
        return RuleViolation("lending_full", "at most 2 silver per position and 4 in all", rule="Money House")
    if isinstance(cmd, K.MoneyHouseDeposit):
        if not 1 <= cmd.months <= C.MONTHS_BY_BAND[C.band(value)]:
            return RuleViolation("months_not_allowed", "the die value limits the months", rule="Money House")
        return RuleViolation("deposit_taken", "a deposit is already accepted", rule="Money House")
    if isinstance(cmd, K.CityGodTemple):
        if cmd.extra and not _extra_ok(p, value):
            return RuleViolation("extra_not_allowed", "needs the Yamen tile and a 3-6", rule="Yamen Support Tile Reference")
        return RuleViolation("insufficient_copper", "cannot pay for the reputation", rule="City God Temple")
    if isinstance(cmd, K.Yamen):
        if cmd.tile in p.yamen:
            return RuleViolation("duplicate_yamen_tile", "no two tiles with the same effect", rule="Yamen")
        if s.yamen_supply.get(cmd.tile, 0) <= 0:
            return RuleViolation("yamen_tile_unavailable", "no such tile left", rule="Yamen")
        if avail < C.YAMEN_COPPER[C.band(value)]:
            return RuleViolation("insufficient_copper", "cannot pay the Yamen", rule="Yamen")
        return RuleViolation("insufficient_silver", "the head office cannot pay the tile", rule="Yamen")
    if isinstance(cmd, K.ConfuciusTemple):
        if not B.teller_targets(p):
            return RuleViolation("no_teller_position", "no free branch-teller position", rule="Confucius Temple")
        return RuleViolation("insufficient_copper", "5-6 costs 2 more copper", rule="Confucius Temple")
    return RuleViolation("illegal_move", "that move is not allowed now", rule="Actions")


# --- handlers ----------------------------------------------------------------------------------------
def _handle(s: State, seat: int, cmd: Command, rng: Rng, emit: Emit) -> None:
    p = s.pl[seat]
    if s.frames:
        f = s.frames[0]
        _handle_frame(s, seat, p, f, cmd, rng, emit)
        return
    if isinstance(cmd, K.Reroll):  # Action Phase: pay the fee, reroll once, act at once on the new value
        d = s.dice[cmd.die]
        emit(E.DieRerolled(seat=seat, die=cmd.die, cost=_reroll_price(p, d.value),
                           value=rng.between(1, _die_range(d.large))))
        return
    if isinstance(cmd, K.DiscardDie):
        emit(E.DieDiscarded(seat=seat, die=cmd.die, copper=C.DISCARD_COPPER))  # Action Phase, Note
        return
    if isinstance(cmd, K.Decline):  # Assessing the Situation
        emit(E.DieDeclined(seat=seat, die=cmd.die))
        return
    action = K.ACTION_OF[type(cmd)]
    v = cmd.value  # type: ignore[attr-defined]
    delta, bumped = bump(s, seat, cmd.die, action, v)  # type: ignore[misc,attr-defined]
    value = v or s.dice[cmd.die].value  # type: ignore[attr-defined]
    # Action Phase: place the die (bumping the space's die to the resting area) and settle the difference
    emit(E.DieDispatched(seat=seat, die=cmd.die, action=action, value=value, bumped=bumped, copper=delta))  # type: ignore[attr-defined]
    if v:
        emit(E.DieAdjusted(seat=seat, skill="any_value", die=cmd.die, value=value))  # type: ignore[attr-defined]
    bd = C.band(value)
    frames: list[Frame] = []
    bonuses: list[str] = []
    if isinstance(cmd, K.BankEscort):  # Bank Escort: pay, draw 4 of the tier, keep one, 3 to the bottom
        region = f"{cmd.tier}{cmd.color}"
        tiles = _draw_tiles(s, cmd.tier, C.ESCORT_DRAW, rng)
        emit(E.BranchTilesDrawn(seat=seat, tier=cmd.tier, region=region, cost=C.BUILD_COST[cmd.tier],
                                count=len(tiles), tiles=tiles))
        owned = B.skills(p)
        if any(C.TILES[t].skill not in owned for t in tiles):
            frames.append(Frame(kind="choose_branch", seat=seat, region=region))
        else:  # no tile can be built (every skill already owned): all go to the bottom
            emit(E.BranchTilesReturned(seat=seat, tier=cmd.tier, count=len(tiles), tiles=tiles))
    elif isinstance(cmd, K.ConfuciusTemple):  # Confucius Temple: a branch teller (5-6: 2 copper), 1-2: a silver
        frames.append(Frame(kind="place_teller", seat=seat, cost=2 if bd == 2 else 0))
        if bd == 0:
            frames.append(Frame(kind="move_silver", seat=seat))
    elif isinstance(cmd, K.WestStreet):  # West Street (+1 card: Ningxia; City God Temple: reputation 6)
        n = 1 + (1 if B.active(p, "extra_card") else 0) + (1 if p.reputation >= C.REPUTATION_EXTRA_CARD else 0)
        frames += _draw_exchange(s, seat, n, C.MONTHS_BY_BAND[bd], True, rng, emit)
    elif isinstance(cmd, K.MoneyHouseLend):  # Money House: Lending
        emit(E.SilverLent(seat=seat, months=cmd.months, amount=cmd.amount))
    elif isinstance(cmd, K.MoneyHouseDeposit):  # Money House: Accepting Deposits
        emit(E.DepositAccepted(seat=seat, months=cmd.months))
    elif isinstance(cmd, K.CityGodTemple):  # City God Temple
        amount, cost = _city_god(p, value, cmd.extra)
        if amount:
            emit(E.ReputationGained(seat=seat, amount=amount, cost=cost, reason="city_god_temple"))
            _rep_bonuses(s, seat, frames, bonuses)
    elif isinstance(cmd, K.Yamen):  # Yamen: "immediately gain the benefit it provides"
        emit(E.YamenTileTaken(seat=seat, tile=cmd.tile, copper=C.YAMEN_COPPER[bd], silver=C.YAMEN_TILES[cmd.tile].silver))
        _tier3_bonus(s, seat, frames, bonuses)
    if frames or bonuses:
        emit(E.DecisionQueued(frames=frames, seat=seat, bonuses=bonuses))


def _rep_bonuses(s: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """City God Temple: reputation track bonuses above the track - 2, 8, 13: a free branch
    teller, once per game each, on any region (with or without a branch)."""
    p = s.pl[seat]
    for t in C.REPUTATION_TELLER_BONUS:
        key = f"rep{t}"
        if p.reputation >= t and key not in p.bonuses and key not in bonuses:
            bonuses.append(key)
            frames.append(Frame(kind="place_teller", seat=seat))


def _tier3_bonus(s: State, seat: int, frames: list[Frame], bonuses: list[str]) -> None:
    """Yamen Support Tile Reference ("May build a Tier-3 branch with any teller-die value"): once
    a Tier-3 branch is open, gain 1 free branch teller (once)."""
    p = s.pl[seat]
    if "tier3_any" in p.yamen and "tier3_teller" not in p.bonuses and any(
        p.regions[f"3{c}"].tile for c in C.COLORS
    ):
        bonuses.append("tier3_teller")
        frames.append(Frame(kind="place_teller", seat=seat))


def _draw_tiles(s: State, tier: int, n: int, rng: Rng) -> list[str]:
    """Bank Escort: draw from the tier's face-down stack (its unknown part at random); tiles put
    back "at the bottom of the corresponding tile stack" come last."""
    pool = list(s.stacks[str(tier)])
    bottom = list(s.bottoms[str(tier)])
    out = []
    for _ in range(n):
        if pool:
            out.append(pool.pop(rng.below(len(pool))))
        elif bottom:
            out.append(bottom.pop(0))
    return out


def _draw_exchange(s: State, seat: int, n: int, months: int, fee: bool, rng: Rng, emit: Emit) -> list[Frame]:
    """West Street step 1: draw exchange cards ("Once the exchange-card deck is exhausted, shuffle
    the discard pile to form a new exchange deck")."""
    cards: list[str] = []
    if len(s.deck) + len(s.deck_bottom) < n and s.discards:
        # The deck runs out: the discards are shuffled in (before the draw, so one event says it all).
        emit(E.DeckReshuffled(count=len(s.discards)))
    pool = list(s.deck)
    bottom = list(s.deck_bottom)
    for _ in range(n):
        if pool:
            cards.append(pool.pop(rng.below(len(pool))))
        elif bottom:
            cards.append(bottom.pop(0))
    if cards:
        emit(E.ExchangeCardsDrawn(seat=seat, count=len(cards), cards=cards))
    if len(s.drawn_cards) > 1:
        return [Frame(kind="choose_card", seat=seat, months=months, fee=fee)]
    if s.drawn_cards:
        return _offer_exchange(s, seat, s.drawn_cards[0], months, fee, emit)
    return []


def _offer_exchange(s: State, seat: int, card: str, months: int, fee: bool, emit: Emit) -> list[Frame]:
    if not _placements(s.pl[seat], card, months):
        # West Street: "If you are unable to choose a valid deposit location and withdrawal location
        # as required by the card, you must immediately discard the exchange card and end the action."
        emit(E.ExchangeDiscarded(seat=seat, card=card))
        return []
    return [Frame(kind="place_exchange", seat=seat, card=card, months=months, fee=fee)]


def _exchange_fee(p: Player, card: str, withdraw: str) -> int:
    """West Street, handling fee: the card's base; withdrawal at the head office -1, Tier 2 +1,
    Tier 3 +2; Exchange progress track 3 and 6 each +1 for "all future exchange actions" (the
    position before this exchange's advance); Yamen tile "+3 copper coins per exchange handling fee"."""
    fee = C.CARDS[card].fee
    if withdraw == C.HEAD_OFFICE:
        fee += C.HEAD_OFFICE_FEE_ADJUST
    else:
        tile = C.TILES[p.regions[withdraw].tile]
        fee += C.WITHDRAW_FEE_ADJUST[tile.tier]
    fee += sum(b for pos, b in C.EXCHANGE_FEE_BONUS.items() if p.exchange >= pos)
    if "exchange_fee" in p.yamen:
        fee += 3
    return max(0, fee)


def _handle_frame(s: State, seat: int, p: Player, f: Frame, cmd: Command, rng: Rng, emit: Emit) -> None:
    frames: list[Frame] = []
    bonuses: list[str] = []
    if isinstance(cmd, K.PlacePublicDie):  # Two-Player Game Rules: resting area or out of play
        emit(E.PublicDiePlaced(seat=seat, die=cmd.die, action=cmd.action, frame=True))
    elif isinstance(cmd, K.PlaceStartingBranch):  # Solo Rules, Setup
        emit(E.StartingBranchPlaced(seat=seat, region=f"1{cmd.color}", frame=True))
    elif isinstance(cmd, K.ClaimReward):
        _claim_reward(s, seat, f.card, cmd.accept, frames, bonuses, rng, emit)
    elif isinstance(cmd, K.TakeYamenTile):  # Solo Rules, Event Card Reward Notes 2
        emit(E.YamenTileTaken(seat=seat, tile=cmd.tile, copper=0, silver=C.YAMEN_TILES[cmd.tile].silver, frame=True))
        _tier3_bonus(s, seat, frames, bonuses)
    elif isinstance(cmd, K.TakeBackDie):  # Solo Rules, Event Card Reward Notes 3: take back, reroll, act
        d = s.dice[cmd.die]
        emit(E.DieTakenBack(seat=seat, die=cmd.die, value=rng.between(1, _die_range(d.large)), frame=True))
    elif isinstance(cmd, K.AdjustDie):  # Tier 1 Branches: Lasa -1 / Changde +1 (Preparation Phase 2)
        d = s.dice[cmd.die]
        emit(E.DieAdjusted(seat=seat, skill=cmd.skill, die=cmd.die, value=d.value + (1 if cmd.skill == "die_plus" else -1)))
    elif isinstance(cmd, K.SwapDice):  # Tier 1 Branches: Jinzhou, both dice change
        emit(E.DieAdjusted(seat=seat, skill="die_swap", die=cmd.up, value=s.dice[cmd.up].value + 1))
        emit(E.DieAdjusted(seat=seat, skill="die_swap", die=cmd.down, value=s.dice[cmd.down].value - 1))
    elif isinstance(cmd, K.RecallSilver):  # Tier 1 Branches: Jiujiang, 2 copper
        emit(E.SilverRecalled(seat=seat, region=cmd.region, cost=2))
    elif isinstance(cmd, K.ConvertCopper):  # Preparation Phase 3: 10 copper = 1 silver
        emit(E.CopperConverted(seat=seat, silver=cmd.silver))
    elif isinstance(cmd, K.EndPreparation):
        emit(E.PreparationEnded(seat=seat, frame=True))
    elif isinstance(cmd, K.ChooseBranch):
        region = f.region
        tier = C.region_tier(region)
        rest = [t for t in s.drawn if t != cmd.tile]
        emit(E.BranchOpened(seat=seat, region=region, tile=cmd.tile, capital=C.CAPITAL[tier], frame=True))
        emit(E.BranchTilesReturned(seat=seat, tier=tier, count=len(rest), tiles=rest))
        if tier == 1:  # Actions: "Opening a Tier 1 branch: your meeple immediately advances 1 space"
            emit(E.ReputationGained(seat=seat, amount=1, reason="tier1_branch"))
        if p.regions[region].waiting:  # Actions: a waiting branch teller may move onto the new branch
            frames.append(Frame(kind="place_teller", seat=seat, region=region))
        skill = C.TILES[cmd.tile].skill  # Branch Skill Reference: immediate on-entry effects
        if skill == "entry_rep1":  # Kobe: +1 reputation on entry
            emit(E.ReputationGained(seat=seat, amount=1, reason="Kobe"))
        elif skill in ("entry_rep2", "entry_teller") and p.copper >= 2:
            frames.append(Frame(kind="entry_skill", seat=seat, skill=skill))
        elif skill == "entry_exchange" and len(p.cards) < C.MAX_CARDS and B.cards_left(s):
            frames.append(Frame(kind="entry_skill", seat=seat, skill=skill))
        elif skill == "entry_copper_exchange":
            frames.append(Frame(kind="entry_skill", seat=seat, skill=skill))
        elif skill == "entry_reset" and sum(r.tellers + r.managers + r.waiting for r in p.regions.values()):
            frames.append(Frame(kind="entry_skill", seat=seat, skill=skill))
        _rep_bonuses(s, seat, frames, bonuses)
        if tier == 3:
            _tier3_bonus(s, seat, frames, bonuses)
    elif isinstance(cmd, K.PlaceTeller):
        emit(E.TellerPlaced(seat=seat, target=cmd.target, cost=f.cost if cmd.target else 0,
                            source=f"{f.region}:wait" if f.region else "supply", frame=True))
    elif isinstance(cmd, K.MoveSilver):  # Confucius Temple 1-2
        emit(E.SilverMoved(seat=seat, source=C.HEAD_OFFICE, dest=cmd.region, reason="confucius_temple", frame=True))
    elif isinstance(cmd, K.ChooseExchangeCard):  # Ningxia: "the unchosen card goes to the bottom"
        rest = [c for c in s.drawn_cards if c != cmd.card]
        emit(E.ExchangeCardChosen(seat=seat, card=cmd.card, returned=rest, count=len(rest), frame=True))
        frames += _offer_exchange(s, seat, cmd.card, f.months, f.fee, emit)
    elif isinstance(cmd, K.PlaceExchange):  # West Street: deposit 1 silver, fee once, Exchange track +1
        fee = _exchange_fee(p, f.card, cmd.withdraw) if f.fee else 0
        emit(E.ExchangePlaced(seat=seat, card=f.card, months=cmd.months, deposit=cmd.deposit, withdraw=cmd.withdraw,
                              fee=fee, advance=f.fee, frame=True))
    elif isinstance(cmd, K.UseEntrySkill):
        emit(E.EntrySkillDecided(seat=seat, skill=f.skill, use=cmd.use, frame=True))
        if cmd.use:
            if f.skill == "entry_rep2":  # Singapore: pay 2 copper, +2 reputation
                emit(E.ReputationGained(seat=seat, amount=2, cost=2, reason="Singapore"))
                _rep_bonuses(s, seat, frames, bonuses)
            elif f.skill == "entry_teller":  # Suzhou: pay 2 copper, recruit and place a teller
                frames.append(Frame(kind="place_teller", seat=seat, cost=2))
            elif f.skill == "entry_exchange":  # Xinyizhou: a 1-month exchange without fee
                frames += _draw_exchange(s, seat, 1, 1, False, rng, emit)
            elif f.skill == "entry_copper_exchange":  # Incheon: 2 copper and a 1-2 month exchange
                emit(E.CopperGained(seat=seat, amount=2, reason="Incheon"))
                if len(p.cards) < C.MAX_CARDS and B.cards_left(s):
                    frames += _draw_exchange(s, seat, 1, 2, False, rng, emit)
            elif f.skill == "entry_reset":  # Tokyo: recall every branch teller and reassign
                n = sum(r.tellers + r.managers + r.waiting for r in p.regions.values())
                emit(E.TellersRecalled(seat=seat, count=n))
                frames += [Frame(kind="place_teller", seat=seat) for _ in range(n)]
    elif isinstance(cmd, K.ResolveExchange):  # West Street: the player decides the order
        emit(E.ExchangeOrderChosen(seat=seat, card=cmd.card, frame=True))
    elif isinstance(cmd, K.TransferFunds):  # Emergency Fund Transfer
        emit(E.EmergencyTransfer(seat=seat, source=cmd.source, dest=f.dest,
                                 copper=C.TRANSFER_FEE if p.copper >= C.TRANSFER_FEE else 0,
                                 fee_source=cmd.fee_source, frame=True))
    if frames or bonuses:
        emit(E.DecisionQueued(frames=frames, seat=seat, bonuses=bonuses))


def _claim_reward(s: State, seat: int, card: str, accept: bool, frames: list[Frame], bonuses: list[str],
                  rng: Rng, emit: Emit) -> None:
    """Solo Rules, Round Goals and Rewards: take the reward (or decline it). One-time rewards act
    now, ongoing ones are kept (income, rerolls)."""
    ev = C.EVENT_CARDS[card]
    emit(E.RewardClaimed(seat=seat, card=card, accept=accept, ongoing=accept and ev.ongoing, frame=True))
    if not accept:
        return
    p = s.pl[seat]
    if ev.reward == "copper":
        emit(E.CopperGained(seat=seat, amount=ev.amount, reason="event card"))
    elif ev.reward == "reputation":
        emit(E.ReputationGained(seat=seat, amount=ev.amount, reason="event card"))
        _rep_bonuses(s, seat, frames, bonuses)
    elif ev.reward == "silver":
        emit(E.SilverGained(seat=seat, amount=ev.amount, reason="event card"))
    elif ev.reward == "teller":
        frames.append(Frame(kind="place_teller", seat=seat))
    elif ev.reward == "exchange":
        # Note 1: a full exchange action (fee and exchange-track advance); a 2-month exchange may
        # also be placed at position 1.
        n = 1 + (1 if B.active(p, "extra_card") else 0) + (1 if p.reputation >= C.REPUTATION_EXTRA_CARD else 0)
        frames += _draw_exchange(s, seat, n, ev.amount, True, rng, emit)
    elif ev.reward == "yamen":
        frames.append(Frame(kind="reward_yamen", seat=seat))
    elif ev.reward == "extra_action":
        frames.append(Frame(kind="extra_action", seat=seat))


def _goal_reached(s: State) -> bool:
    """Solo Rules, Round Goals and Rewards: this round's goal - perform the card's action the
    number of times shown ("at any point during the round")."""
    if s.players != 1 or not s.event_card or s.goal_met:
        return False
    ev = C.EVENT_CARDS[s.event_card]
    return s.round_actions.get(ev.goal_action, 0) >= ev.goal_count


# --- automatic flow ----------------------------------------------------------------------------------
def _advance(s: State, rng: Rng, emit: Emit) -> None:
    """Game Flow: Preparation -> Action -> Income -> Resolution, 8 rounds (Two-Player Game Rules:
    the public-dice draft comes first; Solo Rules, Event Cards: one flipped per round)."""
    while s.phase != "end" and not s.frames:
        if s.phase == "setup":
            _start_round(s, rng, emit)
        elif s.phase == "draft":
            emit(E.PhaseStarted(phase="prep"))
            _roll_tellers(s, rng, emit)
        elif s.phase == "prep":
            emit(E.PhaseStarted(phase="action"))
        elif s.phase == "action":
            if _goal_reached(s):  # solo: the reward is offered as soon as the goal is met
                emit(E.RoundGoalMet(card=s.event_card))
                emit(E.DecisionQueued(frames=[Frame(kind="round_reward", seat=0, card=s.event_card)]))
                continue
            if acting_turn(s) is not None:
                return
            _income(s, emit)
            emit(E.PhaseStarted(phase="resolution"))
        elif s.phase == "resolution":
            if s.res_index >= s.players:  # Resolution Phase: pass the starting-player marker clockwise
                emit(E.RoundEnded(round=s.round, next_start=(s.start_player + 1) % s.players))
                if s.round >= C.ROUNDS:  # Game End: after all phases of round 8
                    emit(E.GameEnded())
                    return
                _start_round(s, rng, emit)
            else:
                _resolve_step(s, (s.start_player + s.res_index) % s.players, emit)


def _start_round(s: State, rng: Rng, emit: Emit) -> None:
    """Game Flow: a new round (Two-Player Game Rules: the draft "before each round begins";
    Solo Rules, Event Cards: "at the start of every round, flip over 1 event card")."""
    rnd = s.round + 1
    emit(E.RoundStarted(round=rnd, start_player=s.start_player))
    if s.players == 2:
        _public_dice_draft(s, rng, emit)
        return
    if s.players == 1:
        _reveal_event_card(s, rng, emit)
    _roll_tellers(s, rng, emit)


def _reveal_event_card(s: State, rng: Rng, emit: Emit) -> None:
    """Solo Rules, Event Cards - start of every round: flip an event card (8 of the 10 drawn at random: drawing one
    at random from the unseen cards each round is the same) and roll the public dice of its
    initial set-up: per action space the four-sided die to the resting area first, then the
    six-sided die onto the action space."""
    left = [c for c in sorted(C.EVENT_CARDS) if c not in s.events_seen]
    if not left:  # never in an 8-round game (10 cards)
        return
    card = left[rng.below(len(left))]
    ev = C.EVENT_CARDS[card]
    fours = [i for i, d in enumerate(s.dice) if d.owner < 0 and d.large]
    sixes = [i for i, d in enumerate(s.dice) if d.owner < 0 and not d.large]
    placed: list[E.SetupDie] = []
    for action in C.ACTIONS:
        pattern = ev.setup.get(action, "")
        for k, sides in enumerate(pattern):
            die = (fours if sides == "4" else sixes).pop(0)
            placed.append(E.SetupDie(die=die, action=action, value=rng.between(1, int(sides)),
                                     space=k == len(pattern) - 1))
    emit(E.EventCardRevealed(card=card, dice=placed))


def _public_dice_draft(s: State, rng: Rng, emit: Emit) -> None:
    """Two-Player Game Rules, before each round: the starting player rolls the public dice; then the
    players choose them one by one (start 1, second 2, start 2, second 1; rounds 1-2 with four
    dice: start 1, second 2, start 1)."""
    emit(E.PhaseStarted(phase="draft"))
    values = [rng.between(1, _die_range(d.large)) if d.owner < 0 and d.where == "pool" else 0 for d in s.dice]
    emit(E.PublicDiceRolled(values=values))
    order = C.DRAFT_ORDER_EARLY if s.round < 3 else C.DRAFT_ORDER
    emit(E.DecisionQueued(frames=[Frame(kind="public_die", seat=(s.start_player + k) % s.players) for k in order]))


def _roll_tellers(s: State, rng: Rng, emit: Emit) -> None:
    """Preparation Phase 1: roll the teller dice (2 in rounds 1-2, 3 afterwards - Game Flow);
    2-3: activation skills and copper -> silver, in player order."""
    values = []
    for d in s.dice:
        if d.owner < 0 or d.where == "storage":
            values.append(0)
        else:
            values.append(rng.between(1, _die_range(d.large)))
    emit(E.DiceRolled(values=values))
    frames = []
    for k in range(s.players):
        seat = (s.start_player + k) % s.players
        if len(_prep_moves(s, seat)) > 1:
            frames.append(Frame(kind="prep", seat=seat))
    if frames:
        emit(E.DecisionQueued(frames=frames))


def income_parts(p: Player) -> dict[str, int]:
    """Income Phase 1-4: effective silver by tier, lending interest (by reputation), Tier-2
    income skills (Tier 2 Branches), Yamen tiles (Yamen Support Tile Reference)."""
    parts: dict[str, int] = {}
    branches = 0
    tier1 = 0
    for r in B.branch_regions(p):
        used = B.effective_used(p, r)
        branches += used * C.INCOME_RATE[C.region_tier(r)]
        if C.TILES[p.regions[r].tile].tier == 1:
            tier1 += used
    parts["branches"] = branches
    lent = sum(p.lending)
    parts["lending"] = lent * C.lending_rate(p.reputation)
    skill = 0
    for c in C.COLORS:
        if B.active(p, f"income_{c}"):
            skill += B.count_color(p, c)
    if B.active(p, "income_rep"):
        skill += p.reputation // 4
    if B.active(p, "income_exchange"):
        skill += p.exchange // 3
    parts["branch_skills"] = skill
    yamen = 0
    if "tier1_income" in p.yamen:
        yamen += 2 * tier1
    if "tier2_staffed" in p.yamen:
        staffed = sum(1 for c in C.COLORS if p.regions[f"2{c}"].tile and (p.regions[f"2{c}"].tellers + p.regions[f"2{c}"].managers))
        yamen += (0, 3, 7, 11)[staffed]
    if "lending_income" in p.yamen:
        yamen += 3 * (lent // 2)
    parts["yamen"] = yamen
    return parts


def _income(s: State, emit: Emit) -> None:
    """Income Phase: every player sums the parts and collects the copper (solo: ongoing event cards)."""
    for k in range(s.players):
        seat = (s.start_player + k) % s.players
        parts = income_parts(s.pl[seat])
        extra = sum(C.EVENT_CARDS[c].amount for c in s.pl[seat].ongoing if C.EVENT_CARDS[c].reward == "income")
        if extra:
            parts["event_cards"] = extra  # solo ongoing event-card reward
        emit(E.IncomeCollected(seat=seat, copper=sum(parts.values()), parts=parts))


def _resolve_step(s: State, seat: int, emit: Emit) -> None:
    """Resolution Phase: 1 lending, 2 the deposit, 3 exchange cards; round 8: "first move all
    delayed-effect markers and cards to the 1 position"; shortfalls -> Emergency Fund Transfer."""
    p = s.pl[seat]
    final = s.round >= C.ROUNDS
    if s.res_stage == 0:
        emit(E.LoansReturned(seat=seat, silver=sum(p.lending) if final else p.lending[0], final=final))
    elif s.res_stage == 1:
        left = 0 if final else p.deposit_marker - 1
        emit(E.DepositInterestPaid(seat=seat, interest=min(C.DEPOSIT_INTEREST, p.copper), months_left=left))
    elif s.res_stage == 2:
        if p.head_office:
            emit(E.DepositSilverReturned(seat=seat, silver=min(p.head_office, s.res_owed)))
        elif any(B.silver_at(p, x) for x in B.piaohaos(p)):
            emit(E.DecisionQueued(frames=[Frame(kind="transfer", seat=seat, dest=C.HEAD_OFFICE)]))
        else:
            emit(E.DepositSilverReturned(seat=seat, silver=0, shortfall=s.res_owed))
    elif s.res_stage == 3:
        due = [c.card for c in p.cards if final or c.months <= 1]
        emit(E.ExchangesAdvanced(seat=seat, due=due))
    else:
        if not s.due:
            emit(E.PlayerResolved(seat=seat))
            return
        cards = {c.card: c for c in p.cards}
        if not s.due_locked and len({cards[c].withdraw for c in s.due}) > 1:
            emit(E.DecisionQueued(frames=[Frame(kind="resolve_order", seat=seat)]))
            return
        card = cards[s.due[0]]
        w = card.withdraw
        if B.silver_at(p, w) >= C.CARDS[card.card].silver:
            emit(E.ExchangeMatured(seat=seat, card=card.card, withdraw=w))
        elif any(B.silver_at(p, x) for x in B.piaohaos(p) if x != w):
            emit(E.DecisionQueued(frames=[Frame(kind="transfer", seat=seat, dest=w)]))
        else:
            emit(E.ExchangeMatured(seat=seat, card=card.card, withdraw=w, paid=False))

"""Action Phase: a die's turn - dispatch it to an action (bumping the die already there), reroll it
once (then it must act), discard it for 3 copper, or decline to act (Assessing the Situation); and,
on that turn, the Tier-1 die skills (the Changde example)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from domain.kernel import Command, Scratch

from . import actions as A
from . import board as B
from . import commands as K
from . import components as C
from . import events as E
from .decisions import Refusal
from .preparation import die_skill_candidates, die_skill_refusal, use_die_skill
from .state import Die, Player, State
from .versions import before_3

WRONG_DECISION = Refusal("wrong_decision", "it is the action phase: act with a teller die", "Action Phase")
NOT_THIS_DIE = Refusal("not_this_die", "it is not this die's turn to act", "Action Phase")
ALREADY_REROLLED = Refusal("already_rerolled", "each teller die may be rerolled once", "Action Phase")
REROLL_COPPER = Refusal("insufficient_copper", "cannot pay the reroll fee", "Action Phase")
TOO_MUCH_COPPER = Refusal("too_much_copper", "only with fewer than 5 copper", "Action Phase: Note")
VALUE_CHANGE_UNAVAILABLE = Refusal(
    "value_change_unavailable", "no Yamen tile to change the die's value", "Yamen Support Tile Reference"
)
ACTION_CLOSED = Refusal("action_closed", "Confucius Temple and Yamen open in round 3", "Game Flow")
SAME_VALUE_BLOCKED = Refusal(
    "same_value_blocked", "a die of that value is already there", "Action Phase: bumping"
)
RESTING_AREA_FULL = Refusal(
    "resting_area_full", "the action's resting area is full", "Components, Main Board 7: effect area"
)
BUMP_COPPER = Refusal("insufficient_copper", "cannot pay the value difference", "Action Phase: bumping")
MUST_ACT = Refusal(
    "must_act",
    "a rerolled die must immediately perform an action (it may be returned only if none is possible)",
    "Action Phase: reroll",
)
SKILL_AFTER_REROLL = Refusal(
    "skill_unavailable", "a rerolled die must immediately perform an action", "Action Phase: reroll"
)

_DIE_COMMANDS = frozenset((K.Reroll, K.DiscardDie, K.Decline, *K.DISPATCH))
_DIE_SKILLS = frozenset((K.AdjustDie, K.SwapDice))


def reroll_price(player: Player, value: int) -> int:
    """Action Phase: 2 copper to reroll a 5 or 6, 1 for 1-4; Xiangyang (Tier 1 Branches) and the
    solo ongoing event-card reward (Round Goals and Rewards) each 1 less."""
    cost = C.reroll_cost(value)
    if B.active(player, "reroll_discount"):
        cost -= 1
    if any(C.EVENT_CARDS[c].reward == "reroll_discount" for c in player.ongoing):
        cost -= 1
    return max(0, cost)


def resting_capacity(state: State, action: str) -> int:
    """Components, Main Board 7: the effect area - "at most 3 / at most 2 / at most 1" teller dice
    in the resting area, "depending on the action" (``pingyao-2``: by player count)."""
    if before_3(state.rules_version):
        return C.resting_capacity_pingyao_2(state.players)
    return C.resting_capacity(action)


def bump(
    state: State, seat: int, die: Die, action: str, set_value: int, occupants: list[tuple[int, Die]]
) -> tuple[int, int] | Refusal:
    """Action Phase, bumping (`occupants`: the dice on `action`'s space and in its resting area):
    (copper difference, bumped die or -1), or why `die` may not go there.  Lower pays the difference
    (large die 1 less), higher gains it (large die +1; Yamen "any value": a lower value gains it);
    an equal value on the space or in the resting area blocks; a full resting area blocks
    (Components, Main Board 7: the action's limit); Two-Player Game Rules: public dice only block."""
    if A.forbidden(state, action):
        return ACTION_CLOSED
    v = set_value or die.value
    space = -1
    resting = 0
    for i, x in occupants:
        if x.value == v:
            return SAME_VALUE_BLOCKED
        if x.where == "space":
            space = i
        elif not (x.owner < 0 and state.players == 2):
            resting += 1
    delta = 0
    if space >= 0:
        if resting >= resting_capacity(state, action):
            return RESTING_AREA_FULL
        sv = state.dice[space].value
        if v < sv:
            delta = sv - v if set_value else -max(0, sv - v - (1 if die.large else 0))
        else:
            delta = v - sv + (1 if die.large else 0)
    if state.pl[seat].copper + delta < 0:
        return BUMP_COPPER
    return delta, space


class DieTurn:
    """The acting seat's turn with its die (or one of its dice of equal value, its choice)."""

    __slots__ = ("_bumps", "_can_dispatch", "_occupants", "any_value", "dice", "p", "s", "seat")

    def __init__(self, state: State, seat: int, dice: list[int]) -> None:
        self.s, self.seat, self.p, self.dice = state, seat, state.pl[seat], dice
        self.any_value = "any_value" in self.p.yamen and "any_value" not in self.p.used_round
        """Yamen Support Tile Reference: the "any value" tile, usable once per round."""
        self._occupants: dict[str, list[tuple[int, Die]]] = {a: [] for a in C.ACTIONS}
        for i, x in enumerate(state.dice):
            if x.where == "space" or x.where == "rest":
                self._occupants[x.action].append((i, x))
        self._bumps: dict[tuple[int, str, int], tuple[int, int] | Refusal] = {}
        self._can_dispatch: dict[int, bool] = {}

    def bump(self, die: int, action: str, set_value: int) -> tuple[int, int] | Refusal:
        key = (die, action, set_value)
        found = self._bumps.get(key)
        if found is None:
            found = self._bumps[key] = bump(
                self.s, self.seat, self.s.dice[die], action, set_value, self._occupants[action]
            )
        return found

    def refusal(self, cmd: Any) -> Refusal | None:
        t = type(cmd)
        if t in _DIE_SKILLS:
            return self._skill_refusal(cmd)
        if t not in _DIE_COMMANDS:
            return WRONG_DECISION
        if cmd.die not in self.dice:
            return NOT_THIS_DIE
        d = self.s.dice[cmd.die]
        p = self.p
        if t is K.Decline:  # Assessing the Situation: no compensation
            return self._return_refusal(cmd.die)
        if t is K.Reroll:  # "Each teller die may only be rerolled once"
            if d.rerolled:
                return ALREADY_REROLLED
            return REROLL_COPPER if p.copper < reroll_price(p, d.value) else None
        if t is K.DiscardDie:  # Note: "if you hold fewer than 5 copper coins"
            if p.copper >= C.DISCARD_BELOW:
                return TOO_MUCH_COPPER
            return self._return_refusal(cmd.die)
        why = self._value_refusal(d, cmd.value)
        if why is not None:
            return why
        bumped = self.bump(cmd.die, K.ACTION_OF[t], cmd.value)
        if isinstance(bumped, Refusal):
            return bumped
        return A.CHECKS[t](self.s, p, cmd, cmd.value or d.value, p.copper + bumped[0])

    def legal(self) -> list[Command]:
        """The commands `refusal` lets through, its layers applied group by group: the die, the
        values it may show, the bump per action and value, then the action's check on each command;
        then the die skills."""
        out: list[Command] = []
        for die in self.dice:
            out += self._dispatches(die)
            out += [
                c
                for c in (K.Reroll(die=die), K.DiscardDie(die=die), K.Decline(die=die))
                if self.refusal(c) is None
            ]
        out += [c for c in die_skill_candidates(self.s, self.seat) if self._skill_refusal(c) is None]
        return out

    def _dispatches(self, die: int) -> Iterator[Command]:
        """Every legal dispatch of `die`: the per-field checks of `refusal`, field by field."""
        s, p, seat, occupants = self.s, self.p, self.seat, self._occupants
        d = s.dice[die]
        values = range(C.DIE_SIDES[d.large] + 1) if self.any_value else (0,)
        for action in C.ACTIONS:
            for v in values:
                bumped = bump(s, seat, d, action, v, occupants[action])
                if isinstance(bumped, Refusal):
                    continue
                value, avail = v or d.value, p.copper + bumped[0]
                for c in A.candidates(s, p, action, die, v, value, avail):
                    if A.CHECKS[type(c)](s, p, c, value, avail) is None:
                        yield c

    def _return_refusal(self, die: int) -> Refusal | None:
        """Action Phase: after a reroll the player "must then immediately perform the action
        indicated by the new value" (``pingyao-3``): a rerolled die is returned (declined or
        discarded) only when no action is open to it (Assessing the Situation: "no player is able
        to perform any available action")."""
        d = self.s.dice[die]
        if not d.rerolled or self.s.forced_die != die or before_3(self.s.rules_version):
            return None
        found = self._can_dispatch.get(die)
        if found is None:
            found = self._can_dispatch[die] = next(self._dispatches(die), None) is not None
        return MUST_ACT if found else None

    def _skill_refusal(self, cmd: K.AdjustDie | K.SwapDice) -> Refusal | None:
        """The Changde example (Action Phase): "When it is your die's turn to act, you choose to
        trigger ... Changde's skill, changing one of your teller dice showing 4 to a 5" - Lasa,
        Changde and Jinzhou on the player's turn too, once per round each (``pingyao-3``; before,
        in Preparation only).  Not between a reroll and its action."""
        if before_3(self.s.rules_version):
            return WRONG_DECISION
        if self.s.forced_die >= 0:
            return SKILL_AFTER_REROLL
        return die_skill_refusal(self.s, self.seat, cmd)

    def _value_refusal(self, die: Die, set_value: int) -> Refusal | None:
        """Yamen Support Tile Reference: with the "any value" tile a dispatched die may be set to any
        of its values, once per round (0 = not changed)."""
        if set_value != 0 and (not self.any_value or not 1 <= set_value <= C.DIE_SIDES[die.large]):
            return VALUE_CHANGE_UNAVAILABLE
        return None

    def apply(self, scratch: Scratch[State], cmd: Any) -> None:
        if isinstance(cmd, (K.AdjustDie, K.SwapDice)):  # the die moves to its new number area
            use_die_skill(scratch, self.seat, cmd)
            return
        seat, die = self.seat, cmd.die
        state = scratch.state
        d = state.dice[die]
        if isinstance(cmd, K.Reroll):  # pay, reroll, then act at once on the new value
            scratch.emit(
                E.DieRerolled(
                    seat=seat,
                    die=die,
                    cost=reroll_price(state.pl[seat], d.value),
                    value=scratch.rng.between(1, C.DIE_SIDES[d.large]),
                )
            )
        elif isinstance(cmd, K.DiscardDie):
            scratch.emit(E.DieDiscarded(seat=seat, die=die, copper=C.DISCARD_COPPER))
        elif isinstance(cmd, K.Decline):
            scratch.emit(E.DieDeclined(seat=seat, die=die))
        else:  # the die on the space, the space's die to the resting area, the difference settled
            action = K.ACTION_OF[type(cmd)]
            settled = self.bump(die, action, cmd.value)
            assert not isinstance(settled, Refusal), "decide applies only what refusal let through"
            delta, bumped = settled
            value = cmd.value or d.value
            scratch.emit(
                E.DieDispatched(seat=seat, die=die, action=action, value=value, bumped=bumped, copper=delta)
            )
            if cmd.value:
                scratch.emit(E.DieAdjusted(seat=seat, skill="any_value", die=die, value=value))
            A.perform(scratch, seat, cmd, value)

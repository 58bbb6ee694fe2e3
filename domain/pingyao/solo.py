"""Solo Rules: Taiyuan's region at set-up, the event card flipped each round (its set-up dice), the
round goal and its reward (Round Goals and Rewards; Event Card Reward Notes)."""

from __future__ import annotations

from domain.kernel import Scratch

from . import commands as K
from . import components as C
from . import events as E
from .actions import yamen_tile_refusal
from .decisions import Decision, Refusal, queue
from .exchange import cards_to_draw, draw_exchange, room_refusal
from .state import Frame, State
from .tellers import rep_bonuses, tier3_bonus
from .versions import before_4

_NOTES = "Solo Rules: Event Card Reward Notes"
INVALID_REGION = Refusal("invalid_region", "choose red, yellow or green", "Solo Rules: Setup")
REWARD_UNAVAILABLE = Refusal(
    "reward_unavailable",
    "the reward cannot be taken now; it may be declined",
    "Solo Rules: Round Goals and Rewards",
)
DIE_NOT_USED = Refusal("die_not_used", "take back one of your teller dice already used this round", _NOTES)


def reveal_event_card(scratch: Scratch[State]) -> None:
    """Event Cards, at the start of every round: flip one of the 8 cards drawn from 10 (one at random
    from the unseen cards each round is the same) and roll its set-up: per action space the
    four-sided die to the resting area first, then the six-sided die onto the action space."""
    state = scratch.state
    left = [c for c in sorted(C.EVENT_CARDS) if c not in state.events_seen]
    if not left:  # never in an 8-round game (10 cards)
        return
    card = left[scratch.rng.below(len(left))]
    fours = [i for i, d in enumerate(state.dice) if d.owner < 0 and d.large]
    sixes = [i for i, d in enumerate(state.dice) if d.owner < 0 and not d.large]
    placed: list[E.SetupDie] = []
    for action in C.ACTIONS:
        pattern = event_setup(state, card).get(action, "")
        for k, sides in enumerate(pattern):
            die = (fours if sides == "4" else sixes).pop(0)
            placed.append(
                E.SetupDie(
                    die=die,
                    action=action,
                    value=scratch.rng.between(1, int(sides)),
                    space=k == len(pattern) - 1,
                )
            )
    scratch.emit(E.EventCardRevealed(card=card, dice=placed))


def event_setup(state: State, card: str) -> dict[str, str]:
    """The card's initial set-up.  ``pingyao-4``: no card puts a die in the Yamen's resting area,
    which holds 1 - "Dice from the initial setup are treated as though someone else already used
    this die", to be bumped by "the normal rules"; before, E02 and E09 filled it and the Yamen die
    could not be bumped all round."""
    if before_4(state.rules_version):
        return C.EVENT_SETUPS_PINGYAO_3.get(card, C.EVENT_CARDS[card].setup)
    return C.EVENT_CARDS[card].setup


def goal_reached(state: State) -> bool:
    """Round Goals and Rewards: this round's card's action performed the number of times shown,
    "at any point during the round" (the reward is offered at once)."""
    if state.players != 1 or not state.event_card or state.goal_met:
        return False
    ev = C.EVENT_CARDS[state.event_card]
    return state.round_actions.get(ev.goal_action, 0) >= ev.goal_count


# --- starting_region: Setup, "place it on any colored region of Tier 1" ----------------------------
def _region_candidates(state: State, frame: Frame) -> list[K.PlaceStartingBranch]:
    return [K.PlaceStartingBranch(color=c) for c in C.COLORS]


def _region_refusal(state: State, frame: Frame, cmd: K.PlaceStartingBranch) -> Refusal | None:
    if cmd.color not in C.COLORS:
        return INVALID_REGION
    return None


def _place_starting(scratch: Scratch[State], frame: Frame, cmd: K.PlaceStartingBranch) -> None:
    scratch.emit(E.StartingBranchPlaced(seat=frame.seat, region=f"1{cmd.color}", frame=True))


STARTING_REGION = Decision(
    "Solo Mode: Setup", (K.PlaceStartingBranch,), _region_candidates, _region_refusal, _place_starting
)


# --- round_reward: "you may choose to decline the reward" ------------------------------------------
def _used_dice(state: State, seat: int) -> list[int]:
    """Note 3: the teller dice already used for an action this round."""
    return [i for i, d in enumerate(state.dice) if d.owner == seat and d.where in ("space", "rest")]


def reward_possible(state: State, card: str) -> bool:
    """Whether the event card's reward can be taken now (it may always be declined)."""
    ev = C.EVENT_CARDS[card]
    player = state.pl[0]
    if ev.reward == "exchange":
        return room_refusal(state, player) is None
    if ev.reward == "yamen":
        return any(yamen_tile_refusal(state, player, t) is None for t in state.yamen_supply)
    if ev.reward == "extra_action":
        return bool(_used_dice(state, 0))
    return True


def _reward_candidates(state: State, frame: Frame) -> list[K.ClaimReward]:
    return [K.ClaimReward(accept=True), K.ClaimReward(accept=False)]


def _reward_refusal(state: State, frame: Frame, cmd: K.ClaimReward) -> Refusal | None:
    if cmd.accept and not reward_possible(state, frame.card):
        return REWARD_UNAVAILABLE
    return None


def _claim_reward(scratch: Scratch[State], frame: Frame, cmd: K.ClaimReward) -> None:
    """Round Goals and Rewards 1: one-time rewards act now, ongoing ones are kept (income, rerolls)."""
    state, seat = scratch.state, frame.seat
    ev = C.EVENT_CARDS[frame.card]
    frames: list[Frame] = []
    bonuses: list[str] = []
    scratch.emit(
        E.RewardClaimed(
            seat=seat, card=frame.card, accept=cmd.accept, ongoing=cmd.accept and ev.ongoing, frame=True
        )
    )
    if cmd.accept:
        if ev.reward == "copper":
            scratch.emit(E.CopperGained(seat=seat, amount=ev.amount, reason="event card"))
        elif ev.reward == "reputation":
            scratch.emit(E.ReputationGained(seat=seat, amount=ev.amount, reason="event card"))
            rep_bonuses(state, seat, frames, bonuses)
        elif ev.reward == "silver":
            scratch.emit(E.SilverGained(seat=seat, amount=ev.amount, reason="event card"))
        elif ev.reward == "teller":
            frames.append(Frame(kind="place_teller", seat=seat))
        elif ev.reward == "exchange":  # Note 1: a full exchange action; a 2-month one may go at 1
            frames += draw_exchange(scratch, seat, cards_to_draw(state.pl[seat]), ev.amount, True)
        elif ev.reward == "yamen":
            frames.append(Frame(kind="reward_yamen", seat=seat))
        elif ev.reward == "extra_action":
            frames.append(Frame(kind="extra_action", seat=seat))
    queue(scratch, seat, frames, bonuses)


ROUND_REWARD = Decision(
    "Round Goals and Rewards", (K.ClaimReward,), _reward_candidates, _reward_refusal, _claim_reward
)


# --- reward_yamen: Note 2, "you must still pay the required silver ingots" -------------------------
def _tile_candidates(state: State, frame: Frame) -> list[K.TakeYamenTile]:
    return [K.TakeYamenTile(tile=t) for t in state.yamen_supply]


def _tile_refusal(state: State, frame: Frame, cmd: K.TakeYamenTile) -> Refusal | None:
    return yamen_tile_refusal(state, state.pl[frame.seat], cmd.tile)


def _take_tile(scratch: Scratch[State], frame: Frame, cmd: K.TakeYamenTile) -> None:
    frames: list[Frame] = []
    bonuses: list[str] = []
    scratch.emit(
        E.YamenTileTaken(
            seat=frame.seat, tile=cmd.tile, copper=0, silver=C.YAMEN_TILES[cmd.tile].silver, frame=True
        )
    )
    tier3_bonus(scratch.state, frame.seat, frames, bonuses)
    queue(scratch, frame.seat, frames, bonuses)


REWARD_YAMEN = Decision(
    "Round Goals and Rewards: Note 2", (K.TakeYamenTile,), _tile_candidates, _tile_refusal, _take_tile
)


# --- extra_action: Note 3, take back a used teller die, reroll it and act again --------------------
def _die_candidates(state: State, frame: Frame) -> list[K.TakeBackDie]:
    return [K.TakeBackDie(die=i) for i, d in enumerate(state.dice) if d.owner == frame.seat]


def _die_refusal(state: State, frame: Frame, cmd: K.TakeBackDie) -> Refusal | None:
    if cmd.die not in _used_dice(state, frame.seat):
        return DIE_NOT_USED
    return None


def _take_back(scratch: Scratch[State], frame: Frame, cmd: K.TakeBackDie) -> None:
    """The die keeps its one paid reroll ("still retains one chance to pay to reroll it")."""
    die = scratch.state.dice[cmd.die]
    scratch.emit(
        E.DieTakenBack(
            seat=frame.seat, die=cmd.die, value=scratch.rng.between(1, C.DIE_SIDES[die.large]), frame=True
        )
    )


EXTRA_ACTION = Decision(
    "Round Goals and Rewards: Note 3", (K.TakeBackDie,), _die_candidates, _die_refusal, _take_back
)

"""Game Setup and Game Flow: the options, the opening events, and the automatic steps between two
decisions - rounds, phases, dice rolls, income and resolution - until some seat must decide."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from domain.kernel import Event, InvalidOptions, Options, Rng, Scratch

from . import components as C
from . import events as E
from .evolve import evolve
from .income import collect_income
from .preparation import has_choices
from .resolution import resolve_step
from .solo import goal_reached, reveal_event_card
from .state import Frame, State, new_state
from .turn import acting_turn
from .two_player import roll_public_dice
from .versions import EARLIER_VERSIONS, RULES_VERSION


class PingyaoOptions(Options, frozen=True, kw_only=True):
    players: Annotated[int, Meta(ge=1, le=4, description="1 (solo campaign), 2 (public dice), 3 or 4")] = 4
    crowdfunding: Annotated[
        bool,
        Meta(description="Add the crowdfunding promo branch tiles and the two extra Yamen support tiles"),
    ] = False
    storyline: Annotated[
        int,
        Meta(
            ge=1,
            le=5,
            description="Solo (players=1): the storyline card the player chooses (ignored otherwise)",
        ),
    ] = 1


def initial(options: PingyaoOptions) -> State:
    return new_state()


def setup(options: PingyaoOptions, rng: Rng) -> list[Event]:
    """A new game, under the current rules version."""
    return setup_under(options, rng, RULES_VERSION)


def setup_under(options: PingyaoOptions, rng: Rng, rules_version: str) -> list[Event]:
    """Game Setup 2-3: deal the starting branches (Three-/Two-Player Game Rules: which ones; Solo
    Rules, Setup: Taiyuan, on a Tier-1 region of the player's choice, and the storyline card's
    Yamen tile); Taiyuan's holder is the starting player.  The setup event records the rules
    version the game is played under (an earlier one only to re-run a game set up under it)."""
    if rules_version not in (RULES_VERSION, *EARLIER_VERSIONS):
        raise InvalidOptions(f"no rules version {rules_version!r}")
    if options.players not in (1, 2, 3, 4):
        raise InvalidOptions("Pingyao is played by 1 (solo), 2, 3 or 4 players")
    solo = options.players == 1
    if solo and options.storyline not in C.STORYLINES:
        raise InvalidOptions(f"the storyline card must be one of {sorted(C.STORYLINES)}")
    starting = ["Taiyuan"] if solo else list(C.STARTING_BY_PLAYERS[options.players])
    rng.shuffle(starting)
    x = Scratch(new_state(), evolve, rng)
    x.emit(
        E.GameSetUp(
            players=options.players,
            crowdfunding=options.crowdfunding,
            starting=starting,
            start_player=starting.index("Taiyuan"),
            rules_version=rules_version,
        )
    )
    if solo:
        x.emit(E.StorylineChosen(storyline=options.storyline, tile=C.STORYLINES[options.storyline].yamen))
        x.emit(E.DecisionQueued(frames=[Frame(kind="starting_region", seat=0)]))
    advance(x)
    return x.events


def advance(scratch: Scratch[State]) -> None:
    """Game Flow: Preparation -> Action -> Income -> Resolution, 8 rounds (Two-Player Game Rules:
    the public-dice draft first; Solo Rules: the round goal's reward as soon as it is met)."""
    state = scratch.state
    while state.phase != "end" and not state.frames:
        if state.phase == "setup":
            _start_round(scratch)
        elif state.phase == "draft":
            scratch.emit(E.PhaseStarted(phase="prep"))
            _roll_tellers(scratch)
        elif state.phase == "prep":
            scratch.emit(E.PhaseStarted(phase="action"))
        elif state.phase == "action":
            if goal_reached(state):
                scratch.emit(E.RoundGoalMet(card=state.event_card))
                scratch.emit(
                    E.DecisionQueued(frames=[Frame(kind="round_reward", seat=0, card=state.event_card)])
                )
                continue
            if acting_turn(state) is not None:
                return
            collect_income(scratch)
            scratch.emit(E.PhaseStarted(phase="resolution"))
        elif state.phase == "resolution":
            if state.res_index < state.players:
                resolve_step(scratch, (state.start_player + state.res_index) % state.players)
                continue
            # Resolution Phase: the starting-player marker passes clockwise
            scratch.emit(E.RoundEnded(round=state.round, next_start=(state.start_player + 1) % state.players))
            if state.round >= C.ROUNDS:  # Game End: after all phases of round 8
                scratch.emit(E.GameEnded())
                return
            _start_round(scratch)


def _start_round(scratch: Scratch[State]) -> None:
    """A new round (Two-Player Game Rules: the draft "before each round begins"; Solo Rules, Event
    Cards: "at the start of every round, flip over 1 event card")."""
    state = scratch.state
    scratch.emit(E.RoundStarted(round=state.round + 1, start_player=state.start_player))
    if state.players == 2:
        roll_public_dice(scratch)
        return
    if state.players == 1:
        reveal_event_card(scratch)
    _roll_tellers(scratch)


def _roll_tellers(scratch: Scratch[State]) -> None:
    """Preparation Phase 1: roll the teller dice (2 in rounds 1-2, 3 afterwards - Game Flow); 2-3: a
    `prep` decision, in player order, for each player with something to do."""
    state = scratch.state
    values = [
        0 if d.owner < 0 or d.where == "storage" else scratch.rng.between(1, C.DIE_SIDES[d.large])
        for d in state.dice
    ]
    scratch.emit(E.DiceRolled(values=values))
    seats = [(state.start_player + k) % state.players for k in range(state.players)]
    frames = [Frame(kind="prep", seat=seat) for seat in seats if has_choices(state, seat)]
    if frames:
        scratch.emit(E.DecisionQueued(frames=frames))

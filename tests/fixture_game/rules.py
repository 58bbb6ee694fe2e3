from __future__ import annotations

from typing import Literal

import msgspec

from domain.kernel import (
    Command,
    Event,
    Game,
    GameOver,
    InvalidOptions,
    NotYourTurn,
    Options,
    Outcome,
    Rng,
    RuleViolation,
    Scratch,
    Seat,
    Standing,
    View,
    rank,
    winners,
)

DECK = list(range(1, 10))
STAKES = (1, 2, 3)


class BluffOptions(Options, frozen=True, kw_only=True):
    players: int = 3
    rounds: int = msgspec.field(default=1)
    """How many times each seat is the claimer (1-2)."""


# --- commands ---------------------------------------------------------------------------------
class BluffCommand(Command, frozen=True, tag=lambda name: f"bluff.{name}"):
    pass


class Claim(BluffCommand, frozen=True):
    claim: Literal["high", "low"]


class Stake(BluffCommand, frozen=True):
    amount: int


class Answer(BluffCommand, frozen=True):
    believe: bool


# --- events -----------------------------------------------------------------------------------
class BluffEvent(Event, frozen=True, tag=lambda name: f"bluff.{name}"):
    pass


class GameSetUp(BluffEvent, frozen=True):
    players: int
    rounds: int
    deck: list[int]


class CardDrawn(BluffEvent, frozen=True):
    seat: int
    card: int | None

    def visible_to(self) -> tuple[Seat, ...] | None:
        return (self.seat,)

    def redacted(self) -> Event | None:
        return CardDrawn(seat=self.seat, card=None)


class Claimed(BluffEvent, frozen=True):
    seat: int
    claim: str


class Staked(BluffEvent, frozen=True):
    seat: int
    amount: int


class Answered(BluffEvent, frozen=True):
    seat: int
    believe: bool


class CardRevealed(BluffEvent, frozen=True):
    seat: int
    card: int
    deltas: list[int]


EVENTS = (GameSetUp, CardDrawn, Claimed, Staked, Answered, CardRevealed)
COMMANDS = (Claim, Stake, Answer)


# --- state ------------------------------------------------------------------------------------
class State(msgspec.Struct, kw_only=True):
    players: int = 0
    rounds: int = 1
    deck: list[int] = []
    turn: int = 0
    """How many claims have been completed."""
    card: int | None = None
    claim: str | None = None
    stake: int | None = None
    answers: dict[int, bool] = {}
    scores: list[int] = []
    revealed: list[tuple[int, int]] = []


class BluffView(View, tag="bluff", kw_only=True):
    players: int
    turn: int
    active: int | None
    deck_count: int
    card: int | None
    """The active seat's card, shown only to that seat."""
    claim: str | None
    stake: int | None
    answered: list[int]
    scores: list[int]
    revealed: list[tuple[int, int]]


def active(state: State) -> Seat | None:
    if state.turn >= state.players * state.rounds:
        return None
    return state.turn % state.players


def initial(options: BluffOptions) -> State:
    return State()


def setup(options: BluffOptions, rng: Rng) -> list[Event]:
    if options.players not in (2, 3, 4):
        raise InvalidOptions("Bluff is played by 2 to 4 players")
    if options.rounds not in (1, 2):
        raise InvalidOptions("rounds must be 1 or 2")
    events: list[Event] = [GameSetUp(players=options.players, rounds=options.rounds, deck=list(DECK))]
    events.append(CardDrawn(seat=0, card=rng.choice(DECK)))
    return events


def to_act(state: State) -> list[Seat]:
    seat = active(state)
    if seat is None:
        return []
    if state.claim is None or state.stake is None:
        return [seat]
    return [s for s in range(state.players) if s != seat and s not in state.answers]


# --- the rules: one check, used by decide and by legal_moves --------------------------------------
CANDIDATES: list[Command] = [
    Claim(claim="high"),
    Claim(claim="low"),
    *(Stake(amount=n) for n in STAKES),
    Answer(believe=True),
    Answer(believe=False),
]
"""Every command of the game; ``legal_moves`` keeps those the rules accept now."""


def refusal(state: State, seat: Seat, command: Command) -> RuleViolation | None:
    """Why *command* is not allowed now, or None: the one place the rules are written."""
    if active(state) is None:
        return GameOver()
    if seat not in to_act(state):
        return NotYourTurn()
    match command:
        case Claim():
            if state.claim is not None:
                return RuleViolation("claim_already_made", "you have already claimed")
        case Stake(amount=amount):
            if state.claim is None:
                return RuleViolation("claim_first", "claim high or low before staking")
            if state.stake is not None:
                return RuleViolation("stake_already_set", "the stake is already set")
            if amount not in STAKES:
                return RuleViolation("stake_out_of_range", "stake 1, 2 or 3")
        case Answer():
            if state.stake is None:
                return RuleViolation("no_claim_to_answer", "there is no claim to answer yet")
        case _:
            return RuleViolation("unknown_command", "Bluff has no such command")
    return None


def legal_moves(state: State, seat: Seat) -> list[Command]:
    return [command for command in CANDIDATES if refusal(state, seat, command) is None]


def decide(state: State, seat: Seat, command: Command, rng: Rng) -> list[Event]:
    violation = refusal(state, seat, command)
    if violation is not None:
        raise violation
    match command:
        case Claim(claim=claim):
            return [Claimed(seat=seat, claim=claim)]
        case Stake(amount=amount):
            return [Staked(seat=seat, amount=amount)]
    assert isinstance(command, Answer)
    # Look ahead through the answer: the last one reveals the card (and draws the next).
    table = Scratch(state, evolve, rng)
    table.emit(Answered(seat=seat, believe=command.believe))
    if len(table.state.answers) == state.players - 1:
        table.emit(*_reveal(table.state, rng))
    return table.events


def _reveal(state: State, rng: Rng) -> list[Event]:
    """The claimer's card, the stakes won and lost once every other seat has answered."""
    claimer = active(state)
    assert claimer is not None and state.card is not None and state.stake is not None
    truthful = (state.card >= 6) == (state.claim == "high")
    deltas = [0] * state.players
    for seat, believe in state.answers.items():
        if believe:
            deltas[seat] += 1 if truthful else 0
        elif truthful:
            deltas[seat] -= state.stake
            deltas[claimer] += state.stake
        else:
            deltas[seat] += state.stake
            deltas[claimer] -= state.stake
    events: list[Event] = [CardRevealed(seat=claimer, card=state.card, deltas=deltas)]
    nxt = state.turn + 1
    if nxt < state.players * state.rounds:
        deck = list(state.deck)
        deck.remove(state.card)
        events.append(CardDrawn(seat=nxt % state.players, card=rng.choice(deck)))
    return events


def evolve(state: State, event: Event) -> State:
    match event:
        case GameSetUp(players=players, rounds=rounds, deck=deck):
            state.players, state.rounds, state.deck = players, rounds, list(deck)
            state.scores = [0] * players
        case CardDrawn(card=card):
            state.card = card
        case Claimed(claim=claim):
            state.claim = claim
        case Staked(amount=amount):
            state.stake = amount
        case Answered(seat=seat, believe=believe):
            state.answers[seat] = believe
        case CardRevealed(seat=seat, card=card, deltas=deltas):
            state.deck.remove(card)
            state.scores = [a + b for a, b in zip(state.scores, deltas, strict=True)]
            state.revealed.append((seat, card))
            state.turn += 1
            state.card = state.claim = state.stake = None
            state.answers = {}
    return state


def view(state: State, seat: Seat | None) -> BluffView:
    act = active(state)
    return BluffView(
        players=state.players,
        turn=state.turn,
        active=act,
        deck_count=len(state.deck),
        card=state.card if (seat is not None and seat == act) or act is None else None,
        claim=state.claim,
        stake=state.stake,
        answered=sorted(state.answers),
        scores=list(state.scores),
        revealed=list(state.revealed),
    )


def outcome(state: State) -> Outcome | None:
    """Most points wins; ties are shared."""
    if active(state) is not None:
        return None
    scores = rank([Standing(seat=s, score=v, breakdown={}, tiebreak=[]) for s, v in enumerate(state.scores)])
    return Outcome(winners=winners(scores), scores=scores, summary=f"best score {max(state.scores)}")


def components() -> dict[str, object]:
    return {"deck": DECK}


GAME = Game(
    kind="bluff",
    title="Bluff (test fixture)",
    rules_version="bluff-1",
    player_counts=(2, 3, 4),
    options_type=BluffOptions,
    command_types=COMMANDS,
    event_types=EVENTS,
    state_type=State,
    view_type=BluffView,
    initial=initial,
    setup=setup,
    decide=decide,
    evolve=evolve,
    to_act=to_act,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    components=components,
    summary="A fixture game for the platform's tests.",
    variants={"rounds": "How many times each seat claims (1 or 2)."},
)

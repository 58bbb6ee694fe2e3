"""Hand-made Pingyao tables, built only by folding events - never by writing state fields.

Seat 0 is red and the starting player, 1 blue, 2 green, 3 yellow (the starting branches in that
order: Taiyuan red, Datong yellow, Xinzhou green, Yuncheng yellow).  A `Table` starts in the action
phase of a round with the dice the test names still to act, the dice it puts on action spaces
already used, and every other teller die declined; the other facts (copper, branches, cards...)
are folded in by its methods, each as the events that make them true.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from domain.kernel import Command, Event, Rng, clone
from domain.pingyao import GAME, PingyaoOptions
from domain.pingyao import commands as K
from domain.pingyao import components as C
from domain.pingyao import events as E
from domain.pingyao.state import Frame, State
from domain.pingyao.versions import RULES_VERSION
from tests.support import given_state

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
STARTING = {
    4: ["Taiyuan", "Datong", "Xinzhou", "Yuncheng"],
    3: ["Taiyuan", "Xinzhou", "Taigu"],
    2: ["Taiyuan", "Datong"],
    1: ["Taiyuan"],
}


def die(seat: int, k: int) -> int:
    """Die id: k = 0 the large four-sided die, 1 and 2 the ordinary dice."""
    return seat * 3 + k


class Table:
    """A table folded from events.

    `dice` maps the dice left to act to their values; `at` maps an action to the dice used there
    earlier this round, in order (the last on the space, the others bumped to the resting area;
    their value difference is not settled - set copper explicitly); every other teller die has
    been declined.  Solo: `card` is the event card revealed this round (see `revealed`).
    `phase="prep"`: the Preparation phase, every die still in the number areas.  `rules`: the rules
    version the game was set up under (the current one unless a test pins an earlier one).
    """

    def __init__(
        self,
        players: int = 4,
        round: int = 3,
        start: int = 0,
        crowdfunding: bool = True,
        *,
        dice: dict[int, int] | None = None,
        at: dict[str, Sequence[tuple[int, int]]] | None = None,
        public: dict[int, tuple[int, str]] | None = None,
        card: E.EventCardRevealed | None = None,
        storyline: int = 1,
        phase: str = "action",
        rules: str = RULES_VERSION,
    ) -> None:
        self.players = players
        self.state: State = GAME.initial(PingyaoOptions(players=players))
        self.events: list[Event] = []
        dice, at, public = dice or {}, at or {}, public or {}
        self.fold(
            E.GameSetUp(
                players=players,
                crowdfunding=crowdfunding,
                starting=STARTING[players],
                start_player=0,
                rules_version=rules,
            )
        )
        if players == 1:
            self.fold(E.StorylineChosen(storyline=storyline, tile=C.STORYLINES[storyline].yamen))
        self.fold(E.RoundStarted(round=round, start_player=start))
        if public:  # Two-player game: the draft's public dice in resting areas
            self.fold(
                E.PublicDiceRolled(
                    values=[public[i][0] if i in public else 0 for i in range(len(self.state.dice))]
                )
            )
            for i, (_, action) in public.items():
                self.fold(E.PublicDiePlaced(seat=start, die=i, action=action))
        if card is not None:
            self.fold(card)
        used = {d: v for dice_at in at.values() for d, v in dice_at}
        free = [v for v in range(6, 0, -1) if v not in dice.values()] or [1]
        values = [
            0 if d.owner < 0 or d.where == "storage" else dice.get(i, used.get(i, free[0]))
            for i, d in enumerate(self.state.dice)
        ]
        self.fold(E.DiceRolled(values=values))
        if phase == "prep":
            return
        self.fold(E.PhaseStarted(phase="action"))
        for action, dice_at in at.items():
            previous = -1
            for d, v in dice_at:
                self.fold(E.DieDispatched(seat=d // 3, die=d, action=action, value=v, bumped=previous))
                previous = d
        for i, d in enumerate(self.state.dice):
            if d.owner >= 0 and d.where == "number" and i not in dice:
                self.fold(E.DieDeclined(seat=d.owner, die=i))

    # --- folding ------------------------------------------------------------------------------------
    def fold(self, *events: Event) -> Table:
        for e in events:
            self.events.append(e)
            self.state = GAME.evolve(self.state, e)
        return self

    def when(self, seat: int, command: Command, *, seed: str = "test") -> Any:
        return given_state(GAME, self.state).when(seat, command, seed=seed)

    def legal(self, seat: int) -> list[Command]:
        return GAME.legal_moves(self.state, seat)

    # --- a player's board ---------------------------------------------------------------------------
    def copper(self, seat: int, n: int) -> Table:
        return self.fold(E.CopperGained(seat=seat, amount=n - self.state.pl[seat].copper, reason="given"))

    def head_office(self, seat: int, n: int) -> Table:
        return self.fold(
            E.SilverGained(seat=seat, amount=n - self.state.pl[seat].head_office, reason="given")
        )

    def silver(self, seat: int, region: str, n: int) -> Table:
        """The silver on a branch (moved from or to the head office, which keeps what it had)."""
        delta = n - self.state.pl[seat].regions[region].silver
        if delta > 0:
            self.fold(E.SilverGained(seat=seat, amount=delta, reason="given"))
        moves = [E.SilverMoved(seat=seat, source=C.HEAD_OFFICE, dest=region)] * delta
        moves += [E.SilverMoved(seat=seat, source=region, dest=C.HEAD_OFFICE)] * -delta
        self.fold(*moves)
        if delta < 0:
            self.fold(E.SilverGained(seat=seat, amount=delta, reason="given"))
        return self

    def branch(
        self, seat: int, region: str, tile: str, *, silver: int = 0, tellers: int = 0, managers: int = 0
    ) -> Table:
        """A branch drawn from its stack and opened, with `silver` on it and its branch tellers."""
        tier = C.region_tier(region)
        self.fold(
            E.BranchTilesDrawn(seat=seat, tier=tier, region=region, cost=0, count=1, tiles=[tile]),
            E.SilverGained(seat=seat, amount=silver, reason="given"),
            E.BranchOpened(seat=seat, region=region, tile=tile, capital=silver),
            E.BranchTilesReturned(seat=seat, tier=tier, count=0),
        )
        for _ in range(tellers):
            self.teller(seat, f"{region}:teller")
        for _ in range(managers):
            self.teller(seat, f"{region}:manager")
        return self

    def teller(self, seat: int, target: str) -> Table:
        return self.fold(E.TellerPlaced(seat=seat, target=target))

    def reputation(self, seat: int, n: int) -> Table:
        return self.fold(
            E.ReputationGained(seat=seat, amount=n - self.state.pl[seat].reputation, reason="given")
        )

    def bonuses(self, seat: int, *taken: str) -> Table:
        """One-time bonuses already taken (rep2, rep8, rep13, tier3_teller)."""
        return self.fold(E.DecisionQueued(frames=[], seat=seat, bonuses=list(taken)))

    def exchanges(self, seat: int, n: int) -> Table:
        """`n` exchanges done (the Exchange track): cards drawn, placed and matured (before `deck`)."""
        cards = sorted(self.state.deck)[:n]
        assert len(cards) == n, "not enough exchange cards left in the deck"
        for card in cards:
            self.fold(
                E.ExchangeCardsDrawn(seat=seat, count=1, cards=[card]),
                E.ExchangePlaced(
                    seat=seat, card=card, months=1, deposit=C.HEAD_OFFICE, withdraw=C.HEAD_OFFICE, fee=0
                ),
                E.ExchangeMatured(seat=seat, card=card, withdraw=C.HEAD_OFFICE),
            )
        return self

    def put_back(self, seat: int, *cards: str) -> Table:
        """Ningxia, once for each of `cards`: the seat drew two exchange cards, kept the first card
        left in the deck (placed and matured, as in `exchanges`) and put the other one back at the
        bottom of the deck, unseen by the other seats."""
        for back in cards:
            kept = next(c for c in sorted(self.state.deck) if c not in cards)
            self.fold(
                E.ExchangeCardsDrawn(seat=seat, count=2, cards=[kept, back]),
                E.ExchangeCardChosen(seat=seat, card=kept, returned=[back], count=1),
                E.ExchangePlaced(
                    seat=seat, card=kept, months=1, deposit=C.HEAD_OFFICE, withdraw=C.HEAD_OFFICE, fee=0
                ),
                E.ExchangeMatured(seat=seat, card=kept, withdraw=C.HEAD_OFFICE),
            )
        return self

    def card(self, seat: int, card: str, months: int, deposit: str, withdraw: str) -> Table:
        """An exchange card on the seat's exchange-time track (its silver on the deposit piaohao)."""
        return self.fold(
            E.ExchangeCardsDrawn(seat=seat, count=1, cards=[card]),
            E.ExchangePlaced(
                seat=seat, card=card, months=months, deposit=deposit, withdraw=withdraw, fee=0, advance=False
            ),
        )

    def lend(self, seat: int, months: int, amount: int) -> Table:
        return self.fold(
            E.SilverGained(seat=seat, amount=amount, reason="given"),
            E.SilverLent(seat=seat, months=months, amount=amount),
        )

    def deposit(self, seat: int, months: int) -> Table:
        """A deposit accepted: the Deposit area's 2 silver now in the head office."""
        return self.fold(E.DepositAccepted(seat=seat, months=months))

    def yamen(self, seat: int, *tiles: str) -> Table:
        return self.fold(*(E.YamenTileTaken(seat=seat, tile=t, copper=0, silver=0) for t in tiles))

    def ongoing(self, seat: int, card: str) -> Table:
        """Solo: an event card's ongoing reward kept."""
        return self.fold(E.RewardClaimed(seat=seat, card=card, accept=True, ongoing=True))

    # --- the table --------------------------------------------------------------------------------
    def decision(self, kind: str, seat: int = 0, **fields: Any) -> Table:
        """A pending sub-decision, queued as the rules queue it."""
        return self.fold(E.DecisionQueued(frames=[Frame(kind=kind, seat=seat, **fields)]))

    def stack(self, tier: int, *tiles: str, bottom: Sequence[str] = ()) -> Table:
        """The tier's face-down stack is exactly `tiles`; every other tile was drawn earlier and put
        back at the bottom (`bottom` first)."""
        s = self.state
        others = [t for t in [*s.stacks[str(tier)], *s.bottoms[str(tier)]] if t not in tiles]
        rest = [t for t in others if t not in bottom]
        return self.fold(
            E.BranchTilesDrawn(seat=0, tier=tier, region="", cost=0, count=len(others), tiles=others),
            E.BranchTilesReturned(seat=0, tier=tier, count=len(others), tiles=[*bottom, *rest]),
        )

    def deck(self, *cards: str) -> Table:
        """The exchange deck is exactly `cards` (reshuffled from the discards if need be); every other
        card has been discarded."""
        if any(c in self.state.discards for c in cards):
            self.fold(E.DeckReshuffled(count=len(self.state.discards)))
        others = [c for c in [*self.state.deck, *self.state.deck_bottom] if c not in cards]
        return self.fold(
            E.ExchangeCardsDrawn(seat=0, count=len(others), cards=others),
            *(E.ExchangeDiscarded(seat=0, card=c) for c in others),
        )

    def end(self) -> Table:
        return self.fold(E.GameEnded())


def step(s: State, seat: int, command: Command, seed: str = "t") -> tuple[State, list[Event]]:
    """Decide and fold (on a copy): the next table and the events."""
    events = GAME.decide(s, seat, command, Rng(seed, 0))
    return GAME.fold(clone(s), events), events


def finish_round(s: State, seed: str = "t") -> tuple[State, list[Event]]:
    """Decline every remaining die and take the first legal choice elsewhere until the next round."""
    events: list[Event] = []
    n = 0
    start = s.round
    while s.round == start and s.phase != "end":
        seat = GAME.to_act(s)[0]
        legal = GAME.legal_moves(s, seat)
        move = next((m for m in legal if isinstance(m, (K.Decline, K.EndPreparation))), legal[0])
        new = GAME.decide(s, seat, move, Rng(seed, n))
        n += 1
        s = GAME.fold(s, new)
        events += new
    return s, events


@cache
def _first_cards(rules: str) -> dict[str, E.EventCardRevealed]:
    found: dict[str, E.EventCardRevealed] = {}
    for i in range(1000):
        state, _ = GAME.start(PingyaoOptions(players=1), f"card-{i}", rules)
        _, events = step(state, 0, K.PlaceStartingBranch(color="red"), seed=f"card-{i}")
        card = next(e for e in events if isinstance(e, E.EventCardRevealed))
        found.setdefault(card.card, card)
        if len(found) == len(C.EVENT_CARDS):
            return found
    raise AssertionError("some event card is never flipped first")


def revealed(card: str, rules: str = RULES_VERSION) -> E.EventCardRevealed:
    """Solo: the event `card` as the rules (of version `rules`) reveal it (its set-up dice rolled),
    from a real game."""
    return _first_cards(rules)[card]

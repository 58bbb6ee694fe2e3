"""Computer players ("bots"): how a seat chooses a move from what that seat may see.

A bot is a *strategy*: a pure function of the seat's own view and its legal moves::

    strategy(view, seat, legal, rng) -> Command

It is handed exactly what a person in that seat gets over HTTP (``GET /v1/games/{id}`` as that
seat and ``GET …/legal-moves``) and a generator of its own — never the state, another seat's
hidden cards or the game's seed — so a bot cannot play with knowledge a person would not have.

Every game has the level ``random`` (uniform among the legal moves); a game adds its own levels in
:attr:`~domain.kernel.game.Game.strategies` (each title has ``heuristic``, a rule-aware player
measured against ``random`` by ``python -m bench.bots``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidOptions
from .rng import Rng

if TYPE_CHECKING:
    from .game import Command, Game, Options, Outcome, Seat, View

Strategy = Callable[["View", int, Sequence["Command"], Rng], "Command"]
"""``(view, seat, legal, rng) -> one of legal``."""

RANDOM = "random"
"""The level every game has: uniform among the legal moves."""


def uniform(view: View, seat: Seat, legal: Sequence[Command], rng: Rng) -> Command:
    """The random bot: any legal move, each as likely as the others."""
    return rng.choice(legal)


def levels(game: Game) -> tuple[str, ...]:
    """The bot levels *game* offers, weakest first."""
    return (RANDOM, *game.strategies)


def strategy(game: Game, level: str) -> Strategy:
    """The strategy of *level* for *game*; :class:`InvalidOptions` names the levels there are."""
    if level == RANDOM:
        return uniform
    found = game.strategies.get(level)
    if found is None:
        raise InvalidOptions(f"{game.kind} has no bot level {level!r}; levels: {', '.join(levels(game))}")
    return found


def bot_rng(game_id: str, version: int, seat: Seat) -> Rng:
    """The generator a bot uses for its move at *version*: derived from public facts only (a bot
    never sees the game's seed), and the same on every replica, so a retried bot move is the same
    move."""
    return Rng(f"bot/{game_id}/{seat}", version)


def choose(game: Game, level: str, view: View, seat: Seat, legal: Sequence[Command], rng: Rng) -> Command:
    """The move a bot of *level* makes. A strategy that fails or answers a move that is not among
    *legal* falls back to the random bot, so a bot seat never stalls a game."""
    if not legal:
        raise ValueError("a bot was asked to move with no legal move")
    play = strategy(game, level)
    if play is uniform:
        return uniform(view, seat, legal, rng)
    try:
        move = play(view, seat, legal, rng)
    except Exception:  # noqa: BLE001 - a strategy's bug must not stall the table; the random move is legal
        return uniform(view, seat, legal, rng)
    if move not in legal:
        return uniform(view, seat, legal, rng)
    return move


@dataclass
class Match:
    """One game played in-process between bots (``play_match``)."""

    outcome: Outcome
    moves: int
    levels: dict[int, str]
    state: Any = None
    """The final state."""
    chosen: dict[int, list[Any]] = field(default_factory=dict)
    """Each seat's moves, in order."""


def play_match(
    game: Game,
    options: Options,
    seed: str,
    seat_levels: Mapping[int, str],
    *,
    max_moves: int = 50_000,
    observe: Callable[[Any, int, View, Sequence[Command], Command], None] | None = None,
    strict: bool = False,
    rules_version: str | None = None,
) -> Match:
    """Play one complete game in-process, every seat a bot of ``seat_levels.get(seat, "random")``.

    Each bot sees only ``game.view(state, seat)`` and ``game.legal_moves(state, seat)`` — what the
    service gives that seat. *observe* (for tests) is called with ``(state, seat, view, legal,
    move)`` before each move. *strict* (for a strategy's tests) calls each strategy directly, without
    :func:`choose`'s fall-back: an exception, or an answer that is not one of the legal move
    objects, ends the match with an error."""
    state, events = game.start(options, seed, rules_version)
    position = len(events)
    chosen = {seat: seat_levels.get(seat, RANDOM) for seat in range(options.players)}
    made: dict[int, list[Any]] = {}
    moves = 0
    while (outcome := game.outcome(state)) is None:
        seats = game.to_act(state)
        if not seats:
            raise AssertionError(f"{game.kind}: nobody can act but the game has no outcome")
        seat = seats[0]
        view = game.view(state, seat)
        legal = game.legal_moves(state, seat)
        rng = bot_rng(seed, position, seat)
        if strict:
            move = strategy(game, chosen[seat])(view, seat, legal, rng)
            if not any(move is m for m in legal):
                raise ValueError(f"{chosen[seat]} answered {move!r}, not one of the legal moves")
        else:
            move = choose(game, chosen[seat], view, seat, legal, rng)
        made.setdefault(seat, []).append(move)
        if observe is not None:
            observe(state, seat, view, legal, move)
        new = game.decide(state, seat, move, Rng(seed, position))
        state = game.fold(state, new)
        position += len(new)
        moves += 1
        if moves >= max_moves:
            raise AssertionError(f"{game.kind}: no end after {moves} moves")
    return Match(outcome=outcome, moves=moves, levels=chosen, state=state, chosen=made)

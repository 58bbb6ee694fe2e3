"""Every option combination: Jiangnan refuses exactly what cannot be set up as printed, and says why.

The printed rule that a configuration can break is Draft New Action Tiles: "Each player will draft
3 new Action Tiles per round" (Rounds 1-4), from what the setup and the refills put on the Upkeep
board.  Which configurations keep it is not taken from the code under test: a game is set up under
``jiangnan-2`` (which refused none) and played through Round 4, and the drafts are counted.  A
configuration is decided by its player count, Action Tiles, Mixed Ages and Upkeep side (the Game
Chapter fills in those left unset), by the 2-player variant and by the Bot's difficulty; every
combination of those is checked, each accepted one is set up (the slow lane plays it to the end)
and each refused one names its reason.
"""

import functools
import itertools

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.kernel import InvalidOptions, Rng

from .helpers import drafted_per_round, opening, reach

DRAFTING = list(itertools.product((1, 2, 3, 4), ("basic", "advanced"), (False, True), ("A", "B")))
"""(players, Action Tiles, Mixed Ages, Upkeep side): what decides the Upkeep board's fills."""


def _drafts(version: str, players: int, tiles: str, mixed: bool, side: str) -> dict[int, list[int]]:
    """The tiles each player drafted in each round of a random game set up under *version*."""
    options, events = opening(
        f"draft-{version}", version, players=players, action_tiles=tiles, mixed_ages=mixed, upkeep=side
    )
    events = reach(options, events, lambda s: s.round > max(C.DRAFT_ROUNDS))
    return drafted_per_round(events, players)


@functools.cache
def printable(players: int, tiles: str, mixed: bool, side: str) -> bool:
    """Whether every player drafts 3 tiles in each of Rounds 1-4 when the game is set up and played
    as jiangnan-2 did for any configuration (its fills are those of jiangnan-3)."""
    counts = _drafts("jiangnan-2", players, tiles, mixed, side)
    return all(counts.get(r) == [3] * players for r in C.DRAFT_ROUNDS)


@pytest.mark.parametrize("players,tiles,mixed,side", DRAFTING)
def test_exactly_what_can_be_set_up_as_printed_is_accepted(players, tiles, mixed, side):
    """Given a configuration, when it is set up, then it is accepted exactly if a game of it lets
    every player draft 3 tiles in each of Rounds 1-4 - and then it does - or refused naming why."""
    options = JiangnanOptions(players=players, action_tiles=tiles, mixed_ages=mixed, upkeep=side)
    if not printable(players, tiles, mixed, side):
        with pytest.raises(InvalidOptions, match=r"^cannot be set up as printed: side [AB] of the Upkeep"):
            GAME.start(options, "draft")
        return
    counts = _drafts("jiangnan-3", players, tiles, mixed, side)
    assert {r: set(counts[r]) for r in C.DRAFT_ROUNDS} == {r: {3} for r in C.DRAFT_ROUNDS}


def test_the_one_configuration_that_cannot_be_set_up():
    """Counted, not assumed: of the 32 drafting configurations only 4 players with the basic tiles,
    Mixed Ages and side B fall short (the boundaries around it fit exactly: side A leaves 12 silver
    tiles for 12 drafts, 3 players leave 12 for 9, the advanced tiles 21 for 12)."""
    assert [c for c in DRAFTING if not printable(*c)] == [(4, "basic", True, "B")]


def _expected_refusal(options: JiangnanOptions) -> str | None:
    """What the rulebook says of these options: the start of the reason they are refused, or None."""
    if options.variant and options.players != 2:
        return "the advanced variant is a 2-player rule"
    if options.difficulty != "easy" and options.players != 1:
        return "difficulty levels are for the solo Bot"
    chapter = C.chapter_setup(options.chapter)
    tiles = options.action_tiles or chapter["action_tiles"]
    mixed = chapter["mixed_ages"] if options.mixed_ages is None else options.mixed_ages
    upkeep = options.upkeep or chapter["upkeep"]
    for side in ("A", "B") if upkeep == "random" else (upkeep,):
        if not printable(options.players, tiles, mixed, side):
            prefix = f"upkeep random may draw side {side}: " if upkeep == "random" else ""
            return prefix + "cannot be set up as printed"
    return None


def _combinations():
    """Every combination of the options that decide acceptance (unset = the chapter's value)."""
    for players, chapter in itertools.product((1, 2, 3, 4), sorted(C.CHAPTERS)):
        for tiles, mixed, upkeep, variant, difficulty in itertools.product(
            (None, "basic", "advanced"),
            (None, False, True),
            (None, "A", "B", "random"),
            (False, True),
            C.DIFFICULTIES,
        ):
            yield JiangnanOptions(
                players=players,
                chapter=chapter,
                action_tiles=tiles,
                mixed_ages=mixed,
                upkeep=upkeep,
                variant=variant,
                difficulty=difficulty,
            )


def test_every_option_combination_is_set_up_or_refused_with_its_reason():
    accepted = refused = 0
    for options in _combinations():
        expected = _expected_refusal(options)
        if expected is None:
            state, _ = GAME.start(options, "every")
            assert state.players == options.players and state.phase == "start"
            accepted += 1
            continue
        with pytest.raises(InvalidOptions) as refusal:
            GAME.start(options, "every")
        assert str(refusal.value).startswith(expected), (options, str(refusal.value))
        refused += 1
    assert accepted and refused


def _played(options: JiangnanOptions, seed: str):
    """A complete game with random legal moves: its final state and events."""
    state, events = GAME.start(options, seed)
    chooser = Rng(seed + "/chooser")
    while not state.finished:
        seat = GAME.to_act(state)[0]
        new = GAME.decide(state, seat, chooser.choice(GAME.legal_moves(state, seat)), Rng(seed, len(events)))
        state = GAME.fold(state, new)
        events += new
    return state, events


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("chapter", sorted(C.CHAPTERS))
def test_every_accepted_combination_plays_to_the_end(players, chapter):
    """Each accepted combination (at this player count and chapter) played to the end with random
    legal moves: an outcome for every player, and every player drafted 3 tiles in each of Rounds 1-4."""
    for options in _combinations():
        if options.players != players or options.chapter != chapter or _expected_refusal(options):
            continue
        state, events = _played(options, f"every-{options}")
        assert GAME.outcome(state) is not None and len(GAME.outcome(state).scores) == players
        counts = drafted_per_round(events, players)
        assert {r: set(counts[r]) for r in C.DRAFT_ROUNDS} == {r: {3} for r in C.DRAFT_ROUNDS}, options

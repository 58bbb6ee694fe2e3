"""Random playouts: complete games of every player count, chapter and difficulty, with invariants
checked at every step.  The default lane plays a few games of each family; the slow lane
(``-m slow``) plays the full counts."""

import msgspec
import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
from domain.jiangnan.options import draft_shortfall
from domain.kernel import InvalidOptions, Rng
from tests.support import random_playout


def check(state, events) -> None:
    s = state
    for i, p in enumerate(s.p):
        assert 0 <= p.spirit <= C.SPIRIT_MAX
        assert p.coins >= 0 and p.vp >= 0
        assert all(v >= 0 for v in p.ideas.values())
        # 12 starting tiles plus every drafted tile are somewhere (bag, track, used, drafted, discarded).
        assert len(p.bag) + len(p.track) + len(p.used) + len(p.drafted) + len(p.discarded) == p.acquired
        assert p.acquired <= 12 + 3 * len(C.DRAFT_ROUNDS)
        assert len(p.track) <= C.TRACK_SIZE
        assert 0 <= p.degree <= 2
        if s.phase != "start":  # every seat (and only the seats) has a Talent once drafted
            assert (p.talent is None) == (i >= s.players or s.cfg.talents == "none")
        # the bag has no order: it is kept sorted
        assert p.bag == sorted(p.bag)
        placed = sum(1 for d in s.displays.values() for _, owner in d if owner == i)
        placed += sum(v.count(i) for v in s.muse_servants.values())
        placed += sum(cnt for b in s.boats for seat, cnt in b.spaces if seat == i)
        placed += len(p.cities)
        assert p.servants + placed == C.SERVANTS + p.proxies
        assert p.servants >= 0 and p.proxies >= 0
    # every Scholar Track holds at most 4 Scholars; vassals and the Bot never draft
    assert all(len(t) <= C.SCHOLAR_SPACES for d, t in s.tracks.items() if d != "rest")
    assert all(seat < s.players for seat in s.draft_queue)
    assert len(s.p) == {1: 2, 2: 4}.get(s.players, s.players)
    # hidden information: nobody else sees a bag's contents, and no view has a bag order
    last = events[-1]
    if last.visible_to() is not None or len(events) % 7 == 0:
        for viewer in (None, 0):
            v = GAME.view(s, viewer)
            for i, board in enumerate(v.player_boards):
                if viewer != i and not s.finished:
                    assert board.bag is None
                else:
                    assert board.bag == sorted(board.bag)


def lanes(fast: int, full: int):
    """A few games in the default lane, *full* in the slow lane (the same seeds, and more)."""
    return pytest.mark.parametrize(
        "games", [pytest.param(fast, id="few"), pytest.param(full, id="full", marks=pytest.mark.slow)]
    )


@lanes(8, 200)
@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts(players, games):
    for i in range(games):
        result = random_playout(GAME, JiangnanOptions(players=players), f"jn-{players}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


@lanes(2, 50)
@pytest.mark.parametrize("chapter", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts_of_every_chapter(players, chapter, games):
    for i in range(games):
        result = random_playout(
            GAME, JiangnanOptions(players=players, chapter=chapter), f"ch{chapter}-{players}-{i}", check=check
        )
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


@lanes(12, 100)
def test_random_two_player_games_with_vassals(games):
    for i in range(games):
        options = JiangnanOptions(players=2, chapter=1 + i % 6, variant=i % 3 == 0)
        result = random_playout(GAME, options, f"2p-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == 2 and len(result.state.p) == 4
        assert all(p.vp == 0 and not p.published for p in result.state.p[2:])  # VP only for main colours


@lanes(6, 50)
@pytest.mark.parametrize("difficulty", C.DIFFICULTIES)
def test_random_solo_games_at_every_difficulty(difficulty, games):
    for i in range(games):
        options = JiangnanOptions(players=1, chapter=1 + i % 6, difficulty=difficulty)
        result = random_playout(GAME, options, f"solo-{difficulty}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and [s.seat for s in out.scores] == [0]
        assert out.details["bot"]["score"] == result.state.p[1].vp
        assert out.winners in ([0], [])


@lanes(8, 24)
def test_random_free_configurations(games):
    pick = Rng("free-configurations")
    for i in range(games):
        players = 1 + i % 4
        options = JiangnanOptions(
            players=players,
            chapter=pick.between(1, 6),
            map="-".join(pick.choice("AB") + b for b in pick.shuffled(["1", "2", "3"])),
            talents=pick.choice(["none", "four", "advanced", "characters"]),
            action_tiles=pick.choice(["basic", "advanced"]),
            mixed_ages=pick.choice([True, False]),
            shops=pick.choice(["A", "B", "random"]),
            pointer=pick.choice("ABC"),
            goals=pick.choice(["A-F", "G-L", "A-L"]),
            upkeep=pick.choice("AB"),
            overlay=pick.choice("AB"),
            variant=players == 2 and pick.choice([True, False]),
            difficulty=pick.choice(C.DIFFICULTIES) if players == 1 else "easy",
        )
        if draft_shortfall(players, options.action_tiles == "advanced", options.mixed_ages, options.upkeep):
            with pytest.raises(InvalidOptions, match="cannot be set up as printed"):  # refused up front
                GAME.start(options, f"free-{i}")
            options = msgspec.structs.replace(options, action_tiles="advanced")
        result = random_playout(GAME, options, f"free-{i}", check=check)
        assert GAME.outcome(result.state) is not None


@pytest.mark.parametrize(
    "options",
    [
        JiangnanOptions(players=4),
        JiangnanOptions(players=3, chapter=6),
        JiangnanOptions(players=2, chapter=5),
        JiangnanOptions(players=1, chapter=4, difficulty="inferno"),
    ],
    ids=lambda o: f"{o.players}p-ch{o.chapter}",
)
def test_describe_narrates_every_event(options):
    result = random_playout(GAME, options, "narrate")
    state = GAME.initial(options)
    for event in result.events:
        line = GAME.describe(state, event)
        assert isinstance(line, str)
        if type(event).__name__ not in (
            "StepBegan",
            "StepEnded",
            "IncomeBegan",
            "DisplayFormed",
            "ResourcesChanged",
            "TurnEnded",
        ):
            assert line, f"no narration for {event!r}"
        state = GAME.evolve(state, event)


def test_views_and_components_encode():
    import msgspec

    result = random_playout(GAME, JiangnanOptions(players=3), "views")
    for viewer in (None, 0, 1, 2):
        v = GAME.view(result.state, viewer)
        assert msgspec.json.decode(msgspec.json.encode(v))["finished"] is True
        assert all(board.bag is not None for board in v.player_boards)  # revealed after the end
    msgspec.json.encode(GAME.components())
    out = GAME.outcome(result.state)
    assert sorted(s.rank for s in out.scores) == [1, 2, 3] and out.winners == [
        s.seat for s in out.scores if s.rank == 1
    ]
    assert all(
        set(s.breakdown) >= {"goals", "sets", "assistants", "scenery", "ideas", "during the game"}
        for s in out.scores
    )

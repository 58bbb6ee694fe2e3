"""Random playouts: complete games at 3 and 4 players with invariants checked at every step."""

import pytest

from domain.jiangnan import GAME, JiangnanOptions
from domain.jiangnan import components as C
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
                    assert board["bag"] is None
                else:
                    assert board["bag"] == sorted(board["bag"])


@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts(players):
    for i in range(200):
        result = random_playout(GAME, JiangnanOptions(players=players), f"jn-{players}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


@pytest.mark.parametrize("chapter", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("players", [3, 4])
def test_random_playouts_of_every_chapter(players, chapter):
    for i in range(50):
        result = random_playout(GAME, JiangnanOptions(players=players, chapter=chapter), f"ch{chapter}-{players}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == players


def test_random_two_player_games_with_vassals():
    for i in range(100):
        options = JiangnanOptions(players=2, chapter=1 + i % 6, variant=i % 3 == 0)
        result = random_playout(GAME, options, f"2p-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and len(out.scores) == 2 and len(result.state.p) == 4
        assert all(p.vp == 0 and not p.published for p in result.state.p[2:])  # VP only for main colours


@pytest.mark.parametrize("difficulty", C.DIFFICULTIES)
def test_random_solo_games_at_every_difficulty(difficulty):
    for i in range(50):
        options = JiangnanOptions(players=1, chapter=1 + i % 6, difficulty=difficulty)
        result = random_playout(GAME, options, f"solo-{difficulty}-{i}", check=check)
        out = GAME.outcome(result.state)
        assert out is not None and [s.seat for s in out.scores] == [0]
        assert out.details["bot"]["score"] == result.state.p[1].vp
        assert out.winners in ([0], [])


@pytest.mark.parametrize("options", [
    JiangnanOptions(players=3), JiangnanOptions(players=4), JiangnanOptions(players=3, chapter=4), JiangnanOptions(players=4, chapter=6),
    JiangnanOptions(players=2, chapter=3, variant=True), JiangnanOptions(players=1, chapter=5, difficulty="inferno"),
], ids=lambda o: f"{o.players}p-ch{o.chapter}")
def test_every_listed_move_is_accepted(options):
    for i in range(2):
        random_playout(GAME, options, f"all-{options.players}-{options.chapter}-{i}", check_all_legal_moves=True)


def test_random_free_configurations():
    from domain.kernel import Rng

    pick = Rng("free-configurations")
    for i in range(24):
        players = 1 + i % 4
        options = JiangnanOptions(
            players=players, chapter=pick.between(1, 6),
            map="-".join(pick.choice("AB") + b for b in pick.shuffled(["1", "2", "3"])),
            talents=pick.choice(["none", "four", "advanced", "characters"]), action_tiles=pick.choice(["basic", "advanced"]),
            mixed_ages=pick.choice([True, False]), shops=pick.choice(["A", "B", "random"]), pointer=pick.choice("ABC"),
            goals=pick.choice(["A-F", "G-L", "A-L"]), upkeep=pick.choice("AB"), overlay=pick.choice("AB"),
            variant=players == 2 and pick.choice([True, False]),
            difficulty=pick.choice(C.DIFFICULTIES) if players == 1 else "easy",
        )
        result = random_playout(GAME, options, f"free-{i}", check=check)
        assert GAME.outcome(result.state) is not None


@pytest.mark.parametrize("options", [
    JiangnanOptions(players=4), JiangnanOptions(players=3, chapter=6), JiangnanOptions(players=2, chapter=5),
    JiangnanOptions(players=1, chapter=4, difficulty="inferno"),
], ids=lambda o: f"{o.players}p-ch{o.chapter}")
def test_describe_narrates_every_event(options):
    result = random_playout(GAME, options, "narrate")
    state = GAME.initial(options)
    for event in result.events:
        line = GAME.describe(state, event)
        assert isinstance(line, str)
        if type(event).__name__ not in ("StepBegan", "StepEnded", "IncomeBegan", "DisplayFormed", "ResourcesChanged", "TurnEnded"):
            assert line, f"no narration for {event!r}"
        state = GAME.evolve(state, event)


@pytest.mark.parametrize("options", [
    JiangnanOptions(players=3), JiangnanOptions(players=4, chapter=6), JiangnanOptions(players=2, chapter=5, variant=True),
    JiangnanOptions(players=1, chapter=3, difficulty="master"),
], ids=lambda o: f"{o.players}p-ch{o.chapter}")
def test_anything_not_listed_is_rejected_with_a_rule_code(options):
    from domain.jiangnan.commands import (
        ActivateAssistant, ChooseShop, ChooseTalent, ChooseTrend, DiscardPortfolio, DiscardTile, DraftTile, DrawInspiration,
        DrawPortfolio, EndIncome, ExchangeIdeas, MoveBoatServant, MoveServant, Pass, PayIdea, PlaceOnBoat, PlaceServant,
        Publish, PublishIn, PublishToTravel, RefreshPortfolios, Rest, SendVassal, SwapActionTile, TakeExam, TakeIdea,
        TakeIdeas, TakePortfolio, TakePortfolios, TravelTo, UseSpiritsTile, VisitDistrict,
    )
    from domain.kernel import Rng, RuleViolation

    pool = [
        VisitDistrict(slot=0, district="society"), VisitDistrict(slot=3, district="parlour"), VisitDistrict(slot=9, district="travel"),
        Rest(slot=0), Rest(slot=5), RefreshPortfolios(), TakePortfolios(portfolios=["A1"]), TakeIdeas(ideas=["gold", "drama"]),
        TakePortfolio(portfolio="C15"), TakeIdea(idea="painting"), Publish(portfolio="A1"), DrawInspiration(),
        PlaceServant(muse="B20"), TravelTo(city="A3"), TravelTo(city="Z9"), MoveServant(distance=4, clockwise=True),
        MoveServant(distance=3, clockwise=False), PlaceOnBoat(boat=9), MoveBoatServant(from_boat=0, to_boat=0),
        ExchangeIdeas(give=["drama"], take=["novel"]), SwapActionTile(tile="S01", slot=7), ActivateAssistant(assistant="B01"),
        EndIncome(), ChooseTrend(trend="gold"), DraftTile(tile="4-01"), Pass(), UseSpiritsTile(),
        ChooseTalent(talent="A20"), TakeExam(), DiscardPortfolio(portfolio="A1"), PayIdea(idea="drama"),
        PublishToTravel(portfolio="B2"), PublishIn(portfolio="A1", district="tavern"), DrawPortfolio(), ChooseShop(shop="B5"),
        SendVassal(district="society"), DiscardTile(slot=1),
    ]
    seed = f"fuzz-{options.players}-{options.chapter}"
    state, events = GAME.start(options, seed)
    chooser = Rng(seed + "/chooser")
    step = 0
    while not state.finished:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_moves(state, seat)
        if step % 2 == 0:
            for command in pool:
                for who in range(state.players):
                    try:
                        GAME.decide(state, who, command, Rng("f", 0))
                    except RuleViolation as v:
                        assert v.code and (who != seat) == (v.code == "not_your_turn")
                    else:
                        assert who == seat and command in legal
        state = GAME.fold(state, GAME.decide(state, seat, chooser.choice(legal), Rng("p", len(events))))
        step += 1


def test_views_and_components_encode():
    import msgspec

    result = random_playout(GAME, JiangnanOptions(players=3), "views")
    for viewer in (None, 0, 1, 2):
        v = GAME.view(result.state, viewer)
        assert msgspec.json.decode(msgspec.json.encode(v))["finished"] is True
        assert all(board["bag"] is not None for board in v.player_boards)  # revealed after the end
    msgspec.json.encode(GAME.components())
    out = GAME.outcome(result.state)
    assert sorted(s.rank for s in out.scores) == [1, 2, 3] and out.winners == [s.seat for s in out.scores if s.rank == 1]
    assert all(set(s.breakdown) >= {"goals", "sets", "assistants", "scenery", "ideas", "during the game"} for s in out.scores)

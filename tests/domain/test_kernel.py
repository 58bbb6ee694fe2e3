"""The kernel's own guarantees: a stable PRNG, the redaction helper, deciding through a scratch
copy, and ranking seats into an outcome."""

import msgspec

from domain.kernel import (
    Rng,
    Scratch,
    SeatScore,
    Standing,
    clone,
    lead,
    rank,
    redact_for,
    seed_commitment,
    winners,
)
from tests.fixture_game import GAME
from tests.fixture_game.rules import Answered, BluffOptions, CardDrawn, Claimed, Staked, State, evolve


def test_rng_is_pinned_across_python_versions():
    # These values are part of every stored game's record: if they change, every golden
    # record breaks.  Never update them without a rules-version bump in every game.
    rng = Rng("yamen", 0)
    assert [rng.below(6) + 1 for _ in range(10)] == PINNED_DICE
    assert Rng("yamen", 1).next_u64() != Rng("yamen", 0).next_u64()


def test_rng_bounded_draws_are_in_range_and_cover_all_values():
    rng = Rng("coverage", 7)
    seen = {rng.between(1, 4) for _ in range(500)}
    assert seen == {1, 2, 3, 4}
    items = list(range(20))
    shuffled = rng.shuffled(items)
    assert sorted(shuffled) == items and shuffled != items
    assert len(set(rng.sample(items, 5))) == 5


def test_seed_commitment_is_sha256_hex():
    assert seed_commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_redaction_shows_private_events_only_to_their_seat():
    event = CardDrawn(seat=1, card=7)
    assert redact_for(event, 1) is event
    assert redact_for(event, 0) == CardDrawn(seat=1, card=None)
    assert redact_for(event, None) == CardDrawn(seat=1, card=None)
    assert redact_for(event, 0, revealed=True) is event


PINNED_DICE = [5, 4, 6, 4, 5, 1, 2, 3, 3, 6]


# --- Scratch -------------------------------------------------------------------------------------
def _table() -> State:
    state, _events = GAME.start(BluffOptions(players=3), "scratch")
    return state


def test_scratch_folds_each_event_as_it_is_emitted():
    state = _table()
    rng = Rng("scratch", 2)
    table = Scratch(state, evolve, rng)
    assert table.rng is rng and table.events == []
    table.emit(Claimed(seat=0, claim="high"))
    assert table.state.claim == "high" and table.state.stake is None
    table.emit(Staked(seat=0, amount=2), Answered(seat=1, believe=True))
    assert (table.state.stake, table.state.answers) == (2, {1: True})
    assert table.events == [
        Claimed(seat=0, claim="high"),
        Staked(seat=0, amount=2),
        Answered(seat=1, believe=True),
    ]
    assert msgspec.msgpack.encode(table.state) == msgspec.msgpack.encode(
        GAME.fold(clone(state), table.events)
    )


def test_scratch_never_mutates_the_original():
    state = _table()
    before = msgspec.msgpack.encode(state)
    table = Scratch(state, evolve, Rng("scratch", 3))
    table.emit(Claimed(seat=0, claim="low"), Staked(seat=0, amount=3), Answered(seat=2, believe=False))
    assert table.state is not state
    assert msgspec.msgpack.encode(state) == before


def test_scratch_uses_the_games_own_copy():
    copies = []

    def copy(state: State) -> State:
        copies.append(state)
        return clone(state)

    state = _table()
    table = Scratch(state, evolve, Rng("scratch", 4), copy=copy)
    table.emit(Claimed(seat=0, claim="high"))
    assert copies == [state] and state.claim is None and table.state.claim == "high"


# --- standings -----------------------------------------------------------------------------------
def _standing(seat: int, score: int, *tiebreak: int, key: tuple[int, ...] | None = None) -> Standing:
    return Standing(seat=seat, score=score, breakdown={"points": score}, tiebreak=list(tiebreak), key=key)


def test_rank_keeps_seat_order_and_carries_breakdown_and_tiebreak():
    scores = rank([_standing(0, 5, 1), _standing(1, 9, 0), _standing(2, 7, 4)])
    assert scores == [
        SeatScore(seat=0, score=5, rank=3, breakdown={"points": 5}, tiebreak=[1]),
        SeatScore(seat=1, score=9, rank=1, breakdown={"points": 9}, tiebreak=[0]),
        SeatScore(seat=2, score=7, rank=2, breakdown={"points": 7}, tiebreak=[4]),
    ]
    assert winners(scores) == [1] and lead(scores) == 2


def test_equal_keys_share_a_place_and_the_next_place_is_skipped():
    scores = rank([_standing(0, 8), _standing(1, 10), _standing(2, 10), _standing(3, 8), _standing(4, 3)])
    assert [s.rank for s in scores] == [3, 1, 1, 3, 5]
    assert winners(scores) == [1, 2]


def test_tie_breaks_are_compared_in_order():
    scores = rank(
        [_standing(0, 10, 2, 9), _standing(1, 10, 3, 0), _standing(2, 10, 3, 1), _standing(3, 11, 0, 0)]
    )
    assert [s.rank for s in scores] == [4, 3, 2, 1]
    tied = rank([_standing(0, 10, 3, 1), _standing(1, 10, 3, 1)])
    assert [s.rank for s in tied] == [1, 1] and winners(tied) == [0, 1]


def test_a_custom_key_decides_instead_of_score_and_tiebreak():
    # e.g. equal scores, then the earlier seat in turn order wins: a smaller value is better.
    scores = rank([_standing(seat, 10, key=(10, -order)) for seat, order in [(0, 2), (1, 0), (2, 1)]])
    assert [s.rank for s in scores] == [3, 1, 2] and winners(scores) == [1]
    assert [s.tiebreak for s in scores] == [[], [], []]


def test_lead_is_measured_from_the_best_score_outside_first_place():
    assert lead(rank([_standing(0, 12), _standing(1, 12), _standing(2, 7), _standing(3, 9)])) == 3
    assert lead(rank([_standing(0, 6), _standing(1, 6)])) == 0
    # a tie-break can put a seat with the same score below first place: it leads by nothing
    assert lead(rank([_standing(0, 6, 1), _standing(1, 6, 0)])) == 0

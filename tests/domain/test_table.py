"""The table's rules (domain.kernel.table) on a real title: clocks, timeouts and zombies,
resigning and leaving, take-backs — judged by ``decide``, folded from events, verified by replay."""

from __future__ import annotations

import msgspec
import pytest

from domain.kernel import Rng, RuleViolation
from domain.kernel import bots as B
from domain.kernel import table as T
from domain.yangtze import GAME, YangtzeOptions

T0 = 1_800_000_000_000


class Table:
    """A game driven like the service drives it: every command stamped with a time."""

    def __init__(self, players: int = 2, seed: str = "table", **table) -> None:
        options = YangtzeOptions(players=players, table=T.TableOptions(**table))
        self.state, events = GAME.start(options, seed)
        self.events = list(events)
        self.seed = seed
        self.now = T0

    def send(self, seat: int, command, *, after_ms: int = 1000) -> list:
        self.now += after_ms
        new = GAME.decide(
            self.state,
            seat,
            GAME.timed_type(at_ms=self.now, command=command),
            Rng(self.seed, len(self.events)),
        )
        self.state = GAME.fold(self.state, new)
        self.events += new
        return new

    def refused(self, seat: int, command, code: str, *, after_ms: int = 0) -> None:
        with pytest.raises(RuleViolation) as caught:
            GAME.decide(
                self.state,
                seat,
                GAME.timed_type(at_ms=self.now + after_ms, command=command),
                Rng(self.seed, 0),
            )
        assert caught.value.code == code, caught.value

    def play(self, seat: int | None = None, *, after_ms: int = 1000, prefer=None) -> tuple[int, object, list]:
        seat = GAME.to_act(self.state)[0] if seat is None else seat
        legal = GAME.legal_moves(self.state, seat)
        move = (
            prefer(legal) if prefer else B.uniform(None, seat, legal, Rng(self.seed + "/c", len(self.events)))
        )
        return seat, move, self.send(seat, move, after_ms=after_ms)

    @property
    def table(self) -> T.TableState:
        return T.table_of(self.state)

    def refold(self):
        options = YangtzeOptions(players=self.state.players)
        return GAME.fold(GAME.initial(options), list(self.events))


def test_a_game_without_table_options_encodes_as_before():
    state, events = GAME.start(YangtzeOptions(players=2), "plain")
    assert not any(isinstance(e, T.TableEvent) for e in events)
    assert b"table" not in msgspec.msgpack.encode(state)
    assert msgspec.json.encode(YangtzeOptions(players=2)) == b'{"players":2}'


def test_a_total_clock_charges_the_seat_that_thinks_and_adds_the_increment():
    game = Table(clock=T.Clock(mode="total", seconds=60, increment=5))
    assert game.events[-1] == T.Arranged(options=game.table.options, players=2)
    assert T.deadline_ms(game.table, 0) is None  # the clocks start when every seat is taken
    game.send(0, T.StartClocks(), after_ms=0)
    first = GAME.to_act(game.state)[0]
    assert T.deadline_ms(game.table, first) == game.now + 60_000
    seat, _, events = game.play(after_ms=10_000)
    assert events[-1] == T.ClockPunched(seat=seat, at_ms=game.now)
    assert game.table.clocks[seat].remaining_ms == 60_000 - 10_000 + 5_000
    for s in GAME.to_act(game.state):
        assert game.table.clocks[s].since_ms == game.now
    assert msgspec.msgpack.encode(game.refold()) == msgspec.msgpack.encode(game.state)


def test_time_running_out_lets_a_bot_decide_and_repeated_timeouts_replace_the_seat():
    game = Table(clock=T.Clock(mode="decision", seconds=30), zombie_after=2)
    game.send(0, T.StartClocks(), after_ms=0)
    seat = GAME.to_act(game.state)[0]
    game.refused(seat, T.ClaimTimeout(), "not_yet", after_ms=29_999)
    other = 1 - seat
    game.refused(other, T.ClaimTimeout(), "no_deadline", after_ms=40_000)
    assert game.send(seat, T.ClaimTimeout(), after_ms=30_000) == [T.TimedOut(seat=seat, at_ms=game.now)]
    assert game.table.timeouts[seat] == 1 and not game.table.replaced
    # The bot's decision for the seat (the service makes it) starts a new decision clock.
    while GAME.to_act(game.state) == [seat]:
        game.play(seat, after_ms=100)
    while seat not in GAME.to_act(game.state):
        game.play(after_ms=100)
    events = game.send(seat, T.ClaimTimeout(), after_ms=30_000)
    assert events == [
        T.TimedOut(seat=seat, at_ms=game.now),
        T.SeatReplaced(seat=seat, at_ms=game.now, reason="timeouts"),
    ]
    assert game.table.replaced == [T.Replaced(seat=seat, at_ms=game.now, reason="timeouts")]


def test_forfeit_on_time_ends_a_two_player_game_for_the_other_seat():
    game = Table(clock=T.Clock(mode="correspondence", days=1, on_timeout="forfeit"))
    game.send(0, T.StartClocks(), after_ms=0)
    seat = GAME.to_act(game.state)[0]
    game.send(seat, T.ClaimTimeout(), after_ms=86_400_000)
    assert GAME.to_act(game.state) == [] and GAME.legal_moves(game.state, 1 - seat) == []
    outcome = GAME.outcome(game.state)
    assert outcome.winners == [1 - seat]
    assert outcome.details["replaced"] == [{"seat": seat, "at_ms": game.now, "reason": "timeout"}]
    game.refused(1 - seat, T.Resign(), "game_over")


def test_a_resignation_with_others_left_is_played_on_by_a_bot_and_ranked_last():
    game = Table(players=3)
    game.send(1, T.Resign())
    assert GAME.to_act(game.state) and T.replaced_seats(game.table) == {1}
    game.refused(1, T.Leave(), "seat_replaced")
    while GAME.outcome(game.state) is None:
        game.play(after_ms=10)
    outcome = GAME.outcome(game.state)
    by_seat = {s.seat: s for s in outcome.scores}
    assert by_seat[1].rank == 3 and 1 not in outcome.winners
    assert {by_seat[0].rank, by_seat[2].rank} <= {1, 2}
    assert "replaced" in outcome.summary
    assert msgspec.msgpack.encode(game.refold()) == msgspec.msgpack.encode(game.state)


def test_leaving_a_two_player_game_lets_a_bot_finish_it():
    game = Table(players=2)
    game.send(0, T.Leave())
    assert GAME.outcome(game.state) is None and GAME.to_act(game.state)


def _undoable(game: Table) -> tuple[int, bytes]:
    """Play until the last command may be taken back; the seat and the state before it."""
    for _ in range(400):
        before = msgspec.msgpack.encode(game.state)
        seat, _, events = game.play(after_ms=10)
        if isinstance(events[0], T.Checkpoint) and events[0].undoable:
            return seat, before
    raise AssertionError("no undoable command in 400 moves")


def test_a_take_back_with_consent_restores_the_state_before_the_command():
    game = Table(players=2, takebacks="consent")
    seat, before = _undoable(game)
    game.send(seat, T.RequestTakeback())
    game.refused(seat, T.AnswerTakeback(accept=True), "not_asked")
    events = game.send(1 - seat, T.AnswerTakeback(accept=True))
    assert events == [T.TakebackConsented(seat=1 - seat), T.TakenBack(seat=seat)]
    restored = msgspec.structs.replace(game.state, table=msgspec.UNSET)
    assert msgspec.msgpack.encode(restored) == msgspec.msgpack.encode(
        msgspec.structs.replace(msgspec.msgpack.decode(before, type=type(game.state)), table=msgspec.UNSET)
    )
    game.refused(seat, T.RequestTakeback(), "takeback_not_last")  # nothing left to take back
    assert msgspec.msgpack.encode(game.refold()) == msgspec.msgpack.encode(game.state)


def test_a_declined_take_back_changes_nothing_and_free_take_backs_need_no_consent():
    game = Table(players=2, takebacks="consent")
    seat, _ = _undoable(game)
    game.send(seat, T.RequestTakeback())
    game.refused(seat, T.RequestTakeback(), "takeback_pending")
    assert game.send(1 - seat, T.AnswerTakeback(accept=False)) == [T.TakebackDeclined(seat=1 - seat)]
    game.refused(1 - seat, T.AnswerTakeback(accept=True), "no_takeback_asked")
    free = Table(players=2, takebacks="free", seed="free")
    seat, _ = _undoable(free)
    assert free.send(seat, T.RequestTakeback()) == [T.TakebackRequested(seat=seat), T.TakenBack(seat=seat)]


def test_a_take_back_that_would_undo_revealed_information_or_randomness_is_refused():
    game = Table(players=2, takebacks="consent", seed="reveal")
    for _ in range(400):
        seat, _, events = game.play(after_ms=10)
        if isinstance(events[0], T.Checkpoint) and not events[0].undoable:
            break
    else:
        raise AssertionError("no revealing command in 400 moves")
    game.refused(seat, T.RequestTakeback(), "takeback_revealed")


def test_only_the_seat_that_acted_last_may_ask_and_without_the_option_nobody_may():
    game = Table(players=2, takebacks="consent", seed="last")
    seat, _ = _undoable(game)
    game.refused(1 - seat, T.RequestTakeback(), "takeback_not_last")
    plain = Table(players=2, seed="off")
    plain.play()
    plain.refused(0, T.RequestTakeback(), "takebacks_off")


def test_service_commands_need_the_services_time_stamp():
    game = Table(clock=T.Clock(mode="decision", seconds=5))
    with pytest.raises(RuleViolation) as caught:
        GAME.decide(game.state, 0, T.Resign(), Rng("x", 0))
    assert caught.value.code == "time_stamp_missing"

"""Society: refresh the display, take Portfolios and Ideas, or (side B) take the Imperial Exam;
Talents A13/A15 take one more."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from domain.kernel.decision import Decision, Refusal

from . import components as C
from .commands import (
    DiscardPortfolio,
    Pass,
    PayIdea,
    RefreshPortfolios,
    TakeExam,
    TakeIdea,
    TakeIdeas,
    TakePortfolio,
    TakePortfolioAndIdea,
    TakePortfolios,
)
from .events import DegreeEarned, PortfolioDiscarded, PortfoliosRefreshed, PortfolioTaken
from .play import Play, always, bad_idea, gain, idea_refusal, refusal
from .portfolios import displayed_refusal, not_displayed, replenish_display, take_displayed
from .state import Frame, State
from .table import IDEA_PAIRS, can_take_exam, cost, power


# --- Society 2-3 ---------------------------------------------------------------------------------
def _society_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    moves: list[Any] = [RefreshPortfolios()]
    moves += [TakePortfolios(portfolios=sorted(pair)) for pair in combinations(state.display, 2)]
    moves += [TakePortfolioAndIdea(portfolio=pid, idea=i) for pid in state.display for i in C.IDEAS]
    moves += [TakeIdeas(ideas=pair) for pair in IDEA_PAIRS]
    return [*moves, TakeExam()]


def _society_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    player = state.p[seat]
    match cmd:
        case RefreshPortfolios():  # Society 2: pay 1 Coin, once per turn
            if player.refreshed:
                return refusal("already_refreshed", "you may refresh only once per turn", "Society")
            if player.coins < cost(state, seat, 1):
                return refusal("insufficient_coins", "refreshing costs 1 Coin", "Society")
            if not state.display:
                return refusal("illegal_move", "there are no Portfolio Tiles on display", "Society")
            return None
        case TakePortfolios(portfolios=pids):  # 3a: any 2 face-up Portfolio Tiles
            if len(pids) != 2 or pids[0] == pids[1]:
                return not_displayed()
            return displayed_refusal(state, *pids)
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):  # 3b: 1 face-up tile and 1 Idea
            return displayed_refusal(state, pid) or idea_refusal(idea)
        case TakeIdeas(ideas=ideas):  # 3c: 2 Idea Tiles of any type(s)
            return idea_refusal(*ideas) if len(ideas) == 2 else bad_idea()
        case TakeExam():  # 3d: the Imperial Exam (side B)
            if state.cfg.exam and can_take_exam(state, seat):
                return None
            return refusal(
                "cannot_take_exam",
                "the exam needs unpublished Portfolios and Ideas you do not have (or you are a Gongshi)",
                "Imperial Exam",
            )
    return None


def _society_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    state = scratch.state
    if isinstance(cmd, RefreshPortfolios):  # the display goes to the bottom of the stack, 4 new tiles
        gain(scratch, seat, {"coin": -cost(state, seat, 1)}, "refresh")
        scratch.emit(PortfoliosRefreshed(seat=seat, returned=list(state.display), paid=True))
        replenish_display(scratch)
        return
    scratch.end_step()
    if power(state, seat) == "charming":  # A13/A15: 1 more Portfolio or Idea Tile
        scratch.push("society_extra", seat)
    match cmd:
        case TakePortfolios(portfolios=pids):
            for pid in pids:
                scratch.emit(PortfolioTaken(seat=seat, portfolio=pid))
            replenish_display(scratch)
        case TakePortfolioAndIdea(portfolio=pid, idea=idea):
            scratch.emit(PortfolioTaken(seat=seat, portfolio=pid))
            gain(scratch, seat, [idea], "society")
            replenish_display(scratch)
        case TakeIdeas(ideas=ideas):
            gain(scratch, seat, ideas, "society")
        case TakeExam():  # Juren (2 Portfolios + 6 Ideas) / Gongshi (3 + 9): discard and pay one at a time
            player = state.p[seat]
            exam = C.EXAMS[player.degree + 1]
            scratch.emit(DegreeEarned(seat=seat, degree=player.degree + 1))
            scratch.push("exam_ideas", seat, "", exam["ideas"])
            scratch.push("exam_portfolios", seat, "", exam["portfolios"])


# --- A13/A15: at the Society, 1 more Portfolio or Idea Tile ----------------------------------------
def _extra_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    portfolios: list[Any] = [TakePortfolio(portfolio=pid) for pid in state.display]
    return portfolios + [TakeIdea(idea=i) for i in C.IDEAS]


def _extra_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if isinstance(cmd, TakePortfolio):
        return displayed_refusal(state, cmd.portfolio)
    return idea_refusal(cmd.idea)


def _extra_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    if isinstance(cmd, TakePortfolio):
        take_displayed(scratch, seat, cmd.portfolio)
    else:
        gain(scratch, seat, [cmd.idea], "idea")


# --- Imperial Exam: discard the unpublished Portfolio Tiles, then pay the Idea Tiles ----------------
def _exam_portfolios_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [DiscardPortfolio(portfolio=pid) for pid in sorted(set(state.p[seat].unpublished))]


def _exam_portfolios_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.portfolio in state.p[seat].unpublished:
        return None
    return refusal("not_your_portfolio", "choose an unpublished Portfolio of yours", "Imperial Exam")


def _exam_portfolios_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    scratch.emit(PortfolioDiscarded(seat=seat, portfolio=cmd.portfolio))  # removed from the game
    if frame.n > 1:
        scratch.push(frame.kind, seat, frame.arg, frame.n - 1)


def _exam_ideas_candidates(state: State, seat: int, frame: Frame) -> list[Any]:
    return [PayIdea(idea=i) for i in C.IDEAS]


def _exam_ideas_check(state: State, seat: int, frame: Frame, cmd: Any) -> Refusal | None:
    if cmd.idea in C.IDEAS and state.p[seat].ideas[cmd.idea] > 0:
        return None
    return refusal("insufficient_ideas", "you have no Idea of that type", "Imperial Exam")


def _exam_ideas_play(scratch: Play, seat: int, frame: Frame, cmd: Any) -> None:
    scratch.end_step()
    gain(scratch, seat, {cmd.idea: -1}, "imperial exam")
    if frame.n > 1:
        scratch.push(frame.kind, seat, frame.arg, frame.n - 1)


STEPS = {
    "society": Decision(
        "Society",
        (RefreshPortfolios, TakePortfolios, TakePortfolioAndIdea, TakeIdeas, TakeExam),
        _society_candidates,
        _society_check,
        _society_play,
    ),
    "society_extra": Decision(
        "List of Talent Powers",
        (TakePortfolio, TakeIdea, Pass),
        _extra_candidates,
        _extra_check,
        _extra_play,
        always,
    ),
    "exam_portfolios": Decision(
        "Imperial Exam",
        (DiscardPortfolio,),
        _exam_portfolios_candidates,
        _exam_portfolios_check,
        _exam_portfolios_play,
    ),
    "exam_ideas": Decision(
        "Imperial Exam", (PayIdea,), _exam_ideas_candidates, _exam_ideas_check, _exam_ideas_play
    ),
}

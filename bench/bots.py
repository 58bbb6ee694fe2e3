"""How strong each bot level is: ``python -m bench.bots`` plays in-process games and prints, per
title and player count, how a stronger level does against the random bot.

At 2–4 players one seat is the level under test and every other seat is the random bot; the
tested seat rotates through the seats game by game (so seat order does not favour it). Figures:

- **wins**: share of games the tested seat is among the winners (a shared win counts), beside what
  a random seat would get (1 ÷ players);
- **beats random**: over every (game, random seat) pair, the share where the tested seat finished
  strictly ahead (rank), ties counting one half — "beats the random bot in a clear majority";
- **score ±**: the tested seat's score minus the random seats' mean, averaged over games;
- **ms/decision**: the tested level's mean thinking time per move (one core).

Solo games (1 player: Jiangnan's and Pingyao's solo modes, against the rulebook's own bot or
targets) play each seed twice, once with each level, and report both win rates and the paired
score difference.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import msgspec

from domain.kernel import Game
from domain.kernel import bots as B
from domain.registry import production_games


def _options(game: Game, players: int) -> Any:
    return msgspec.convert({"players": players}, game.options_type)


def _timed(game: Game, level: str) -> tuple[B.Strategy, list[float]]:
    spent: list[float] = []
    play = B.strategy(game, level)

    def timed(view, seat, legal, rng):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return play(view, seat, legal, rng)
        finally:
            spent.append(time.perf_counter() - t0)

    return timed, spent


def measure(game: Game, players: int, level: str, games: int, seed: str = "bots") -> dict[str, Any]:
    timed, spent = _timed(game, level)
    probe = Game(**{**game.__dict__, "strategies": {**game.strategies, "_timed": timed}})
    options = _options(game, players)
    row: dict[str, Any] = {"kind": game.kind, "players": players, "level": level, "games": games}
    if players == 1:
        wins = {level: 0, B.RANDOM: 0}
        diffs = []
        for n in range(games):
            scores = {}
            for lv in (level, B.RANDOM):
                m = B.play_match(probe, options, f"{seed}-{n}", {0: "_timed" if lv == level else lv})
                scores[lv] = m.outcome.scores[0].score
                wins[lv] += 0 in m.outcome.winners
            diffs.append(scores[level] - scores[B.RANDOM])
        row.update(
            wins=wins[level] / games,
            random_wins=wins[B.RANDOM] / games,
            score_diff=statistics.fmean(diffs),
            ms_per_decision=1000 * statistics.fmean(spent) if spent else 0.0,
        )
        return row
    wins, beats, pairs, diffs = 0, 0.0, 0, []
    for n in range(games):
        tested = n % players
        m = B.play_match(probe, options, f"{seed}-{n}", {tested: "_timed"})
        by_seat = {s.seat: s for s in m.outcome.scores}
        wins += tested in m.outcome.winners
        others = [by_seat[s] for s in range(players) if s != tested]
        for other in others:
            pairs += 1
            if by_seat[tested].rank < other.rank:
                beats += 1
            elif by_seat[tested].rank == other.rank:
                beats += 0.5
        diffs.append(by_seat[tested].score - statistics.fmean(o.score for o in others))
    row.update(
        wins=wins / games,
        baseline=1 / players,
        beats_random=beats / pairs,
        score_diff=statistics.fmean(diffs),
        ms_per_decision=1000 * statistics.fmean(spent) if spent else 0.0,
    )
    return row


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| game | players | level | games | wins (a random seat) | beats random | score ± | ms/decision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["players"] == 1:
            wins = f"{r['wins']:.0%} (random bot {r['random_wins']:.0%})"
            beats = "—"
        else:
            wins = f"{r['wins']:.0%} ({r['baseline']:.0%})"
            beats = f"{r['beats_random']:.0%}"
        lines.append(
            f"| {r['kind']} | {r['players']} | {r['level']} | {r['games']} | {wins} | {beats} "
            f"| {r['score_diff']:+.1f} | {r['ms_per_decision']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games per title, player count and level")
    parser.add_argument("--kind", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="only this player count (repeatable)")
    parser.add_argument("--seed", default="bots")
    args = parser.parse_args(argv)
    rows = []
    for kind, game in sorted(production_games().items()):
        if args.kind and kind not in args.kind:
            continue
        for players in game.player_counts:
            if args.players and players not in args.players:
                continue
            for level in game.strategies:
                row = measure(game, players, level, args.games, args.seed)
                rows.append(row)
                print(table([row]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The catalogue: game kind -> its rules.

Each game package exposes ``GAME``; only finished, playable games are listed here.  Tests build
their own registries (``tests/fixture_game`` is never registered in production).
"""

from __future__ import annotations

from .kernel import Game


def production_games() -> dict[str, Game]:
    from .jiangnan import GAME as JIANGNAN
    from .pingyao import GAME as PINGYAO
    from .yangtze import GAME as YANGTZE

    games: list[Game] = [JIANGNAN, PINGYAO, YANGTZE]
    return {game.kind: game for game in games}

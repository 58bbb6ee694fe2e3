"""The games this service hosts, by kind, each with its codec (built once)."""

from __future__ import annotations

from collections.abc import Iterator

from domain.kernel import Game

from ..codec import GameCodec
from .errors import UnknownKind


class Titles:
    """Kind -> (game, codec); an unknown kind is refused with :class:`UnknownKind`."""

    def __init__(self, games: dict[str, Game]) -> None:
        self.games = games
        self.codecs = {kind: GameCodec(game) for kind, game in games.items()}

    def __getitem__(self, kind: str) -> tuple[Game, GameCodec]:
        game = self.games.get(kind)
        if game is None:
            raise UnknownKind(f"no game kind {kind!r}; see /v1/catalogue")
        return game, self.codecs[kind]

    def __iter__(self) -> Iterator[Game]:
        """The games in the order of their kinds."""
        return (self.games[kind] for kind in sorted(self.games))

"""A game's current state: loaded from the snapshot cache and Postgres, and remembered.

Loading is the snapshot (Redis, or the in-process cache) plus the events Postgres holds after it,
in one query; any doubt about the snapshot means folding from the first event.

Each worker also remembers the last state it loaded or wrote per game.  A move tries that state
first (the append's expected version checks it).  A read may be answered from it — with no Redis
or Postgres round trip — only while the notice board (:mod:`service.infra.notices`) vouches that
nothing newer was committed; the conditions are in ``docs/architecture.md`` ("Reads: the notice
board").
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from domain.kernel import Game, Seat

from ..codec import GameCodec
from ..infra import metrics
from ..infra.cache import SnapshotCache, decode_state, encode_snapshot, peek_snapshot
from ..infra.notices import NoticeBoard
from ..infra.standby import Standby
from ..infra.store import EventStore, GameRow, StoreUnavailable
from .errors import GameNotFound, VersionNotFound
from .titles import Titles

T = TypeVar("T")

RECENT_STATES = 4096
"""Games whose last state a worker remembers."""
TRUST_SECONDS = 1.0
"""How long a remembered state may answer reads before Postgres is asked again, even with no
notice: the bound on how stale a read can be when a notice is lost (docs/reliability.md)."""


@dataclass
class Loaded:
    """A game's state at a version, with the row it belongs to."""

    game: Game
    codec: GameCodec
    row: GameRow
    state: Any
    version: int


@dataclass(slots=True)
class Remembered:
    """The last state this worker loaded or wrote for a game, and the answers rendered from it."""

    row: GameRow
    blob: bytes
    """The snapshot bytes: a move decodes its own scratch copy from these."""
    epoch: int
    """The notice board's epoch when Postgres vouched for it."""
    checked_at: float
    trust_for: float
    """Seconds from checked_at; drawn per state in [0.75, 1] x TRUST_SECONDS so that states
    remembered together are not all re-checked in the same instant."""
    state: Any = None
    """Decoded on the first read and shared by reads, which never mutate it."""
    documents: dict[Seat | None, bytes] = field(default_factory=dict)
    legal: dict[Seat | None, bytes] = field(default_factory=dict)


def _state_at(blob: bytes, codec: GameCodec, version: int) -> Any | None:
    """The state a remembered snapshot holds, if it is the one at *version* and still decodes."""
    snap = peek_snapshot(blob)
    return decode_state(snap, codec.state_decoder) if snap is not None and snap.version == version else None


async def from_standby(
    standby: Standby | None,
    viewer: Seat | None,
    read: Callable[[EventStore], Awaitable[T]],
    accept: Callable[[T], bool] = lambda _: True,
) -> T | None:
    """A spectator's read on the standby: what *read(store)* answers there, its lag then reported
    (``Standby-Lag-Ms``) — or None, and the caller asks the primary: a seat's read
    (read-your-writes), no standby or one trailing past its bound, one that failed or has not
    replayed the game or the version yet, or an answer *accept* refuses."""
    if viewer is not None or standby is None:
        return None
    store = standby.readable()
    if store is None:
        return None
    try:
        found = await read(store)
    except StoreUnavailable as exc:
        standby.failed(exc)
        return None
    except (GameNotFound, VersionNotFound):
        return None
    if not accept(found):
        return None
    standby.served()
    return found


class States:
    """Loads games' states and remembers the last one per game (see the module docstring)."""

    def __init__(
        self, titles: Titles, store: EventStore, cache: SnapshotCache, board: NoticeBoard | None = None
    ) -> None:
        self.titles = titles
        self.store = store
        self.cache = cache
        self.board = board
        """Reads trust remembered states while it is live (None: no Redis, or notices off)."""
        self._recent: OrderedDict[str, Remembered] = OrderedDict()
        self._jitter = random.Random()
        if board is not None:
            board.on_notice(self._noticed)

    def _noticed(self, game_id: str, version: int) -> None:
        entry = self._recent.get(game_id)
        if entry is not None and entry.row.version < version:
            del self._recent[game_id]

    @property
    def epoch(self) -> int:
        return self.board.epoch if self.board is not None else 0

    # --- loading ------------------------------------------------------------------------------
    async def row(self, game_id: str, source: EventStore | None = None) -> GameRow:
        """The game's row (from *source*, a standby, if given), or :class:`GameNotFound`."""
        row = await (source or self.store).get_game(game_id)
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        return row

    async def load(self, game_id: str, *, recall: bool = False, source: EventStore | None = None) -> Loaded:
        """The current state: the cached snapshot plus the events appended after it.

        Any doubt about the snapshot (wrong rules version, newer than the stream, a gap, bytes
        that do not decode) means folding from the first event instead.  With *recall*, the
        snapshot this process saw last stands in for the cache's (Postgres still says what is newer).
        From a *source* other than the primary (a standby), the state is as of the source's
        version, and neither cached nor remembered: it may trail the primary.
        """
        epoch = self.epoch
        store = source or self.store
        entry = self._recent.get(game_id) if recall else None
        blob = entry.blob if entry is not None else await self.cache.get(game_id)
        snap = peek_snapshot(blob)
        found = await store.load(game_id, snap.version if snap is not None else 0)
        if found is None:
            raise GameNotFound(f"no game {game_id}")
        row, newer = found
        game, codec = self.titles[row.kind]
        state, base_version = None, 0
        if snap is not None:
            contiguous = newer[0].seq == snap.version + 1 if newer else snap.version == row.version
            if snap.rules_version == game.rules_version and contiguous:
                state = decode_state(snap, codec.state_decoder)
                base_version = snap.version
            if state is None:
                newer = await store.events(game_id)
        metrics.SNAPSHOTS.labels(
            "miss" if snap is None else ("hit" if state is not None else "rejected")
        ).inc()
        if state is None:
            state = game.initial(codec.decode_options_json(row.options))
            base_version = 0
        state = game.fold(state, (codec.decode_event(e.payload) for e in newer))
        version = newer[-1].seq if newer else base_version
        current = (
            blob if snap is not None and base_version == snap.version else None
        )  # the snapshot as accepted
        if source is not None:
            return Loaded(game=game, codec=codec, row=row, state=state, version=version)
        if newer:
            current = encode_snapshot(version, game.rules_version, state)
            await self.cache.set(game_id, current)
        if current is not None and version == row.version:
            self.remember(game_id, row, current, epoch)
        return Loaded(game=game, codec=codec, row=row, state=state, version=version)

    async def at(self, game_id: str, version: int, source: EventStore | None = None) -> Loaded:
        """Time travel: the state right after event *version* (folded from the first event),
        read from *source* (a standby) if given."""
        row = await self.row(game_id, source)
        if version < 1 or version > row.version:
            raise VersionNotFound(f"versions run from 1 (after setup) to {row.version}")
        game, codec = self.titles[row.kind]
        state = game.initial(codec.decode_options_json(row.options))
        events = await (source or self.store).events(game_id, upto=version)
        state = game.fold(state, (codec.decode_event(e.payload) for e in events))
        return Loaded(game=game, codec=codec, row=row, state=state, version=version)

    # --- remembering --------------------------------------------------------------------------
    def remember(self, game_id: str, row: GameRow, blob: bytes, epoch: int, state: Any = None) -> None:
        """Remember the state Postgres just vouched for (unless a notice already superseded it)."""
        if self.board is not None and self.board.superseded(game_id, row.version):
            self._recent.pop(game_id, None)
            return
        trust_for = TRUST_SECONDS * self._jitter.uniform(0.75, 1.0)
        self._recent[game_id] = Remembered(row, blob, epoch, time.monotonic(), trust_for, state)
        self._recent.move_to_end(game_id)
        if len(self._recent) > RECENT_STATES:
            self._recent.popitem(last=False)

    def remember_move(
        self,
        game_id: str,
        row: GameRow,
        version: int,
        last_hash: str,
        status: str,
        updated_at: Any,
        blob: bytes,
        epoch: int,
        state: Any,
    ) -> None:
        """Remember the state a move of this worker just appended."""
        moved = msgspec.structs.replace(
            row, version=version, last_hash=last_hash, status=status, updated_at=updated_at
        )
        self.remember(game_id, moved, blob, epoch, state)

    def recalled(self, game_id: str) -> Loaded | None:
        """The state this process last saw for the game, as a scratch copy a move may fold into
        (possibly stale: the append's expected version checks it)."""
        entry = self._recent.get(game_id)
        if entry is None:
            return None
        row = entry.row
        game, codec = self.titles[row.kind]
        state = _state_at(entry.blob, codec, row.version)
        if state is None:
            return None
        return Loaded(game=game, codec=codec, row=row, state=state, version=row.version)

    # --- trusting (reads) ---------------------------------------------------------------------
    def _trusted(self, game_id: str) -> Remembered | None:
        """The remembered state, if nothing says it is stale: the board is live and has vouched
        for it since Postgres did, and no newer version was announced (its age is not checked)."""
        board = self.board
        if board is None:
            return None
        board.drain()  # every notice that has arrived, before deciding
        if not board.live:
            return None
        entry = self._recent.get(game_id)
        if (
            entry is None
            or entry.epoch != board.epoch
            or entry.row.status == "open"  # a join changes the row without an event
            or board.superseded(game_id, entry.row.version)
        ):
            return None
        return entry

    def current(self, game_id: str) -> Remembered | None:
        """The remembered state, if it may answer a read now (trusted, and younger than TRUST_SECONDS)."""
        entry = self._trusted(game_id)
        if entry is None or time.monotonic() - entry.checked_at > entry.trust_for:
            return None
        metrics.READS_FROM_MEMORY.inc()
        return entry

    async def vouched(self, game_id: str) -> Remembered | None:
        """:meth:`current`, asking Postgres for the game's version when the state has only grown
        old: if it has not moved, the state (and the answers rendered from it) stay trusted."""
        entry = self.current(game_id)
        if entry is not None or self.board is None:
            return entry
        entry = self._trusted(game_id)
        if entry is None:
            return None
        epoch, asked_at = self.board.epoch, time.monotonic()
        if await self.store.version_of(game_id) != entry.row.version:
            return None
        if self._trusted(game_id) is not entry or self.board.epoch != epoch:
            return None  # a notice or a dropped board while we asked
        entry.checked_at = asked_at
        metrics.READS_FROM_MEMORY.inc()
        return entry

    def for_reading(self, entry: Remembered) -> Loaded:
        """A :class:`Loaded` over a remembered state (decoded once; reads must not mutate it)."""
        game, codec = self.titles[entry.row.kind]
        if entry.state is None:
            entry.state = _state_at(entry.blob, codec, entry.row.version)
            if entry.state is None:  # pragma: no cover - we encoded these bytes ourselves
                raise RuntimeError("a remembered snapshot did not decode")
        return Loaded(game=game, codec=codec, row=entry.row, state=entry.state, version=entry.row.version)

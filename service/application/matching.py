"""The matcher's decisions, pure: which open seeks of one pool and title form games now.

No I/O and no clock: :mod:`.seeks` reads the pool's open seeks under their locks, hands them here
with how long each has waited, and stores the games this returns in the same transaction.  The rules
(``docs/matching.md``):

- **Oldest first.**  Seeks are taken in the order they were made.  The oldest seek not yet matched
  is the *anchor*; for each of its acceptable player counts, largest first, the oldest other seeks
  compatible with it and with each other are added until the table is full.  An anchor that cannot
  fill a table leaves the next oldest seek to try.
- **Compatible** seeks are of different players, both rated or both casual, accept the count, and
  for every option both constrain share a value; and each player's rating is within the other's
  *window*, which widens with the time the seek has waited (:func:`window`).
- **Bots fill** an anchor that has waited its ``bots_after``: a table of its smallest acceptable
  count, with the compatible seekers whose own ``bots_after`` has passed too, and the anchor's bots
  in the seats left.
- **Options**: for each option some seek constrains, the first value of the oldest seek that
  constrains it that every seek accepts; options nobody constrains keep the title's default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

WINDOW = 100.0
"""Displayed rating points either side of a seek's rating it accepts at first (100 points are 2.5
of OpenSkill's ordinal units: ``rating_model.display``)."""
WIDEN = 100.0
"""Points the window widens by every :data:`WIDEN_SECONDS` the seek waits."""
WIDEN_SECONDS = 10.0
ANY_AFTER = 60.0
"""After this long a seek accepts any rating."""


def window(waited: float) -> float:
    """The points either side of its rating a seek that has waited *waited* seconds accepts:
    100 at first, 200 after 10 s, 300 after 20 s … 600 after 50 s, any rating after 60 s."""
    if waited >= ANY_AFTER:
        return math.inf
    return WINDOW + WIDEN * math.floor(max(0.0, waited) / WIDEN_SECONDS)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One open seek as the matcher sees it."""

    seek_id: str
    player_id: str
    counts: tuple[int, ...]
    """Acceptable player counts, ascending."""
    constraints: dict[str, tuple[str, ...]]
    """Option key -> acceptable values (canonical JSON text), in the seeker's order of preference."""
    rated: bool
    rating: float
    waited: float
    """Seconds since the seek was made."""
    bots_after: float | None = None
    bot_level: str | None = None

    def bots_due(self) -> bool:
        return self.bots_after is not None and self.waited >= self.bots_after


@dataclass(slots=True)
class Table:
    """A game to form: its seekers (oldest first), player count, options and bot seats."""

    seeks: list[Candidate]
    players: int
    options: dict[str, str] = field(default_factory=dict)
    """Option key -> the chosen value (canonical JSON text)."""
    bots: int = 0
    bot_level: str | None = None


def _accepts(a: Candidate, b: Candidate) -> bool:
    """*a* and *b* may sit at one table (counts aside)."""
    if a.player_id == b.player_id or a.rated != b.rated:
        return False
    if abs(a.rating - b.rating) > min(window(a.waited), window(b.waited)):
        return False
    for key, values in a.constraints.items():
        other = b.constraints.get(key)
        if other is not None and not set(values).intersection(other):
            return False
    return True


def _fits(seek: Candidate, members: Sequence[Candidate], allowed: dict[str, set[str]]) -> bool:
    if not all(_accepts(seek, m) for m in members):
        return False
    return all(
        key not in allowed or set(values).intersection(allowed[key])
        for key, values in seek.constraints.items()
    )


def _gather(
    anchor: Candidate, pool: Sequence[Candidate], count: int, used: set[str], *, bots: bool = False
) -> list[Candidate]:
    """The anchor and the oldest seeks that fit with it at a table of *count* (at most *count*);
    with *bots*, only seekers whose own bots wait has passed."""
    members = [anchor]
    allowed = {key: set(values) for key, values in anchor.constraints.items()}
    for seek in pool:
        if len(members) == count:
            break
        if seek.seek_id in used or seek is anchor or count not in seek.counts:
            continue
        if bots and not seek.bots_due():
            continue
        if _fits(seek, members, allowed):
            members.append(seek)
            for key, values in seek.constraints.items():
                allowed[key] = allowed[key].intersection(values) if key in allowed else set(values)
    return members


def choose_options(members: Sequence[Candidate]) -> dict[str, str]:
    """For each option a member constrains: the first value, in the order of the oldest member
    constraining it, that every member constraining it accepts."""
    chosen: dict[str, str] = {}
    for member in members:
        for key, values in member.constraints.items():
            if key in chosen:
                continue
            others = [m.constraints[key] for m in members if key in m.constraints]
            chosen[key] = next(v for v in values if all(v in o for o in others))
    return chosen


def plan(pool: Sequence[Candidate]) -> list[Table]:
    """The tables to form now from *pool* (one pool's open seeks of one title, oldest first)."""
    used: set[str] = set()
    tables: list[Table] = []
    for anchor in pool:
        if anchor.seek_id in used:
            continue
        formed = None
        for count in sorted(anchor.counts, reverse=True):
            members = _gather(anchor, pool, count, used)
            if len(members) == count:
                formed = Table(members, count)
                break
        if formed is None and anchor.bots_due():
            count = anchor.counts[0]
            members = _gather(anchor, pool, count, used, bots=True)
            formed = Table(members, count, bots=count - len(members), bot_level=anchor.bot_level)
        if formed is None:
            continue
        formed.seeks.sort(key=lambda s: -s.waited)
        formed.options = choose_options(formed.seeks)
        used.update(s.seek_id for s in formed.seeks)
        tables.append(formed)
    return tables


def next_due(pool: Sequence[Candidate], formed: Sequence[Table]) -> float | None:
    """Seconds until a seek of *pool* left open widens its window or may be filled with bots (the
    matcher runs again then); None when nothing is left waiting."""
    matched = {s.seek_id for table in formed for s in table.seeks}
    due: list[float] = []
    for seek in pool:
        if seek.seek_id in matched:
            continue
        if seek.waited < ANY_AFTER:
            due.append((math.floor(seek.waited / WIDEN_SECONDS) + 1) * WIDEN_SECONDS - seek.waited)
        if seek.bots_after is not None and seek.waited < seek.bots_after:
            due.append(seek.bots_after - seek.waited)
    return min(due) if due else None

"""A small pseudo-random generator whose output never changes between Python versions.

Python's :mod:`random` keeps ``random()`` stable but has changed the algorithms behind
``randrange``/``shuffle``/``choice`` between releases, which would silently change the draws
of a replayed game.  This generator is SplitMix64 seeded from SHA-256, with rejection sampling
for unbiased bounded integers, so a record made today verifies with any future interpreter.

A command's draws come from ``Rng(seed, position)`` where *position* is the number of events in
the stream before the command: the same seed never yields the same sequence twice in one game,
and an auditor who knows the seed can re-derive every draw.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1


class Rng:
    """Deterministic random numbers for one command (or for the setup, at position 0)."""

    __slots__ = ("_state", "draws")

    def __init__(self, seed: bytes | str, position: int = 0) -> None:
        if isinstance(seed, str):
            seed = seed.encode()
        digest = hashlib.sha256(seed + b"\x00" + position.to_bytes(8, "big")).digest()
        self._state = int.from_bytes(digest[:8], "big")
        self.draws = 0
        """How many 64-bit words have been drawn; lets an auditor tell a command used randomness."""

    def next_u64(self) -> int:
        # SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, passes BigCrush as a generator of
        # independent seeds, and trivially portable.
        self.draws += 1
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        # Rejection sampling: drop the top partial block so every residue is equally likely.
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def between(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]`` (a die: ``between(1, 6)``)."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

    def sample(self, items: Sequence[T], count: int) -> list[T]:
        """*count* distinct items, in draw order."""
        pool = list(items)
        out = []
        for _ in range(count):
            out.append(pool.pop(self.below(len(pool))))
        return out


def seed_commitment(seed: bytes | str) -> str:
    """The public SHA-256 commitment of a game's secret seed (hex)."""
    if isinstance(seed, str):
        seed = seed.encode()
    return hashlib.sha256(seed).hexdigest()

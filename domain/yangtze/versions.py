"""Yangtze's rules versions (docs/rules-versions.md).

A game is judged under the version it was set up with: ``GameSetUp.rules_version`` records it
(events stored before it existed decode to ``yangtze-2``), the state keeps it, and each rule that
changed since reads it.
"""

from __future__ import annotations

YANGTZE_2 = "yangtze-2"
"""Branch income 2 per branch token of a type shown; a forced debt redeems the largest liquidity
cards first, chosen for the player; no chance to play a card before an automatic tax."""
YANGTZE_3 = "yangtze-3"
"""Branch income 2 per branch type shown; the player chooses the liquidity card that settles a
debt; a response window before an automatic order a card could change."""

RULES_VERSION = YANGTZE_3
EARLIER_VERSIONS = (YANGTZE_2,)
VERSIONS = (*EARLIER_VERSIONS, RULES_VERSION)

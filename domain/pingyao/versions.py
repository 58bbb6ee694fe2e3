"""Rules versions.  A game is played to its end under the version it was set up under: the setup
event records it (``GameSetUp.rules_version``), the state keeps it (``State.rules_version``), and
each rule changed since reads it.  Events stored before the version was recorded decode to
``pingyao-2``, the version they were played under.

* ``pingyao-2``: the rules audit (lending takes exactly 2 silver).
* ``pingyao-3``: the second audit - resting-area limits by action, Changde/Lasa/Jinzhou also on
  your die's turn, Xinyizhou/Incheon exchanges advance the Exchange track, a rerolled die must
  act (docs/games/pingyao.md, "Rules audit (pingyao-3)").
* ``pingyao-4``: the third audit - solo event cards E02 and E09 no longer fill the Yamen's resting
  area, and an emergency transfer that no silver can pay for takes the copper the player has
  (docs/games/pingyao.md, "Rules audit (pingyao-4)").
"""

from __future__ import annotations

PINGYAO_2 = "pingyao-2"
PINGYAO_3 = "pingyao-3"
PINGYAO_4 = "pingyao-4"

RULES_VERSION = PINGYAO_4
"""The version new games are set up under."""
EARLIER_VERSIONS = (PINGYAO_2, PINGYAO_3)
"""Versions whose games in progress this code still plays and verifies."""
UNRECORDED = PINGYAO_2
"""The version of a game whose setup event does not say (it was stored under ``pingyao-2``)."""


def before_3(rules_version: str) -> bool:
    """Whether a game follows the ``pingyao-2`` rules (set up before ``pingyao-3``)."""
    return rules_version == PINGYAO_2


def before_4(rules_version: str) -> bool:
    """Whether a game was set up before ``pingyao-4`` (under ``pingyao-2`` or ``pingyao-3``)."""
    return rules_version in (PINGYAO_2, PINGYAO_3)

"""Bluff: a tiny fixture game that proves the platform without any real game's rules.

It exercises everything the real games need from the kernel and the service:

* hidden information for one seat — the card a player draws is seen only by that player;
* a random draw — from a shrinking deck, recorded in the event;
* a multi-step decision — the active player first claims ``high`` or ``low``, then sets a stake;
* a decision where several seats must answer — every other seat believes or doubts at once.

Rules: a deck holds the cards 1..9.  For ``rounds`` rounds, each seat in turn draws a card, claims
it is high (6+) or low (5-) and stakes 1-3.  Each other seat believes or doubts.  The card is then
revealed: a doubter wins the stake from the claimer if the claim was false, else pays it; a
believer gains 1 if the claim was true.  Most points wins; ties are shared.
"""

from .rules import GAME

__all__ = ["GAME"]

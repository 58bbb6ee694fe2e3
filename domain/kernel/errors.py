"""Typed rule violations with stable, machine-readable codes.

``decide`` is the only place rules are checked; it raises one of these.  The code is part of the
public HTTP contract (problem+json ``code``), so never rename one.  Messages are for humans and
must never mention hidden information (another seat's goods, the bag's order, the seed).
"""

from __future__ import annotations


class RuleViolation(Exception):
    """A command that the rules do not allow now."""

    code: str = "rule_violation"

    def __init__(self, code: str, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        """The rulebook section the rule comes from, e.g. ``"Yangtze p.4 Branch auction"``."""

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


class NotYourTurn(RuleViolation):
    """The seat may not act now (the HTTP layer answers 403)."""

    def __init__(
        self, message: str = "it is not this seat's turn to act", *, rule: str | None = None
    ) -> None:
        super().__init__("not_your_turn", message, rule=rule)


class GameOver(RuleViolation):
    """The game has ended; no command is accepted any more."""

    def __init__(self) -> None:
        super().__init__("game_over", "the game has ended")


class InvalidOptions(RuleViolation):
    """Options that no game can be set up with (unsupported player count, bad combination)."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_options", message)

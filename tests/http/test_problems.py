"""The one map from refusals to problem+json: every refusal has a status, a stable code and a
meaning, and every handler declares the refusals it can answer with."""

from __future__ import annotations

from domain.kernel import GameOver, InvalidOptions, NotYourTurn, RuleViolation
from service.application.errors import ApplicationError, refusals
from service.http.problems import STATUS, status_of


def test_every_refusal_has_a_status_a_unique_code_and_a_meaning():
    found = refusals()
    assert len(found) >= 25
    codes = [cls.code for cls in found]
    assert len(codes) == len(set(codes)), "two refusals share a code"
    for cls in found:
        assert 400 <= status_of(cls) < 600, cls
        assert cls.summary, f"{cls.__name__} needs a summary for the API documentation"
        assert cls.code.isidentifier() and cls.code == cls.code.lower()


def test_the_rules_refusals_map_by_kind():
    assert status_of(NotYourTurn) == 403
    assert status_of(RuleViolation) == status_of(GameOver) == status_of(InvalidOptions) == 422
    assert all(issubclass(kind, ApplicationError | RuleViolation) for kind in STATUS)

"""The named checks: a stable id per rule, the rule's text, where the contract states it, and its check function.

A check function takes the run `Context` and returns normally when the target honours the rule. It raises `Fail`
when the target breaks it, `NotApplicable` when the target or the configuration cannot show it either way (never a
pass), and `NoEvidence` when a configured fixture turns out unusable or the target refused to serve the check at
all (everything 401/429/5xx): that fails the run too, with the reason.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import Context


class Verdict(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "not applicable"
    NO_EVIDENCE = "no evidence"

    @property
    def failed(self) -> bool:
        return self in (Verdict.FAIL, Verdict.NO_EVIDENCE)


class CheckOutcome(Exception):
    """A check's verdict other than a pass, with the reason."""

    verdict: Verdict

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Fail(CheckOutcome):
    verdict = Verdict.FAIL


class NotApplicable(CheckOutcome):
    verdict = Verdict.NOT_APPLICABLE


class NoEvidence(CheckOutcome):
    verdict = Verdict.NO_EVIDENCE


CheckFunction = Callable[["Context"], None]


@dataclass(frozen=True)
class Rule:
    """One normative rule of the contract and the check that verifies it."""

    id: str
    family: str
    title: str
    text: str
    spec: str
    seed: str
    mock: bool
    check: CheckFunction


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str, *, family: str, title: str, text: str, spec: str, seed: str, mock: bool = False
) -> Callable[[CheckFunction], CheckFunction]:
    """Register `check` under `rule_id`. `mock`: whether a stateless mock of the contract must honour the rule too.

    `spec` is `file#json-pointer` inside the OpenAPI sources (`spec/`), `seed` the section of the requirements
    document that states the rule.
    """

    def register(check: CheckFunction) -> CheckFunction:
        if rule_id in RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES[rule_id] = Rule(rule_id, family, title, text, spec, seed, mock, check)
        return check

    return register


def all_rules() -> list[Rule]:
    """Every registered rule, in a stable order (family modules imported first)."""
    from . import rules  # noqa: F401  (registers the rule families)

    # The behavioural rules first (few requests, few failed authentications), then Schemathesis, then the
    # evidence over everything the run sent.
    last = {"schema": 1, "evidence": 2}
    return sorted(RULES.values(), key=lambda item: last.get(item.family, 0))

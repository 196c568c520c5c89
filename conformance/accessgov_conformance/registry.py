"""The named checks: a stable id per rule, the rule's text, where the contract states it, and its check function.

A check function takes the run `Context` and returns normally when the target honours the rule, else raises one of
the outcomes in `verdicts`. The rule families (`rules/`) register themselves here on import; `rules.all_rules()`
lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .context import Context

CheckFunction = Callable[[Context], None]
V = TypeVar("V")


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


@dataclass(frozen=True)
class Variant(Generic[V]):
    """One rule of a family of rules checked the same way with other values (`variants`)."""

    id: str
    title: str
    text: str
    spec: str
    seed: str
    value: V
    mock: bool = False


def variants(family: str, check: Callable[[Context, V], None], table: Iterable[Variant[V]]) -> None:
    """Register a rule per row of `table`, each checked by `check` with the row's value."""

    def bound(value: V) -> CheckFunction:
        return lambda ctx: check(ctx, value)

    for row in table:
        register = rule(
            row.id, family=family, title=row.title, text=row.text, spec=row.spec, seed=row.seed, mock=row.mock
        )
        register(bound(row.value))

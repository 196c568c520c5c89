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
from .spec import contract_pointers

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
    requirements: str
    mock: bool
    check: CheckFunction

    @property
    def sources(self) -> list[str]:
        """Where the contract states the rule, as an implementer reads it: `spec: <JSON pointer into the
        contract>` and `requirements: <section of the requirements document>` (when it states it too)."""
        lines = [f"spec: {contract_pointers(self.spec)}"]
        if self.requirements:
            lines.append(f"requirements: {self.requirements}")
        return lines


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str, *, family: str, title: str, text: str, spec: str, requirements: str, mock: bool = False
) -> Callable[[CheckFunction], CheckFunction]:
    """Register `check` under `rule_id`. `mock`: whether a stateless mock of the contract must honour the rule too.

    `spec` is `file#json-pointer` inside the OpenAPI sources (`spec/`; shown as a pointer into the bundled
    contract, `contract_pointers`), `requirements` the section of the requirements document that states the rule
    ("" when only the spec does).
    """

    def register(check: CheckFunction) -> CheckFunction:
        if rule_id in RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES[rule_id] = Rule(rule_id, family, title, text, spec, requirements, mock, check)
        return check

    return register


@dataclass(frozen=True)
class Variant(Generic[V]):
    """One rule of a family of rules checked the same way with other values (`variants`)."""

    id: str
    title: str
    text: str
    spec: str
    requirements: str
    value: V
    mock: bool = False


def variants(family: str, check: Callable[[Context, V], None], table: Iterable[Variant[V]]) -> None:
    """Register a rule per row of `table`, each checked by `check` with the row's value."""

    def bound(value: V) -> CheckFunction:
        return lambda ctx: check(ctx, value)

    for row in table:
        register = rule(
            row.id,
            family=family,
            title=row.title,
            text=row.text,
            spec=row.spec,
            requirements=row.requirements,
            mock=row.mock,
        )
        register(bound(row.value))

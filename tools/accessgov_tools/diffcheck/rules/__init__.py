"""The rules: every check the diff reports, by family, and the findings the walk's differences are.

One module a family (`registry.py` says what a family holds): operations, deprecation and stability, security,
parameters, bodies (request bodies, responses, media types, headers), properties, then the schema keywords:
types, bounds, values, enumerations, unions, the 2020-12 keywords; the document last (`api-version-not-bumped`
counts what breaks). `findings()` applies them: each difference to its rule, each finding once however many
differences say it, with every operation that reaches it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any

from accessgov_tools.diffcheck.model import Check, Finding, Pointer, Severity
from accessgov_tools.diffcheck.rules import (
    bodies,
    bounds,
    deprecation,
    document,
    enums,
    keywords,
    operations,
    parameters,
    properties,
    registry,
    security,
    types,
    unions,
    values,
)
from accessgov_tools.diffcheck.rules.registry import Context, Rule, RuleKey
from accessgov_tools.diffcheck.walk.differences import Difference, KeywordChanged

# In the order `--list-checks` and docs/diff.md list them; the document's last, as it counts the others.
FAMILIES: tuple[ModuleType, ...] = (
    operations,
    deprecation,
    security,
    parameters,
    bodies,
    properties,
    types,
    bounds,
    values,
    enums,
    unions,
    keywords,
    document,
)


def _checks_in(value: Any) -> Iterator[Check]:
    """The checks a family's table holds, in the order written."""
    if isinstance(value, Check):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _checks_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _checks_in(getattr(value, field.name))


def family_checks(family: ModuleType) -> list[Check]:
    """A family's checks in the order its module writes them."""
    return list({c.id: c for name, value in vars(family).items() if name.isupper() for c in _checks_in(value)}.values())


CHECKS: dict[str, Check] = {check.id: check for family in FAMILIES for check in family_checks(family)}
if CHECKS.keys() != registry.CHECKS.keys():  # a check declared outside a family's tables, or twice
    raise RuntimeError(f"checks outside the families' tables: {sorted(registry.CHECKS.keys() - CHECKS.keys())}")


def _rules() -> dict[RuleKey, Rule]:
    rules: dict[RuleKey, Rule] = {}
    for family in FAMILIES:
        for key, rule in family.RULES.items():
            if key in rules:
                raise RuntimeError(f"two rules read {key}")
            rules[key] = rule
    return rules


RULES = _rules()

FindingKey = tuple[str, Pointer, str]


def rule_for(difference: Difference) -> Rule:
    if isinstance(difference, KeywordChanged):
        return RULES[(KeywordChanged, difference.keyword)]
    return RULES[type(difference)]


def findings(
    differences: Iterable[Difference], severities: Mapping[str, Severity] | None = None, context: Context | None = None
) -> list[Finding]:
    """The findings the differences are (graded by `severities`, else each check's default), most severe
    first; each lists the operations that reach it in the order they were walked."""
    graded = severities or {}
    found: dict[FindingKey, Finding] = {}
    reached: dict[FindingKey, list[tuple[int, int, str]]] = {}
    context = dataclasses.replace(context or Context(today=registry.today()), findings=found.values())
    for difference in differences:
        for said in rule_for(difference)(difference, context):
            key = (said.check.id, said.pointer, said.message)
            if key not in found:
                severity = graded.get(said.check.id, said.check.severity)
                found[key] = Finding(
                    said.check.id, severity, said.message, said.pointer, subject=said.subject, values=said.values
                )
            if difference.reaches:
                reached.setdefault(key, []).extend(difference.reaches)
    for key, marks in reached.items():
        listed: set[str] = set()
        operations_ = found[key].operations
        for _step, _position, label in sorted(marks):
            if label not in listed:
                listed.add(label)
                operations_.append(label)
    return sorted(found.values(), key=lambda f: (f.severity.rank, f.check, f.pointer, f.message))

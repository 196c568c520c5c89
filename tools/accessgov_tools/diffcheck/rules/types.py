"""Types, formats and nullability.

A type widened (`integer` -> `number`, a type list grown, `type` dropped) breaks a response, narrowed breaks a
request, changed to an unrelated one breaks both; in a body whose media type is not JSON (XML, text), any value
reads as a string, so a request that now takes one, or a response that used to send one, stays readable
(`*-type-compatible`, as oasdiff has it). A `format` added or changed narrows a request, removed widens a
response, unless it excludes no value the other constraints allow (`*-implied`). `null` newly allowed breaks a
response, no longer allowed breaks a request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accessgov_tools.diffcheck.model import Check
from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    REQUEST_PARAMETER,
    REQUEST_PROPERTY,
    RESPONSE_HEADER,
    RESPONSE_PROPERTY,
    WARNING,
    Context,
    Keyword,
    Place,
    Rule,
    RuleKey,
    Said,
    check,
    keyword_change,
    names,
    plain,
    said,
)
from accessgov_tools.diffcheck.walk.differences import FormatChanged, NullableChanged, TypeChanged


@dataclass(frozen=True)
class TypeChecks:
    """The checks of a schema's type, format and nullability at one place."""

    changed: Check
    generalized: Check
    specialized: Check
    became_nullable: Check
    became_not_nullable: Check
    format: Keyword
    format_implied: Keyword  # a format that excludes no value the other constraints allow
    compatible: Check | None = None  # bodies only: they have a media type


TYPES: dict[Place, TypeChecks] = {
    REQUEST_PROPERTY: TypeChecks(
        changed=check("request-property-type-changed", BREAKING, "type changed to an unrelated one"),
        generalized=check("request-property-type-generalized", INFO, "type widened"),
        specialized=check("request-property-type-specialized", BREAKING, "type narrowed"),
        compatible=check(
            "request-property-type-compatible", INFO, "type changed, still readable in a loosely typed (non-JSON) body"
        ),
        became_nullable=check("request-property-became-nullable", INFO, "null now allowed"),
        became_not_nullable=check("request-property-became-not-nullable", BREAKING, "null no longer allowed"),
        format=Keyword(
            added=check("request-property-format-added", BREAKING, "format added"),
            removed=check("request-property-format-removed", INFO, "format removed"),
            changed=check("request-property-format-changed", BREAKING, "format changed"),
        ),
        format_implied=Keyword(
            added=check(
                "request-property-format-added-implied",
                INFO,
                "format added, excluding no value the other constraints allow",
            ),
            removed=check(
                "request-property-format-removed-implied",
                INFO,
                "format removed, excluding no value the other constraints allow",
            ),
            changed=check(
                "request-property-format-changed-implied",
                INFO,
                "format changed, excluding no value the other constraints allow",
            ),
        ),
    ),
    REQUEST_PARAMETER: TypeChecks(
        changed=check("request-parameter-type-changed", BREAKING, "type changed to an unrelated one"),
        generalized=check("request-parameter-type-generalized", INFO, "type widened"),
        specialized=check("request-parameter-type-specialized", BREAKING, "type narrowed"),
        became_nullable=check("request-parameter-became-nullable", INFO, "null now allowed"),
        became_not_nullable=check("request-parameter-became-not-nullable", BREAKING, "null no longer allowed"),
        format=Keyword(
            added=check("request-parameter-format-added", BREAKING, "format added"),
            removed=check("request-parameter-format-removed", INFO, "format removed"),
            changed=check("request-parameter-format-changed", BREAKING, "format changed"),
        ),
        format_implied=Keyword(
            added=check(
                "request-parameter-format-added-implied",
                INFO,
                "format added, excluding no value the other constraints allow",
            ),
            removed=check(
                "request-parameter-format-removed-implied",
                INFO,
                "format removed, excluding no value the other constraints allow",
            ),
            changed=check(
                "request-parameter-format-changed-implied",
                INFO,
                "format changed, excluding no value the other constraints allow",
            ),
        ),
    ),
    RESPONSE_PROPERTY: TypeChecks(
        changed=check("response-property-type-changed", BREAKING, "type changed to an unrelated one"),
        generalized=check("response-property-type-generalized", BREAKING, "type widened"),
        specialized=check("response-property-type-specialized", INFO, "type narrowed"),
        compatible=check(
            "response-property-type-compatible", INFO, "type changed, still readable in a loosely typed (non-JSON) body"
        ),
        became_nullable=check("response-property-became-nullable", BREAKING, "null now allowed"),
        became_not_nullable=check("response-property-became-not-nullable", INFO, "null no longer allowed"),
        format=Keyword(
            added=check("response-property-format-added", INFO, "format added"),
            removed=check("response-property-format-removed", WARNING, "format removed"),
            changed=check("response-property-format-changed", BREAKING, "format changed"),
        ),
        format_implied=Keyword(
            added=check(
                "response-property-format-added-implied",
                INFO,
                "format added, excluding no value the other constraints allow",
            ),
            removed=check(
                "response-property-format-removed-implied",
                INFO,
                "format removed, excluding no value the other constraints allow",
            ),
            changed=check(
                "response-property-format-changed-implied",
                INFO,
                "format changed, excluding no value the other constraints allow",
            ),
        ),
    ),
    RESPONSE_HEADER: TypeChecks(
        changed=check("response-header-type-changed", BREAKING, "type changed to an unrelated one"),
        generalized=check("response-header-type-generalized", BREAKING, "type widened"),
        specialized=check("response-header-type-specialized", INFO, "type narrowed"),
        became_nullable=check("response-header-became-nullable", BREAKING, "null now allowed"),
        became_not_nullable=check("response-header-became-not-nullable", INFO, "null no longer allowed"),
        format=Keyword(
            added=check("response-header-format-added", INFO, "format added"),
            removed=check("response-header-format-removed", WARNING, "format removed"),
            changed=check("response-header-format-changed", BREAKING, "format changed"),
        ),
        format_implied=Keyword(
            added=check(
                "response-header-format-added-implied",
                INFO,
                "format added, excluding no value the other constraints allow",
            ),
            removed=check(
                "response-header-format-removed-implied",
                INFO,
                "format removed, excluding no value the other constraints allow",
            ),
            changed=check(
                "response-header-format-changed-implied",
                INFO,
                "format changed, excluding no value the other constraints allow",
            ),
        ),
    ),
}

IMPLIED_NOTE = " (it excludes no value the other constraints allow)"


def _widen(types: frozenset[str]) -> frozenset[str]:
    return types | {"integer"} if "number" in types else types


def type_changed(d: TypeChanged, context: Context) -> Iterator[Said]:
    checks, b, h, where = TYPES[d.where.place], d.before, d.after, d.where
    if b is None or h is None:
        relation = "specialized" if b is None else "generalized"
        shown = names(h or b or ())
        text = f"type restricted to {shown}" if relation == "specialized" else f"type {shown} lifted (any type now)"
    else:
        if b <= _widen(h):
            relation = "generalized"
        elif h <= _widen(b):
            relation = "specialized"
        else:
            relation = "changed"
        # oasdiff's loosely typed media: any value can be read as a string, so a request that now takes a
        # string, or a response that used to send one, stays readable.
        to_string = h if where.direction == "request" else b
        if where.loose and relation != ("generalized" if where.direction == "request" else "specialized"):
            relation = "compatible" if to_string == {"string"} else relation
        text = f"type changed from {names(b)} to {names(h)}"
    by_relation = {
        "changed": checks.changed,
        "generalized": checks.generalized,
        "specialized": checks.specialized,
        "compatible": checks.compatible,
    }
    yield said(d, by_relation[relation], text)


def format_changed(d: FormatChanged, context: Context) -> Iterator[Said]:
    checks = TYPES[d.where.place]
    if d.implied:
        yield keyword_change(d, checks.format_implied, "format", (d.before, d.after), note=IMPLIED_NOTE)
    else:
        yield keyword_change(d, checks.format, "format", (d.before, d.after))


def nullable_changed(d: NullableChanged, context: Context) -> Iterator[Said]:
    checks = TYPES[d.where.place]
    check_ = checks.became_nullable if d.nullable else checks.became_not_nullable
    yield plain(d, check_, f"`null` {'now' if d.nullable else 'no longer'} allowed")


RULES: dict[RuleKey, Rule] = {
    TypeChanged: type_changed,
    FormatChanged: format_changed,
    NullableChanged: nullable_changed,
}

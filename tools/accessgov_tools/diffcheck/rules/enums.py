"""Enumerations: `enum`, however it is spelled (a union of `const` or `enum` members is one), open ones
(`x-open-enum`: `anyOf: [{enum}, {type: string}]`) and `x-extensible-enum`.

A value removed, or values restricted to an enumeration, breaks a request; a value added to a closed response
enumeration is a warning here (a typed client rejects what it does not know: `severities.yaml` grades it
client-breaking for this contract), to an open one an addition.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accessgov_tools.diffcheck.model import Check, show
from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    REQUEST_PARAMETER,
    REQUEST_PROPERTY,
    RESPONSE_HEADER,
    RESPONSE_PROPERTY,
    WARNING,
    Context,
    Place,
    Rule,
    RuleKey,
    Said,
    check,
    names,
    said,
)
from accessgov_tools.diffcheck.walk.differences import (
    EnumChanged,
    EnumOpenChanged,
    EnumValueChanged,
    ExtensibleValueChanged,
)


@dataclass(frozen=True)
class EnumChecks:
    """The checks of an enumeration at one place."""

    became_enum: Check
    lifted: Check
    value_added: Check
    open_value_added: Check
    value_removed: Check
    became_open: Check
    became_closed: Check
    extensible_value_added: Check
    extensible_value_removed: Check


ENUMS: dict[Place, EnumChecks] = {
    REQUEST_PROPERTY: EnumChecks(
        became_enum=check("request-property-became-enum", BREAKING, "values restricted to an enumeration"),
        lifted=check("request-property-enum-removed", INFO, "enumeration lifted"),
        value_added=check("request-property-enum-value-added", INFO, "value added to a closed enumeration"),
        open_value_added=check(
            "request-property-open-enum-value-added", INFO, "value added to an open enumeration (x-open-enum)"
        ),
        value_removed=check("request-property-enum-value-removed", BREAKING, "enumeration value removed"),
        became_open=check("request-property-enum-became-open", INFO, "closed enumeration made open"),
        became_closed=check("request-property-enum-became-closed", BREAKING, "open enumeration made closed"),
        extensible_value_added=check(
            "request-property-x-extensible-enum-value-added", INFO, "x-extensible-enum value added"
        ),
        extensible_value_removed=check(
            "request-property-x-extensible-enum-value-removed", BREAKING, "x-extensible-enum value removed"
        ),
    ),
    REQUEST_PARAMETER: EnumChecks(
        became_enum=check("request-parameter-became-enum", BREAKING, "values restricted to an enumeration"),
        lifted=check("request-parameter-enum-removed", INFO, "enumeration lifted"),
        value_added=check("request-parameter-enum-value-added", INFO, "value added to a closed enumeration"),
        open_value_added=check(
            "request-parameter-open-enum-value-added", INFO, "value added to an open enumeration (x-open-enum)"
        ),
        value_removed=check("request-parameter-enum-value-removed", BREAKING, "enumeration value removed"),
        became_open=check("request-parameter-enum-became-open", INFO, "closed enumeration made open"),
        became_closed=check("request-parameter-enum-became-closed", BREAKING, "open enumeration made closed"),
        extensible_value_added=check(
            "request-parameter-x-extensible-enum-value-added", INFO, "x-extensible-enum value added"
        ),
        extensible_value_removed=check(
            "request-parameter-x-extensible-enum-value-removed", BREAKING, "x-extensible-enum value removed"
        ),
    ),
    RESPONSE_PROPERTY: EnumChecks(
        became_enum=check("response-property-became-enum", INFO, "values restricted to an enumeration"),
        lifted=check("response-property-enum-removed", WARNING, "enumeration lifted"),
        value_added=check("response-property-enum-value-added", WARNING, "value added to a closed enumeration"),
        open_value_added=check(
            "response-property-open-enum-value-added", INFO, "value added to an open enumeration (x-open-enum)"
        ),
        value_removed=check("response-property-enum-value-removed", INFO, "enumeration value removed"),
        became_open=check("response-property-enum-became-open", WARNING, "closed enumeration made open"),
        became_closed=check("response-property-enum-became-closed", INFO, "open enumeration made closed"),
        extensible_value_added=check(
            "response-property-x-extensible-enum-value-added", INFO, "x-extensible-enum value added"
        ),
        extensible_value_removed=check(
            "response-property-x-extensible-enum-value-removed", INFO, "x-extensible-enum value removed"
        ),
    ),
    RESPONSE_HEADER: EnumChecks(
        became_enum=check("response-header-became-enum", INFO, "values restricted to an enumeration"),
        lifted=check("response-header-enum-removed", WARNING, "enumeration lifted"),
        value_added=check("response-header-enum-value-added", WARNING, "value added to a closed enumeration"),
        open_value_added=check(
            "response-header-open-enum-value-added", INFO, "value added to an open enumeration (x-open-enum)"
        ),
        value_removed=check("response-header-enum-value-removed", INFO, "enumeration value removed"),
        became_open=check("response-header-enum-became-open", WARNING, "closed enumeration made open"),
        became_closed=check("response-header-enum-became-closed", INFO, "open enumeration made closed"),
        extensible_value_added=check(
            "response-header-x-extensible-enum-value-added", INFO, "x-extensible-enum value added"
        ),
        extensible_value_removed=check(
            "response-header-x-extensible-enum-value-removed", INFO, "x-extensible-enum value removed"
        ),
    ),
}


def enum_changed(d: EnumChanged, context: Context) -> Iterator[Said]:
    checks = ENUMS[d.where.place]
    if d.before is None:
        yield said(d, checks.became_enum, f"values restricted to {names(map(str, d.after or []))}")
    else:
        yield said(d, checks.lifted, "enumeration lifted")


def enum_value_changed(d: EnumValueChanged, context: Context) -> Iterator[Said]:
    checks = ENUMS[d.where.place]
    if d.added:
        check_ = checks.open_value_added if d.open else checks.value_added
        yield said(d, check_, f"enum value {show(d.value)} added", (d.value,))
    else:
        yield said(d, checks.value_removed, f"enum value {show(d.value)} removed", (d.value,))


def enum_open_changed(d: EnumOpenChanged, context: Context) -> Iterator[Said]:
    checks = ENUMS[d.where.place]
    check_ = checks.became_open if d.open else checks.became_closed
    yield said(d, check_, "enumeration is now " + ("open" if d.open else "closed"))


def extensible_value_changed(d: ExtensibleValueChanged, context: Context) -> Iterator[Said]:
    checks = ENUMS[d.where.place]
    check_ = checks.extensible_value_added if d.added else checks.extensible_value_removed
    yield said(d, check_, f"x-extensible-enum value {show(d.value)} {'added' if d.added else 'removed'}")


RULES: dict[RuleKey, Rule] = {
    EnumChanged: enum_changed,
    EnumValueChanged: enum_value_changed,
    EnumOpenChanged: enum_open_changed,
    ExtensibleValueChanged: extensible_value_changed,
}

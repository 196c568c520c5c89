"""The keywords that restrict values one by one: `multipleOf`, `uniqueItems`, `pattern`, and `default`.

`multipleOf` set or changed narrows a request (breaking), `uniqueItems` set or a `pattern` added narrows it
too; removed, they widen what a response may hold. A `default` added, removed or changed changes what an omitted
request value means (breaking for a parameter, a warning for a body's property).
"""

from __future__ import annotations

from collections.abc import Iterator

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
    said,
)
from accessgov_tools.diffcheck.walk.differences import ABSENT, KeywordChanged

VALUES: dict[Place, dict[str, Keyword]] = {
    REQUEST_PROPERTY: {
        "multipleOf": Keyword(
            added=check("request-property-multiple-of-set", WARNING, "multipleOf set"),
            removed=check("request-property-multiple-of-unset", INFO, "multipleOf removed"),
            changed=check("request-property-multiple-of-changed", BREAKING, "multipleOf changed"),
        ),
        "uniqueItems": Keyword(
            added=check("request-property-unique-items-set", WARNING, "uniqueItems set"),
            removed=check("request-property-unique-items-unset", INFO, "uniqueItems removed"),
        ),
        "pattern": Keyword(
            added=check("request-property-pattern-added", BREAKING, "pattern added"),
            removed=check("request-property-pattern-removed", INFO, "pattern removed"),
            changed=check("request-property-pattern-changed", WARNING, "pattern changed"),
        ),
        "default": Keyword(
            added=check("request-property-default-value-added", WARNING, "default added"),
            removed=check("request-property-default-value-removed", WARNING, "default removed"),
            changed=check("request-property-default-value-changed", WARNING, "default changed"),
        ),
    },
    REQUEST_PARAMETER: {
        "multipleOf": Keyword(
            added=check("request-parameter-multiple-of-set", WARNING, "multipleOf set"),
            removed=check("request-parameter-multiple-of-unset", INFO, "multipleOf removed"),
            changed=check("request-parameter-multiple-of-changed", BREAKING, "multipleOf changed"),
        ),
        "uniqueItems": Keyword(
            added=check("request-parameter-unique-items-set", WARNING, "uniqueItems set"),
            removed=check("request-parameter-unique-items-unset", INFO, "uniqueItems removed"),
        ),
        "pattern": Keyword(
            added=check("request-parameter-pattern-added", BREAKING, "pattern added"),
            removed=check("request-parameter-pattern-removed", INFO, "pattern removed"),
            changed=check("request-parameter-pattern-changed", WARNING, "pattern changed"),
        ),
        "default": Keyword(
            added=check("request-parameter-default-value-added", BREAKING, "default added"),
            removed=check("request-parameter-default-value-removed", BREAKING, "default removed"),
            changed=check("request-parameter-default-value-changed", BREAKING, "default changed"),
        ),
    },
    RESPONSE_PROPERTY: {
        "multipleOf": Keyword(
            added=check("response-property-multiple-of-set", INFO, "multipleOf set"),
            removed=check("response-property-multiple-of-unset", BREAKING, "multipleOf removed"),
            changed=check("response-property-multiple-of-changed", BREAKING, "multipleOf changed"),
        ),
        "uniqueItems": Keyword(
            added=check("response-property-unique-items-set", INFO, "uniqueItems set"),
            removed=check("response-property-unique-items-unset", BREAKING, "uniqueItems removed"),
        ),
        "pattern": Keyword(
            added=check("response-property-pattern-added", INFO, "pattern added"),
            removed=check("response-property-pattern-removed", WARNING, "pattern removed"),
            changed=check("response-property-pattern-changed", WARNING, "pattern changed"),
        ),
        "default": Keyword(
            added=check("response-property-default-value-added", INFO, "default added"),
            removed=check("response-property-default-value-removed", INFO, "default removed"),
            changed=check("response-property-default-value-changed", INFO, "default changed"),
        ),
    },
    RESPONSE_HEADER: {
        "multipleOf": Keyword(
            added=check("response-header-multiple-of-set", INFO, "multipleOf set"),
            removed=check("response-header-multiple-of-unset", BREAKING, "multipleOf removed"),
            changed=check("response-header-multiple-of-changed", BREAKING, "multipleOf changed"),
        ),
        "uniqueItems": Keyword(
            added=check("response-header-unique-items-set", INFO, "uniqueItems set"),
            removed=check("response-header-unique-items-unset", BREAKING, "uniqueItems removed"),
        ),
        "pattern": Keyword(
            added=check("response-header-pattern-added", INFO, "pattern added"),
            removed=check("response-header-pattern-removed", WARNING, "pattern removed"),
            changed=check("response-header-pattern-changed", WARNING, "pattern changed"),
        ),
        "default": Keyword(
            added=check("response-header-default-value-added", INFO, "default added"),
            removed=check("response-header-default-value-removed", INFO, "default removed"),
            changed=check("response-header-default-value-changed", INFO, "default changed"),
        ),
    },
}


def multiple_of_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    yield keyword_change(d, VALUES[d.where.place]["multipleOf"], "multipleOf", (d.before, d.after), setting=True)


def unique_items_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    checks = VALUES[d.where.place]["uniqueItems"]
    set_ = d.after is not ABSENT
    yield said(d, checks.added if set_ else checks.removed, "uniqueItems " + ("set" if set_ else "removed"))


def pattern_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    yield keyword_change(d, VALUES[d.where.place]["pattern"], "pattern", (d.before, d.after))


def default_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    yield keyword_change(d, VALUES[d.where.place]["default"], "default", (d.before, d.after))


RULES: dict[RuleKey, Rule] = {
    (KeywordChanged, "multipleOf"): multiple_of_changed,
    (KeywordChanged, "uniqueItems"): unique_items_changed,
    (KeywordChanged, "pattern"): pattern_changed,
    (KeywordChanged, "default"): default_changed,
}

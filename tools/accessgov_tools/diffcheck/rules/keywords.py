"""The JSON Schema 2020-12 keywords OpenAPI 3.1 brought: `const`, `if`/`then`/`else`, `contains`,
`propertyNames`, `unevaluatedProperties`/`unevaluatedItems`, `contentSchema`, `not`, `prefixItems`,
`dependentRequired`, `dependentSchemas`, `patternProperties`, `contentMediaType`/`contentEncoding`.

One that appears narrows what is valid (a request breaks), one that goes widens it (a response breaks);
`prefixItems` goes the other way, as oasdiff has it (removing it hands its positions to `items`, which
narrows). Where both sides hold a subschema the walk compares it like any other schema.
"""

from __future__ import annotations

from collections.abc import Iterator

from accessgov_tools.diffcheck.model import show
from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    REQUEST_PARAMETER,
    REQUEST_PROPERTY,
    RESPONSE_HEADER,
    RESPONSE_PROPERTY,
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
from accessgov_tools.diffcheck.walk.differences import EntryChanged, KeywordChanged, PrefixItemChanged
from accessgov_tools.diffcheck.walk.keywords import PRESENCE
from accessgov_tools.display import quote

KEYWORDS: dict[Place, dict[str, Keyword]] = {
    REQUEST_PROPERTY: {
        "const": Keyword(
            added=check("request-property-const-added", BREAKING, "const added"),
            removed=check("request-property-const-removed", INFO, "const removed"),
            changed=check("request-property-const-changed", BREAKING, "const changed"),
        ),
        "if": Keyword(
            added=check("request-property-if-added", BREAKING, "if added"),
            removed=check("request-property-if-removed", INFO, "if removed"),
        ),
        "then": Keyword(
            added=check("request-property-then-added", BREAKING, "then added"),
            removed=check("request-property-then-removed", INFO, "then removed"),
        ),
        "else": Keyword(
            added=check("request-property-else-added", BREAKING, "else added"),
            removed=check("request-property-else-removed", INFO, "else removed"),
        ),
        "contains": Keyword(
            added=check("request-property-contains-added", BREAKING, "contains added"),
            removed=check("request-property-contains-removed", INFO, "contains removed"),
        ),
        "propertyNames": Keyword(
            added=check("request-property-property-names-added", BREAKING, "propertyNames added"),
            removed=check("request-property-property-names-removed", INFO, "propertyNames removed"),
        ),
        "unevaluatedProperties": Keyword(
            added=check("request-property-unevaluated-properties-added", BREAKING, "unevaluatedProperties added"),
            removed=check("request-property-unevaluated-properties-removed", INFO, "unevaluatedProperties removed"),
        ),
        "unevaluatedItems": Keyword(
            added=check("request-property-unevaluated-items-added", BREAKING, "unevaluatedItems added"),
            removed=check("request-property-unevaluated-items-removed", INFO, "unevaluatedItems removed"),
        ),
        "contentSchema": Keyword(
            added=check("request-property-content-schema-added", BREAKING, "contentSchema added"),
            removed=check("request-property-content-schema-removed", INFO, "contentSchema removed"),
        ),
        "not": Keyword(
            added=check("request-property-not-added", BREAKING, "not added"),
            removed=check("request-property-not-removed", INFO, "not removed"),
        ),
        "prefixItems": Keyword(
            added=check("request-property-prefix-items-added", INFO, "prefixItems added"),
            removed=check(
                "request-property-prefix-items-removed", BREAKING, "prefixItems removed (`items` now governs them)"
            ),
        ),
        "dependentRequired": Keyword(
            added=check("request-property-dependent-required-added", BREAKING, "dependentRequired entry added"),
            removed=check("request-property-dependent-required-removed", INFO, "dependentRequired entry removed"),
            changed=check("request-property-dependent-required-changed", BREAKING, "dependentRequired entry changed"),
        ),
        "dependentSchemas": Keyword(
            added=check("request-property-dependent-schema-added", BREAKING, "dependentSchemas entry added"),
            removed=check("request-property-dependent-schema-removed", INFO, "dependentSchemas entry removed"),
        ),
        "patternProperties": Keyword(
            added=check("request-property-pattern-property-added", BREAKING, "patternProperties entry added"),
            removed=check("request-property-pattern-property-removed", INFO, "patternProperties entry removed"),
        ),
        "contentMediaType": Keyword(
            changed=check("request-property-content-media-type-changed", BREAKING, "contentMediaType changed"),
        ),
        "contentEncoding": Keyword(
            changed=check("request-property-content-encoding-changed", BREAKING, "contentEncoding changed"),
        ),
    },
    REQUEST_PARAMETER: {
        "const": Keyword(
            added=check("request-parameter-const-added", BREAKING, "const added"),
            removed=check("request-parameter-const-removed", INFO, "const removed"),
            changed=check("request-parameter-const-changed", BREAKING, "const changed"),
        ),
        "if": Keyword(
            added=check("request-parameter-if-added", BREAKING, "if added"),
            removed=check("request-parameter-if-removed", INFO, "if removed"),
        ),
        "then": Keyword(
            added=check("request-parameter-then-added", BREAKING, "then added"),
            removed=check("request-parameter-then-removed", INFO, "then removed"),
        ),
        "else": Keyword(
            added=check("request-parameter-else-added", BREAKING, "else added"),
            removed=check("request-parameter-else-removed", INFO, "else removed"),
        ),
        "contains": Keyword(
            added=check("request-parameter-contains-added", BREAKING, "contains added"),
            removed=check("request-parameter-contains-removed", INFO, "contains removed"),
        ),
        "propertyNames": Keyword(
            added=check("request-parameter-property-names-added", BREAKING, "propertyNames added"),
            removed=check("request-parameter-property-names-removed", INFO, "propertyNames removed"),
        ),
        "unevaluatedProperties": Keyword(
            added=check("request-parameter-unevaluated-properties-added", BREAKING, "unevaluatedProperties added"),
            removed=check("request-parameter-unevaluated-properties-removed", INFO, "unevaluatedProperties removed"),
        ),
        "unevaluatedItems": Keyword(
            added=check("request-parameter-unevaluated-items-added", BREAKING, "unevaluatedItems added"),
            removed=check("request-parameter-unevaluated-items-removed", INFO, "unevaluatedItems removed"),
        ),
        "contentSchema": Keyword(
            added=check("request-parameter-content-schema-added", BREAKING, "contentSchema added"),
            removed=check("request-parameter-content-schema-removed", INFO, "contentSchema removed"),
        ),
        "not": Keyword(
            added=check("request-parameter-not-added", BREAKING, "not added"),
            removed=check("request-parameter-not-removed", INFO, "not removed"),
        ),
        "prefixItems": Keyword(
            added=check("request-parameter-prefix-items-added", INFO, "prefixItems added"),
            removed=check(
                "request-parameter-prefix-items-removed", BREAKING, "prefixItems removed (`items` now governs them)"
            ),
        ),
        "dependentRequired": Keyword(
            added=check("request-parameter-dependent-required-added", BREAKING, "dependentRequired entry added"),
            removed=check("request-parameter-dependent-required-removed", INFO, "dependentRequired entry removed"),
            changed=check("request-parameter-dependent-required-changed", BREAKING, "dependentRequired entry changed"),
        ),
        "dependentSchemas": Keyword(
            added=check("request-parameter-dependent-schema-added", BREAKING, "dependentSchemas entry added"),
            removed=check("request-parameter-dependent-schema-removed", INFO, "dependentSchemas entry removed"),
        ),
        "patternProperties": Keyword(
            added=check("request-parameter-pattern-property-added", BREAKING, "patternProperties entry added"),
            removed=check("request-parameter-pattern-property-removed", INFO, "patternProperties entry removed"),
        ),
        "contentMediaType": Keyword(
            changed=check("request-parameter-content-media-type-changed", BREAKING, "contentMediaType changed"),
        ),
        "contentEncoding": Keyword(
            changed=check("request-parameter-content-encoding-changed", BREAKING, "contentEncoding changed"),
        ),
    },
    RESPONSE_PROPERTY: {
        "const": Keyword(
            added=check("response-property-const-added", INFO, "const added"),
            removed=check("response-property-const-removed", BREAKING, "const removed"),
            changed=check("response-property-const-changed", BREAKING, "const changed"),
        ),
        "if": Keyword(
            added=check("response-property-if-added", INFO, "if added"),
            removed=check("response-property-if-removed", BREAKING, "if removed"),
        ),
        "then": Keyword(
            added=check("response-property-then-added", INFO, "then added"),
            removed=check("response-property-then-removed", BREAKING, "then removed"),
        ),
        "else": Keyword(
            added=check("response-property-else-added", INFO, "else added"),
            removed=check("response-property-else-removed", BREAKING, "else removed"),
        ),
        "contains": Keyword(
            added=check("response-property-contains-added", INFO, "contains added"),
            removed=check("response-property-contains-removed", BREAKING, "contains removed"),
        ),
        "propertyNames": Keyword(
            added=check("response-property-property-names-added", INFO, "propertyNames added"),
            removed=check("response-property-property-names-removed", BREAKING, "propertyNames removed"),
        ),
        "unevaluatedProperties": Keyword(
            added=check("response-property-unevaluated-properties-added", INFO, "unevaluatedProperties added"),
            removed=check(
                "response-property-unevaluated-properties-removed", BREAKING, "unevaluatedProperties removed"
            ),
        ),
        "unevaluatedItems": Keyword(
            added=check("response-property-unevaluated-items-added", INFO, "unevaluatedItems added"),
            removed=check("response-property-unevaluated-items-removed", BREAKING, "unevaluatedItems removed"),
        ),
        "contentSchema": Keyword(
            added=check("response-property-content-schema-added", INFO, "contentSchema added"),
            removed=check("response-property-content-schema-removed", BREAKING, "contentSchema removed"),
        ),
        "not": Keyword(
            added=check("response-property-not-added", INFO, "not added"),
            removed=check("response-property-not-removed", BREAKING, "not removed"),
        ),
        "prefixItems": Keyword(
            added=check("response-property-prefix-items-added", BREAKING, "prefixItems added"),
            removed=check(
                "response-property-prefix-items-removed", INFO, "prefixItems removed (`items` now governs them)"
            ),
        ),
        "dependentRequired": Keyword(
            added=check("response-property-dependent-required-added", INFO, "dependentRequired entry added"),
            removed=check("response-property-dependent-required-removed", BREAKING, "dependentRequired entry removed"),
            changed=check("response-property-dependent-required-changed", BREAKING, "dependentRequired entry changed"),
        ),
        "dependentSchemas": Keyword(
            added=check("response-property-dependent-schema-added", INFO, "dependentSchemas entry added"),
            removed=check("response-property-dependent-schema-removed", BREAKING, "dependentSchemas entry removed"),
        ),
        "patternProperties": Keyword(
            added=check("response-property-pattern-property-added", INFO, "patternProperties entry added"),
            removed=check("response-property-pattern-property-removed", BREAKING, "patternProperties entry removed"),
        ),
        "contentMediaType": Keyword(
            changed=check("response-property-content-media-type-changed", BREAKING, "contentMediaType changed"),
        ),
        "contentEncoding": Keyword(
            changed=check("response-property-content-encoding-changed", BREAKING, "contentEncoding changed"),
        ),
    },
    RESPONSE_HEADER: {
        "const": Keyword(
            added=check("response-header-const-added", INFO, "const added"),
            removed=check("response-header-const-removed", BREAKING, "const removed"),
            changed=check("response-header-const-changed", BREAKING, "const changed"),
        ),
        "if": Keyword(
            added=check("response-header-if-added", INFO, "if added"),
            removed=check("response-header-if-removed", BREAKING, "if removed"),
        ),
        "then": Keyword(
            added=check("response-header-then-added", INFO, "then added"),
            removed=check("response-header-then-removed", BREAKING, "then removed"),
        ),
        "else": Keyword(
            added=check("response-header-else-added", INFO, "else added"),
            removed=check("response-header-else-removed", BREAKING, "else removed"),
        ),
        "contains": Keyword(
            added=check("response-header-contains-added", INFO, "contains added"),
            removed=check("response-header-contains-removed", BREAKING, "contains removed"),
        ),
        "propertyNames": Keyword(
            added=check("response-header-property-names-added", INFO, "propertyNames added"),
            removed=check("response-header-property-names-removed", BREAKING, "propertyNames removed"),
        ),
        "unevaluatedProperties": Keyword(
            added=check("response-header-unevaluated-properties-added", INFO, "unevaluatedProperties added"),
            removed=check("response-header-unevaluated-properties-removed", BREAKING, "unevaluatedProperties removed"),
        ),
        "unevaluatedItems": Keyword(
            added=check("response-header-unevaluated-items-added", INFO, "unevaluatedItems added"),
            removed=check("response-header-unevaluated-items-removed", BREAKING, "unevaluatedItems removed"),
        ),
        "contentSchema": Keyword(
            added=check("response-header-content-schema-added", INFO, "contentSchema added"),
            removed=check("response-header-content-schema-removed", BREAKING, "contentSchema removed"),
        ),
        "not": Keyword(
            added=check("response-header-not-added", INFO, "not added"),
            removed=check("response-header-not-removed", BREAKING, "not removed"),
        ),
        "prefixItems": Keyword(
            added=check("response-header-prefix-items-added", BREAKING, "prefixItems added"),
            removed=check(
                "response-header-prefix-items-removed", INFO, "prefixItems removed (`items` now governs them)"
            ),
        ),
        "dependentRequired": Keyword(
            added=check("response-header-dependent-required-added", INFO, "dependentRequired entry added"),
            removed=check("response-header-dependent-required-removed", BREAKING, "dependentRequired entry removed"),
            changed=check("response-header-dependent-required-changed", BREAKING, "dependentRequired entry changed"),
        ),
        "dependentSchemas": Keyword(
            added=check("response-header-dependent-schema-added", INFO, "dependentSchemas entry added"),
            removed=check("response-header-dependent-schema-removed", BREAKING, "dependentSchemas entry removed"),
        ),
        "patternProperties": Keyword(
            added=check("response-header-pattern-property-added", INFO, "patternProperties entry added"),
            removed=check("response-header-pattern-property-removed", BREAKING, "patternProperties entry removed"),
        ),
        "contentMediaType": Keyword(
            changed=check("response-header-content-media-type-changed", BREAKING, "contentMediaType changed"),
        ),
        "contentEncoding": Keyword(
            changed=check("response-header-content-encoding-changed", BREAKING, "contentEncoding changed"),
        ),
    },
}


def presence_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    """A keyword written on one side only (or a `const`, or a content keyword, written otherwise)."""
    checks = KEYWORDS[d.where.place][d.keyword]
    yield keyword_change(d, checks, d.keyword, (d.before, d.after), name=f"{quote(d.keyword)}")


def prefix_item_changed(d: PrefixItemChanged, context: Context) -> Iterator[Said]:
    checks = KEYWORDS[d.where.place]["prefixItems"]
    word = "added" if d.added else "removed"
    yield said(d, checks.added if d.added else checks.removed, f"`prefixItems[{d.index}]` {word}")


def entry_changed(d: EntryChanged, context: Context) -> Iterator[Said]:
    checks = KEYWORDS[d.where.place][d.keyword]
    label = f"{quote(d.keyword)} entry {quote(d.name)}"
    if d.added is None:
        yield said(d, checks.changed, f"{label} changed from {show(d.before)} to {show(d.after)}")
    else:
        yield said(d, checks.added if d.added else checks.removed, f"{label} {'added' if d.added else 'removed'}")


RULES: dict[RuleKey, Rule] = {
    **{(KeywordChanged, keyword): presence_changed for keyword in (*PRESENCE, "contentMediaType", "contentEncoding")},
    PrefixItemChanged: prefix_item_changed,
    EntryChanged: entry_changed,
}

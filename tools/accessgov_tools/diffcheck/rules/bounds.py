"""Numeric bounds: `minLength`/`maxLength`, `minimum`/`maximum` and their exclusive forms, `minItems`/`maxItems`,
`minProperties`/`maxProperties`, `minContains`/`maxContains`.

A request breaks when a bound narrows what it accepts (an upper bound decreased, a lower one increased, one set
where there was none), a response when it widens what may be sent (the reverse, or one removed). A bound that is
not a number is read as not written.
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
)
from accessgov_tools.diffcheck.walk.differences import KeywordChanged

BOUNDS: dict[Place, dict[str, Keyword]] = {
    REQUEST_PROPERTY: {
        "maxLength": Keyword(
            decreased=check("request-property-max-length-decreased", BREAKING, "maxLength narrowed"),
            increased=check("request-property-max-length-increased", INFO, "maxLength widened"),
            added=check("request-property-max-length-set", WARNING, "maxLength set where there was none"),
            removed=check("request-property-max-length-unset", INFO, "maxLength removed"),
        ),
        "minLength": Keyword(
            decreased=check("request-property-min-length-decreased", INFO, "minLength widened"),
            increased=check("request-property-min-length-increased", BREAKING, "minLength narrowed"),
            added=check("request-property-min-length-set", WARNING, "minLength set where there was none"),
            removed=check("request-property-min-length-unset", INFO, "minLength removed"),
        ),
        "maximum": Keyword(
            decreased=check("request-property-max-decreased", BREAKING, "maximum narrowed"),
            increased=check("request-property-max-increased", INFO, "maximum widened"),
            added=check("request-property-max-set", WARNING, "maximum set where there was none"),
            removed=check("request-property-max-unset", INFO, "maximum removed"),
        ),
        "minimum": Keyword(
            decreased=check("request-property-min-decreased", INFO, "minimum widened"),
            increased=check("request-property-min-increased", BREAKING, "minimum narrowed"),
            added=check("request-property-min-set", WARNING, "minimum set where there was none"),
            removed=check("request-property-min-unset", INFO, "minimum removed"),
        ),
        "exclusiveMaximum": Keyword(
            decreased=check("request-property-exclusive-max-decreased", BREAKING, "exclusiveMaximum narrowed"),
            increased=check("request-property-exclusive-max-increased", INFO, "exclusiveMaximum widened"),
            added=check("request-property-exclusive-max-set", WARNING, "exclusiveMaximum set where there was none"),
            removed=check("request-property-exclusive-max-unset", INFO, "exclusiveMaximum removed"),
        ),
        "exclusiveMinimum": Keyword(
            decreased=check("request-property-exclusive-min-decreased", INFO, "exclusiveMinimum widened"),
            increased=check("request-property-exclusive-min-increased", BREAKING, "exclusiveMinimum narrowed"),
            added=check("request-property-exclusive-min-set", WARNING, "exclusiveMinimum set where there was none"),
            removed=check("request-property-exclusive-min-unset", INFO, "exclusiveMinimum removed"),
        ),
        "maxItems": Keyword(
            decreased=check("request-property-max-items-decreased", BREAKING, "maxItems narrowed"),
            increased=check("request-property-max-items-increased", INFO, "maxItems widened"),
            added=check("request-property-max-items-set", WARNING, "maxItems set where there was none"),
            removed=check("request-property-max-items-unset", INFO, "maxItems removed"),
        ),
        "minItems": Keyword(
            decreased=check("request-property-min-items-decreased", INFO, "minItems widened"),
            increased=check("request-property-min-items-increased", BREAKING, "minItems narrowed"),
            added=check("request-property-min-items-set", WARNING, "minItems set where there was none"),
            removed=check("request-property-min-items-unset", INFO, "minItems removed"),
        ),
        "maxProperties": Keyword(
            decreased=check("request-property-max-properties-decreased", BREAKING, "maxProperties narrowed"),
            increased=check("request-property-max-properties-increased", INFO, "maxProperties widened"),
            added=check("request-property-max-properties-set", WARNING, "maxProperties set where there was none"),
            removed=check("request-property-max-properties-unset", INFO, "maxProperties removed"),
        ),
        "minProperties": Keyword(
            decreased=check("request-property-min-properties-decreased", INFO, "minProperties widened"),
            increased=check("request-property-min-properties-increased", BREAKING, "minProperties narrowed"),
            added=check("request-property-min-properties-set", WARNING, "minProperties set where there was none"),
            removed=check("request-property-min-properties-unset", INFO, "minProperties removed"),
        ),
        "maxContains": Keyword(
            decreased=check("request-property-max-contains-decreased", BREAKING, "maxContains narrowed"),
            increased=check("request-property-max-contains-increased", INFO, "maxContains widened"),
            added=check("request-property-max-contains-set", WARNING, "maxContains set where there was none"),
            removed=check("request-property-max-contains-unset", INFO, "maxContains removed"),
        ),
        "minContains": Keyword(
            decreased=check("request-property-min-contains-decreased", INFO, "minContains widened"),
            increased=check("request-property-min-contains-increased", BREAKING, "minContains narrowed"),
            added=check("request-property-min-contains-set", WARNING, "minContains set where there was none"),
            removed=check("request-property-min-contains-unset", INFO, "minContains removed"),
        ),
    },
    REQUEST_PARAMETER: {
        "maxLength": Keyword(
            decreased=check("request-parameter-max-length-decreased", BREAKING, "maxLength narrowed"),
            increased=check("request-parameter-max-length-increased", INFO, "maxLength widened"),
            added=check("request-parameter-max-length-set", WARNING, "maxLength set where there was none"),
            removed=check("request-parameter-max-length-unset", INFO, "maxLength removed"),
        ),
        "minLength": Keyword(
            decreased=check("request-parameter-min-length-decreased", INFO, "minLength widened"),
            increased=check("request-parameter-min-length-increased", BREAKING, "minLength narrowed"),
            added=check("request-parameter-min-length-set", WARNING, "minLength set where there was none"),
            removed=check("request-parameter-min-length-unset", INFO, "minLength removed"),
        ),
        "maximum": Keyword(
            decreased=check("request-parameter-max-decreased", BREAKING, "maximum narrowed"),
            increased=check("request-parameter-max-increased", INFO, "maximum widened"),
            added=check("request-parameter-max-set", WARNING, "maximum set where there was none"),
            removed=check("request-parameter-max-unset", INFO, "maximum removed"),
        ),
        "minimum": Keyword(
            decreased=check("request-parameter-min-decreased", INFO, "minimum widened"),
            increased=check("request-parameter-min-increased", BREAKING, "minimum narrowed"),
            added=check("request-parameter-min-set", WARNING, "minimum set where there was none"),
            removed=check("request-parameter-min-unset", INFO, "minimum removed"),
        ),
        "exclusiveMaximum": Keyword(
            decreased=check("request-parameter-exclusive-max-decreased", BREAKING, "exclusiveMaximum narrowed"),
            increased=check("request-parameter-exclusive-max-increased", INFO, "exclusiveMaximum widened"),
            added=check("request-parameter-exclusive-max-set", WARNING, "exclusiveMaximum set where there was none"),
            removed=check("request-parameter-exclusive-max-unset", INFO, "exclusiveMaximum removed"),
        ),
        "exclusiveMinimum": Keyword(
            decreased=check("request-parameter-exclusive-min-decreased", INFO, "exclusiveMinimum widened"),
            increased=check("request-parameter-exclusive-min-increased", BREAKING, "exclusiveMinimum narrowed"),
            added=check("request-parameter-exclusive-min-set", WARNING, "exclusiveMinimum set where there was none"),
            removed=check("request-parameter-exclusive-min-unset", INFO, "exclusiveMinimum removed"),
        ),
        "maxItems": Keyword(
            decreased=check("request-parameter-max-items-decreased", BREAKING, "maxItems narrowed"),
            increased=check("request-parameter-max-items-increased", INFO, "maxItems widened"),
            added=check("request-parameter-max-items-set", WARNING, "maxItems set where there was none"),
            removed=check("request-parameter-max-items-unset", INFO, "maxItems removed"),
        ),
        "minItems": Keyword(
            decreased=check("request-parameter-min-items-decreased", INFO, "minItems widened"),
            increased=check("request-parameter-min-items-increased", BREAKING, "minItems narrowed"),
            added=check("request-parameter-min-items-set", WARNING, "minItems set where there was none"),
            removed=check("request-parameter-min-items-unset", INFO, "minItems removed"),
        ),
        "maxProperties": Keyword(
            decreased=check("request-parameter-max-properties-decreased", BREAKING, "maxProperties narrowed"),
            increased=check("request-parameter-max-properties-increased", INFO, "maxProperties widened"),
            added=check("request-parameter-max-properties-set", WARNING, "maxProperties set where there was none"),
            removed=check("request-parameter-max-properties-unset", INFO, "maxProperties removed"),
        ),
        "minProperties": Keyword(
            decreased=check("request-parameter-min-properties-decreased", INFO, "minProperties widened"),
            increased=check("request-parameter-min-properties-increased", BREAKING, "minProperties narrowed"),
            added=check("request-parameter-min-properties-set", WARNING, "minProperties set where there was none"),
            removed=check("request-parameter-min-properties-unset", INFO, "minProperties removed"),
        ),
        "maxContains": Keyword(
            decreased=check("request-parameter-max-contains-decreased", BREAKING, "maxContains narrowed"),
            increased=check("request-parameter-max-contains-increased", INFO, "maxContains widened"),
            added=check("request-parameter-max-contains-set", WARNING, "maxContains set where there was none"),
            removed=check("request-parameter-max-contains-unset", INFO, "maxContains removed"),
        ),
        "minContains": Keyword(
            decreased=check("request-parameter-min-contains-decreased", INFO, "minContains widened"),
            increased=check("request-parameter-min-contains-increased", BREAKING, "minContains narrowed"),
            added=check("request-parameter-min-contains-set", WARNING, "minContains set where there was none"),
            removed=check("request-parameter-min-contains-unset", INFO, "minContains removed"),
        ),
    },
    RESPONSE_PROPERTY: {
        "maxLength": Keyword(
            decreased=check("response-property-max-length-decreased", INFO, "maxLength narrowed"),
            increased=check("response-property-max-length-increased", BREAKING, "maxLength widened"),
            added=check("response-property-max-length-set", INFO, "maxLength set where there was none"),
            removed=check("response-property-max-length-unset", BREAKING, "maxLength removed"),
        ),
        "minLength": Keyword(
            decreased=check("response-property-min-length-decreased", BREAKING, "minLength widened"),
            increased=check("response-property-min-length-increased", INFO, "minLength narrowed"),
            added=check("response-property-min-length-set", INFO, "minLength set where there was none"),
            removed=check("response-property-min-length-unset", BREAKING, "minLength removed"),
        ),
        "maximum": Keyword(
            decreased=check("response-property-max-decreased", INFO, "maximum narrowed"),
            increased=check("response-property-max-increased", BREAKING, "maximum widened"),
            added=check("response-property-max-set", INFO, "maximum set where there was none"),
            removed=check("response-property-max-unset", BREAKING, "maximum removed"),
        ),
        "minimum": Keyword(
            decreased=check("response-property-min-decreased", BREAKING, "minimum widened"),
            increased=check("response-property-min-increased", INFO, "minimum narrowed"),
            added=check("response-property-min-set", INFO, "minimum set where there was none"),
            removed=check("response-property-min-unset", BREAKING, "minimum removed"),
        ),
        "exclusiveMaximum": Keyword(
            decreased=check("response-property-exclusive-max-decreased", INFO, "exclusiveMaximum narrowed"),
            increased=check("response-property-exclusive-max-increased", BREAKING, "exclusiveMaximum widened"),
            added=check("response-property-exclusive-max-set", INFO, "exclusiveMaximum set where there was none"),
            removed=check("response-property-exclusive-max-unset", BREAKING, "exclusiveMaximum removed"),
        ),
        "exclusiveMinimum": Keyword(
            decreased=check("response-property-exclusive-min-decreased", BREAKING, "exclusiveMinimum widened"),
            increased=check("response-property-exclusive-min-increased", INFO, "exclusiveMinimum narrowed"),
            added=check("response-property-exclusive-min-set", INFO, "exclusiveMinimum set where there was none"),
            removed=check("response-property-exclusive-min-unset", BREAKING, "exclusiveMinimum removed"),
        ),
        "maxItems": Keyword(
            decreased=check("response-property-max-items-decreased", INFO, "maxItems narrowed"),
            increased=check("response-property-max-items-increased", BREAKING, "maxItems widened"),
            added=check("response-property-max-items-set", INFO, "maxItems set where there was none"),
            removed=check("response-property-max-items-unset", BREAKING, "maxItems removed"),
        ),
        "minItems": Keyword(
            decreased=check("response-property-min-items-decreased", BREAKING, "minItems widened"),
            increased=check("response-property-min-items-increased", INFO, "minItems narrowed"),
            added=check("response-property-min-items-set", INFO, "minItems set where there was none"),
            removed=check("response-property-min-items-unset", BREAKING, "minItems removed"),
        ),
        "maxProperties": Keyword(
            decreased=check("response-property-max-properties-decreased", INFO, "maxProperties narrowed"),
            increased=check("response-property-max-properties-increased", BREAKING, "maxProperties widened"),
            added=check("response-property-max-properties-set", INFO, "maxProperties set where there was none"),
            removed=check("response-property-max-properties-unset", BREAKING, "maxProperties removed"),
        ),
        "minProperties": Keyword(
            decreased=check("response-property-min-properties-decreased", BREAKING, "minProperties widened"),
            increased=check("response-property-min-properties-increased", INFO, "minProperties narrowed"),
            added=check("response-property-min-properties-set", INFO, "minProperties set where there was none"),
            removed=check("response-property-min-properties-unset", BREAKING, "minProperties removed"),
        ),
        "maxContains": Keyword(
            decreased=check("response-property-max-contains-decreased", INFO, "maxContains narrowed"),
            increased=check("response-property-max-contains-increased", BREAKING, "maxContains widened"),
            added=check("response-property-max-contains-set", INFO, "maxContains set where there was none"),
            removed=check("response-property-max-contains-unset", BREAKING, "maxContains removed"),
        ),
        "minContains": Keyword(
            decreased=check("response-property-min-contains-decreased", BREAKING, "minContains widened"),
            increased=check("response-property-min-contains-increased", INFO, "minContains narrowed"),
            added=check("response-property-min-contains-set", INFO, "minContains set where there was none"),
            removed=check("response-property-min-contains-unset", BREAKING, "minContains removed"),
        ),
    },
    RESPONSE_HEADER: {
        "maxLength": Keyword(
            decreased=check("response-header-max-length-decreased", INFO, "maxLength narrowed"),
            increased=check("response-header-max-length-increased", BREAKING, "maxLength widened"),
            added=check("response-header-max-length-set", INFO, "maxLength set where there was none"),
            removed=check("response-header-max-length-unset", BREAKING, "maxLength removed"),
        ),
        "minLength": Keyword(
            decreased=check("response-header-min-length-decreased", BREAKING, "minLength widened"),
            increased=check("response-header-min-length-increased", INFO, "minLength narrowed"),
            added=check("response-header-min-length-set", INFO, "minLength set where there was none"),
            removed=check("response-header-min-length-unset", BREAKING, "minLength removed"),
        ),
        "maximum": Keyword(
            decreased=check("response-header-max-decreased", INFO, "maximum narrowed"),
            increased=check("response-header-max-increased", BREAKING, "maximum widened"),
            added=check("response-header-max-set", INFO, "maximum set where there was none"),
            removed=check("response-header-max-unset", BREAKING, "maximum removed"),
        ),
        "minimum": Keyword(
            decreased=check("response-header-min-decreased", BREAKING, "minimum widened"),
            increased=check("response-header-min-increased", INFO, "minimum narrowed"),
            added=check("response-header-min-set", INFO, "minimum set where there was none"),
            removed=check("response-header-min-unset", BREAKING, "minimum removed"),
        ),
        "exclusiveMaximum": Keyword(
            decreased=check("response-header-exclusive-max-decreased", INFO, "exclusiveMaximum narrowed"),
            increased=check("response-header-exclusive-max-increased", BREAKING, "exclusiveMaximum widened"),
            added=check("response-header-exclusive-max-set", INFO, "exclusiveMaximum set where there was none"),
            removed=check("response-header-exclusive-max-unset", BREAKING, "exclusiveMaximum removed"),
        ),
        "exclusiveMinimum": Keyword(
            decreased=check("response-header-exclusive-min-decreased", BREAKING, "exclusiveMinimum widened"),
            increased=check("response-header-exclusive-min-increased", INFO, "exclusiveMinimum narrowed"),
            added=check("response-header-exclusive-min-set", INFO, "exclusiveMinimum set where there was none"),
            removed=check("response-header-exclusive-min-unset", BREAKING, "exclusiveMinimum removed"),
        ),
        "maxItems": Keyword(
            decreased=check("response-header-max-items-decreased", INFO, "maxItems narrowed"),
            increased=check("response-header-max-items-increased", BREAKING, "maxItems widened"),
            added=check("response-header-max-items-set", INFO, "maxItems set where there was none"),
            removed=check("response-header-max-items-unset", BREAKING, "maxItems removed"),
        ),
        "minItems": Keyword(
            decreased=check("response-header-min-items-decreased", BREAKING, "minItems widened"),
            increased=check("response-header-min-items-increased", INFO, "minItems narrowed"),
            added=check("response-header-min-items-set", INFO, "minItems set where there was none"),
            removed=check("response-header-min-items-unset", BREAKING, "minItems removed"),
        ),
        "maxProperties": Keyword(
            decreased=check("response-header-max-properties-decreased", INFO, "maxProperties narrowed"),
            increased=check("response-header-max-properties-increased", BREAKING, "maxProperties widened"),
            added=check("response-header-max-properties-set", INFO, "maxProperties set where there was none"),
            removed=check("response-header-max-properties-unset", BREAKING, "maxProperties removed"),
        ),
        "minProperties": Keyword(
            decreased=check("response-header-min-properties-decreased", BREAKING, "minProperties widened"),
            increased=check("response-header-min-properties-increased", INFO, "minProperties narrowed"),
            added=check("response-header-min-properties-set", INFO, "minProperties set where there was none"),
            removed=check("response-header-min-properties-unset", BREAKING, "minProperties removed"),
        ),
        "maxContains": Keyword(
            decreased=check("response-header-max-contains-decreased", INFO, "maxContains narrowed"),
            increased=check("response-header-max-contains-increased", BREAKING, "maxContains widened"),
            added=check("response-header-max-contains-set", INFO, "maxContains set where there was none"),
            removed=check("response-header-max-contains-unset", BREAKING, "maxContains removed"),
        ),
        "minContains": Keyword(
            decreased=check("response-header-min-contains-decreased", BREAKING, "minContains widened"),
            increased=check("response-header-min-contains-increased", INFO, "minContains narrowed"),
            added=check("response-header-min-contains-set", INFO, "minContains set where there was none"),
            removed=check("response-header-min-contains-unset", BREAKING, "minContains removed"),
        ),
    },
}


def bound_changed(d: KeywordChanged, context: Context) -> Iterator[Said]:
    checks = BOUNDS[d.where.place][d.keyword]
    yield keyword_change(d, checks, d.keyword, (d.before, d.after), setting=True, ordered=True)


RULES: dict[RuleKey, Rule] = {(KeywordChanged, keyword): bound_changed for keyword in BOUNDS[REQUEST_PROPERTY]}

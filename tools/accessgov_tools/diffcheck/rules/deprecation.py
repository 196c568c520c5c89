"""Deprecation with a sunset date, and stability levels, as oasdiff has them: operations, parameters, properties.

`deprecated: true` may carry `x-sunset` (an RFC 3339 date or date-time): the date the thing may be removed. When
the config sets a grace period for the thing's stability (`deprecation.days-stable`/`days-beta`), a deprecation
must announce an `x-sunset` at least that many days after the comparison date. Removing a deprecated thing
before its sunset is breaking (the operations and parameters families ask `removed_before_sunset`); so is
deleting a sunset or moving it earlier than allowed. `x-stability-level` lowered is breaking; an operation's
unreadable one too; a level set or dropped, or changed below the threshold, is not reported (oasdiff).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from accessgov_tools.diffcheck.lifecycle import INVALID, rank, stability, sunset
from accessgov_tools.diffcheck.model import REQUEST, RESPONSE, Check
from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    REQUEST_PARAMETER,
    REQUEST_PROPERTY,
    RESPONSE_HEADER,
    RESPONSE_PROPERTY,
    Context,
    Place,
    Rule,
    RuleKey,
    Said,
    check,
    said,
)
from accessgov_tools.diffcheck.walk.differences import (
    DeprecationChanged,
    HeaderDeprecatedChanged,
    KeywordChanged,
    StabilityChanged,
)


@dataclass(frozen=True)
class Flag:
    """The checks of a flag at one place: set (`deprecated: true` written where it was not) or unset."""

    set: Check
    unset: Check


DEPRECATED: dict[Place, Flag] = {  # `deprecated` set (`added`) or dropped (`removed`)
    REQUEST_PROPERTY: Flag(
        set=check("request-property-deprecated", INFO, "deprecated"),
        unset=check("request-property-reactivated", INFO, "no longer deprecated"),
    ),
    REQUEST_PARAMETER: Flag(
        set=check("request-parameter-deprecated", INFO, "deprecated"),
        unset=check("request-parameter-reactivated", INFO, "no longer deprecated"),
    ),
    RESPONSE_PROPERTY: Flag(
        set=check("response-property-deprecated", INFO, "deprecated"),
        unset=check("response-property-reactivated", INFO, "no longer deprecated"),
    ),
    RESPONSE_HEADER: Flag(
        set=check("response-header-deprecated", INFO, "deprecated"),
        unset=check("response-header-reactivated", INFO, "no longer deprecated"),
    ),
}


@dataclass(frozen=True)
class SunsetChecks:
    """The checks one kind of thing (operation, parameter, property) reports its deprecation with."""

    deprecated: Check
    with_sunset: Check
    reactivated: Check
    missing: Check
    invalid: Check
    too_small: Check
    deleted: Check | None = None
    changed_too_small: Check | None = None
    changed_invalid: Check | None = None


OPERATION = SunsetChecks(
    deprecated=check("endpoint-deprecated", INFO, "operation deprecated"),
    with_sunset=check("endpoint-deprecated-with-sunset", INFO, "operation deprecated with an x-sunset date"),
    reactivated=check("endpoint-reactivated", INFO, "operation no longer deprecated"),
    missing=check(
        "api-deprecated-sunset-missing", BREAKING, "operation deprecated without the x-sunset the grace period requires"
    ),
    invalid=check("api-deprecated-sunset-parse", BREAKING, "operation deprecated with an unreadable x-sunset"),
    too_small=check("api-sunset-date-too-small", BREAKING, "operation's x-sunset sooner than the grace period"),
    deleted=check("api-sunset-deleted", BREAKING, "x-sunset removed from a still deprecated operation"),
    changed_too_small=check(
        "api-sunset-date-changed-too-small", BREAKING, "x-sunset of a deprecated operation moved earlier than allowed"
    ),
    changed_invalid=check(
        "api-path-sunset-parse", BREAKING, "x-sunset of a deprecated operation changed to or from an unreadable value"
    ),
)
PARAMETER_SUNSET_PARSE = check("request-parameter-sunset-parse", BREAKING, "parameter's x-sunset unreadable")
PARAMETER = SunsetChecks(
    deprecated=DEPRECATED[REQUEST_PARAMETER].set,
    with_sunset=DEPRECATED[REQUEST_PARAMETER].set,
    reactivated=DEPRECATED[REQUEST_PARAMETER].unset,
    missing=check(
        "request-parameter-deprecated-sunset-missing", BREAKING, "parameter deprecated without the x-sunset required"
    ),
    invalid=PARAMETER_SUNSET_PARSE,
    too_small=check(
        "request-parameter-sunset-date-too-small", BREAKING, "parameter's x-sunset sooner than the grace period"
    ),
    deleted=check("request-parameter-sunset-deleted", BREAKING, "x-sunset removed from a still deprecated parameter"),
    changed_too_small=check(
        "request-parameter-sunset-date-changed-too-small", BREAKING, "parameter's x-sunset moved earlier than allowed"
    ),
    changed_invalid=PARAMETER_SUNSET_PARSE,
)
PROPERTY = {
    REQUEST: SunsetChecks(
        deprecated=DEPRECATED[REQUEST_PROPERTY].set,
        with_sunset=check("request-property-deprecated-with-sunset", INFO, "property deprecated with an x-sunset date"),
        reactivated=DEPRECATED[REQUEST_PROPERTY].unset,
        missing=check(
            "request-property-deprecated-sunset-missing", BREAKING, "property deprecated without the x-sunset required"
        ),
        invalid=check(
            "request-property-deprecated-sunset-invalid", BREAKING, "property deprecated with an unreadable x-sunset"
        ),
        too_small=check(
            "request-property-sunset-date-too-small", BREAKING, "property's x-sunset sooner than the grace period"
        ),
    ),
    RESPONSE: SunsetChecks(
        deprecated=DEPRECATED[RESPONSE_PROPERTY].set,
        with_sunset=check(
            "response-property-deprecated-with-sunset", INFO, "property deprecated with an x-sunset date"
        ),
        reactivated=DEPRECATED[RESPONSE_PROPERTY].unset,
        missing=check(
            "response-property-deprecated-sunset-missing", BREAKING, "property deprecated without the x-sunset required"
        ),
        invalid=check(
            "response-property-deprecated-sunset-invalid", BREAKING, "property deprecated with an unreadable x-sunset"
        ),
        too_small=check(
            "response-property-sunset-date-too-small", BREAKING, "property's x-sunset sooner than the grace period"
        ),
    ),
}


@dataclass(frozen=True)
class StabilityChecks:
    """The checks of one kind of thing's `x-stability-level`."""

    decreased: Check
    increased: Check
    invalid: Check | None = None  # operations only


STABILITY = {
    "operation": StabilityChecks(
        decreased=check("api-stability-decreased", BREAKING, "operation's x-stability-level lowered"),
        increased=check("api-stability-increased", INFO, "operation's x-stability-level raised"),
        invalid=check("api-invalid-stability-level", BREAKING, "x-stability-level is not draft, alpha, beta or stable"),
    ),
    REQUEST: StabilityChecks(
        decreased=check("request-property-stability-decreased", BREAKING, "property's x-stability-level lowered"),
        increased=check("request-property-stability-increased", INFO, "property's x-stability-level raised"),
    ),
    RESPONSE: StabilityChecks(
        decreased=check("response-property-stability-decreased", BREAKING, "property's x-stability-level lowered"),
        increased=check("response-property-stability-increased", INFO, "property's x-stability-level raised"),
    ),
}


def removed_before_sunset(node: dict[str, Any], today: dt.date) -> bool:
    """Whether a deprecated thing being removed still had a sunset ahead (or an unreadable one)."""
    date = sunset(node)
    return date == INVALID or (isinstance(date, dt.date) and date > today)


def deprecation_changed(d: DeprecationChanged, context: Context) -> Iterator[Said]:
    """`deprecated` and `x-sunset` of one thing present on both sides (`d.level`: its stability)."""
    ids = OPERATION if d.thing == "operation" else PARAMETER if d.thing == "parameter" else PROPERTY[d.direction or ""]
    b, h, label, at = d.before, d.after, d.label, d.head
    b_dep, h_dep = b.get("deprecated") is True, h.get("deprecated") is True
    if not h_dep:
        if b_dep:
            yield Said(ids.reactivated, f"{label}: no longer deprecated", at)
        return
    new, old = sunset(h), sunset(b)
    days = context.min_sunset_days(d.level)
    where = (*at, "x-sunset") if "x-sunset" in h else (*at, "deprecated")
    if not b_dep:
        dated = isinstance(new, dt.date)
        yield Said(
            ids.with_sunset if dated else ids.deprecated,
            f"{label}: deprecated" + (f", sunset {new}" if dated else ""),
            where,
        )
        if new == INVALID:
            yield Said(ids.invalid, f"{label}: deprecated with an unreadable x-sunset {h['x-sunset']!r}", where)
        elif new is None and days:
            yield Said(ids.missing, f"{label}: deprecated without an x-sunset ({days} days' notice required)", at)
        elif isinstance(new, dt.date) and (new - context.today).days < days:
            yield Said(ids.too_small, f"{label}: x-sunset {new} is less than {days} days away", where)
        return
    if old == new or ids.deleted is None:
        return
    if new is None and old is not None:
        yield Said(ids.deleted, f"{label}: x-sunset {b.get('x-sunset')!r} removed while still deprecated", at)
    elif INVALID in (old, new):
        text = f"{label}: x-sunset changed from {b.get('x-sunset')!r} to {h.get('x-sunset')!r} (unreadable)"
        yield Said(ids.changed_invalid or ids.invalid, text, where)
    elif (
        isinstance(old, dt.date)
        and isinstance(new, dt.date)
        and new < old
        and (not days or (new - context.today).days < days)
    ):
        yield Said(ids.changed_too_small or ids.too_small, f"{label}: x-sunset moved from {old} to {new}", where)


def stability_changed(d: StabilityChanged, context: Context) -> Iterator[Said]:
    """`x-stability-level` of one thing: unreadable on either side (operations), or lowered, or raised."""
    ids = STABILITY["operation"] if d.thing == "operation" else STABILITY[d.direction or ""]
    b, h, label, at = d.before, d.after, d.label, d.head
    b_level, h_level = stability(b), stability(h)
    if INVALID in (b_level, h_level) and ids.invalid is not None:
        bad = h if h_level == INVALID else b
        text = f"{label}: x-stability-level {bad.get('x-stability-level')!r} is not one of draft, alpha, beta, stable"
        yield Said(ids.invalid, text, (*at, "x-stability-level") if h_level == INVALID else at)
    elif b_level is None or h_level is None or rank(b_level) < rank(context.stability_level):
        # A level set or dropped is no change of level, and leaving one below the threshold is not reported
        # (oasdiff).
        return
    elif rank(h_level) < rank(b_level):
        yield Said(ids.decreased, f"{label}: stability lowered from {b_level} to {h_level}", (*at, "x-stability-level"))
    elif rank(h_level) > rank(b_level):
        yield Said(ids.increased, f"{label}: stability raised from {b_level} to {h_level}", (*at, "x-stability-level"))


def deprecated_flag(d: KeywordChanged, context: Context) -> Iterator[Said]:
    """`deprecated` of a parameter's or a header's schema (a property's is `deprecation_changed`'s)."""
    checks = DEPRECATED[d.where.place]
    if d.after is True:
        yield said(d, checks.set, "deprecated")
    else:
        yield said(d, checks.unset, "no longer deprecated")


def header_deprecated(d: HeaderDeprecatedChanged, context: Context) -> Iterator[Said]:
    checks = DEPRECATED[RESPONSE_HEADER]
    check_ = checks.set if d.deprecated else checks.unset
    yield Said(check_, f"{d.label} {'deprecated' if d.deprecated else 'no longer deprecated'}", d.head)


RULES: dict[RuleKey, Rule] = {
    DeprecationChanged: deprecation_changed,
    StabilityChanged: stability_changed,
    (KeywordChanged, "deprecated"): deprecated_flag,
    HeaderDeprecatedChanged: header_deprecated,
}

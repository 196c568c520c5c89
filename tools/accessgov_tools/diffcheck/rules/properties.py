"""Object properties, by direction, and `additionalProperties`.

A request breaks when it must carry a property it did not (a new required one, one made required, a name made
required with no schema beside it), a response when it may lack one a client read (a required one removed, one
made optional, one made writeOnly: no longer sent). A property removed from a request is a warning: the server
ignores it from now on. readOnly properties are not walked in requests, writeOnly ones not in responses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accessgov_tools.diffcheck.model import REQUEST, Check
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
    plain,
    said,
)
from accessgov_tools.diffcheck.walk.differences import (
    AdditionalPropertiesChanged,
    PropertyChanged,
    PropertyHiddenChanged,
    PropertyRequiredChanged,
    UndeclaredRequired,
)

NEW_REQUIRED_REQUEST_PROPERTY = check("new-required-request-property", BREAKING, "new required request property")
NEW_OPTIONAL_REQUEST_PROPERTY = check("new-optional-request-property", INFO, "new optional request property")
REQUEST_PROPERTY_REMOVED = check(
    "request-property-removed", WARNING, "request property removed (the server ignores it from now on)"
)
REQUEST_PROPERTY_BECAME_REQUIRED = check("request-property-became-required", BREAKING, "request property now required")
REQUEST_PROPERTY_BECAME_OPTIONAL = check("request-property-became-optional", INFO, "request property now optional")
REQUEST_PROPERTY_UNDECLARED_BECAME_REQUIRED = check(
    "request-property-undeclared-became-required", BREAKING, "request property without a schema here now required"
)
REQUEST_PROPERTY_BECAME_READ_ONLY = check(
    "request-property-became-read-only", WARNING, "request property now readOnly (clients can no longer set it)"
)
REQUEST_PROPERTY_BECAME_NOT_READ_ONLY = check(
    "request-property-became-not-read-only", INFO, "request property no longer readOnly"
)
RESPONSE_REQUIRED_PROPERTY_REMOVED = check(
    "response-required-property-removed", BREAKING, "required response property removed"
)
RESPONSE_OPTIONAL_PROPERTY_REMOVED = check(
    "response-optional-property-removed", WARNING, "optional response property removed"
)
RESPONSE_REQUIRED_PROPERTY_ADDED = check("response-required-property-added", INFO, "required response property added")
RESPONSE_OPTIONAL_PROPERTY_ADDED = check("response-optional-property-added", INFO, "optional response property added")
RESPONSE_PROPERTY_BECAME_OPTIONAL = check(
    "response-property-became-optional", BREAKING, "response property no longer always sent"
)
RESPONSE_PROPERTY_BECAME_REQUIRED = check(
    "response-property-became-required", INFO, "response property now always sent"
)
RESPONSE_PROPERTY_BECAME_WRITE_ONLY = check(
    "response-property-became-write-only", BREAKING, "response property now writeOnly (no longer sent)"
)
RESPONSE_PROPERTY_BECAME_NOT_WRITE_ONLY = check(
    "response-property-became-not-write-only", INFO, "response property no longer writeOnly"
)
RESPONSE_REQUIRED_PROPERTY_BECAME_NOT_WRITE_ONLY = check(
    "response-required-property-became-not-write-only",
    WARNING,
    "required response property no longer writeOnly (now sent)",
)


@dataclass(frozen=True)
class Narrowing:
    """The checks of `additionalProperties` at one place: what it allows narrowed or widened."""

    narrowed: Check
    widened: Check


ADDITIONAL_PROPERTIES: dict[Place, Narrowing] = {
    REQUEST_PROPERTY: Narrowing(
        narrowed=check("request-property-additional-properties-narrowed", BREAKING, "additionalProperties narrowed"),
        widened=check("request-property-additional-properties-widened", INFO, "additionalProperties widened"),
    ),
    REQUEST_PARAMETER: Narrowing(
        narrowed=check("request-parameter-additional-properties-narrowed", BREAKING, "additionalProperties narrowed"),
        widened=check("request-parameter-additional-properties-widened", INFO, "additionalProperties widened"),
    ),
    RESPONSE_PROPERTY: Narrowing(
        narrowed=check("response-property-additional-properties-narrowed", INFO, "additionalProperties narrowed"),
        widened=check("response-property-additional-properties-widened", WARNING, "additionalProperties widened"),
    ),
    RESPONSE_HEADER: Narrowing(
        narrowed=check("response-header-additional-properties-narrowed", INFO, "additionalProperties narrowed"),
        widened=check("response-header-additional-properties-widened", WARNING, "additionalProperties widened"),
    ),
}


def property_changed(d: PropertyChanged, context: Context) -> Iterator[Said]:
    request = d.where.direction == REQUEST
    if not d.added:
        if request:
            check_ = REQUEST_PROPERTY_REMOVED
        else:
            check_ = RESPONSE_REQUIRED_PROPERTY_REMOVED if d.required else RESPONSE_OPTIONAL_PROPERTY_REMOVED
        yield plain(d, check_, "removed")
        return
    if request:
        check_ = NEW_REQUIRED_REQUEST_PROPERTY if d.required else NEW_OPTIONAL_REQUEST_PROPERTY
    else:
        check_ = RESPONSE_REQUIRED_PROPERTY_ADDED if d.required else RESPONSE_OPTIONAL_PROPERTY_ADDED
    yield plain(d, check_, f"new {'required' if d.required else 'optional'} property")


def hidden_changed(d: PropertyHiddenChanged, context: Context) -> Iterator[Said]:
    """readOnly in a request, writeOnly in a response: a property the client no longer sends or gets."""
    if d.where.direction == REQUEST:
        hidden = "readOnly"
        check_ = REQUEST_PROPERTY_BECAME_READ_ONLY if d.hidden else REQUEST_PROPERTY_BECAME_NOT_READ_ONLY
    else:
        hidden = "writeOnly"
        check_ = RESPONSE_PROPERTY_BECAME_WRITE_ONLY if d.hidden else RESPONSE_PROPERTY_BECAME_NOT_WRITE_ONLY
        if not d.hidden and d.required:  # now always sent: a client may not expect it
            check_ = RESPONSE_REQUIRED_PROPERTY_BECAME_NOT_WRITE_ONLY
    yield plain(d, check_, f"{'now' if d.hidden else 'no longer'} {hidden}")


def required_changed(d: PropertyRequiredChanged, context: Context) -> Iterator[Said]:
    if d.where.direction == REQUEST:
        check_ = REQUEST_PROPERTY_BECAME_REQUIRED if d.required else REQUEST_PROPERTY_BECAME_OPTIONAL
    else:
        check_ = RESPONSE_PROPERTY_BECAME_REQUIRED if d.required else RESPONSE_PROPERTY_BECAME_OPTIONAL
    yield plain(d, check_, f"now {'required' if d.required else 'optional'}")


def undeclared_required(d: UndeclaredRequired, context: Context) -> Iterator[Said]:
    yield plain(d, REQUEST_PROPERTY_UNDECLARED_BECAME_REQUIRED, "now required, with no schema here")


def additional_properties_changed(d: AdditionalPropertiesChanged, context: Context) -> Iterator[Said]:
    checks = ADDITIONAL_PROPERTIES[d.where.place]
    if d.narrowed:
        yield said(d, checks.narrowed, "additionalProperties narrowed")
    else:
        yield said(d, checks.widened, "additionalProperties widened")


RULES: dict[RuleKey, Rule] = {
    PropertyChanged: property_changed,
    PropertyHiddenChanged: hidden_changed,
    PropertyRequiredChanged: required_changed,
    UndeclaredRequired: undeclared_required,
    AdditionalPropertiesChanged: additional_properties_changed,
}

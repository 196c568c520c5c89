"""Parameters (path, query, header, cookie): added, removed, made required or optional.

A new required parameter breaks every request that lacks it; a parameter removed is a warning (the server
ignores it from now on), unless it was deprecated: then its removal before its `x-sunset` date is breaking and
after it an addition to the changelog. A parameter's schema is walked like any other, at its own place.
"""

from __future__ import annotations

from collections.abc import Iterator

from accessgov_tools.diffcheck.rules.deprecation import removed_before_sunset
from accessgov_tools.diffcheck.rules.registry import BREAKING, INFO, WARNING, Context, Rule, RuleKey, Said, check
from accessgov_tools.diffcheck.walk.differences import ParameterAdded, ParameterRemoved, ParameterRequiredChanged

NEW_REQUIRED_REQUEST_PARAMETER = check("new-required-request-parameter", BREAKING, "new required parameter")
NEW_OPTIONAL_REQUEST_PARAMETER = check("new-optional-request-parameter", INFO, "new optional parameter")
REQUEST_PARAMETER_REMOVED = check(
    "request-parameter-removed", WARNING, "parameter removed (the server ignores it from now on)"
)
REQUEST_PARAMETER_REMOVED_BEFORE_SUNSET = check(
    "request-parameter-removed-before-sunset", BREAKING, "deprecated parameter removed before its x-sunset date"
)
REQUEST_PARAMETER_REMOVED_WITH_DEPRECATION = check(
    "request-parameter-removed-with-deprecation", INFO, "deprecated parameter removed after its sunset"
)
REQUEST_PARAMETER_BECAME_REQUIRED = check("request-parameter-became-required", BREAKING, "parameter now required")
REQUEST_PARAMETER_BECAME_OPTIONAL = check("request-parameter-became-optional", INFO, "parameter now optional")


def parameter_added(d: ParameterAdded, context: Context) -> Iterator[Said]:
    check_ = NEW_REQUIRED_REQUEST_PARAMETER if d.required else NEW_OPTIONAL_REQUEST_PARAMETER
    yield Said(check_, f"new {'required' if d.required else 'optional'} {d.label}", d.head)


def parameter_removed(d: ParameterRemoved, context: Context) -> Iterator[Said]:
    check_ = REQUEST_PARAMETER_REMOVED
    if d.parameter.get("deprecated") is True:
        before = removed_before_sunset(d.parameter, context.today)
        check_ = REQUEST_PARAMETER_REMOVED_BEFORE_SUNSET if before else REQUEST_PARAMETER_REMOVED_WITH_DEPRECATION
    yield Said(check_, f"{d.label} removed", d.head)


def parameter_required_changed(d: ParameterRequiredChanged, context: Context) -> Iterator[Said]:
    check_ = REQUEST_PARAMETER_BECAME_REQUIRED if d.required else REQUEST_PARAMETER_BECAME_OPTIONAL
    yield Said(check_, f"{d.label} is now {'required' if d.required else 'optional'}", d.head)


RULES: dict[RuleKey, Rule] = {
    ParameterAdded: parameter_added,
    ParameterRemoved: parameter_removed,
    ParameterRequiredChanged: parameter_required_changed,
}

"""Security: the requirement alternatives an operation accepts, and the document's security schemes.

An alternative no longer accepted, or a scope newly required, makes a client holding those credentials fail;
a scheme removed or its type changed too. oasdiff reports these as info; this contract grades them breaking
(`severities.yaml`, policy `security-requirements`). An OAuth2 token URL changed is a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accessgov_tools.diffcheck.model import Check, show
from accessgov_tools.diffcheck.rules.registry import (
    BREAKING,
    INFO,
    WARNING,
    Context,
    Rule,
    RuleKey,
    Said,
    check,
    names,
)
from accessgov_tools.diffcheck.walk.differences import (
    FlowChanged,
    FlowScopeChanged,
    FlowUrlChanged,
    RequirementChanged,
    RequirementScopes,
    SchemeAdded,
    SchemeChanged,
    SchemeRemoved,
)
from accessgov_tools.display import quote


@dataclass(frozen=True)
class RequirementChecks:
    """The checks of requirement alternatives written on an operation, or inherited from the document."""

    removed: Check
    added: Check
    scope_added: Check
    scope_removed: Check


REQUIREMENTS = {
    True: RequirementChecks(  # written on the operation
        removed=check(
            "api-security-removed", BREAKING, "security requirement alternative removed (clients using it fail)"
        ),
        added=check("api-security-added", INFO, "security requirement alternative added"),
        scope_added=check("api-security-scope-added", BREAKING, "scope added to a security requirement"),
        scope_removed=check("api-security-scope-removed", INFO, "scope removed from a security requirement"),
    ),
    False: RequirementChecks(  # the document's `security`, which the operation inherits
        removed=check(
            "api-global-security-removed", BREAKING, "security requirement alternative removed (clients using it fail)"
        ),
        added=check("api-global-security-added", INFO, "security requirement alternative added"),
        scope_added=check("api-global-security-scope-added", BREAKING, "scope added to a security requirement"),
        scope_removed=check("api-global-security-scope-removed", INFO, "scope removed from a security requirement"),
    ),
}
API_SECURITY_COMPONENT_REMOVED = check("api-security-component-removed", BREAKING, "security scheme removed")
API_SECURITY_COMPONENT_ADDED = check("api-security-component-added", INFO, "security scheme added")
API_SECURITY_COMPONENT_TYPE_CHANGED = check(
    "api-security-component-type-changed", BREAKING, "security scheme type, HTTP scheme or API key location changed"
)
API_SECURITY_COMPONENT_OAUTH_TOKEN_URL_CHANGED = check(
    "api-security-component-oauth-token-url-changed", WARNING, "OAuth2 token URL changed"
)
API_SECURITY_COMPONENT_OAUTH_SCOPE_ADDED = check("api-security-component-oauth-scope-added", INFO, "OAuth2 scope added")
API_SECURITY_COMPONENT_OAUTH_SCOPE_REMOVED = check(
    "api-security-component-oauth-scope-removed", BREAKING, "OAuth2 scope removed"
)


def requirement_changed(d: RequirementChanged, context: Context) -> Iterator[Said]:
    checks = REQUIREMENTS[d.declared]
    shown = " + ".join(f"{quote(n)}" for n in sorted(d.names)) or "anonymous access"
    if d.added:
        yield Said(checks.added, f"security requirement {shown} now accepted", d.head)
    else:
        yield Said(checks.removed, f"security requirement {shown} no longer accepted", d.head)


def requirement_scopes(d: RequirementScopes, context: Context) -> Iterator[Said]:
    checks = REQUIREMENTS[d.declared]
    if d.added:
        yield Said(checks.scope_added, f"{quote(d.scheme)} now needs scope(s) {names(d.added)}", d.head)
    if d.removed:
        yield Said(checks.scope_removed, f"{quote(d.scheme)} no longer needs scope(s) {names(d.removed)}", d.head)


def scheme_added(d: SchemeAdded, context: Context) -> Iterator[Said]:
    yield Said(API_SECURITY_COMPONENT_ADDED, f"security scheme {quote(d.name)} added", d.head)


def scheme_removed(d: SchemeRemoved, context: Context) -> Iterator[Said]:
    yield Said(API_SECURITY_COMPONENT_REMOVED, f"security scheme {quote(d.name)} removed", d.head)


def scheme_changed(d: SchemeChanged, context: Context) -> Iterator[Said]:
    text = f"security scheme {quote(d.name)}: {quote(d.field)} changed from {show(d.before)} to {show(d.after)}"
    yield Said(API_SECURITY_COMPONENT_TYPE_CHANGED, text, d.head)


def flow_changed(d: FlowChanged, context: Context) -> Iterator[Said]:
    text = f"security scheme {quote(d.name)}: flow {quote(d.flow)} {'added' if d.added else 'removed'}"
    yield Said(API_SECURITY_COMPONENT_TYPE_CHANGED, text, d.head)


def flow_url_changed(d: FlowUrlChanged, context: Context) -> Iterator[Said]:
    text = f"security scheme {quote(d.name)} {d.flow}: {quote(d.url)} changed from {show(d.before)} to {show(d.after)}"
    yield Said(API_SECURITY_COMPONENT_OAUTH_TOKEN_URL_CHANGED, text, d.head)


def flow_scope_changed(d: FlowScopeChanged, context: Context) -> Iterator[Said]:
    check_ = API_SECURITY_COMPONENT_OAUTH_SCOPE_ADDED if d.added else API_SECURITY_COMPONENT_OAUTH_SCOPE_REMOVED
    yield Said(check_, f"{quote(d.name)} {d.flow}: scope {quote(d.scope)} {'added' if d.added else 'removed'}", d.head)


RULES: dict[RuleKey, Rule] = {
    RequirementChanged: requirement_changed,
    RequirementScopes: requirement_scopes,
    SchemeAdded: scheme_added,
    SchemeRemoved: scheme_removed,
    SchemeChanged: scheme_changed,
    FlowChanged: flow_changed,
    FlowUrlChanged: flow_url_changed,
    FlowScopeChanged: flow_scope_changed,
}

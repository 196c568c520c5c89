"""Sort the diff engine's findings into what a release needs: breaking, added, deprecated or changed.

Breaking is what breaks a typed client such as the generated SDK: every finding whose severity is `breaking`
(after `scripts/diffcheck/severities.yaml`), plus the changes a permissive server tolerates but a typed model
does not (a new value in a closed response enum, a removed field, a removed operation or parameter). Accepting a
finding (the accepted-findings file of `make diff`) never changes its kind here: an accepted break still needs
the major bump.
"""

from __future__ import annotations

import re
from enum import StrEnum

from scripts.diffcheck.model import Finding, Severity
from scripts.release.versions import Bump

# Findings the engine rates below `breaking` that still break a typed client, and why.
TYPED_CLIENT_BREAKING: dict[str, str] = {
    "response-property-enum-value-added": "a typed client rejects the value it does not know",
    "response-header-enum-value-added": "a typed client rejects the value it does not know",
    "response-property-enum-became-open": "a closed enum in a typed client rejects the new values",
    "response-property-enum-removed": "a typed enum no longer covers what the server may send",
    "response-property-any-of-added": "a typed union does not know the new member",
    "response-property-format-removed": "the typed field changes type (e.g. datetime to str)",
    "response-optional-property-removed": "the field disappears from the typed model",
    "request-property-removed": "the field disappears from the typed model",
    "request-property-became-read-only": "the field disappears from the typed request model",
    "request-parameter-removed": "the generated method loses the argument",
    "api-removed-with-deprecation": "the generated method disappears",
}

# Findings the engine emits about the version itself: `make release-check` decides that on its own.
IGNORED = frozenset({"api-version-not-bumped"})

_ADDITION = re.compile(
    r"^(endpoint-added|new-(optional|required)-request-(property|parameter)|request-body-added-optional"
    r"|.*-property-added|.*-status-added|.*-media-type-added|response-header-added|.*security-added"
    r"|api-security-component-added|api-security-component-oauth-scope-added|.*enum-value-added"
    r"|.*-(any|one)-of-added|api-tag-added|api-operation-id-added)$"
)
_DEPRECATION = re.compile(r"deprecat|sunset")


class Kind(StrEnum):
    """What a finding means for a release, in the order a changelog lists them."""

    BREAKING = "breaking"
    ADDED = "added"
    DEPRECATED = "deprecated"
    CHANGED = "changed"

    @property
    def bump(self) -> Bump:
        return {"breaking": Bump.MAJOR, "added": Bump.MINOR}.get(self.value, Bump.PATCH)


def kind(finding: Finding) -> Kind:
    if finding.severity is Severity.BREAKING or finding.check in TYPED_CLIENT_BREAKING:
        return Kind.BREAKING
    if _DEPRECATION.search(finding.check):
        return Kind.DEPRECATED
    if _ADDITION.match(finding.check):
        return Kind.ADDED
    return Kind.CHANGED


def relevant(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.check not in IGNORED]


def required_bump(findings: list[Finding], contract_changed: bool) -> Bump:
    """The largest bump any finding needs; a change no check reports (a description, an example) needs a patch."""
    bumps = [kind(f).bump for f in relevant(findings)]
    if contract_changed:
        bumps.append(Bump.PATCH)
    return max(bumps, default=Bump.NONE)

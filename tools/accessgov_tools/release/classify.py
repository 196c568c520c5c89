"""Sort the diff engine's findings into what a release needs: breaking, added, deprecated or changed.

Breaking is read from the one severity table (`accessgov_tools/diffcheck/severities.yaml`): a finding graded `breaking`
(an HTTP client breaks) or `client-breaking` (a typed client such as the generated SDK breaks) is breaking here,
fails `make diff` and needs a major version; nothing else is. Accepting a finding (`make diff`'s
accepted-findings file) never changes its kind: an accepted break still needs the major bump.
"""

from __future__ import annotations

import re
from enum import StrEnum

from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.release.versions import Bump

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
    CLIENT_BREAKING = "client-breaking"
    ADDED = "added"
    DEPRECATED = "deprecated"
    CHANGED = "changed"

    @property
    def bump(self) -> Bump:
        return {"breaking": Bump.MAJOR, "client-breaking": Bump.MAJOR, "added": Bump.MINOR}.get(self.value, Bump.PATCH)


def kind(finding: Finding) -> Kind:
    if finding.severity is Severity.BREAKING:
        return Kind.BREAKING
    if finding.severity is Severity.CLIENT_BREAKING:
        return Kind.CLIENT_BREAKING
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

"""Reading oasdiff's Go sources (a checkout of https://github.com/oasdiff/oasdiff) and naming its checks ours.

The check ids are the string constants of `checker/*.go`; each rule of `checker/rules.go` gives an id its level
(ERR, WARN, INFO) and the check function that reports it.
"""

from __future__ import annotations

import re
from pathlib import Path

from accessgov_tools.diffcheck.rules import CHECKS

CONST = re.compile(r"\b(\w+Id)\s*=\s*\"([a-z0-9-]+)\"")
_RULE = re.compile(r"newBackwardCompatibilityRule\(\s*(\w+)\s*,\s*(ERR|WARN|INFO)\s*,\s*(\w+)")


def constants(repo: Path) -> dict[str, str]:
    """Go constant name (`RequestBodyConstChangedId`) -> check id, from the non-test sources of `checker/`."""
    found: dict[str, str] = {}
    for source in sorted((repo / "checker").glob("*.go")):
        if not source.name.endswith("_test.go"):
            found.update(CONST.findall(source.read_text(encoding="utf-8")))
    return found


def _rules(repo: Path) -> list[tuple[str, str, str]]:
    names = constants(repo)
    rules = (repo / "checker" / "rules.go").read_text(encoding="utf-8")
    return [(names[name], level, handler) for name, level, handler in _RULE.findall(rules) if name in names]


def rule_levels(repo: Path) -> dict[str, str]:
    """oasdiff check id -> its level (ERR, WARN, INFO)."""
    return {check: level for check, level, _ in _rules(repo)}


def rule_handlers(repo: Path) -> dict[str, str]:
    """oasdiff check id -> the check function that reports it (`APIRemovedCheck`, ...)."""
    return {check: handler for check, _, handler in _rules(repo)}


# oasdiff's location names -> ours: a request or response body is a property here, a parameter's property the
# parameter's, a path's removal an operation's.
RENAMES = (
    ("request-body-", "request-property-"),
    ("response-body-", "response-property-"),
    ("request-parameter-property-", "request-parameter-"),
    ("api-path-removed-", "api-removed-"),
    ("api-path-sunset-parse", "api-path-sunset-parse"),
    ("request-property-become-", "request-property-became-"),
    ("request-parameter-become-", "request-parameter-became-"),
)


# oasdiff's finer names for one of our checks (same direction and grading).
SUFFIXES = (
    ("-list-of-types-narrowed", "-type-specialized"),
    ("-list-of-types-widened", "-type-generalized"),
)
SPLITS = re.compile(r"^(request|response)-(?:optional|required)-property-(became-.*)$")
SAME = {
    "new-request-path-parameter": "new-required-request-parameter",
    "sunset-deleted": "api-sunset-deleted",
}


def ours_for(oasdiff_id: str) -> str | None:
    """Our check that reports what the oasdiff check does, or None."""
    if oasdiff_id in CHECKS:
        return oasdiff_id
    if oasdiff_id in SAME:
        return SAME[oasdiff_id]
    split = SPLITS.match(oasdiff_id)
    if split and (candidate := f"{split[1]}-property-{split[2]}") in CHECKS:
        return candidate
    for old, new in SUFFIXES:
        if oasdiff_id.endswith(old):
            oasdiff_id = oasdiff_id[: -len(old)] + new
            if oasdiff_id in CHECKS:
                return oasdiff_id
    for old, new in RENAMES:
        if oasdiff_id.startswith(old) and (candidate := new + oasdiff_id[len(old) :]) in CHECKS:
            return candidate
    return None


# Why the checks we do not cover are not covered (first matching pattern wins).
NOT_COVERED = (
    (r"discriminator", "discriminator changes are graded through the union members and properties they select"),
    (r"^request-read-only-property-", "readOnly properties are not sent in requests: we skip them there"),
    (r"write-only-property-(added|removed|became|enum)", "writeOnly properties are not sent in responses: skipped"),
    (r"^request-.*-property-became-(not-)?write-only$", "writeOnly changes nothing a client sends: not reported"),
    (r"^response-.*-property-became-(not-)?read-only$", "readOnly changes nothing a client reads: not reported"),
    (r"version", "versioning is `make release-check`'s (tools/accessgov_tools/release), not the diff's"),
    (r"wrapped-in-one-of", "a schema wrapped in oneOf is compared through its member (unwrapped)"),
    (r"media-type-schema-(added|removed)", "a media type without a schema accepts anything: not compared"),
    (r"default-parameter|with-default", "a new required parameter or property is breaking, default or not"),
    (r"request-header-property|new-required-request-header-property", "header object properties: not compared"),
    (r"pattern-generalized", "a pattern change is `*-pattern-changed` (regular languages are not compared)"),
    (r"api-schema-removed", "component schemas are compared where operations use them, not by name"),
    (r"oauth-(scope|url)-changed", "reported as oauth scope added/removed and token URL changed"),
    (r"mediatype-enum-value-removed", "media type parameters' enums are not compared"),
    (r"response-header-type-compatible", "headers have no media type: their type changes are never loose"),
)


def why_not(oasdiff_id: str) -> str:
    return next((why for pattern, why in NOT_COVERED if re.search(pattern, oasdiff_id)), "not implemented")

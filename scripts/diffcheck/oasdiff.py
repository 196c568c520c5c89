"""Reading oasdiff's Go sources (a checkout of https://github.com/oasdiff/oasdiff) and naming its checks ours.

The check ids are the string constants of `checker/*.go`; each rule of `checker/rules.go` gives an id its level
(ERR, WARN, INFO) and the check function that reports it.
"""

from __future__ import annotations

import re
from pathlib import Path

from scripts.diffcheck.checks import CHECKS

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


def ours_for(oasdiff_id: str) -> str | None:
    if oasdiff_id in CHECKS:
        return oasdiff_id
    for old, new in RENAMES:
        if oasdiff_id.startswith(old) and (candidate := new + oasdiff_id[len(old) :]) in CHECKS:
            return candidate
    return None

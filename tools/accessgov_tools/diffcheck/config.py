"""The report's configuration, from a checked-in YAML file (`severities.yaml` next to this module by default).

    overrides: {<check id or glob>: <grade>}                     # plain grade overrides
    policies:                                                    # named, documented grades
      <name>: {severity: <grade>, checks: [<id or glob>, ...], reason: <why>, summary: <what breaks, one line>}
    deprecation: {days-stable: N, days-beta: N}                  # minimum sunset grace period (0: not enforced)
    stability: {level: draft|alpha|beta|stable}                  # operations below it are not reported
    versioning: {scheme: semver|calver|integer}                  # `make release-check`'s version rule

Grades: breaking | client-breaking | warning | info (`Severity`). This one table is what `make diff` gates on,
what `make changelog` marks and what `make release-check` bumps for.

A pattern that matches no check is an error (typos fail). Policies apply in order, then `overrides`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accessgov_tools.diffcheck.lifecycle import STABILITY_LEVELS
from accessgov_tools.diffcheck.model import Severity
from accessgov_tools.diffcheck.rules import CHECKS
from accessgov_tools.loader import LoadError, load_document

DEFAULT_CONFIG = Path(__file__).with_name("severities.yaml")
VERSION_SCHEMES = ("semver", "calver", "integer")


class ConfigError(ValueError):
    """The configuration names an unknown check, severity, policy field or stability level."""


@dataclass(frozen=True)
class Policy:
    """A documented decision to grade some checks differently from oasdiff, with the reason."""

    name: str
    severity: Severity
    checks: frozenset[str]
    reason: str
    summary: str | None = None  # what breaks, in a few words, for the changelog's breaking lines


@dataclass
class DiffConfig:
    """Severities (defaults, policies, overrides), the deprecation grace periods and the stability threshold."""

    severities: dict[str, Severity] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    days_stable: int = 0
    days_beta: int = 0
    stability_level: str = "beta"
    version_scheme: str = "semver"
    graded_by: dict[str, Policy] = field(default_factory=dict)  # check id -> the policy that set its grade last

    def grade(self, check: str) -> Severity:
        """The check's grade for this contract: the config's, else the check's default."""
        return self.severities.get(check) or CHECKS[check].severity

    def min_sunset_days(self, stability: str | None) -> int:
        """The grace period a deprecation of something at `stability` must announce (0: none required)."""
        return self.days_beta if stability == "beta" else self.days_stable if stability in (None, "stable") else 0


def _checks(path: Path, pattern: Any) -> list[str]:
    text = str(pattern)
    # Most entries name one check: a look-up, not a glob over every id (that was most of each tool's start-up).
    matched = fnmatch.filter(CHECKS, text) if any(c in text for c in "*?[") else [text] if text in CHECKS else []
    if not matched:
        raise ConfigError(f"{path}: {pattern!r} matches no check id")
    return matched


def _severity(path: Path, where: str, value: Any) -> Severity:
    try:
        return Severity(str(value))
    except ValueError:
        grades = ", ".join(Severity)
        raise ConfigError(f"{path}: {where}: unknown severity {value!r} ({grades})") from None


def _days(path: Path, section: dict[str, Any], key: str) -> int:
    value = section.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{path}: deprecation.{key} must be a non-negative number of days")
    return value


def load_config(path: Path = DEFAULT_CONFIG) -> DiffConfig:
    """Read and validate the whole configuration."""
    try:
        data = load_document(path) or {}
    except LoadError as error:
        raise ConfigError(str(error)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the configuration must be a mapping")
    config = DiffConfig()
    policies = data.get("policies") or {}
    if not isinstance(policies, dict):
        raise ConfigError(f"{path}: `policies` must be a mapping of policy name to its settings")
    for name, body in policies.items():
        if not isinstance(body, dict) or not {"severity", "checks", "reason"} <= set(body):
            raise ConfigError(f"{path}: policy {name!r} needs `severity`, `checks` and `reason`")
        severity = _severity(path, f"policy {name}", body["severity"])
        checks = frozenset(c for pattern in body["checks"] or [] for c in _checks(path, pattern))
        summary = str(body["summary"]).strip() if body.get("summary") else None
        policy = Policy(str(name), severity, checks, str(body["reason"]).strip(), summary)
        config.policies[str(name)] = policy
        config.severities.update(dict.fromkeys(checks, severity))
        config.graded_by.update(dict.fromkeys(checks, policy))
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: `overrides` must be a mapping of check id to severity")
    for pattern, value in overrides.items():
        severity = _severity(path, str(pattern), value)
        for check in _checks(path, pattern):
            config.severities[check] = severity
            config.graded_by.pop(check, None)
    deprecation = data.get("deprecation") or {}
    config.days_stable, config.days_beta = (
        _days(path, deprecation, "days-stable"),
        _days(path, deprecation, "days-beta"),
    )
    level = (data.get("stability") or {}).get("level", "beta")
    if level not in STABILITY_LEVELS:
        raise ConfigError(f"{path}: stability.level must be one of {', '.join(STABILITY_LEVELS)}")
    config.stability_level = level
    scheme = (data.get("versioning") or {}).get("scheme", "semver")
    if scheme not in VERSION_SCHEMES:
        raise ConfigError(f"{path}: versioning.scheme must be one of {', '.join(VERSION_SCHEMES)}")
    config.version_scheme = scheme
    return config


def load_severities(path: Path = DEFAULT_CONFIG) -> dict[str, Severity]:
    """Check id -> severity for every policy and override (the part of the config most callers need)."""
    return load_config(path).severities

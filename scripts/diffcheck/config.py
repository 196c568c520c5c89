"""The report's configuration, from a checked-in YAML file (`severities.yaml` next to this module by default).

    overrides: {<check id or glob>: breaking|warning|info}      # plain severity overrides
    policies:                                                    # named, documented overrides
      <name>: {severity: breaking|warning|info, checks: [<id or glob>, ...], reason: <why>}
    deprecation: {days-stable: N, days-beta: N}                  # minimum sunset grace period (0: not enforced)
    stability: {level: draft|alpha|beta|stable}                  # operations below it are not reported

A pattern that matches no check is an error (typos fail). Policies apply in order, then `overrides`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scripts.diffcheck.checks import CHECKS
from scripts.diffcheck.model import Severity

DEFAULT_CONFIG = Path(__file__).with_name("severities.yaml")
STABILITY_LEVELS = ("draft", "alpha", "beta", "stable")


class ConfigError(ValueError):
    """The configuration names an unknown check, severity, policy field or stability level."""


@dataclass(frozen=True)
class Policy:
    """A documented decision to grade some checks differently from oasdiff, with the reason."""

    name: str
    severity: Severity
    checks: frozenset[str]
    reason: str


@dataclass
class DiffConfig:
    """Severities (defaults, policies, overrides), the deprecation grace periods and the stability threshold."""

    severities: dict[str, Severity] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    days_stable: int = 0
    days_beta: int = 0
    stability_level: str = "beta"

    def min_sunset_days(self, stability: str | None) -> int:
        """The grace period a deprecation of something at `stability` must announce (0: none required)."""
        return self.days_beta if stability == "beta" else self.days_stable if stability in (None, "stable") else 0


def _checks(path: Path, pattern: Any) -> list[str]:
    matched = fnmatch.filter(CHECKS, str(pattern))
    if not matched:
        raise ConfigError(f"{path}: {pattern!r} matches no check id")
    return matched


def _severity(path: Path, where: str, value: Any) -> Severity:
    try:
        return Severity(str(value))
    except ValueError:
        raise ConfigError(f"{path}: {where}: unknown severity {value!r} (breaking, warning, info)") from None


def _days(path: Path, section: dict[str, Any], key: str) -> int:
    value = section.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{path}: deprecation.{key} must be a non-negative number of days")
    return value


def load_config(path: Path = DEFAULT_CONFIG) -> DiffConfig:
    """Read and validate the whole configuration."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    config = DiffConfig()
    policies = data.get("policies") or {}
    if not isinstance(policies, dict):
        raise ConfigError(f"{path}: `policies` must be a mapping of policy name to its settings")
    for name, body in policies.items():
        if not isinstance(body, dict) or not {"severity", "checks", "reason"} <= set(body):
            raise ConfigError(f"{path}: policy {name!r} needs `severity`, `checks` and `reason`")
        severity = _severity(path, f"policy {name}", body["severity"])
        checks = frozenset(c for pattern in body["checks"] or [] for c in _checks(path, pattern))
        config.policies[str(name)] = Policy(str(name), severity, checks, str(body["reason"]).strip())
        config.severities.update(dict.fromkeys(checks, severity))
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: `overrides` must be a mapping of check id to severity")
    for pattern, value in overrides.items():
        severity = _severity(path, str(pattern), value)
        config.severities.update(dict.fromkeys(_checks(path, pattern), severity))
    deprecation = data.get("deprecation") or {}
    config.days_stable, config.days_beta = (
        _days(path, deprecation, "days-stable"),
        _days(path, deprecation, "days-beta"),
    )
    level = (data.get("stability") or {}).get("level", "beta")
    if level not in STABILITY_LEVELS:
        raise ConfigError(f"{path}: stability.level must be one of {', '.join(STABILITY_LEVELS)}")
    config.stability_level = level
    return config


def load_severities(path: Path = DEFAULT_CONFIG) -> dict[str, Severity]:
    """Check id -> severity for every policy and override (the part of the config most callers need)."""
    return load_config(path).severities

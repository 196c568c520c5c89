"""Severity overrides from a checked-in YAML file: `overrides: {<check id or glob>: breaking|warning|info}`."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import yaml

from scripts.diffcheck.checks import CHECKS
from scripts.diffcheck.model import Severity

DEFAULT_CONFIG = Path(__file__).with_name("severities.yaml")


class ConfigError(ValueError):
    """The severities file names an unknown check or severity."""


def load_severities(path: Path = DEFAULT_CONFIG) -> dict[str, Severity]:
    """Check id -> severity for every override; a pattern that matches no check is an error (typos fail)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: `overrides` must be a mapping of check id to severity")
    result: dict[str, Severity] = {}
    for pattern, value in overrides.items():
        try:
            severity = Severity(str(value))
        except ValueError:
            raise ConfigError(f"{path}: {pattern}: unknown severity {value!r} (breaking, warning, info)") from None
        matched = fnmatch.filter(CHECKS, str(pattern))
        if not matched:
            raise ConfigError(f"{path}: {pattern!r} matches no check id")
        for check_id in matched:
            result[check_id] = severity
    return result

"""Two bundled documents in, their findings out: the walk's differences, each turned into findings by its rule.

`compare()` is the engine without its inputs and outputs: `pipeline.run()` loads the documents, locates the
findings in `spec/`, marks the accepted ones and gives the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from accessgov_tools.diffcheck import rules
from accessgov_tools.diffcheck.config import DiffConfig
from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.diffcheck.rules.registry import Context
from accessgov_tools.diffcheck.rules.registry import today as utc_today
from accessgov_tools.diffcheck.walk import walk


def compare(
    base: dict[str, Any],
    head: dict[str, Any],
    severities: Mapping[str, Severity] | None = None,
    config: DiffConfig | None = None,
    today: date | None = None,
) -> list[Finding]:
    """Every finding from `base` to `head`, most severe first (`today` dates the sunset checks, `severities`
    grade the checks they name: `config.severities` for this contract's table; each check's default otherwise)."""
    config = config or DiffConfig()
    context = Context(
        today=today or utc_today(),
        stability_level=config.stability_level,
        days_stable=config.days_stable,
        days_beta=config.days_beta,
    )
    differences = walk(base, head, config.stability_level)
    return rules.findings(differences, severities or {}, context)

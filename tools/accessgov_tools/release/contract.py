"""The two contracts a release compares (a git ref, a split spec directory or a bundled file) and their findings."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, DiffConfig
from accessgov_tools.diffcheck.model import Finding
from accessgov_tools.diffcheck.pipeline import run
from accessgov_tools.release.documentation import DocChange, documentation_changes


@dataclass
class Change:
    """Base and head contracts, the findings between them, and whether anything but `info.version` differs."""

    base: dict[str, Any]
    head: dict[str, Any]
    findings: list[Finding]
    config: DiffConfig = field(default_factory=DiffConfig)

    @functools.cached_property
    def documentation(self) -> list[DocChange]:
        """Descriptions, summaries, titles and examples that differ (no check reports them)."""
        return documentation_changes(self.base, self.head)

    @property
    def base_version(self) -> str:
        return str((self.base.get("info") or {}).get("version", ""))

    @property
    def head_version(self) -> str:
        return str((self.head.get("info") or {}).get("version", ""))

    @functools.cached_property
    def contract_changed(self) -> bool:
        return _without_version(self.base) != _without_version(self.head)


def _without_version(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with `info.version` left out: shallow copies only (a deep copy of a 4 MB contract costs seconds)."""
    info = doc.get("info")
    if not isinstance(info, dict):
        return doc
    return {**doc, "info": {key: value for key, value in info.items() if key != "version"}}


def change(
    base: str | Path,
    head: str | Path | None = None,
    config: Path = DEFAULT_CONFIG,
    accepted: Path = DEFAULT_ACCEPTED,
    today: dt.date | None = None,
) -> Change:
    """Compare `base` with `head` (the working tree's `spec/` when None) as `make diff` does (`diffcheck.run`):
    the same config (severities, policies, deprecation periods) and the accepted findings marked (they still
    count as breaking). `base` and `head` are a git ref, a directory holding `openapi.yaml`, a bundled file, or
    `none` (a contract with no operations yet). The findings keep the engine's order (no source lines)."""
    report = run(base, head, config=config, accepted=accepted, today=today, locate=False)
    return Change(report.base.document, report.head.document, report.findings, report.config)

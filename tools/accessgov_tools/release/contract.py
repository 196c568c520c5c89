"""The two contracts a release compares (a git ref, a split spec directory or a bundled file) and their findings."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accessgov_tools.bundle import DEFAULT_ROOT, bundle
from accessgov_tools.diffcheck import collector
from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED, apply_accepted, load_accepted
from accessgov_tools.diffcheck.cli import bundle_at_ref, load_file
from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, DiffConfig, load_config
from accessgov_tools.diffcheck.model import Finding
from accessgov_tools.release.documentation import DocChange, documentation_changes

EMPTY_REF = "none"  # BASE=none: compare with a contract that has no operations yet (a first release)


def load(source: str | Path) -> dict[str, Any]:
    """A bundled contract from a directory holding `openapi.yaml`, a YAML/JSON file, `none`, or a git ref."""
    if str(source) == EMPTY_REF:
        return {"openapi": "3.1.0", "info": {"title": "", "version": "0.0.0"}, "paths": {}}
    path = Path(source)
    if path.is_dir():
        return bundle(path / "openapi.yaml")
    if path.is_file():
        return load_file(path)
    return bundle_at_ref(str(source))


def load_head(source: str | Path | None) -> dict[str, Any]:
    return bundle(DEFAULT_ROOT) if source is None else load(source)


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
    """Compare `base` with `head` (the working tree's `spec/` when None) as `make diff` does: the same config
    (severities, policies, deprecation periods) and the accepted findings marked (they still count as breaking)."""
    settings, today = load_config(config), today or dt.datetime.now(dt.UTC).date()  # make diff's "today"
    with collector.paused():
        base_doc, head_doc = load(base), load_head(head)
        findings = compare(base_doc, head_doc, settings.severities, settings, today)
    apply_accepted(findings, load_accepted(accepted), today)
    return Change(base_doc, head_doc, findings, settings)

"""The diff from end to end, the one way every tool runs it: two contracts in, findings and a verdict out.

`run()` reads both contracts (`inputs.py`), compares them (`compare.py`: the walk, then the rules), locates each
finding in the head's `spec/` files (`sources.py`), marks the breaking findings `review/accepted-breaking.yaml`
accepts (`accepted.py`) and says whether the change passes: `make diff` (`cli.py`), `make changelog` and
`make release-check` (`release/contract.py`) all call it, with the same configuration (`severities.yaml`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accessgov_tools.diffcheck import collector
from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED, apply_accepted, failing, load_accepted
from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, DiffConfig, load_config
from accessgov_tools.diffcheck.inputs import Contract, Source, SplitSpec, load, source
from accessgov_tools.diffcheck.model import Acceptance, Finding
from accessgov_tools.diffcheck.sources import SourceMap

Input = Contract | Source | dict[str, Any] | str | Path


@dataclass
class Report:
    """What a diff found: the findings (most severe first; located, then by file and line, when the head's
    files are known), the acceptances that matched nothing, and the verdict."""

    base: Contract
    head: Contract
    findings: list[Finding]
    stale: list[Acceptance]
    config: DiffConfig

    @property
    def failing(self) -> list[Finding]:
        """The breaking and client-breaking findings not accepted (or whose acceptance expired)."""
        return failing(self.findings)

    @property
    def passes(self) -> bool:
        """The verdict: no breaking change that is not accepted."""
        return not self.failing


def run(
    base: Input,
    head: Input | None = None,
    *,
    config: DiffConfig | Path = DEFAULT_CONFIG,
    accepted: list[Acceptance] | Path = DEFAULT_ACCEPTED,
    today: dt.date | None = None,
    locate: bool = True,
    relative_to: Path | None = None,
) -> Report:
    """Compare `base` with `head` (the working tree's `spec/` when None): each a loaded `Contract`, a `Source`,
    a document, or what a release names (`none`, a spec directory, a file, a git ref). `config` and `accepted`
    are the grading table and the accepted findings, or the files to read them from; `today` dates sunsets and
    expiries (default: the UTC date). With `locate`, each finding gets its file and line in the head's files
    (shown relative to `relative_to` when inside it). Raises LoadError, ConfigError or AcceptedError on input
    that cannot be read."""
    settings = config if isinstance(config, DiffConfig) else load_config(config)
    entries = accepted if isinstance(accepted, list) else load_accepted(accepted)
    today = today or dt.datetime.now(dt.UTC).date()
    with collector.paused():
        base_contract = _contract(base, nodes=False)
        head_contract = _contract(SplitSpec() if head is None else head)
        findings = compare(base_contract.document, head_contract.document, settings.severities, settings, today)
        if locate and head_contract.root is not None:
            findings = located(findings, SourceMap(head_contract.root, relative_to, head_contract.node))
        stale = apply_accepted(findings, entries, today)
    return Report(base_contract, head_contract, findings, stale, settings)


def located(findings: list[Finding], sources: SourceMap) -> list[Finding]:
    """Fill in each finding's source file and line; order by severity, then file and line."""
    for finding in findings:
        finding.file, finding.line = sources.locate(finding.pointer)
    return sorted(findings, key=Finding.sort_key)


def _contract(value: Input, *, nodes: bool = True) -> Contract:
    if isinstance(value, Contract):
        return value
    if isinstance(value, dict):
        return Contract(value)
    return load(source(value) if isinstance(value, (str, Path)) else value, nodes=nodes)

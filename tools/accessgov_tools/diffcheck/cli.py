"""Compare the contract at a git ref (or a file) with the working tree's `spec/` (or a file); report findings.

    python -m accessgov_tools.diffcheck BASE_REF [--format text|markdown|json|github] [--config FILE]
    python -m accessgov_tools.diffcheck --base-file A.yaml --head-file B.yaml
    python -m accessgov_tools.diffcheck --list-checks

Exit status: 1 when a finding is graded `breaking` or `client-breaking` (`severities.yaml`, the table the
changelog and release check read too) and is not accepted in `review/accepted-breaking.yaml` (or its
acceptance expired); 0 otherwise; 2 on usage errors (a bad config, accepted-findings file or document included).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import yaml

from accessgov_tools.bundle import DEFAULT_ROOT, bundle
from accessgov_tools.diffcheck import collector
from accessgov_tools.diffcheck.accepted import (
    DEFAULT_ACCEPTED,
    Acceptance,
    AcceptedError,
    apply_accepted,
    failing,
    load_accepted,
)
from accessgov_tools.diffcheck.checks import CHECKS
from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, ConfigError, DiffConfig, load_config
from accessgov_tools.diffcheck.model import Finding, Severity
from accessgov_tools.diffcheck.render import RENDERERS
from accessgov_tools.diffcheck.sources import SourceMap
from accessgov_tools.loader import LoadError, load_with_nodes
from accessgov_tools.paths import REPO, shown


def load_file(path: Path) -> dict[str, Any]:
    """A bundled (or self-contained) OpenAPI document from JSON or YAML 1.2 (`accessgov_tools/loader.py`)."""
    return load_file_with_nodes(path)[0]


def load_file_with_nodes(path: Path) -> tuple[dict[str, Any], yaml.Node | None]:
    """`load_file(path)` and its YAML node tree (None for JSON), for the head's line numbers from the same read."""
    doc, node = load_with_nodes(path)
    if not isinstance(doc, dict):
        raise LoadError(f"{path}: an OpenAPI document is a mapping, not {type(doc).__name__}")
    return doc, node


def bundle_at_ref(ref: str, repo: Path = REPO, spec_dir: str = "spec") -> dict[str, Any]:
    """The bundle of `spec_dir` as it is in the commit `ref` (extracted with `git archive`, no checkout)."""
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref, spec_dir], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"error: cannot read {spec_dir}/ at {ref!r}: {archive.stderr.decode().strip()}")
    with (
        tempfile.TemporaryDirectory(prefix="contract-base-") as tmp,
        tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar,
    ):
        tar.extractall(tmp, filter="data")
        return bundle(Path(tmp) / spec_dir / "openapi.yaml")


def locate(findings: list[Finding], sources: SourceMap) -> list[Finding]:
    """Fill in each finding's source file and line; order by severity, then file and line."""
    for finding in findings:
        finding.file, finding.line = sources.locate(finding.pointer)
    return sorted(findings, key=Finding.sort_key)


def report(
    base: dict[str, Any],
    head: dict[str, Any],
    head_root: Path,
    severities: dict[str, Severity],
    relative_to: Path,
    config: DiffConfig | None = None,
    today: dt.date | None = None,
    head_node: yaml.Node | None = None,
) -> list[Finding]:
    """The findings of `compare`, located in `head_root` (`head_node`: its node tree, when already composed)."""
    findings = compare(base, head, severities, config, today)
    return locate(findings, SourceMap(head_root, relative_to, head_node))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_ref", nargs="?", help="git ref of the base contract (e.g. origin/main, HEAD~1)")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="text")
    parser.add_argument("--base-file", type=Path, help="base document instead of BASE_REF")
    parser.add_argument("--head-file", type=Path, help="head document instead of the working tree's spec/")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="root of the split spec for the head")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="policies, overrides, deprecation (YAML)")
    parser.add_argument("--accepted", type=Path, default=DEFAULT_ACCEPTED, help="accepted breaking changes (YAML)")
    parser.add_argument("--date", type=dt.date.fromisoformat, help="today's date for sunsets and expiries")
    parser.add_argument("--list-checks", action="store_true", help="print every check id and its severity")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
        accepted = load_accepted(args.accepted)
    except (ConfigError, AcceptedError) as error:
        parser.error(str(error))
    today = args.date or dt.datetime.now(dt.UTC).date()
    if args.list_checks:
        for check in CHECKS.values():
            print(f"{check.id}\t{config.grade(check.id).value}\t{check.summary}")
        return 0
    if (args.base_ref is None) == (args.base_file is None):
        parser.error("give exactly one of BASE_REF or --base-file")
    with collector.paused():
        return _diff(args, config, accepted, today)


def _diff(args: argparse.Namespace, config: DiffConfig, accepted: list[Acceptance], today: dt.date) -> int:
    try:
        base = load_file(args.base_file) if args.base_file else bundle_at_ref(args.base_ref)
        head, head_node = load_file_with_nodes(args.head_file) if args.head_file else (bundle(args.root), None)
    except LoadError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    head_root = args.head_file or args.root
    findings = report(base, head, head_root, config.severities, Path.cwd().resolve(), config, today, head_node)
    stale = apply_accepted(findings, accepted, today)
    sys.stdout.write(RENDERERS[args.format](findings, stale))
    failed = failing(findings)
    for finding in failed:
        if finding.acceptance_expired:
            print(f"{finding.check} at {finding.json_pointer}: {finding.status}", file=sys.stderr)
    if failed:
        print(
            f"{len(failed)} breaking change(s) (breaking or client-breaking); accept a deliberate one in "
            f"{shown(args.accepted)} (check, pointer or operation, reason, expires)",
            file=sys.stderr,
        )
        return 1
    return 0

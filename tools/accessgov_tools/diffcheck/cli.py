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
import sys
from pathlib import Path

from accessgov_tools.bundle import DEFAULT_ROOT
from accessgov_tools.diffcheck import collector
from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED, AcceptedError, load_accepted
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, ConfigError, load_config
from accessgov_tools.diffcheck.inputs import File, GitRef, Source, SplitSpec, load_file
from accessgov_tools.diffcheck.pipeline import run
from accessgov_tools.diffcheck.render import RENDERERS
from accessgov_tools.diffcheck.rules import CHECKS
from accessgov_tools.display import write_commands
from accessgov_tools.loader import LoadError
from accessgov_tools.paths import shown

__all__ = ["load_file", "main"]


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
    base: Source = File(args.base_file) if args.base_file else GitRef(args.base_ref)
    head: Source = File(args.head_file) if args.head_file else SplitSpec(args.root)
    with collector.paused():  # the report's rendering allocates as much again as the comparison (collector.py)
        try:
            report = run(base, head, config=config, accepted=accepted, today=today, relative_to=Path.cwd().resolve())
        except LoadError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        rendered = RENDERERS[args.format](report.findings, report.stale)
        write_commands(rendered) if args.format == "github" else sys.stdout.write(rendered)
    failed = report.failing
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

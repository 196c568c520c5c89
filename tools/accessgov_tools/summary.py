"""The job summary of a pull request: the breaking-change report, the changelog preview and the version verdict.

    accessgov-tools summary BASE [--head DIR|FILE] [--config FILE] [--accepted FILE]

One markdown page, written by the same renderers as `make diff FORMAT=markdown`, `make changelog` and `make
release-check FORMAT=markdown` from one comparison (the bundles are built once, not three times). Everything the
documents under review wrote in it is data (`accessgov_tools/display.py`): the page reads the same whatever the
names, values and descriptions are, so the gate's verdict on it is the gate's, not the pull request's. CI appends
it to `$GITHUB_STEP_SUMMARY` (`make review-summary BASE=...`); the gate itself is `make diff` and `make
release-check`, run on their own.

Exit status: 0 (the page was written, whatever it says), 2 when the contracts could not be judged (the page then
says why).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from accessgov_tools import display
from accessgov_tools.bundle import DEFAULT_ROOT
from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED, AcceptedError, apply_accepted, failing, load_accepted
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, ConfigError
from accessgov_tools.diffcheck.pipeline import located
from accessgov_tools.diffcheck.render import render_markdown
from accessgov_tools.diffcheck.sources import SourceMap
from accessgov_tools.loader import LoadError
from accessgov_tools.release.changelog import render as render_changelog
from accessgov_tools.release.cli import verdict
from accessgov_tools.release.contract import change
from accessgov_tools.release.versions import VersionError

GATE_FAILS = "**The gate fails:** a breaking change not accepted in review/accepted-breaking.yaml."


def summary(
    base: str,
    head: str | None = None,
    config: Path = DEFAULT_CONFIG,
    accepted: Path = DEFAULT_ACCEPTED,
    today: dt.date | None = None,
) -> str:
    """The job summary's markdown for `base` against `head` (the working tree's `spec/` when None)."""
    today = today or dt.datetime.now(dt.UTC).date()
    found = change(base, head, config=config, accepted=accepted, today=today)
    head_root = Path(head) if head is not None else DEFAULT_ROOT
    if head_root.is_dir():
        head_root = head_root / "openapi.yaml"
    findings = located(found.findings, SourceMap(head_root, Path.cwd().resolve()))
    stale = apply_accepted(findings, load_accepted(accepted), today)  # marked as change() did: the stale ones
    parts = [f"## Contract changes against {display.code(base)}", "", render_markdown(findings, stale).rstrip("\n")]
    if failing(findings):
        parts += ["", GATE_FAILS]
    parts += ["", "## Changelog preview", "", render_changelog(found, "[Unreleased]", base).rstrip("\n")]
    try:
        _, text = verdict(found, markdown=True)
    except VersionError as error:
        text = f"**The version could not be judged:** {display.escape(error, line_start=False)}"
    parts += ["", "## Version", "", text, ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="git ref, spec directory, bundled file, or `none`")
    parser.add_argument("--head", help="spec directory or bundled file instead of the working tree's spec/")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="the grading table (make diff's)")
    parser.add_argument("--accepted", type=Path, default=DEFAULT_ACCEPTED, help="accepted findings (make diff's)")
    args = parser.parse_args(argv)
    try:
        page = summary(args.base, args.head, args.config, args.accepted)
    except (LoadError, ConfigError, AcceptedError) as error:
        sys.stdout.write(
            f"## Contract changes against {display.code(args.base)}\n\n"
            f"**The contracts could not be judged:** {display.escape(error, line_start=False)}\n"
        )
        print(f"error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())

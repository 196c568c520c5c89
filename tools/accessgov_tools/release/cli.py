"""`make changelog` and `make release-check`: the contract's changes since a base, as Markdown or as a verdict.

    python -m accessgov_tools.release changelog BASE [--head DIR|FILE] [--out CHANGELOG.md] [--version V] [--date D]
    python -m accessgov_tools.release check BASE [--head DIR|FILE] [--scheme semver|calver|integer] [--format markdown]

BASE is a git ref, a directory holding a split spec (`openapi.yaml` at its root), a bundled file, or `none` (a
contract without operations). The head is the working tree's `spec/` unless `--head` names another. Both take
`--config FILE` (the grading table, `make diff`'s) and `--accepted FILE`.
`check` exits 1 when `info.version` did not move as the version scheme requires for the findings (the grades of
`tools/accessgov_tools/diffcheck/severities.yaml`, which `make diff` gates on; semver unless `versioning.scheme` or
`--scheme` says calver or integer), or, for the working tree, when an SDK does not carry the contract's version
(`release.sdk_versions`); 2 on a version the scheme cannot read or a document that cannot be loaded.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from accessgov_tools import display
from accessgov_tools.diffcheck.accepted import DEFAULT_ACCEPTED, AcceptedError
from accessgov_tools.diffcheck.config import DEFAULT_CONFIG, ConfigError
from accessgov_tools.loader import LoadError
from accessgov_tools.release import sdk_versions
from accessgov_tools.release.changelog import HEADER, insert, render
from accessgov_tools.release.classify import Kind, kind, relevant, required_bump
from accessgov_tools.release.contract import Change, change
from accessgov_tools.release.versions import Bump, Scheme, VersionError, judge


def _changelog(args: argparse.Namespace, found: Change) -> int:
    heading = "[Unreleased]"
    if args.version:
        heading = f"[{args.version}] - {args.date or datetime.date.today().isoformat()}"
    section = render(found, heading, args.base)
    if args.out is None:
        sys.stdout.write(section)
        return 0
    current = args.out.read_text(encoding="utf-8") if args.out.exists() else HEADER
    args.out.write_text(insert(current, section), encoding="utf-8")
    print(f"wrote {heading} to {args.out}", file=sys.stderr)
    return 0


def verdict(found: Change, scheme: Scheme | None = None, *, markdown: bool = False) -> tuple[bool, str]:
    """(passes, the explanation) of the release rule for this change: the findings' grades (the table `make diff`
    gates on), the bump they need and the version scheme's rule, in one sentence, then the outcome. The text of
    the documents (versions, messages) is shown as data (`accessgov_tools/display.py`): visible characters only,
    or with `markdown` a list whose values are fenced code, the outcome in bold."""
    scheme = scheme or Scheme(found.config.version_scheme)
    findings = relevant(found.findings)
    needed = required_bump(findings, found.contract_changed)
    counts = {k: sum(1 for f in findings if kind(f) is k) for k in Kind}
    broken = counts[Kind.BREAKING] + counts[Kind.CLIENT_BREAKING]
    found_text = {
        Bump.MAJOR: f"{broken} breaking change(s) ({counts[Kind.BREAKING]} breaking, "
        f"{counts[Kind.CLIENT_BREAKING]} client-breaking: make diff fails on the same ones)",
        Bump.MINOR: f"{counts[Kind.ADDED]} addition(s), nothing breaking",
        Bump.PATCH: "changes that add nothing and break nothing"
        if findings
        else "descriptions, examples or other ungraded text only",
        Bump.NONE: "the contract did not change",
    }[needed]
    judged = judge(scheme, found.base_version, found.head_version, needed)
    breaking = [f for f in findings if kind(f) in (Kind.BREAKING, Kind.CLIENT_BREAKING)]
    accepted = " (accepted in make diff; still needs the bump)"
    more = len(breaking) - 20
    if markdown:
        lines = [
            f"- info.version: {display.code(found.base_version)} → {display.code(found.head_version)} "
            f"({scheme.value} versions)",
            f"- changes: {display.escape(found_text, line_start=False)}",
            f"- rule: {display.escape(judged.rule, line_start=False)}",
            *(
                f"  - {f.severity.value}: {display.code(f.check)}: {display.text(f.message)}"
                + (accepted if f.acceptance else "")
                for f in breaking[:20]
            ),
            *([f"  - ... and {more} more (make changelog lists them all)"] if more > 0 else []),
            "",
            f"**{display.escape(judged.outcome)}**",
        ]
        return judged.ok, "\n".join(lines)
    show = display.visible
    lines = [
        f"info.version: {show(found.base_version)} -> {show(found.head_version)} ({scheme.value} versions)",
        f"changes: {found_text}",
        f"rule: {show(judged.rule)}",
    ]
    lines += [
        f"  {f.severity.value}: {show(f.check)}: {show(f.message)}" + (accepted if f.acceptance else "")
        for f in breaking[:20]
    ]
    if more > 0:
        lines.append(f"  ... and {more} more (make changelog lists them all)")
    lines.append(show(judged.outcome))
    return judged.ok, "\n".join(lines)


def _check(found: Change, scheme: Scheme | None, *, with_sdks: bool, markdown: bool = False) -> int:
    try:
        ok, text = verdict(found, scheme, markdown=markdown)
        sdks_ok, sdk_lines = sdk_versions.report(found.head_version, markdown=markdown) if with_sdks else (True, [])
    except VersionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join([text, *sdk_lines]))
    return 0 if ok and sdks_ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("changelog", "write the changes as a changelog section"), ("check", "the version verdict")):
        command = sub.add_parser(name, help=text)
        command.add_argument("base", help="git ref, spec directory, bundled file, or `none`")
        command.add_argument("--head", help="spec directory or bundled file instead of the working tree's spec/")
        command.add_argument("--accepted", type=Path, default=DEFAULT_ACCEPTED, help="accepted findings (make diff's)")
        command.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="the grading table (make diff's)")
    sub.choices["check"].add_argument(
        "--scheme",
        choices=[s.value for s in Scheme],
        help="version scheme (default: versioning.scheme in tools/accessgov_tools/diffcheck/severities.yaml, semver)",
    )
    sub.choices["check"].add_argument(
        "--format", choices=["text", "markdown"], default="text", help="markdown: for a pull request's job summary"
    )
    changelog = sub.choices["changelog"]
    changelog.add_argument("--out", type=Path, help="prepend the section to this file (Keep a Changelog)")
    changelog.add_argument("--version", help="section heading [VERSION] - DATE instead of [Unreleased]")
    changelog.add_argument("--date", help="the section's date (default: today)")
    args = parser.parse_args(argv)
    try:
        found = change(args.base, args.head, config=args.config, accepted=args.accepted)
    except (LoadError, ConfigError, AcceptedError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "changelog":
        return _changelog(args, found)
    # The SDKs of the working tree carry its contract's version; another head has no SDKs to hold.
    scheme = Scheme(args.scheme) if args.scheme else None
    return _check(found, scheme, with_sdks=args.head is None, markdown=args.format == "markdown")

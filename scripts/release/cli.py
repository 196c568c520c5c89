"""`make changelog` and `make release-check`: the contract's changes since a base, as Markdown or as a verdict.

    python -m scripts.release changelog BASE [--head DIR|FILE] [--out CHANGELOG.md] [--version V] [--date D]
    python -m scripts.release check BASE [--head DIR|FILE]

BASE is a git ref, a directory holding a split spec (`openapi.yaml` at its root), a bundled file, or `none` (a
contract without operations). The head is the working tree's `spec/` unless `--head` names another.
`check` exits 1 when `info.version` is not bumped as semver requires for the findings, 2 on a version that is
not semver.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from scripts.diffcheck.accepted import DEFAULT_ACCEPTED
from scripts.release.changelog import HEADER, insert, render
from scripts.release.classify import Kind, kind, relevant, required_bump
from scripts.release.contract import Change, change
from scripts.release.versions import Bump, VersionError, allowed, effective, parse, suggestion


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


def verdict(found: Change) -> tuple[bool, str]:
    """(passes, the explanation) of the release rule for this change."""
    base, head = parse(found.base_version), parse(found.head_version)
    findings = relevant(found.findings)
    needed = required_bump(findings, found.contract_changed)
    bump = effective(needed, base)
    counts = {k: sum(1 for f in findings if kind(f) is k) for k in Kind}
    reason = {
        Bump.MAJOR: f"{counts[Kind.BREAKING]} change(s) break a typed client",
        Bump.MINOR: f"{counts[Kind.ADDED]} addition(s)",
        Bump.PATCH: "changes that add nothing and break nothing" if findings else "descriptions or examples only",
        Bump.NONE: "the contract did not change",
    }[needed]
    rule = (
        f"{needed.name.lower()} bump" if bump is needed else f"{needed.name.lower()} bump, a {bump.name.lower()} in 0.x"
    )
    lines = [
        f"info.version: {base} -> {head}",
        f"needed: {rule} ({reason})",
        f"minimum next version: {suggestion(base, bump)}",
    ]
    breaking = [f for f in findings if kind(f) is Kind.BREAKING]
    lines += [
        f"  breaking: {f.check}: {f.message}"
        + (" (accepted in make diff; still needs the bump)" if f.acceptance else "")
        for f in breaking[:20]
    ]
    if len(breaking) > 20:
        lines.append(f"  ... and {len(breaking) - 20} more (make changelog lists them all)")
    ok = allowed(base, head, bump)
    if head < base:
        lines.append(f"FAIL: {head} is lower than {base}")
    lines.append("OK" if ok else f"FAIL: {head} does not satisfy the {bump.name.lower()} bump")
    return ok, "\n".join(lines)


def _check(found: Change) -> int:
    try:
        ok, text = verdict(found)
    except VersionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(text)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("changelog", "write the changes as a changelog section"), ("check", "the semver verdict")):
        command = sub.add_parser(name, help=text)
        command.add_argument("base", help="git ref, spec directory, bundled file, or `none`")
        command.add_argument("--head", help="spec directory or bundled file instead of the working tree's spec/")
        command.add_argument("--accepted", type=Path, default=DEFAULT_ACCEPTED, help="accepted findings (make diff's)")
    changelog = sub.choices["changelog"]
    changelog.add_argument("--out", type=Path, help="prepend the section to this file (Keep a Changelog)")
    changelog.add_argument("--version", help="section heading [VERSION] - DATE instead of [Unreleased]")
    changelog.add_argument("--date", help="the section's date (default: today)")
    args = parser.parse_args(argv)
    found = change(args.base, args.head, accepted=args.accepted)
    return _changelog(args, found) if args.command == "changelog" else _check(found)

"""The list of every check in docs/diff.md, generated from the rule families (`rules/`), never edited by hand.

    python -m accessgov_tools.diffcheck.checklist [--write | --check]

Prints the section; `--write` puts it in docs/diff.md between its markers (`make diff-checks`); `--check` exits 1
when the file's section is not what the families declare (tests/tools/diffcheck/test_checks.py holds it too).
"""

from __future__ import annotations

import argparse
import sys

from accessgov_tools.diffcheck.rules import CHECKS, FAMILIES, family_checks
from accessgov_tools.paths import REPO

DOC = REPO / "docs" / "diff.md"
BEGIN = "<!-- checks: generated from tools/accessgov_tools/diffcheck/rules/ by `make diff-checks` -->"
END = "<!-- /checks -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section() -> str:
    """The generated list, markers included: one table a family, its checks in the order the module declares."""
    lines = [
        BEGIN,
        "",
        f"{len(CHECKS)} checks in {len(FAMILIES)} families, each declared once in its family's module with its default"
        " severity and meaning (`severities.yaml` grades some otherwise for this contract: `accessgov-tools diff"
        " --list-checks` prints the grades in force).",
    ]
    for family in FAMILIES:
        name = family.__name__.rsplit(".", 1)[1]
        title = (family.__doc__ or name).strip().split("\n\n")[0].replace("\n", " ")
        checks = family_checks(family)
        lines += ["", f"**`rules/{name}.py`** ({len(checks)}): {title}", ""]
        lines += ["| check | default | meaning |", "|---|---|---|"]
        lines += [f"| `{c.id}` | {c.severity.value} | {_cell(c.summary)} |" for c in checks]
    return "\n".join([*lines, "", END]) + "\n"


def with_section(text: str) -> str:
    """`text` (docs/diff.md) with its generated section replaced by the current one."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOC}: the markers of the generated list of checks are missing ({BEGIN} ... {END})")
    return text[:start] + section() + text[end + len(END) + 1 :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite the section in {DOC.name}")
    mode.add_argument("--check", action="store_true", help=f"exit 1 when the section in {DOC.name} is stale")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        sys.stdout.write(section())
        return 0
    current = DOC.read_text(encoding="utf-8")
    wanted = with_section(current)
    if args.check:
        if wanted != current:
            print(f"{DOC}: the list of checks is stale; run `make diff-checks`", file=sys.stderr)
            return 1
        return 0
    if wanted != current:
        DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

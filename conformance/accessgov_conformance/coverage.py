"""`accessgov-conformance rules --coverage`: the traceability table as text, its counts, and what keeps it from
being whole."""

from __future__ import annotations

import sys
from typing import TextIO

from . import traceability
from .rules import all_rules
from .spec import contract_pointers

WIDTH = 30


def table(requirements: list[traceability.Requirement]) -> str:
    """One block per requirement: id, status and rules on the first line; source, variants and the partial or
    unobservable reason indented below."""
    lines = []
    section = ""
    for item in requirements:
        if item.section != section:
            section = item.section
            lines.append(f"\n[{section}]")
        rules = ", ".join(item.rules) or "-"
        lines.append(f"{item.id:<{WIDTH}} {item.status.value:<12} {rules}")
        pad = " " * (WIDTH + 1)
        lines.append(f"{pad}source: {item.source}")
        if item.variants:
            variants = ", ".join(f"{name} ({'/'.join(rules)})" for name, rules in item.variants.items())
            lines.append(f"{pad}variants: {variants}")
        if item.partial:
            lines.append(f"{pad}missing: {item.partial}")
        if item.unobservable:
            lines.append(f"{pad}unobservable: {item.unobservable}")
    return "\n".join(lines).lstrip("\n")


def rules_markdown() -> str:
    """The rules as a Markdown table (`rules --markdown`; docs/conformance.md holds it, a test keeps it equal):
    id, text, where the contract states it (a JSON pointer into the contract), the requirements document's
    section, and whether a mock must honour it."""
    lines = [
        "| id | rule | spec (pointer into the contract) | requirements section | applies to a mock |",
        "|---|---|---|---|---|",
    ]
    for item in all_rules():
        cells = [
            item.id,
            item.text,
            f"`{contract_pointers(item.spec)}`",
            item.requirements or "-",
            "yes" if item.mock else "n/a",
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def print_table(stream: TextIO | None = None) -> int:
    """Print the table, its counts and its problems; 0 when it is whole, 1 when a problem is listed, 2 when
    the table cannot be read."""
    try:
        requirements = traceability.load()
    except traceability.TraceabilityError as error:
        print(f"accessgov-conformance: traceability.yaml: {error}", file=sys.stderr)
        return 2
    stream = stream or sys.stdout
    print(table(requirements), file=stream)
    print(f"\n{traceability.counts_line(requirements)}", file=stream)
    found = traceability.problems(requirements, (item.id for item in all_rules()))
    for problem in found:
        print(f"problem: {problem}", file=stream)
    return 1 if found else 0

"""`accessgov-conformance rules --coverage`: the traceability table as text, its counts, and what keeps it from
being whole."""

from __future__ import annotations

import sys
from typing import TextIO

from . import spec, statements, traceability
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


def statement_table(rows: list[statements.Row], requirements: dict[str, traceability.Requirement]) -> str:
    """The spec's own text, part by part: each row's status, where it is, the sentence, and the requirements
    (with their rules) that check it, or why none does."""
    lines = []
    for part in statements.PARTS:
        lines.append(f"\n[{part}]")
        for row in rows:
            if row.part != part:
                continue
            kind = statements.kind(row, requirements).value
            where = row.at[0] + (f" (and {len(row.at) - 1} more)" if len(row.at) > 1 else "")
            lines.append(f"{kind:<13}{where}")
            if row.text:
                lines.append(f'{"":<13}"{row.text}"')
            if row.by:
                named = [
                    f"{name} ({', '.join(requirements[name].rules) or '-'})" for name in row.by if name in requirements
                ]
                lines.append(f"{'':<13}by: {'; '.join(named)}")
            else:
                lines.append(f"{'':<13}{kind}: {row.informative or row.unobservable}")
    return "\n".join(lines).lstrip("\n")


def print_table(stream: TextIO | None = None, spec_path: str | None = None) -> int:
    """Print the requirements table and the spec-text table (sentences, constraints, statuses of the contract at
    `spec_path`, default the packaged one), their counts and their problems; 0 when both are whole, 1 when a
    problem is listed, 2 when a table cannot be read."""
    try:
        requirements = traceability.load()
        rows = statements.load_rows()
        document = spec.load(spec_path)
    except (traceability.TraceabilityError, statements.TableError) as error:
        print(f"accessgov-conformance: {error}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"accessgov-conformance: cannot read the contract {spec_path}: {error}", file=sys.stderr)
        return 2
    stream = stream or sys.stdout
    by_id = {item.id: item for item in requirements}
    print(table(requirements), file=stream)
    print("\n" + statement_table(rows, by_id), file=stream)
    print(f"\n{traceability.counts_line(requirements)}", file=stream)
    print(statements.tally_line(statements.tally(rows, document, by_id)), file=stream)
    found = traceability.problems(requirements, (item.id for item in all_rules()))
    # Rows for statements this document does not make are a problem only against the whole bundle: the packaged
    # public contract leaves out what is internal.
    found += statements.table_problems(rows, document, by_id, stale=spec_path is not None)
    for problem in found:
        print(f"problem: {problem}", file=stream)
    return 1 if found else 0

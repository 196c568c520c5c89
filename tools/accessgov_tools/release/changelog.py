"""A changelog section of the contract's changes, grouped by operation, and its place in `CHANGELOG.md`.

Each operation gets its own `###` heading with the changes that reach only it; a change in a schema, header or
security scheme that several operations share is written once under "Shared by several operations" with the
operations it reaches. Breaking changes come first in each group, marked ⚠️ with the check id that found them
(the grade is the one `make diff` gates on: `accessgov_tools/diffcheck/severities.yaml`). Descriptions, summaries and
examples, which no check reports, have a section of their own. The file follows Keep a Changelog 1.1.0:
`## [Unreleased]` on top, then `## [version] - date` sections.

Names, values and reasons come from the documents (and the review files) under review: each line is rendered by
`accessgov_tools/display.py`, values as fenced code, everything else as escaped text, so no entry can add a line,
a heading or a comment of its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from accessgov_tools import display
from accessgov_tools.diffcheck.config import DiffConfig
from accessgov_tools.diffcheck.model import Finding
from accessgov_tools.release.classify import Kind, kind, relevant
from accessgov_tools.release.contract import Change
from accessgov_tools.release.documentation import DocChange
from accessgov_tools.release.phrasing import phrase

SHARED = "Shared by several operations"
DOCUMENT = "Whole contract"
DOCUMENTATION = "Documentation"
_DOC_PLACES = 25  # places named on one documentation line before "and N more"
_DOC_NOUNS = {
    "description": "Descriptions",
    "summary": "Summaries",
    "title": "Titles",
    "example": "Examples",
    "comment": "Comments",
    "external documentation": "External documentation",
}
# Additions and changes say what they are in their own words ("New response field ..."); these get a label.
_LABEL = {
    Kind.BREAKING: "⚠️ **Breaking:** ",
    Kind.CLIENT_BREAKING: "⚠️ **Breaking for typed clients:** ",
    Kind.DEPRECATED: "**Deprecated:** ",
}
_OPERATION = re.compile(r"^(\S+ \S+)")


@dataclass(frozen=True)
class _Merge:
    """Lines that differ only in one token (a status, an enum value) become one line naming every token."""

    pattern: re.Pattern[str]  # group 1 is the token
    one: str  # the text in place of the match for a single token, `{}` for it
    many: str  # the same for several tokens, `{}` for "a, b and c"


_MERGES = (
    _Merge(re.compile(r"^New response status (\S+)$"), "New response status {}", "New response statuses {}"),
    _Merge(re.compile(r"\bresponse (\d{3}|\dXX|default)\b"), "response {}", "responses {}"),
    _Merge(re.compile(r" has a new value (`[^`]*`)"), " has a new value {}", " has new values {}"),
    _Merge(
        re.compile(r" no longer takes the value (`[^`]*`)"),
        " no longer takes the value {}",
        " no longer takes the values {}",
    ),
    _Merge(re.compile(r" may now also be (`[^`]*`)"), " may now also be {}", " may now also be {}"),
)
_VALUE_MERGES = (_MERGES[2], _MERGES[3])  # the enum value lines: their token is the value as sent
_SLOT = "\x00"  # where the merged tokens go in an entry's template


def _sent(value: Any) -> str:
    """An enum value as it travels: a string as itself, anything else as JSON (`true`, `null`, `3`), quoted."""
    return display.quote(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


@dataclass
class Entry:
    """One changelog line: its kind, its sentence, the check ids behind it, the operations it reaches."""

    kind: Kind
    text: str  # with _SLOT in place of the merged tokens when `merge` is set
    checks: list[str]
    operations: tuple[str, ...] = ()
    merge: _Merge | None = None
    tokens: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)  # the reasons of the accepted-findings entries
    why: list[str] = field(default_factory=list)  # what breaks, from the grading policy's `summary`

    def render(self, *, reach: bool) -> str:
        text = self.text
        if self.merge is not None:
            tokens = sorted(dict.fromkeys(self.tokens), key=_natural)
            shown = ", ".join(tokens[:-1]) + f" and {tokens[-1]}" if len(tokens) > 1 else tokens[0]
            text = text.replace(_SLOT, (self.merge.many if len(tokens) > 1 else self.merge.one).format(shown))
        line = f"- {_LABEL.get(self.kind, '')}{display.text(text)}"
        if self.kind in (Kind.BREAKING, Kind.CLIENT_BREAKING):
            line += f" ({display.text('; '.join(dict.fromkeys(self.why)))})" if self.why else ""
            line += " — " + ", ".join(display.code(c) for c in dict.fromkeys(self.checks))
            if self.accepted:
                line += f" (accepted: {display.text('; '.join(dict.fromkeys(self.accepted)))})"
        if reach and self.operations:
            line += "; reaches " + ", ".join(display.code(op) for op in self.operations)
        return line + ("" if line.endswith(".") else ".")


def _natural(token: str) -> list[tuple[int, int | str]]:
    """Sort key reading digit runs as numbers: `STATE_2` before `STATE_10`, `400` before `4XX` and `default`."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", token) if part]


def operation_of(label: str) -> str:
    """`GET /a/{id} (svc.Get)` -> `GET /a/{id}`: the heading a reviewer looks for."""
    match = _OPERATION.match(label)
    return match[1] if match else label


def _template(text: str) -> tuple[str, _Merge | None, str | None]:
    """(text with _SLOT for its one mergeable token, the merge rule, the token), or the text as it is."""
    for merge in _MERGES:
        found = merge.pattern.findall(text)
        if len(found) == 1:
            return merge.pattern.sub(_SLOT, text, count=1), merge, found[0]
    return text, None, None


def _entries(findings: list[Finding], config: DiffConfig, *, shared: bool) -> list[Entry]:
    """Entries in kind order, a new or removed operation first; lines differing in one token merged (`_MERGES`)."""
    merged: dict[tuple[Kind, str, tuple[str, ...]], Entry] = {}
    for finding in findings:
        policy = config.graded_by.get(finding.check)
        operations = tuple(dict.fromkeys(operation_of(op) for op in finding.operations)) if shared else ()
        template, merge, token = _template(phrase(finding, shared=shared))
        key = (kind(finding), template, operations)
        entry = merged.setdefault(key, Entry(kind(finding), template, [], operations, merge))
        entry.checks.append(finding.check)
        if policy is not None and policy.summary and policy.severity is finding.severity:
            entry.why.append(policy.summary)
        if finding.acceptance is not None:
            entry.accepted.append(finding.acceptance.reason)
        if token is not None:
            entry.tokens.append(
                _sent(finding.values[0]) if len(finding.values) == 1 and merge in _VALUE_MERGES else token
            )
    order = list(Kind)
    whole = {"New operation", "Operation removed"}
    return sorted(merged.values(), key=lambda e: (order.index(e.kind), e.text not in whole))


def group(findings: list[Finding]) -> dict[str, list[Finding]]:
    """Operation heading (or SHARED / DOCUMENT) -> its findings; operations sorted by path, then method."""
    groups: dict[str, list[Finding]] = {}
    for finding in relevant(findings):
        operations = list(dict.fromkeys(operation_of(op) for op in finding.operations))
        heading = operations[0] if len(operations) == 1 else SHARED if operations else DOCUMENT
        groups.setdefault(heading, []).append(finding)

    def order(heading: str) -> tuple[int, str, str]:
        if heading in (SHARED, DOCUMENT):
            return (1 if heading == SHARED else 2, "", "")
        method, _, path = heading.partition(" ")
        return (0, path, method)

    return {heading: groups[heading] for heading in sorted(groups, key=order)}


def summary(findings: list[Finding], contract_changed: bool, documentation: int = 0) -> str:
    counts = Counter(kind(f) for f in relevant(findings))
    if not counts:
        if documentation:
            return "Descriptions or examples changed; nothing a client sends or receives did."
        if contract_changed:
            return "Changes no check grades (extensions, servers, ...); nothing a client sends or receives did."
        return "No changes to the contract."
    words = {
        Kind.BREAKING: "breaking",
        Kind.CLIENT_BREAKING: "breaking for typed clients",
        Kind.ADDED: "added",
        Kind.DEPRECATED: "deprecated",
        Kind.CHANGED: "changed",
    }
    parts = [f"{counts[k]} {words[k]}" for k in Kind if counts[k]]
    parts += [f"{documentation} documentation"] if documentation else []
    return "Contract changes: " + ", ".join(parts) + "."


def documentation_lines(changes: list[DocChange]) -> list[str]:
    """One line per kind of text (descriptions, examples, ...) naming the places it changed."""
    places: dict[str, list[str]] = {}
    for change in changes:
        places.setdefault(change.what, []).append(change.where)
    lines = []
    for what, where in places.items():
        shown = list(dict.fromkeys(where))
        more = f" and {len(shown) - _DOC_PLACES} more" if len(shown) > _DOC_PLACES else ""
        noun = _DOC_NOUNS.get(what, what.capitalize())
        lines.append(f"- {noun} changed: {display.text(', '.join(shown[:_DOC_PLACES]))}{more}.")
    return lines


def render(change: Change, heading: str, base_label: str) -> str:
    """The Markdown section: `heading` (e.g. `[Unreleased]`), a summary, one `###` group per operation, then the
    documentation that changed."""
    documentation = change.documentation
    text = summary(change.findings, change.contract_changed, len(documentation))
    lines = [f"## {heading}", "", f"{text} Compared with {display.code(base_label)}."]
    for title, findings in group(change.findings).items():
        shared = title in (SHARED, DOCUMENT)
        lines += ["", f"### {title}" if shared else f"### {display.code(title)}", ""]
        lines += [entry.render(reach=shared) for entry in _entries(findings, change.config, shared=shared)]
    if documentation:
        lines += ["", f"### {DOCUMENTATION}", "", *documentation_lines(documentation)]
    return "\n".join(lines) + "\n"


HEADER = """# Changelog

All notable changes to the Access Governance API contract (`spec/`) and its SDKs (Python: `generated/client`,
TypeScript: `sdk-ts/`, both at the contract's version) are documented in this file. The format is based on
[Keep a Changelog](https://keepachangelog.com/en/1.1.0/), and the contract follows
[Semantic Versioning](https://semver.org/spec/v2.0.0.html) as `make release-check` enforces it (see
`docs/release.md`). Sections are written by `make changelog`, except their hand-written `### SDKs` notes (changes
of the SDKs' own code, which a rewrite of the section keeps); ⚠️ marks what breaks a typed client.
"""
_SECTION = re.compile(r"^## \[(?P<name>[^\]]+)\]", re.MULTILINE)
# The hand-written notes of a section: kept when `make changelog` writes the section again.
_SDK_NOTES = re.compile(r"^### SDKs\n.*?(?=^### |^## |\Z)", re.MULTILINE | re.DOTALL)


def insert(document: str, section: str) -> str:
    """`document` with `section` in place: replacing the section of the same name (its `### SDKs` notes kept),
    else placed after Unreleased.

    Writing the same section twice gives the same file; a new version goes above the older ones.
    """
    document = document or HEADER
    name_match = _SECTION.match(section)
    if name_match is None:
        raise ValueError("a changelog section starts with `## [name]`")
    name = name_match["name"]
    starts = [(m.start(), m["name"]) for m in _SECTION.finditer(document)]
    bounds = [
        (start, starts[i + 1][0] if i + 1 < len(starts) else len(document), n) for i, (start, n) in enumerate(starts)
    ]
    body = section.rstrip("\n") + "\n\n"
    for start, end, existing in bounds:
        if existing == name:
            notes = _SDK_NOTES.search(document, start, end)
            if notes and not _SDK_NOTES.search(body):
                body += notes.group(0).rstrip("\n") + "\n\n"
            return document[:start] + body + document[end:].lstrip("\n")
    after_unreleased = [end for _start, end, n in bounds if n == "Unreleased"]
    at = after_unreleased[0] if after_unreleased else (bounds[0][0] if bounds else len(document))
    prefix = document[:at]
    if prefix and not prefix.endswith("\n\n"):
        prefix = prefix.rstrip("\n") + "\n\n"
    return prefix + body + document[at:].lstrip("\n")

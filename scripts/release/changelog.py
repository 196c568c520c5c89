"""A changelog section of the contract's changes, grouped by operation, and its place in `CHANGELOG.md`.

Each operation gets its own `###` heading with the changes that reach only it; a change in a schema, header or
security scheme that several operations share is written once under "Shared by several operations" with the
operations it reaches. Breaking changes come first in each group, marked ⚠️ with the check id that found them.
The file follows Keep a Changelog 1.1.0: `## [Unreleased]` on top, then `## [version] - date` sections.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from scripts.diffcheck.model import Finding
from scripts.release.classify import TYPED_CLIENT_BREAKING, Kind, kind, relevant
from scripts.release.contract import Change
from scripts.release.phrasing import phrase

SHARED = "Shared by several operations"
DOCUMENT = "Whole contract"
# Additions and changes say what they are in their own words ("New response field ..."); these two get a label.
_LABEL = {Kind.BREAKING: "⚠️ **Breaking:** ", Kind.DEPRECATED: "**Deprecated:** "}
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
)
_SLOT = "\x00"  # where the merged tokens go in an entry's template


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

    def render(self, *, reach: bool) -> str:
        text = self.text
        if self.merge is not None:
            tokens = list(dict.fromkeys(self.tokens))
            shown = ", ".join(tokens[:-1]) + f" and {tokens[-1]}" if len(tokens) > 1 else tokens[0]
            text = text.replace(_SLOT, (self.merge.many if len(tokens) > 1 else self.merge.one).format(shown))
        line = f"- {_LABEL.get(self.kind, '')}{text}"
        if self.kind is Kind.BREAKING:
            why = "; ".join(dict.fromkeys(TYPED_CLIENT_BREAKING[c] for c in self.checks if c in TYPED_CLIENT_BREAKING))
            line += f" ({why})" if why else ""
            line += " — " + ", ".join(f"`{c}`" for c in dict.fromkeys(self.checks))
            if self.accepted:
                line += f" (accepted: {'; '.join(dict.fromkeys(self.accepted))})"
        if reach and self.operations:
            line += "; reaches " + ", ".join(f"`{op}`" for op in self.operations)
        return line + ("" if line.endswith(".") else ".")


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


def _entries(findings: list[Finding], *, shared: bool) -> list[Entry]:
    """Entries in kind order, a new or removed operation first; lines differing in one token merged (`_MERGES`)."""
    merged: dict[tuple[Kind, str, tuple[str, ...]], Entry] = {}
    for finding in findings:
        operations = tuple(dict.fromkeys(operation_of(op) for op in finding.operations)) if shared else ()
        template, merge, token = _template(phrase(finding, shared=shared))
        key = (kind(finding), template, operations)
        entry = merged.setdefault(key, Entry(kind(finding), template, [], operations, merge))
        entry.checks.append(finding.check)
        if finding.acceptance is not None:
            entry.accepted.append(finding.acceptance.reason)
        if token is not None:
            entry.tokens.append(token)
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


def summary(findings: list[Finding], contract_changed: bool) -> str:
    counts = Counter(kind(f) for f in relevant(findings))
    if not counts:
        return (
            "Descriptions or examples changed; nothing a client sends or receives did."
            if contract_changed
            else "No changes to the contract."
        )
    words = {Kind.BREAKING: "breaking", Kind.ADDED: "added", Kind.DEPRECATED: "deprecated", Kind.CHANGED: "changed"}
    return "Contract changes: " + ", ".join(f"{counts[k]} {words[k]}" for k in Kind if counts[k]) + "."


def render(change: Change, heading: str, base_label: str) -> str:
    """The Markdown section: `heading` (e.g. `[Unreleased]`), a summary, then one `###` group per operation."""
    lines = [f"## {heading}", "", f"{summary(change.findings, change.contract_changed)} Compared with `{base_label}`."]
    for title, findings in group(change.findings).items():
        shared = title in (SHARED, DOCUMENT)
        lines += ["", f"### {title}" if shared else f"### `{title}`", ""]
        lines += [entry.render(reach=shared) for entry in _entries(findings, shared=shared)]
    return "\n".join(lines) + "\n"


HEADER = """# Changelog

All notable changes to the Access Governance API contract (`spec/`) and its Python SDK (`generated/client`) are
documented in this file. The format is based on [Keep a Changelog](https://keepachangelog.com/en/1.1.0/), and the
contract follows [Semantic Versioning](https://semver.org/spec/v2.0.0.html) as `make release-check` enforces it
(see `docs/release.md`). Sections are written by `make changelog`; ⚠️ marks what breaks a typed client.
"""
_SECTION = re.compile(r"^## \[(?P<name>[^\]]+)\]", re.MULTILINE)


def insert(document: str, section: str) -> str:
    """`document` with `section` in place: replacing the section of the same name, else placed after Unreleased.

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
            return document[:start] + body + document[end:].lstrip("\n")
    after_unreleased = [end for _start, end, n in bounds if n == "Unreleased"]
    at = after_unreleased[0] if after_unreleased else (bounds[0][0] if bounds else len(document))
    prefix = document[:at]
    if prefix and not prefix.endswith("\n\n"):
        prefix = prefix.rstrip("\n") + "\n\n"
    return prefix + body + document[at:].lstrip("\n")

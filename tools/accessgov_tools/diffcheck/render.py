"""The report in four formats: text (terminal), markdown (pull-request comment), JSON, GitHub annotations.

Every piece of a finding can come from the document under review, so each format shows it as data
(`accessgov_tools/display.py`): visible characters only in text and annotations, escaped text and fenced code in
markdown. JSON carries the values as they are (a JSON string cannot break out of itself).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from accessgov_tools import display
from accessgov_tools.diffcheck.accepted import Acceptance
from accessgov_tools.diffcheck.model import Finding, Severity

NO_CHANGES = "No changes to the contract."
_LABEL = {
    Severity.BREAKING: "BREAKING",
    Severity.CLIENT_BREAKING: "CLIENT-BREAKING",
    Severity.WARNING: "WARNING",
    Severity.INFO: "info",
}
_GITHUB = {
    Severity.BREAKING: "error",
    Severity.CLIENT_BREAKING: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}


def summary(findings: list[Finding]) -> str:
    """`1 breaking, 2 warning, 0 info`; client-breaking is counted when there is any (both fail the gate)."""
    counts = Counter(f.severity for f in findings)
    shown = [s for s in Severity if s is not Severity.CLIENT_BREAKING or counts[s]]
    text = ", ".join(f"{counts[s]} {s.value}" for s in shown)
    accepted = sum(f.accepted for f in findings)
    return text + (f" ({accepted} accepted)" if accepted else "")


def _stale(entry: Acceptance) -> str:
    return f"accepted {entry.check} at {entry.target} matches no finding (stale; expires {entry.expires})"


def _source(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}" if finding.file else finding.json_pointer


def render_text(findings: list[Finding], stale: Sequence[Acceptance] = ()) -> str:
    show = display.visible
    lines = [summary(findings), ""] if findings else [NO_CHANGES]
    for f in findings:
        lines.append(f"{_LABEL[f.severity]:<8} {show(f.check)}  {show(_source(f))}")
        lines.append(f"  {show(f.message)}")
        if f.status:
            lines.append(f"  {show(f.status)}")
        for op in f.operations:
            lines.append(f"  reaches {show(op)}")
        lines.append("")
    lines += [show(_stale(entry)) for entry in stale]
    return "\n".join(lines) + ("\n" if not findings or stale else "")


def _md(text: str) -> str:
    """A table cell's markdown for a message (values in backticks): nothing in it can be markup."""
    return display.text(text, table=True)


def render_markdown(findings: list[Finding], stale: Sequence[Acceptance] = ()) -> str:
    lines = ["## Contract changes", ""]
    tail = [f"- {display.text(_stale(entry))}" for entry in stale]
    if not findings:
        return "\n".join([*lines, NO_CHANGES, "", *tail, *([""] if tail else [])])
    lines += [f"**{summary(findings)}**", ""]
    lines += ["| Severity | Check | Change | Source | Operations |", "|---|---|---|---|---|"]
    icon = {
        Severity.BREAKING: "🔴 breaking",
        Severity.CLIENT_BREAKING: "🔴 client-breaking",
        Severity.WARNING: "🟡 warning",
        Severity.INFO: "🟢 info",
    }
    for f in findings:
        ops = "<br>".join(display.code(op, table=True) for op in f.operations) or "—"
        severity = icon[f.severity] + (f" ({_md(f.status)})" if f.status else "")
        cells = [severity, display.code(f.check, table=True), _md(f.message), display.code(_source(f), table=True), ops]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if tail:
        lines += [*tail, ""]
    return "\n".join(lines)


def _acceptance(f: Finding) -> dict[str, object] | None:
    if f.acceptance is None:
        return None
    entry = f.acceptance
    return {"reason": entry.reason, "expires": entry.expires.isoformat(), "expired": f.acceptance_expired}


def render_json(findings: list[Finding], stale: Sequence[Acceptance] = ()) -> str:
    counts = Counter(f.severity.value for f in findings)
    body = {
        "summary": {s.value: counts.get(s.value, 0) for s in Severity}
        | {"accepted": sum(f.accepted for f in findings)},
        "findings": [
            {
                "id": f.check,
                "severity": f.severity.value,
                "message": f.message,
                "file": f.file,
                "line": f.line,
                "pointer": f.json_pointer,
                "operations": f.operations,
                "acceptance": _acceptance(f),
                # Added after the fields above (consumers that ignore unknown keys are unaffected): what a schema
                # finding is about (null for the others) and the values it names as sent (an enum's, else []).
                "subject": f.subject or None,
                "values": list(f.values),
            }
            for f in findings
        ],
        "stale_acceptances": [
            {"check": e.check, "pointer": e.pointer, "operation": e.operation, "expires": e.expires.isoformat()}
            for e in stale
        ],
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


_escape_data = display.annotation
_escape_property = display.annotation_property


def render_github(findings: list[Finding], stale: Sequence[Acceptance] = ()) -> str:
    """GitHub workflow commands: `::error file=...,line=...,title=<check id>::message` per finding.

    An accepted breaking finding is a notice titled `<check id> (accepted)`; an expired acceptance is an error."""
    lines = []
    for f in findings:
        props = [f"file={_escape_property(f.file)}", f"line={f.line}"] if f.file else []
        props.append(f"title={_escape_property(f.check + (' (accepted)' if f.accepted else ''))}")
        reaches = f" (reaches {'; '.join(f.operations)})" if f.operations else ""
        status = f" [{f.status}]" if f.status else ""
        level = "notice" if f.accepted else _GITHUB[f.severity]
        lines.append(f"::{level} {','.join(props)}::{_escape_data(f.message + status + reaches)}")
    lines += [f"::warning title=stale-acceptance::{_escape_data(_stale(entry))}" for entry in stale]
    if not findings:
        lines.append(f"::notice title=contract-diff::{NO_CHANGES}")
    return "\n".join(lines) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "github": render_github}

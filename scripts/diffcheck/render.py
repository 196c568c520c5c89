"""The report in four formats: text (terminal), markdown (pull-request comment), JSON, GitHub annotations."""

from __future__ import annotations

import json
from collections import Counter

from scripts.diffcheck.model import Finding, Severity

NO_CHANGES = "No changes to the contract."
_LABEL = {Severity.BREAKING: "BREAKING", Severity.WARNING: "WARNING", Severity.INFO: "info"}
_GITHUB = {Severity.BREAKING: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def summary(findings: list[Finding]) -> str:
    counts = Counter(f.severity for f in findings)
    return ", ".join(f"{counts[s]} {s.value}" for s in Severity)


def _source(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}" if finding.file else finding.json_pointer


def render_text(findings: list[Finding]) -> str:
    if not findings:
        return NO_CHANGES + "\n"
    lines = [summary(findings), ""]
    for f in findings:
        lines.append(f"{_LABEL[f.severity]:<8} {f.check}  {_source(f)}")
        lines.append(f"  {f.message}")
        for op in f.operations:
            lines.append(f"  reaches {op}")
        lines.append("")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(findings: list[Finding]) -> str:
    lines = ["## Contract changes", ""]
    if not findings:
        return "\n".join([*lines, NO_CHANGES, ""])
    lines += [f"**{summary(findings)}**", ""]
    lines += ["| Severity | Check | Change | Source | Operations |", "|---|---|---|---|---|"]
    icon = {Severity.BREAKING: "🔴 breaking", Severity.WARNING: "🟡 warning", Severity.INFO: "🟢 info"}
    for f in findings:
        ops = "<br>".join(f"`{_md(op)}`" for op in f.operations) or "—"
        lines.append(f"| {icon[f.severity]} | `{f.check}` | {_md(f.message)} | `{_source(f)}` | {ops} |")
    lines.append("")
    return "\n".join(lines)


def render_json(findings: list[Finding]) -> str:
    counts = Counter(f.severity.value for f in findings)
    body = {
        "summary": {s.value: counts.get(s.value, 0) for s in Severity},
        "findings": [
            {
                "id": f.check,
                "severity": f.severity.value,
                "message": f.message,
                "file": f.file,
                "line": f.line,
                "pointer": f.json_pointer,
                "operations": f.operations,
            }
            for f in findings
        ],
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding]) -> str:
    """GitHub workflow commands: `::error file=...,line=...,title=<check id>::message` per finding."""
    lines = []
    for f in findings:
        props = [f"file={_escape_property(f.file)}", f"line={f.line}"] if f.file else []
        props.append(f"title={_escape_property(f.check)}")
        reaches = f" (reaches {'; '.join(f.operations)})" if f.operations else ""
        lines.append(f"::{_GITHUB[f.severity]} {','.join(props)}::{_escape_data(f.message + reaches)}")
    if not findings:
        lines.append(f"::notice title=contract-diff::{NO_CHANGES}")
    return "\n".join(lines) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "github": render_github}

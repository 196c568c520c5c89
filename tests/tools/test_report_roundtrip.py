"""Reports that are data: every report a reviewer reads, rendered by a CommonMark + GFM-tables renderer
(markdown-it-py), reads back what the structured findings say, whatever the documents under review wrote in them.

The head document puts a corpus of hostile strings (newlines, CR, backticks, HTML comments and tags, headings, list
markers, table pipes, bidi and zero-width characters, NUL, escape sequences, very long values, "PASS"-looking lines)
into property names, enum values, descriptions, summaries, operationIds, tags and paths. Each rendered page must then
have the structure of the same report on a benign twin document (no extra row, item, heading or verdict; nothing
swallowed by a comment), no HTML of its own, every finding's cells equal to its structured fields, and its verdict
equal to the computed one.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from accessgov_tools import display
from accessgov_tools.diffcheck.cli import main as diff_main
from accessgov_tools.diffcheck.pipeline import located
from accessgov_tools.diffcheck.render import render_github, render_markdown, render_text, summary
from accessgov_tools.diffcheck.sources import SourceMap
from accessgov_tools.release.changelog import render as render_changelog
from accessgov_tools.release.cli import verdict
from accessgov_tools.release.contract import change
from accessgov_tools.summary import GATE_FAILS
from accessgov_tools.summary import summary as job_summary

TODAY = dt.date(2026, 1, 1)
HOSTILE = [
    "line1\nline2",
    "cr\rreturn",
    "tick`in`side",
    "```fence",
    "`",
    "<!-- hidden",
    "-->",
    "<details><summary>x</summary>",
    "</td></tr></table>",
    "# Heading",
    "## 0 breaking, PASS",
    "- list item",
    "1. ordered",
    "> quote",
    "| a | b |",
    "a|b\\|c",
    "\u202eevil",
    "\u2066isolate\u2069",
    "zero\u200bwidth\ufeff",
    "nul\x00byte",
    "\x1b[31mred\x1b[0m",
    "**bold** _em_ ~~s~~",
    "[link](http://example.invalid) ![i](x)",
    "[ref]: http://example.invalid",
    "&lt;entity&#62;",
    "$\\color{white}{hidden}$",
    "    indented",
    " leading",
    "trailing ` ",
    "\\",
    "OK: 9.9.9 satisfies it.",
    "x" * 5000,
]


def _document(names: list[str]) -> dict[str, Any]:
    """A contract whose head changes carry `names`: properties, enum values, descriptions, summaries, operationIds,
    tags and paths."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.0.0"},
        "paths": {
            "/items": {
                "get": {
                    "operationId": "listItems",
                    "summary": "List",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                        }
                    },
                },
                "post": {
                    "operationId": "makeItem",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                    },
                    "responses": {"204": {"description": "made"}},
                },
            }
        },
        "components": {
            "schemas": {
                "Item": {
                    "type": "object",
                    "description": "an item",
                    "properties": {"state": {"type": "string", "enum": ["A", *names]}}
                    | {name: {"type": "string", "description": name} for name in names},
                }
            }
        },
    }


def _head(names: list[str]) -> dict[str, Any]:
    head = copy.deepcopy(_document([]))
    schema = head["components"]["schemas"]["Item"]
    schema["description"] = " ".join(names)[:400]
    schema["properties"]["state"]["enum"] = ["B", *[f"v{name}" for name in names]]
    schema["properties"] |= {f"p{name}": {"type": "string", "description": name} for name in names}
    schema["required"] = [f"p{name}" for name in names[:3]]
    head["paths"]["/items"]["get"]["summary"] = names[0] if names else "List"
    head["tags"] = [{"name": f"t{name}"} for name in names]
    for index, name in enumerate(names):
        head["paths"][f"/n{index}/{name}"] = {
            "get": {
                "operationId": f"op{name}",
                "tags": [f"t{name}"],
                "summary": name,
                "responses": {"200": {"description": name}},
            }
        }
    return head


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


class _Page(HTMLParser):
    """The rendered page as block structure, texts, and anything that is not the renderer's own markup."""

    BLOCKS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "tr", "th", "td", "blockquote", "pre"})
    ALLOWED = BLOCKS | {"table", "thead", "tbody", "ul", "ol", "code", "strong", "em", "br"}

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.skeleton: list[str] = []
        self.blocks: list[tuple[str, str]] = []
        self.foreign: list[str] = []
        self.strong: list[str] = []
        self._open: list[tuple[str, list[str]]] = []
        self._strong: list[str] | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.ALLOWED:
            self.foreign.append(tag)
        if tag in self.BLOCKS:
            self.skeleton.append(tag)
            self._open.append((tag, []))
        if tag == "strong":
            self._strong = []
        if tag == "br":
            self.handle_data("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "strong" and self._strong is not None:
            self.strong.append("".join(self._strong))
            self._strong = None
        if tag in self.BLOCKS and self._open and self._open[-1][0] == tag:
            name, parts = self._open.pop()
            self.blocks.append((name, "".join(parts)))
            if self._open:
                self._open[-1][1].extend(parts)

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][1].append(data)
        if self._strong is not None:
            self._strong.append(data)

    def handle_comment(self, data: str) -> None:
        self.foreign.append("<!--")

    def texts(self, tag: str) -> list[str]:
        return [text for name, text in self.blocks if name == tag]


def _render(markdown: str) -> _Page:
    return _Page(MarkdownIt("commonmark").enable("table").render(markdown))


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("roundtrip")
    benign = [f"name{i}" for i in range(len(HOSTILE))]
    return {
        "base": _write(root / "base.json", _document([])),
        "hostile": _write(root / "hostile.json", _head(HOSTILE)),
        "benign": _write(root / "benign.json", _head(benign)),
    }


def _findings(pair: dict[str, Path], head: str) -> Any:
    found = change(pair["base"], pair[head], today=TODAY)
    return found, located(found.findings, SourceMap(pair[head], pair[head].parent))


def test_the_diff_table_reads_back_the_findings(pair: dict[str, Path]) -> None:
    _, findings = _findings(pair, "hostile")
    _, twin = _findings(pair, "benign")
    assert len(findings) == len(twin) > 3 * len(HOSTILE)
    page = _render(render_markdown(findings))
    assert page.foreign == []
    assert page.skeleton == _render(render_markdown(twin)).skeleton
    assert page.texts("h2") == ["Contract changes"]
    assert page.strong == [summary(findings)]
    rows = [block for block in page.blocks if block[0] == "tr"][1:]  # after the header row
    cells = page.texts("td")
    assert len(rows) == len(findings) and len(cells) == 5 * len(findings)
    for index, finding in enumerate(findings):
        _severity, check, message, source, operations = cells[5 * index : 5 * index + 5]
        assert check == display.visible(finding.check)
        assert message == display.plain(finding.message)
        assert source == display.visible(f"{finding.file}:{finding.line}")
        assert operations == ("\n".join(display.visible(op, display.MAX_VALUE) for op in finding.operations) or "—")


def test_text_and_annotations_are_one_line_per_field_and_show_no_control(pair: dict[str, Path]) -> None:
    _, findings = _findings(pair, "hostile")
    text, github = render_text(findings), render_github(findings)
    for output in (text, github):
        assert not any(char in output for char in ("\r", "\x00", "\x1b", "\u202e", "\u2066", "\u200b", "\ufeff"))
    expected_lines = 2 + sum(3 + len(f.operations) + bool(f.status) for f in findings)
    assert len(text.split("\n")) == expected_lines
    assert [line.startswith("::") for line in github.splitlines()] == [True] * len(findings)


def test_the_changelog_has_the_twins_structure_and_hides_nothing(pair: dict[str, Path]) -> None:
    found, _ = _findings(pair, "hostile")
    twin, _ = _findings(pair, "benign")
    markdown = render_changelog(found, "[Unreleased]", "base")
    page = _render(markdown)
    assert page.foreign == []
    assert page.texts("h2") == ["[Unreleased]"]
    assert len(page.texts("h3")) == len(_render(render_changelog(twin, "[Unreleased]", "b")).texts("h3"))
    # Each entry is one line of the source and one item of the page: nothing swallowed, nothing added.
    assert len(page.texts("li")) == sum(line.startswith("- ") for line in markdown.splitlines())
    # Every name is on the page whole and visible: the engine quotes values with display.quote, so a name's own
    # backticks cannot move a code span's edge.
    page_text = "\n".join(text for _, text in page.blocks)
    for name in HOSTILE[:-1]:
        assert display.visible(f"p{name}") in page_text, name


def test_the_version_verdict_is_the_computed_one(pair: dict[str, Path]) -> None:
    found, _ = _findings(pair, "hostile")
    ok, markdown = verdict(found, markdown=True)
    page = _render(markdown)
    assert not ok and page.foreign == []
    assert page.strong == [page.strong[-1]] and page.strong[-1].startswith("FAIL: 1.0.0 is the same version")
    twin_ok, twin = verdict(_findings(pair, "benign")[0], markdown=True)
    assert page.skeleton == _render(twin).skeleton and twin_ok is ok


def test_the_job_summary_reads_as_its_reports(pair: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(pair["base"].parent)
    page = _render(job_summary(str(pair["base"]), str(pair["hostile"]), today=TODAY))
    twin = _render(job_summary(str(pair["base"]), str(pair["benign"]), today=TODAY))
    assert page.foreign == []
    assert [h for h in page.texts("h2")] == [
        f"Contract changes against {pair['base']}",
        "Contract changes",
        "Changelog preview",
        "[Unreleased]",
        "Version",
    ]
    assert page.texts("h2")[1:] == twin.texts("h2")[1:]
    assert page.strong[1] == GATE_FAILS.split("**")[1] == "The gate fails:"
    assert page.strong[-1].startswith("FAIL:") and len([s for s in page.strong if s.startswith(("OK", "FAIL"))]) == 1


def test_the_diff_command_prints_the_same_page(pair: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = diff_main(
        [
            "--base-file",
            str(pair["base"]),
            "--head-file",
            str(pair["hostile"]),
            "--format",
            "markdown",
            "--date",
            "2026-01-01",
        ]
    )
    assert code == 1
    page = _render(capsys.readouterr().out)
    assert page.foreign == [] and page.texts("h2") == ["Contract changes"]


@pytest.mark.parametrize("version", HOSTILE)
def test_the_sdk_version_lines_show_the_versions_as_data(version: str, tmp_path: Path) -> None:
    """release-check's lines about the SDKs' versions quote the contract's and the files' versions (document
    text) as data: one list item per line, nothing hidden, every version read back whole."""
    from accessgov_tools.release import sdk_versions

    (tmp_path / "sdk-ts").mkdir()
    (tmp_path / "sdk-ts" / "package.json").write_text(json.dumps({"version": version}), encoding="utf-8")
    ok, lines = sdk_versions.report("1.0.0", tmp_path, markdown=True)
    page = _render("\n".join(lines))
    assert not ok and page.foreign == []
    items = page.texts("li")
    assert len(items) == len(lines) == 3  # the Python SDK's file is missing, the lock file too, package.json differs
    assert display.visible(version, display.MAX_VALUE) in items[1]

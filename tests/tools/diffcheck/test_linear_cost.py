"""The diff's work grows linearly with its findings: counted, never timed (`make bench-diff` times it).

Each test runs the same kind of diff at N and at 4 x N findings and counts what the engine does: Python lines
executed (a scan of a mapping's keys or a list per finding shows up there), and comparisons of enumeration
values (a list's `in` compares in C, where no line is executed). Linear work gives about 4 x the count at 4 x
the findings, quadratic work about 16 x.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import yaml

from accessgov_tools.diffcheck.cli import main
from accessgov_tools.diffcheck.compare import compare

SCALE = 4
SLACK = 1.25  # what 4 x the findings may cost over 4 x as much: a quadratic step costs 4 x over


def _document(schema: dict[str, Any]) -> dict[str, Any]:
    ok = {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.0.0"},
        "paths": {"/a": {"get": {"responses": {"200": ok}}}},
        "components": {"schemas": {"A": schema}},
    }


def _properties(count: int) -> dict[str, Any]:
    return _document({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(count)}})


@contextmanager
def _counting_lines() -> Iterator[list[int]]:
    """Count the Python lines executed inside the block (every module's, the standard library's too)."""
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        count[0] += event == "line"
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        return local

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        yield count
    finally:
        sys.settrace(previous)


def _lines_of_a_diff(folder: Path, findings: int, suffix: str, capsys: pytest.CaptureFixture[str]) -> int:
    folder.mkdir()
    dump = (lambda d: json.dumps(d, indent=1)) if suffix == ".json" else (lambda d: yaml.safe_dump(d))
    base, head = folder / f"base{suffix}", folder / f"head{suffix}"
    base.write_text(dump(_properties(0)), encoding="utf-8")
    head.write_text(dump(_properties(findings)), encoding="utf-8")
    argv = ["--base-file", str(base), "--head-file", str(head), "--format", "json", "--accepted", str(folder / "no")]
    with _counting_lines() as count:
        assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["findings"]) == findings
    assert {f["id"] for f in report["findings"]} == {"response-optional-property-added"}
    assert all(f["line"] > 1 for f in report["findings"])  # each one located at its own property's line
    return count[0]


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_diff_executes_the_same_lines_per_finding_at_four_times_the_findings(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Load, compare, locate every finding in the head's file, render: no step scans per finding (the source
    map scanned a mapping's keys for every finding it located: 10,000 added properties took 9.6 s of CPU)."""
    _lines_of_a_diff(tmp_path / "warm", 10, suffix, capsys)  # first-use imports and caches, out of the counts
    small = _lines_of_a_diff(tmp_path / "small", 300, suffix, capsys)
    large = _lines_of_a_diff(tmp_path / "large", 300 * SCALE, suffix, capsys)
    assert large <= small * SCALE * SLACK, (small, large, large / small)


class _Counted(str):
    """An enumeration value that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _enum(count: int) -> dict[str, Any]:
    return {"type": "string", "enum": [_Counted(f"v{i}") for i in range(count)]}


def _const_union(count: int) -> dict[str, Any]:
    return {"oneOf": [{"title": f"V{i}", "const": _Counted(f"v{i}")} for i in range(count)]}


def _comparisons(shape: Callable[[int], dict[str, Any]], values: int) -> int:
    base, head = _document(shape(values)), _document(shape(values * 2))  # `values` added to a response enum
    _Counted.compared = 0
    found = compare(base, head)
    assert sum(f.check == "response-property-enum-value-added" for f in found) == values
    return _Counted.compared


@pytest.mark.parametrize("shape", [_enum, _const_union], ids=["enum", "oneOf-of-const"])
def test_enumeration_values_are_compared_a_constant_number_of_times_each(shape: Callable[[int], Any]) -> None:
    """Values added to or removed from an enumeration are looked up, not scanned for (a list's `in` per value)."""
    small = _comparisons(shape, 500)
    large = _comparisons(shape, 500 * SCALE)
    assert large <= small * SCALE * SLACK, (small, large)


def _object_enum(count: int) -> dict[str, Any]:
    return {"enum": [{"k": _Counted(f"v{i}"), "n": [i]} for i in range(count)]}


def test_an_enumeration_of_objects_is_looked_up_not_scanned() -> None:
    """Mappings and lists in an `enum` are looked up by a frozen copy (a list of 16,000 objects took 18.4 s of
    CPU, 4,000 took 1.15 s: each value was compared with every other)."""
    small = _comparisons(_object_enum, 300)
    large = _comparisons(_object_enum, 300 * SCALE)
    assert large <= small * SCALE * SLACK, (small, large)


def _lines_of_compare(base: dict[str, Any], head: dict[str, Any]) -> tuple[int, int]:
    with _counting_lines() as count:
        found = compare(base, head)
    return count[0], len(found)


def _union_changed_in_place(count: int, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    def union(type_: str) -> dict[str, Any]:
        return {"oneOf": [{"type": "object", "properties": {f"p{i}": {"type": type_}}} for i in range(count)]}

    return _document(union("string")), _document(union(kind))


def _security(count: int, _: str) -> tuple[dict[str, Any], dict[str, Any]]:
    def doc(requirements: int) -> dict[str, Any]:
        document = _document({"type": "string"})
        document["paths"]["/a"]["get"]["security"] = [{f"s{i}": []} for i in range(requirements)]
        schemes = {f"s{i}": {"type": "apiKey", "in": "header", "name": f"h{i}"} for i in range(2 * count)}
        document["components"]["securitySchemes"] = schemes
        return document

    return doc(2 * count), doc(count)


def _inherited_security(count: int, _: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """`count` operations, each inheriting `count` document-wide requirement alternatives, one of them changed."""

    def doc(last: str) -> dict[str, Any]:
        ok = {"200": {"description": "OK"}}
        return {
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1.0.0"},
            "security": [{f"s{i}": []} for i in range(count - 1)] + [{last: []}],
            "paths": {f"/p{i}": {"get": {"responses": ok}} for i in range(count)},
        }

    return doc("old"), doc("new")


@pytest.mark.parametrize(
    ("shape", "findings_per_unit"),
    [
        (lambda n: _union_changed_in_place(n, "integer"), 1),
        (lambda n: _security(n, ""), 1),
        (lambda n: _inherited_security(n, ""), 0),
    ],
    ids=["oneOf-members-changed-in-place", "security-requirements-removed", "inherited-security"],
)
def test_shapes_that_were_quadratic_cost_linear_work(shape: Callable[[int], Any], findings_per_unit: int) -> None:
    """A `oneOf` of N members each changed in place was weighed each against each (500 members: 15.6 s of CPU,
    2,000: 255 s and 5 GB); N security schemes each looked for in every requirement of every operation (2,000:
    4.5 s). Both now do a constant amount of work per member, scheme or operation."""
    small_lines, small_found = _lines_of_compare(*shape(100))
    large_lines, large_found = _lines_of_compare(*shape(100 * SCALE))
    if findings_per_unit:  # (the inherited requirements' change is reported once, not per operation)
        assert large_found >= small_found * SCALE * 0.9
    assert large_lines <= small_lines * SCALE * SLACK, (small_lines, large_lines, large_lines / small_lines)

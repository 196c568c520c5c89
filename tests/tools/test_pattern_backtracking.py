"""The house lint reports patterns a backtracking engine could spend forever on, and no tool runs one itself.

`accessgov_tools/redos.py` reads a pattern with Python's parser (nothing is matched); `lint` reports each `pattern`
and `patternProperties` name that can backtrack catastrophically (`pattern-backtracking`). The contract's own
patterns are held to it (tests/spec/test_lint.py: the bundle has no finding).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accessgov_tools import redos
from accessgov_tools.lint import main as lint_main

CATASTROPHIC = [
    "(a+)+$",
    "(a*)*b",
    "^(\\w+\\s?)*$",
    "(.*)*z",
    "(a|aa)*b",
    "(a|a)*c",
    "(\\d|\\w)+!",
    "(x|x?)+y",
    ".*.*.*.*x",
    "^(([a-z])+.)+[A-Z]([a-z])+$",
    "(a+){2,10}b",
    "(?<name>a+)+$",
    "\\p{L}+(\\p{L}+)*$",
    "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    "(" * 3000 + ")" * 3000,
    "[unclosed",
]
LINEAR = [
    "^[a-z][a-zA-Z0-9]*$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^[a-z]+(-[a-z]+)*$",
    "^(?:[a-z0-9-]+\\.)+[a-z]{2,}$",
    "^(GET|POST|PUT)$",
    "^(a|b)+$",
    "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$",
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
    "^[A-Za-z0-9._~-]+$",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC, ids=lambda p: p[:40])
def test_a_pattern_that_backtracks_catastrophically_is_named(pattern: str) -> None:
    assert redos.problem(pattern) is not None


@pytest.mark.parametrize("pattern", LINEAR)
def test_a_linear_pattern_is_not(pattern: str) -> None:
    assert redos.problem(pattern) is None


def test_lint_reports_each_pattern_and_pattern_property(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "openapi.yaml").write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", encoding="utf-8")
    doc = tmp_path / "doc.yaml"
    doc.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1.0.0'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n"
        "      type: object\n      properties:\n        p: {type: string, pattern: '(a+)+$'}\n"
        "        q: {type: string, pattern: '^[a-z]+$'}\n      patternProperties:\n        '^(x|xy)*$': {}\n",
        encoding="utf-8",
    )
    assert lint_main([str(doc), "--spec-root", str(spec)]) == 1
    out = capsys.readouterr().out
    found = re.findall(r"\[pattern-backtracking\]", out)
    assert len(found) == 2, out
    assert "properties.p.pattern" in out and "patternProperties" in out and "properties.q" not in out


def test_the_mock_runs_no_pattern_that_could_backtrack() -> None:
    """The stub server's dynamic bodies try candidates against a schema's pattern with Python's `re`: only a plain
    one (no repeated group, at most four repetitions, 200 characters)."""
    from accessgov_tools.stub_template import dynamic

    assert dynamic._plain("^[a-z]+-[0-9]+$")
    for pattern in ("(a+)+$", "^(x|xy)*$", "(.*){2,}z", "a" * 201):
        assert not dynamic._plain(pattern)
    value = dynamic._string({"type": "string", "pattern": "(a+)+$"}, __import__("random").Random(1))
    assert isinstance(value, str)

"""The test suite's own conventions (docs/testing.md): an `xdist_group` runs on one worker under `make test`'s
`--dist loadgroup`, the suite uses no private pytest API, and each file carries its own lane marks (no central list
of node ids)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

GROUPED = """
import pytest

pytestmark = pytest.mark.xdist_group("one")


@pytest.mark.parametrize("n", range(4))
def test_grouped(n):
    pass
"""
LOOSE = """
import pytest


@pytest.mark.parametrize("n", range(8))
def test_loose(n):
    pass
"""


@pytest.mark.slow  # a pytest run of its own, on two xdist workers
def test_an_xdist_group_runs_on_one_worker(tmp_path: Path) -> None:
    """pytest 9.2 with pytest-xdist 3.8 spread every group over the workers without a word (pytest-xdist#1386):
    the pins in pyproject.toml are a pair under which groups hold, and this fails on a pair under which they do
    not."""
    for name, text in {"test_a.py": GROUPED, "test_b.py": GROUPED, "test_c.py": LOOSE}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:schemathesis", "-v"]
    done = subprocess.run(
        [*command, "-n", "2", "--dist", "loadgroup"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ran = re.findall(r"^\[(gw\d+)\] .*PASSED (test_\w\.py)::(\w+)", done.stdout, re.MULTILINE)
    grouped = {worker for worker, _file, test in ran if test == "test_grouped"}
    assert len([test for _, _, test in ran if test == "test_grouped"]) == 8, done.stdout
    assert len(grouped) == 1, f"the group ran on {sorted(grouped)}:\n{done.stdout}"


def test_the_suite_uses_no_private_pytest_api() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.match(r"\s*(from|import) _pytest\b", line)
    ]
    assert not found, found


def test_lanes_are_marked_in_the_test_files() -> None:
    """The conftests name no tests by node id: a lane is a mark in the file (`pytestmark` or on the test)."""
    conftests = sorted(TESTS.rglob("conftest.py"))
    assert conftests
    for conftest in conftests:
        text = conftest.read_text(encoding="utf-8")
        assert not re.search(r"""["']tests/[\w/]+\.py(::|["'])""", text), f"{conftest}: a test named by its path"


def test_the_docs_do_not_count_the_tests_or_time_the_suite() -> None:
    """Counts and times of the suite go stale with the next test: `pytest --costs` and `--durations` print them,
    performance.md's log keeps the dated ones."""
    stale = re.compile(r"~?\b\d[\d,]* tests\b|\b\d+ (?:s|min|minutes) (?:on|of) (?:2|two) cores\b", re.IGNORECASE)
    for page in ("README.md", "docs/testing.md", "docs/ci.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert not stale.findall(text), (page, stale.findall(text))

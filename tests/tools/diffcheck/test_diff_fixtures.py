"""Golden fixture pairs of the breaking-change report: every check fails on its `fail.yaml` and not on `pass.yaml`.

Regenerate after an intended change with `python -m tests.tools.diffcheck.diff_fixtures` and review the diff of the
`*.txt` reports like any other change.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.bundle import dump_yaml
from accessgov_tools.diffcheck.cli import load_file
from accessgov_tools.diffcheck.rules import CHECKS
from tests.tools.diffcheck.diff_fixtures import FIXTURES, PAIRING, all_cases, documents, pairing_cases, render

CHECK_LINE = re.compile(r"^(?:BREAKING|CLIENT-BREAKING|WARNING|info)\s+(\S+)\s", re.MULTILINE)


def _reported(text: str) -> set[str]:
    return set(CHECK_LINE.findall(text))


def test_every_check_has_a_fixture_pair() -> None:
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert folders == set(CHECKS)
    for folder in folders:
        assert {p.name for p in (FIXTURES / folder).iterdir()} >= {
            "base.yaml",
            "fail.yaml",
            "pass.yaml",
            "fail.txt",
            "pass.txt",
        }


@pytest.mark.parametrize("check_id", sorted(CHECKS))
def test_fixture_pair(check_id: str) -> None:
    folder = FIXTURES / check_id
    failing, passing = render(folder, "fail.yaml"), render(folder, "pass.yaml")
    assert check_id in _reported(failing), failing
    assert check_id not in _reported(passing), passing
    assert failing == (folder / "fail.txt").read_text(encoding="utf-8")
    assert passing == (folder / "pass.txt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_committed_documents_are_what_the_cases_build() -> None:
    """The YAML files are the cases in `diff_fixtures.py`, so reading either tells the same story."""
    stale = []
    dumped: dict[str, str] = {}  # about half the documents are another case's too (a base, most often)

    def dump(doc: dict[str, Any]) -> str:
        key = repr(doc)  # the same keys in the same order, values of the same types (200 is not '200', 1 not True)
        if key not in dumped:
            dumped[key] = dump_yaml(doc)
        return dumped[key]

    for check_id, case in all_cases().items():
        for name, doc in zip(("base.yaml", "fail.yaml", "pass.yaml"), documents(case), strict=True):
            path: Path = FIXTURES / check_id / name
            if path.read_text(encoding="utf-8") != dump(doc) or load_file(path) != doc:
                stale.append(f"{check_id}/{name}")
    assert not stale, f"run `python -m tests.tools.diffcheck.diff_fixtures`: {stale[:10]}"


@pytest.mark.parametrize("name", sorted(pairing_cases()))
def test_a_moved_member_or_value_is_paired_where_it_went(name: str) -> None:
    """Reordered, moved and changed, under a `$ref` or inline, moved between members or to an open enum's
    `{type: string}`: the moved thing is never reported added or removed, only what changed in it."""
    pairing, folder = pairing_cases()[name], PAIRING / name
    failing, passing = render(folder, "fail.yaml"), render(folder, "pass.yaml")
    assert _reported(failing) == pairing.reported, failing
    assert _reported(passing) == pairing.passing_reported, passing
    assert failing == (folder / "fail.txt").read_text(encoding="utf-8")
    assert passing == (folder / "pass.txt").read_text(encoding="utf-8")
    for file, doc in zip(("base.yaml", "fail.yaml", "pass.yaml"), documents(pairing.case), strict=True):
        assert (folder / file).read_text(encoding="utf-8") == dump_yaml(doc), (
            f"run `python -m {__package__}.diff_fixtures`"
        )

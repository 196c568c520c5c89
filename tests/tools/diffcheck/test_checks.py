"""Every check id is written out once, in its rule family, and docs/diff.md lists them as the families declare.

A report's check id greps to its one definition (`check("<id>", <severity>, "<meaning>")` in
`tools/accessgov_tools/diffcheck/rules/`): no id is assembled from fragments, and every difference the walk can
yield has exactly one rule.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from accessgov_tools.diffcheck import checklist
from accessgov_tools.diffcheck.resolve import BOUNDS
from accessgov_tools.diffcheck.rules import CHECKS, FAMILIES, RULES, family_checks
from accessgov_tools.diffcheck.walk import differences
from accessgov_tools.diffcheck.walk.differences import Difference, KeywordChanged, SchemaDifference
from accessgov_tools.diffcheck.walk.keywords import PRESENCE
from accessgov_tools.paths import REPO

TOOLS = REPO / "tools" / "accessgov_tools"
DECLARED = re.compile(r"\bcheck\(\s*\"([^\"]+)\"")


def test_every_check_is_declared_literally_once_in_its_family() -> None:
    declared: Counter[str] = Counter()
    where: dict[str, set[Path]] = {}
    for source in TOOLS.rglob("*.py"):
        for check_id in DECLARED.findall(source.read_text(encoding="utf-8")):
            declared[check_id] += 1
            where.setdefault(check_id, set()).add(source.relative_to(TOOLS))
    assert set(declared) == set(CHECKS)
    assert [check_id for check_id, count in declared.items() if count != 1] == []
    assert {path.parent.as_posix() for paths in where.values() for path in paths} == {"diffcheck/rules"}
    by_family = [check.id for family in FAMILIES for check in family_checks(family)]
    assert sorted(by_family) == sorted(CHECKS)  # each in one family's tables


def test_every_difference_the_walk_yields_has_one_rule() -> None:
    kinds = {
        value
        for value in vars(differences).values()
        if isinstance(value, type) and issubclass(value, Difference) and value not in (Difference, SchemaDifference)
    }
    by_class = {key for key in RULES if isinstance(key, type)}
    assert by_class == kinds - {KeywordChanged}
    keywords = {key[1] for key in RULES if isinstance(key, tuple)}
    walked = {*BOUNDS, "multipleOf", "uniqueItems", "pattern", "default", "deprecated", *PRESENCE}
    assert keywords == walked | {"contentMediaType", "contentEncoding"}


def test_the_docs_list_every_check_as_the_families_declare_them() -> None:
    """docs/diff.md's section between its markers is generated: `make diff-checks` writes it."""
    text = checklist.DOC.read_text(encoding="utf-8")
    assert checklist.with_section(text) == text, "run `make diff-checks`"
    for check in CHECKS.values():
        assert f"| `{check.id}` | {check.severity.value} |" in text

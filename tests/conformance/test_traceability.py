"""The traceability table (conformance/accessgov_conformance/traceability.yaml) is whole and honest: every
requirement has rules or a reason, every rule it names exists and every registered rule is named, every variant it
lists is sent by one of its rules and covered by a self-test mutant (or, for what the contract allows, a control),
and the kit's README quotes its counts."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from accessgov_conformance import traceability
from accessgov_conformance.cli import main as kit_main
from accessgov_conformance.rules import all_rules
from accessgov_conformance.traceability import Status, TraceabilityError, parse, problems

from tests.conformance.selftest import mutants

ROOT = Path(__file__).resolve().parents[2]
TABLE = traceability.load()
SECTIONS = sorted({item.section for item in TABLE} | {"types", "errors"})
REGISTERED = [item.id for item in all_rules()]
# The mutant modules (tests/conformance/selftest/mutants/*.py): each area's own, checked on its own.
MODULES = {
    name: [*getattr(module, "MUTANTS", []), *getattr(module, "CONTROLS", [])]
    for name, module in (
        (info.name, importlib.import_module(f"{mutants.__name__}.{info.name}"))
        for info in pkgutil.iter_modules(mutants.__path__)
    )
    if hasattr(module, "MUTANTS") or hasattr(module, "CONTROLS")
}

ENTRY = """
  - id: {id}
    source: {{requirements: "Errors"}}
    text: A statement.
"""


def _doc(*entries: str, section: str = "errors") -> str:
    return f"{section}:\n" + "".join(entries)


# --- the loader and the checks, on small documents ----------------------------------------------------------------


def test_a_requirement_with_neither_rules_nor_reason_is_a_problem() -> None:
    table = parse(_doc(ENTRY.format(id="ERR-X")))
    assert table[0].status == Status.UNCOVERED
    assert problems(table, []) == ["ERR-X: neither rules nor `unobservable`"]


def test_an_unknown_rule_and_an_unnamed_rule_are_problems() -> None:
    table = parse(_doc(ENTRY.format(id="ERR-X") + "    rules: [ER-NOPE-001]\n"))
    assert problems(table, ["ER-REQID-001"]) == [
        "ERR-X: names rule ER-NOPE-001, which the kit does not register",
        "rule ER-REQID-001: no requirement names it",
    ]


def test_a_variant_sent_by_a_rule_outside_the_requirements_rules_is_a_problem() -> None:
    entry = ENTRY.format(id="ERR-X") + "    rules: [ER-REQID-001]\n    variants:\n      echo: RS-OK-001\n"
    assert problems(parse(_doc(entry)), ["ER-REQID-001"]) == [
        "ERR-X/echo: sent by RS-OK-001, which is not among the requirement's rules"
    ]


def test_statuses_follow_rules_partial_and_unobservable() -> None:
    table = parse(
        _doc(
            ENTRY.format(id="ERR-A") + "    rules: [ER-REQID-001]\n",
            ENTRY.format(id="ERR-B") + "    rules: [ER-REQID-001]\n    partial: the boundary is not sent\n",
            ENTRY.format(id="ERR-C") + "    unobservable: no operation accepts it\n",
        )
    )
    assert [item.status for item in table] == [Status.CHECKED, Status.PARTIAL, Status.UNOBSERVABLE]
    assert traceability.counts_line(table) == "3 requirements: 1 checked, 1 partial, 1 unobservable, 0 uncovered"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_doc(ENTRY.format(id="ERR-X"), ENTRY.format(id="ERR-X")), "requirement ERR-X: duplicate id"),
        (_doc(ENTRY.format(id="err-x")), "`id` must be UPPER-KEBAB"),
        (_doc(ENTRY.format(id="ERR-X") + "    rule: [ER-REQID-001]\n"), "requirement ERR-X: unknown key(s) rule"),
        (_doc(ENTRY.format(id="ERR-X") + "    rules: [ER-REQID-001]\n    unobservable: why\n"), "one or the other"),
        (_doc(ENTRY.format(id="ERR-X") + "    partial: what\n"), "`partial` without rules"),
        (_doc(ENTRY.format(id="ERR-X") + "    rules: [A-1]\n    variants:\n      Bad_Name: A-1\n"), "lower-kebab"),
        (_doc(ENTRY.format(id="ERR-X").replace('source: {requirements: "Errors"}', "source: {}")), "`source` must be"),
        ("errors: {}\n", "section 'errors': must be a list"),
    ],
)
def test_a_malformed_entry_is_an_error_naming_it(document: str, message: str) -> None:
    with pytest.raises(TraceabilityError, match=re.escape(message)):
        parse(document)


# --- the kit's own table -----------------------------------------------------------------------------------------


def _covers() -> dict[str, list[str]]:
    """`REQUIREMENT-ID/variant` -> the ids of the mutants and controls that cover it."""
    found: dict[str, list[str]] = {}
    for mutant in mutants.ALL:
        for key in mutant.covers:
            found.setdefault(key, []).append(mutant.id)
    return found


@pytest.mark.parametrize("section", SECTIONS)
def test_every_requirement_of_the_section_is_traced(section: str) -> None:
    """Rules that exist (or a reason), and variants sent by the requirement's own rules."""
    items = [item for item in TABLE if item.section == section]
    assert items, f"section {section} lists no requirement"
    found = [problem for problem in problems(items, REGISTERED) if not problem.startswith("rule ")]
    assert found == []


@pytest.mark.parametrize("section", SECTIONS)
def test_every_variant_of_the_section_is_covered_by_a_mutant(section: str) -> None:
    covers = _covers()
    missing = [key for item in TABLE if item.section == section for key in item.variant_keys() if key not in covers]
    assert missing == []


def test_every_registered_rule_is_named_by_a_requirement() -> None:
    unnamed = [problem for problem in problems(TABLE, REGISTERED) if problem.startswith("rule ")]
    assert unnamed == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_covers_entry_names_a_listed_variant(module: str) -> None:
    known = {key for item in TABLE for key in item.variant_keys()}
    unknown = [f"{m.id}: {key}" for m in MODULES[module] for key in m.covers if key not in known]
    assert unknown == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_mutant_names_what_it_covers(module: str) -> None:
    assert [m.id for m in MODULES[module] if not m.covers and m.id != "control-unchanged"] == []


def test_the_catalogue_holds_every_mutant_module() -> None:
    assert sorted(m.id for ms in MODULES.values() for m in ms) == sorted(m.id for m in mutants.ALL)


def test_the_readme_quotes_the_counts() -> None:
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    assert traceability.counts_line(TABLE) in readme


def test_rules_coverage_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    status = kit_main(["rules", "--coverage"])
    out = capsys.readouterr().out
    assert traceability.counts_line(TABLE) in out
    assert re.search(r"^ERR-REQID-ECHO +checked +ER-REQID-001$", out, re.M)
    assert re.search(r"^ERR-429-SHAPE +partial +SC-001$", out, re.M)
    assert "variants: valid-not-echoed (ER-REQID-001)" in out
    assert status == (1 if problems(TABLE, REGISTERED) else 0)

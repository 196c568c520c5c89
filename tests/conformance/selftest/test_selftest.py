"""The conformance kit proves it can fail (issue 29): the mutation self-test, and the kit against the mock.

One self-test run (`tests/conformance/selftest/run.py`: one reference server, every mutant and control on its own port,
the kit with `--checks conformance` and seed 1 against each) serves three tests: every mutant killed by a rule
of the requirements it covers, every control passed, and — its `control-unchanged` — the kit passing the
reference server itself. The kit against the generated mock must pass every rule a mock can honour and report
the rest not applicable. The verdict rules themselves (what counts as a kill, which rules a mutant's run gets)
are tested without a server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from generated.stub_server import create_app as create_mock
from tests.conformance.selftest import mutants
from tests.conformance.selftest.mutants.base import Mutant
from tests.conformance.selftest.run import (
    KILLED,
    PASSED,
    SURVIVED,
    WRONG_RULE,
    Verdict,
    expected_rules,
    kit_rules,
    requirements,
    run_once,
)
from tests.conformance.selftest.worker import run_kit
from tests.support.harness import serve

# One worker runs the whole module: `verdicts`, the self-test run (~45 s), is then made once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("selftest")]

ROOT = Path(__file__).resolve().parents[3]
MOCK_CONFIG = ROOT / "conformance" / "conformance.mock.toml"  # the kit's configuration for `make mock`


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Verdict]]:
    report_dir = tmp_path_factory.mktemp("selftest")
    yield {v.id: v for v in run_once(mutants.ALL, workers=2, seed=1, report_dir=report_dir)}


def test_a_failure_by_a_rule_the_mutant_does_not_cover_is_not_a_kill() -> None:
    def verdict(exit_status: int, failed: list[str]) -> str:
        return Verdict("m", "errors", False, exit_status, failed, expected=["ER-REQID-001"]).outcome

    assert verdict(1, ["ER-REQID-001", "RS-OK-001"]) == KILLED
    assert verdict(1, ["RS-OK-001"]) == WRONG_RULE
    assert verdict(0, []) == SURVIVED


def test_a_mutant_runs_the_rules_of_its_requirements_and_a_control_the_whole_kit() -> None:
    table = requirements()
    mutant = Mutant("m", "errors", "", lambda _: {}, covers=("ERR-REQID-ECHO/valid-not-echoed",))
    assert expected_rules(mutant, table) == ["ER-REQID-001"]
    assert kit_rules(mutant, ["ER-REQID-001"], full_kit=False) == ["ER-REQID-001"]
    assert kit_rules(mutant, ["ER-REQID-001"], full_kit=True) is None
    assert kit_rules(mutant, ["EV-OPS-001", "RS-OK-001"], full_kit=False) is None  # a whole-run rule
    control = Mutant("c", "control", "", lambda _: {}, control=True, covers=mutant.covers)
    assert kit_rules(control, ["ER-REQID-001"], full_kit=False) is None


@pytest.mark.slow
def test_the_kit_kills_every_mutant(verdicts: dict[str, Verdict]) -> None:
    survivors = {m.id: (verdicts[m.id].outcome, m.breaks) for m in mutants.MUTANTS if verdicts[m.id].outcome != KILLED}
    assert not survivors
    assert all(verdicts[m.id].rules for m in mutants.MUTANTS), "a kill names the rules that failed"


@pytest.mark.slow
def test_the_kit_passes_every_control(verdicts: dict[str, Verdict]) -> None:
    failed = {c.id: verdicts[c.id].rules for c in mutants.CONTROLS if verdicts[c.id].outcome != PASSED}
    assert not failed


@pytest.mark.slow
def test_the_kit_passes_the_reference_server(verdicts: dict[str, Verdict]) -> None:
    unchanged = verdicts["control-unchanged"]
    assert (unchanged.exit, unchanged.rules) == (0, [])


@pytest.mark.slow
def test_the_kit_against_the_mock_passes_what_a_mock_can_honour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    with serve(create_mock()) as base_url:
        # In process, as the self-test's workers run it (its command line is all that is relied on).
        argv = ["run", "--base-url", base_url, "--config", str(MOCK_CONFIG), "--checks", "conformance"]
        code = run_kit([*argv, "--seed", "1", "--report-dir", str(report)])
    output = capsys.readouterr()
    assert code == 0, output.out[-4000:] + output.err[-4000:]
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "| pass |" in summary
    assert "| n/a |" in summary  # the rules that need state, a clock or a secret
    assert "| FAIL |" not in summary

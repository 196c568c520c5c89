"""The conformance kit proves it can fail (issue 29): the mutation self-test, and the kit against the mock.

One self-test run (`scripts/selftest/run.py`: one reference server, every mutant and control on its own port,
the kit with `--checks conformance` and seed 1 against each) serves three tests: every mutant killed, every
control passed, and — its `control-unchanged` — the kit passing the reference server itself. The kit against
the generated mock must pass every rule a mock can honour and report the rest not applicable.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from generated.stub_server import create_app as create_mock
from scripts.selftest import mutants
from scripts.selftest.run import KILLED, PASSED, Verdict, kit_env, run_once
from tests.harness import serve

# One worker runs the whole module: `verdicts`, the self-test run (~45 s), is then made once, not once per worker.
pytestmark = pytest.mark.xdist_group("selftest")

ROOT = Path(__file__).resolve().parents[2]
MOCK_CONFIG = ROOT / "conformance" / "conformance.mock.toml"  # the kit's configuration for `make mock`


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Verdict]]:
    report_dir = tmp_path_factory.mktemp("selftest")
    yield {v.id: v for v in run_once(mutants.ALL, workers=2, seed=1, report_dir=report_dir)}


@pytest.mark.slow
def test_the_kit_kills_every_mutant(verdicts: dict[str, Verdict]) -> None:
    survivors = {m.id: m.breaks for m in mutants.MUTANTS if verdicts[m.id].outcome != KILLED}
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
def test_the_kit_against_the_mock_passes_what_a_mock_can_honour(tmp_path: Path) -> None:
    report = tmp_path / "report"
    with serve(create_mock()) as base_url:
        command = [sys.executable, "-m", "accessgov_conformance", "run", "--base-url", base_url]
        command += ["--config", str(MOCK_CONFIG), "--checks", "conformance", "--seed", "1", "--report-dir", str(report)]
        result = subprocess.run(command, env=kit_env(), capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "| pass |" in summary
    assert "| n/a |" in summary  # the rules that need state, a clock or a secret
    assert "| FAIL |" not in summary

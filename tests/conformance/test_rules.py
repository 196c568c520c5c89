"""Every behavioural rule passes against a target that honours the contract, and fails against one that breaks
exactly that rule (the fake's switch of the same name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from accessgov_conformance.rules import all_rules
from accessgov_conformance.verdicts import Verdict

from tests.conformance.fake_target import FakeTarget
from tests.conformance.kit import fake_config, run_fake

BEHAVIOURAL = [rule.id for rule in all_rules() if rule.family != "schema"]


def test_a_conforming_target_passes_every_rule(tmp_path: Path) -> None:
    results = run_fake(fake_config(tmp_path), FakeTarget())
    assert set(results) == set(BEHAVIOURAL)
    failing = {rule_id: result.reason for rule_id, result in results.items() if result.verdict != Verdict.PASS}
    assert failing == {}


@pytest.mark.parametrize("rule_id", BEHAVIOURAL)
def test_the_rule_fails_against_a_target_that_breaks_it(tmp_path: Path, rule_id: str) -> None:
    only = "" if rule_id == "EV-OPS-001" else rule_id
    results = run_fake(fake_config(tmp_path), FakeTarget(breaks={rule_id}), only=only)
    assert results[rule_id].verdict.failed, results[rule_id]


@pytest.mark.slow
def test_verdicts_are_the_same_run_after_run(tmp_path: Path) -> None:
    config = fake_config(tmp_path)
    verdicts = [
        {rule_id: result.verdict for rule_id, result in run_fake(config, FakeTarget(breaks={"WH-TS-003"})).items()}
        for _ in range(2)
    ]
    assert verdicts[0] == verdicts[1]
    assert verdicts[0]["WH-TS-003"] == Verdict.FAIL


def test_a_mock_is_held_only_to_the_rules_a_mock_can_honour(tmp_path: Path) -> None:
    results = run_fake(fake_config(tmp_path, 'kind = "mock"'), FakeTarget())
    for rule in all_rules():
        if rule.id in results:
            expected = Verdict.PASS if rule.mock else Verdict.NOT_APPLICABLE
            assert results[rule.id].verdict == expected, (rule.id, results[rule.id].reason)


def test_rules_without_their_fixture_are_not_applicable_not_passed(tmp_path: Path) -> None:
    path = tmp_path / "bare.toml"
    path.write_text('[target]\nbase_url = "http://fake.test"\n[auth]\ntoken = "admin-token"\n', encoding="utf-8")
    from accessgov_conformance.config import load

    results = run_fake(load(path), FakeTarget())
    for rule_id in ("WH-JWT-001", "WH-CIDR-001", "WH-IDEM-002", "RS-409-001", "PG-WALK-001", "AU-OAUTH-001"):
        assert results[rule_id].verdict == Verdict.NOT_APPLICABLE, rule_id
    # Nothing was delivered to a webhook: the run has no evidence for that operation and must not be green.
    assert results["EV-OPS-001"].verdict == Verdict.NO_EVIDENCE
    assert "incoming" in results["EV-OPS-001"].reason


def test_the_docs_table_lists_every_rule_as_registered() -> None:
    """docs/conformance.md's rule table is `rules --markdown`, row for row."""
    from accessgov_conformance.coverage import rules_markdown

    table = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text(encoding="utf-8")
    assert rules_markdown() in table


def test_a_schema_part_answered_only_429_is_no_evidence(tmp_path: Path) -> None:
    import httpx
    from accessgov_conformance import spec
    from accessgov_conformance.context import RunState
    from accessgov_conformance.registry import RULES
    from accessgov_conformance.runner import run_rule

    with httpx.Client(transport=FakeTarget().transport()) as client:
        state = RunState(fake_config(tmp_path), 1, client)
        state.schema_statuses = {operation: [429, 429] for operation in spec.OPERATIONS}
        result = run_rule(RULES["EV-OPS-001"], state)
    assert result.verdict == Verdict.NO_EVIDENCE
    assert "Schemathesis: GET /api/v1/apps/{app_id}/entitlements got no 2xx (429 x2)" in result.reason

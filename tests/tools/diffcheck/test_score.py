"""The oasdiff scoring harness, on a tiny repository laid out like oasdiff's (and on oasdiff when it is there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from accessgov_tools.diffcheck.config import load_config
from accessgov_tools.diffcheck.score import pairs, rule_levels, score

RULES = """package checker
func rules() {
	newBackwardCompatibilityRule(APIRemovedWithoutDeprecationId, ERR, APIRemovedCheck, DirectionNone),
	newBackwardCompatibilityRule(EndpointAddedId, INFO, APIAddedCheck, DirectionNone),
}
"""
IDS = """package checker
const (
	APIRemovedWithoutDeprecationId = "api-removed-without-deprecation"
	EndpointAddedId = "endpoint-added"
)
"""
TESTS = """package checker_test

func TestRemoved(t *testing.T) {
	s1, err := open("../data/two.yaml")
	s2, err := open("../data/one.yaml")
	d, osm, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	errs := checker.CheckBackwardCompatibility(allChecksConfig(), d, osm)
	require.Equal(t, checker.APIRemovedWithoutDeprecationId, errs[0].GetId())
}

func TestAdded(t *testing.T) {
	s1, err := open("../data/one.yaml")
	s2, err := open("../data/two.yaml")
	d, osm, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	errs := checker.CheckBackwardCompatibilityUntilLevel(singleCheckConfig(checker.APIAddedCheck), d, osm, checker.INFO)
	require.Equal(t, checker.EndpointAddedId, errs[0].GetId())
}

func TestEditedInGo(t *testing.T) {
	s1, err := open("../data/one.yaml")
	s2, err := open("../data/two.yaml")
	s2.Spec.Paths.Delete("/a")
	d, osm, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	require.Empty(t, errs)
}
"""
OP = "{responses: {'200': {description: OK}}}"


@pytest.fixture
def fake_oasdiff(tmp_path: Path) -> Path:
    (tmp_path / "checker").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "checker" / "rules.go").write_text(RULES)
    (tmp_path / "checker" / "ids.go").write_text(IDS)
    (tmp_path / "checker" / "api_test.go").write_text(TESTS)
    head = "openapi: 3.1.0\ninfo: {title: t, version: 1.0.0}\npaths:\n"
    (tmp_path / "data" / "one.yaml").write_text(f"{head}  /a: {{get: {OP}}}\n")
    (tmp_path / "data" / "two.yaml").write_text(f"{head}  /a: {{get: {OP}}}\n  /b: {{get: {OP}}}\n")
    return tmp_path


def test_levels_and_pairs_are_read_from_the_go_sources(fake_oasdiff: Path) -> None:
    assert rule_levels(fake_oasdiff) == {"api-removed-without-deprecation": "ERR", "endpoint-added": "INFO"}
    found = {p.test.split(":")[1]: (p.base, p.revision, p.breaking) for p in pairs(fake_oasdiff)}
    assert found == {"TestRemoved": ("two.yaml", "one.yaml", True), "TestAdded": ("one.yaml", "two.yaml", False)}


def test_scores_detection_and_false_alarms(fake_oasdiff: Path) -> None:
    numbers = score(fake_oasdiff, load_config()).summary()
    assert numbers == {
        "breaking_pairs": 1,
        "detected": 1,
        "non_breaking_pairs": 1,
        "false_alarms": 0,
        "false_alarms_by_policy": 0,
        "false_alarms_outside_the_test": 0,
        "false_alarms_not_policy": 0,
    }


OASDIFF = Path(os.environ.get("OASDIFF", "/nonexistent"))


@pytest.mark.slow
@pytest.mark.skipif(not (OASDIFF / "checker" / "rules.go").is_file(), reason="set OASDIFF to an oasdiff checkout")
def test_the_targets_on_oasdiffs_own_pairs() -> None:
    numbers = score(OASDIFF, load_config()).summary()
    assert numbers["detected"] >= 0.95 * numbers["breaking_pairs"]
    assert numbers["false_alarms_not_policy"] <= 3

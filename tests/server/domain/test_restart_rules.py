"""Policy rules of a restart: results remembered per (condition, named fields), never confused between tasks."""

from __future__ import annotations

from typing import Any

from accessgov.domain import restart

POLICY = {
    "id": "p-1",
    "policyType": "POLICY_TYPE_GRANT",
    "rules": [
        {"condition": "task.emergencyAccess == true", "policyKey": "urgent"},
        {"condition": "task.userId.startsWith(", "policyKey": "broken"},  # does not compile: never matches
        {"condition": "size(task.data.note) > 2000", "policyKey": "long"},
    ],
    "policySteps": {
        "grant": {"steps": [{"approval": {"approverIds": ["u-1"]}}]},
        "urgent": {"steps": [{"approval": {"approverIds": ["u-2"]}}, {"provision": {}}]},
        "broken": {"steps": [{"reject": {}}]},
        "long": {"steps": [{"form": {}}]},
    },
}


def steps(**task: Any) -> list[dict[str, Any]]:
    return restart.select_steps(POLICY, {"userId": "u-9", "data": {"note": ""}, **task}, lambda _id: None)


def test_rule_results_follow_the_fields() -> None:
    for _ in range(2):  # the second round answers from what the first remembered
        assert steps(emergencyAccess=True) == POLICY["policySteps"]["urgent"]["steps"]
        assert steps(emergencyAccess=False) == POLICY["policySteps"]["grant"]["steps"]
        assert steps(emergencyAccess=1) == POLICY["policySteps"]["grant"]["steps"]  # an int is not true
        assert steps() == POLICY["policySteps"]["grant"]["steps"]


def test_large_fields_are_evaluated_each_time() -> None:
    for _ in range(2):
        assert steps(data={"note": "x" * 3000}) == POLICY["policySteps"]["long"]["steps"]
        assert steps(data={"note": "x" * 1500}) == POLICY["policySteps"]["grant"]["steps"]


def test_steps_are_copies() -> None:
    chosen = steps(emergencyAccess=True)
    chosen[0]["approval"]["approverIds"].append("u-3")
    assert POLICY["policySteps"]["urgent"]["steps"][0]["approval"]["approverIds"] == ["u-2"]

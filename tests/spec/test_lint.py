"""Each house lint rule passes on the real spec and catches a deliberately broken document."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.bundle import REPO, bundle
from scripts.lint import lint


@pytest.fixture(scope="module")
def doc() -> dict:
    return bundle(REPO / "spec/openapi.yaml")


def rules_of(doc: dict) -> set[str]:
    return {finding.rule for finding in lint(doc)}


def test_real_spec_is_clean(doc: dict) -> None:
    assert [str(f) for f in lint(doc)] == []


def test_operation_without_summary(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    del broken["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["summary"]
    assert "operation-metadata" in rules_of(broken)


def test_unused_component(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["Orphan"] = {"type": "object"}
    assert "no-unused-components" in rules_of(broken)


def test_snake_case_property(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["Task"]["properties"]["comment_count"] = {"type": "integer"}
    assert "camel-case-properties" in rules_of(broken)


def test_closed_enum_in_response(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["TaskState"] = {"type": "string", "enum": ["TASK_STATE_UNSPECIFIED"]}
    assert "open-enum" in rules_of(broken)


def test_open_enum_without_unspecified_first(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["TaskState"]["anyOf"][0]["enum"].reverse()
    assert "open-enum" in rules_of(broken)


def test_lower_case_enum_value(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["components"]["schemas"]["PolicyType"]["anyOf"][0]["enum"].append("grant")
    assert "open-enum" in rules_of(broken)


def test_array_without_items(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    del broken["components"]["schemas"]["Task"]["properties"]["approverIds"]["items"]
    assert "array-items" in rules_of(broken)


def test_error_response_without_body(doc: dict) -> None:
    broken = copy.deepcopy(doc)
    broken["paths"]["/auth/v1/token"]["post"]["responses"]["400"] = {"description": "bad"}
    assert "error-body" in rules_of(broken)


def test_broken_example_fails_make_lint_naming_the_file(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(REPO / "spec", spec)
    example = spec / "components/examples/EntitlementsFirstPage.yaml"
    example.write_text(example.read_text().replace("displayName: Admin", "displayName: 7"))
    bundle_path = tmp_path / "openapi.yaml"
    from scripts.bundle import dump_yaml

    bundle_path.write_text(dump_yaml(bundle(spec / "openapi.yaml")))
    result = subprocess.run(
        [sys.executable, "-m", "scripts.lint", str(bundle_path), "--spec-root", str(spec)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "EntitlementsFirstPage.yaml" in result.stdout
    assert "/list/0/appEntitlement/displayName" in result.stdout

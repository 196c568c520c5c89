"""The bundle is deterministic, up to date with spec/, valid OpenAPI 3.1, and keeps components as refs."""

from __future__ import annotations

import shutil
from copy import deepcopy
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from accessgov_tools.bundle import REPO, bundle, dump_json, dump_yaml, write_bundle

SPEC_ROOT = REPO / "spec" / "openapi.yaml"


@pytest.mark.slow
def test_bundling_twice_gives_identical_bytes(tmp_path: Path, spec_bundle: dict) -> None:
    first = [p.read_bytes() for p in write_bundle(deepcopy(spec_bundle), tmp_path / "a" / "openapi")]
    second = [p.read_bytes() for p in write_bundle(bundle(SPEC_ROOT), tmp_path / "b" / "openapi")]
    assert first == second


def test_committed_bundle_is_up_to_date(doc: dict) -> None:
    assert (REPO / "generated/openapi.yaml").read_text(encoding="utf-8") == dump_yaml(doc), "run `make bundle`"
    assert (REPO / "generated/openapi.json").read_text(encoding="utf-8") == dump_json(doc), "run `make bundle`"


def test_bundle_is_valid_openapi_31(doc: dict) -> None:
    assert doc["openapi"] == "3.1.0"
    validate(doc)


def test_components_stay_components(doc: dict) -> None:
    task = doc["components"]["schemas"]["Task"]
    assert task["properties"]["state"] == {"$ref": "#/components/schemas/TaskState"}
    restart = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]
    assert restart["responses"]["404"] == {"$ref": "#/components/responses/NotFound"}
    assert "$ref" not in yaml.safe_dump(doc).replace("$ref: '#/components/", "")


def test_every_component_file_is_registered_in_the_root() -> None:
    root = yaml.safe_load(SPEC_ROOT.read_text(encoding="utf-8"))
    registered = {
        (SPEC_ROOT.parent / entry["$ref"]).resolve()
        for entries in root["components"].values()
        for entry in entries.values()
    }
    on_disk = {p.resolve() for p in (REPO / "spec/components").rglob("*.yaml")}
    assert on_disk - registered == set(), "component files missing from spec/openapi.yaml"


def test_a_broken_reference_fails_bundling(tmp_path: Path) -> None:
    copy = tmp_path / "spec"
    shutil.copytree(REPO / "spec", copy)
    task = copy / "components/schemas/Task.yaml"
    task.write_text(task.read_text().replace("./TaskState.yaml", "./NoSuchSchema.yaml"))
    with pytest.raises(Exception, match="NoSuchSchema"):
        bundle(copy / "openapi.yaml")

"""The drift check (`python -m accessgov_tools.check_generated`) and the determinism of `accessgov_tools.generate`."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

from accessgov_tools import check_generated
from accessgov_tools.generate import REPO, GenerationError, at_most_one_members, client_document, generate, load_inputs
from tests.support.bundle import bundle

pytestmark = pytest.mark.slow


def snapshot(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every generated file below `root`."""
    return {
        str(relative): hashlib.sha256((root / relative).read_bytes()).hexdigest()
        for relative in check_generated.files_under(root)
    }


def test_drift_check_passes_on_the_committed_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_generated.main(["--full"]) == 0, capsys.readouterr()
    assert "up to date" in capsys.readouterr().out


def test_drift_check_fails_with_a_diff_when_a_schema_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(REPO / "spec", spec)
    schema_file = spec / "components" / "schemas" / "AppEntitlement.yaml"
    schema = yaml.safe_load(schema_file.read_text(encoding="utf-8"))
    schema["properties"]["riskLevel"] = {"type": "string", "description": "How risky granting it is."}
    schema_file.write_text(yaml.safe_dump(schema, sort_keys=False), encoding="utf-8")

    # The diff is what this test is about: the clean-environment imports and tsc (over half the check's cost) are
    # held by test_drift_check_passes_on_the_committed_output and by test_formats.py, and they could only add
    # problems to an exit status that is 1 already.
    assert check_generated.main(["--spec-root", str(spec), "--no-client-checks"]) == 1
    captured = capsys.readouterr()
    for changed in (
        "openapi.yaml",
        "openapi.json",
        "models/__init__.py",
        "client/accessgov_client/models/app_entitlement.py",
    ):
        assert f"+++ generated/{changed} (regenerated)" in captured.out
    added = [line for line in captured.out.splitlines() if line.startswith("+")]
    assert "+    risk_level: Annotated[" in added  # the model gains a python-named field ...
    assert any('Field(alias="riskLevel"' in line for line in added)  # ... with the spec's name as alias
    assert "+        riskLevel:" in captured.out
    assert "out of date" in captured.err


def test_regenerating_gives_identical_bytes(tmp_path: Path) -> None:
    # One generation, over a copy of the committed output (models/ and client/ already there, as `make generate`
    # finds them), against the committed bytes: test_drift_check_passes_on_the_committed_output holds those to be
    # what a fresh generation into an empty directory gives, so two generations give the same bytes.
    committed = snapshot(REPO / "generated")
    artefacts = shutil.ignore_patterns(*check_generated.IGNORED_PARTS, "*.egg-info", "*.pyc")
    shutil.copytree(REPO / "generated", tmp_path, dirs_exist_ok=True, ignore=artefacts)
    assert snapshot(tmp_path) == committed
    (tmp_path / "models" / "stale.py").write_text("x = 1\n")  # gone once the tree is written again
    generate(tmp_path, log=lambda _: None)
    assert not (tmp_path / "models" / "stale.py").exists()
    regenerated = snapshot(tmp_path)
    assert regenerated == committed, sorted(
        path for path in set(regenerated) | set(committed) if regenerated.get(path) != committed.get(path)
    )
    assert {"models/__init__.py", "client/setup.py", "client/accessgov_client/client.py"} <= set(regenerated)
    caches = [path for name in (".ruff_cache", "__pycache__") for path in tmp_path.rglob(name)]
    assert not caches, caches


def test_stale_files_in_the_generated_trees_are_reported(tmp_path: Path) -> None:
    fresh, committed = tmp_path / "fresh", tmp_path / "committed"
    for root in (fresh, committed):
        (root / "models").mkdir(parents=True)
        (root / "models" / "__init__.py").write_text("x = 1\n")
    (committed / "models" / "old.py").write_text("y = 2\n")
    (committed / "models" / "__pycache__").mkdir()
    (committed / "models" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    differences = check_generated.compare([Path("models/__init__.py")], fresh, committed)
    assert [str(path) for path, _ in differences] == ["models/old.py"]
    assert "-y = 2" in differences[0][1]


def test_diffs_are_truncated_per_file() -> None:
    diff = check_generated.file_diff(Path("models/__init__.py"), b"", "".join(f"{i}\n" for i in range(500)).encode())
    assert len(diff.splitlines()) == check_generated.MAX_DIFF_LINES + 1
    assert diff.rstrip().endswith("more diff lines for generated/models/__init__.py")


def test_client_input_drops_only_the_required_only_union_constraints() -> None:
    relaxed, changed = client_document(bundle())
    assert set(changed) == {
        "BoolField",
        "Field",
        "FieldRelationship",
        "PolicyStep",
        "PolicyStepInstance",
        "StringField",
        "StringSliceField",
        "TaskType",
        "TaskTypeAction",
    }
    schemas = relaxed["components"]["schemas"]
    for name in ("TaskType", "Field", "TaskTypeAction"):
        assert not {"oneOf", "allOf", "not"} & set(schemas[name]), name
    for name, schema in schemas.items():  # nothing else changes (open enums keep their anyOf, for one)
        dropped = {"oneOf", "allOf", "not"} if name in changed else set()
        original = {k: v for k, v in bundle()["components"]["schemas"][name].items() if k not in dropped}
        assert schema == original, name


def test_an_unsupported_not_is_refused() -> None:
    with pytest.raises(GenerationError, match="unsupported `not`"):
        at_most_one_members("X", {"not": {"required": ["a"]}})
    with pytest.raises(GenerationError, match="every pair"):
        at_most_one_members("X", {"not": {"anyOf": [{"required": ["a", "b"]}, {"required": ["a", "c"]}]}})
    assert at_most_one_members("X", {"type": "object"}) is None


def test_client_comes_from_the_bundle_when_there_is_no_sdk_variant(tmp_path: Path) -> None:
    for name in ("openapi.json", "openapi.yaml"):
        shutil.copyfile(REPO / "generated" / name, tmp_path / name)
    inputs = load_inputs(tmp_path)
    assert inputs.client_source == tmp_path / "openapi.yaml" and inputs.client_document == inputs.bundle
    (tmp_path / "variants").mkdir()
    shutil.copyfile(REPO / "generated" / "openapi.yaml", tmp_path / "variants" / "sdk.yaml")
    assert load_inputs(tmp_path).client_source == tmp_path / "variants" / "sdk.yaml"

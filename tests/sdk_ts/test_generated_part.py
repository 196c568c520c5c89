"""The TypeScript SDK's generated part as the tools handle it (tools/accessgov_tools/generate_ts.py) and the SDKs'
versions (release/sdk_versions.py): in process, no Node."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from accessgov_tools import check_generated, generate_ts
from accessgov_tools.release import sdk_versions
from accessgov_tools.release.versions import pep440
from tests.sdk_ts.harness import REPO, SDK

SCHEMA_TS = """export type components = {
    schemas: {
        /** Task */
        Task: {
            id?: string;
            state?: components["schemas"]["TaskState"];
        };
        "Odd-Name": {
            x?: number;
        };
        TaskState: "A" | (string & {});
    };
    responses: never;
};
"""


def test_a_line_of_schema_ts_is_placed_in_its_schema() -> None:
    lines = SCHEMA_TS.splitlines()
    assert (
        generate_ts.schema_at(SCHEMA_TS, lines.index('            state?: components["schemas"]["TaskState"];') + 1)
        == "Task"
    )
    assert generate_ts.schema_at(SCHEMA_TS, lines.index("            x?: number;") + 1) == "Odd-Name"
    assert generate_ts.schema_at(SCHEMA_TS, lines.index('        TaskState: "A" | (string & {});') + 1) == "TaskState"
    assert generate_ts.schema_at(SCHEMA_TS, 1) is None
    assert generate_ts.schema_at(SCHEMA_TS, lines.index("    responses: never;") + 1) is None


def test_the_package_files_are_written_as_npm_writes_them(tmp_path: Path) -> None:
    for name in generate_ts.PACKAGE_FILES:
        shutil.copyfile(SDK / name, tmp_path / name)
    version = json.loads((SDK / "package.json").read_text(encoding="utf-8"))["version"]
    assert generate_ts.package_files(version, tmp_path) == {
        name: (SDK / name).read_text(encoding="utf-8") for name in generate_ts.PACKAGE_FILES
    }
    assert generate_ts.write_package_version(version, tmp_path) == []
    changed = generate_ts.write_package_version("0.2.0-beta.1", tmp_path)
    assert sorted(path.name for path in changed) == ["package-lock.json", "package.json"]
    lock = json.loads((tmp_path / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == "0.2.0-beta.1"


def test_the_typescript_comparison_reports_changed_stale_and_version_drift(tmp_path: Path) -> None:
    committed = tmp_path / "sdk-ts"
    (committed / "src" / "generated").mkdir(parents=True)
    for name in generate_ts.PACKAGE_FILES:
        shutil.copyfile(SDK / name, committed / name)
    (committed / "src" / "generated" / "schema.ts").write_text("export type A = 1;\n")
    (committed / "src" / "generated" / "old.ts").write_text("export {};\n")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "schema.ts").write_text("export type A = 2;\n")
    differences = check_generated.compare_typescript(fresh, committed, "9.9.9")
    shown = {path.as_posix(): diff for path, diff in differences}
    assert set(shown) == {
        "sdk-ts/src/generated/schema.ts",
        "sdk-ts/src/generated/old.ts",
        "sdk-ts/package.json",
        "sdk-ts/package-lock.json",
    }
    assert "+++ sdk-ts/src/generated/schema.ts (regenerated)" in shown["sdk-ts/src/generated/schema.ts"]
    assert '+  "version": "9.9.9",' in shown["sdk-ts/package.json"]


def test_the_committed_sdks_carry_the_contracts_version() -> None:
    contract = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))["info"]["version"]
    ok, lines = sdk_versions.report(contract)
    assert ok, lines
    assert lines == [f"SDKs: accessgov-client {pep440(contract)}, @accessgov/client {contract}: the contract's version"]


def test_an_sdk_with_another_version_fails_naming_its_file(tmp_path: Path) -> None:
    (tmp_path / "generated" / "client").mkdir(parents=True)
    shutil.copyfile(
        REPO / "generated" / "client" / "pyproject.toml", tmp_path / "generated" / "client" / "pyproject.toml"
    )
    (tmp_path / "sdk-ts").mkdir()
    for name in generate_ts.PACKAGE_FILES:
        shutil.copyfile(SDK / name, tmp_path / "sdk-ts" / name)
    ok, lines = sdk_versions.report("0.2.0", tmp_path)
    assert not ok
    assert [line.split(" says ")[0] for line in lines] == [
        "FAIL: generated/client/pyproject.toml",
        "FAIL: sdk-ts/package.json",
        "FAIL: sdk-ts/package-lock.json",
    ]
    assert all(line.endswith("run make generate") for line in lines)
    assert "makes it 0.2.0" in lines[0] and "accessgov-client 0.1.0a0" in lines[0]

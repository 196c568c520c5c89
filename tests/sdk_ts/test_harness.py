"""The TypeScript tests' harness (tests/sdk_ts/harness.py) on its own: in process, no Node."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.sdk_ts.harness import SDK, installed_from_lockfile


def _package(tmp_path: Path) -> Path:
    """A package whose node_modules npm ci installed from its lockfile (npm's record of it, without the files)."""
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(SDK / name, tmp_path / name)
    lock = json.loads((SDK / "package-lock.json").read_text(encoding="utf-8"))
    record = {key: value for key, value in lock.items() if key != "packages"}
    record["packages"] = {path: entry for path, entry in lock["packages"].items() if path}
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / ".package-lock.json").write_text(json.dumps(record), encoding="utf-8")
    return tmp_path


def test_node_modules_installed_from_the_lockfile_as_it_is_is_reused(tmp_path: Path) -> None:
    assert installed_from_lockfile(_package(tmp_path))


def test_node_modules_missing_or_of_another_lockfile_is_installed_again(tmp_path: Path) -> None:
    package = _package(tmp_path)
    record_path = package / "node_modules" / ".package-lock.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["packages"]["node_modules/typescript"]["version"] = "0.0.1"
    record_path.write_text(json.dumps(record), encoding="utf-8")
    assert not installed_from_lockfile(package)
    record_path.unlink()
    assert not installed_from_lockfile(package)


def test_a_lockfile_out_of_step_with_package_json_is_installed_again(tmp_path: Path) -> None:
    package = _package(tmp_path)
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    manifest["devDependencies"]["typescript"] = "5.0.0"
    (package / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert not installed_from_lockfile(package)  # npm ci would refuse it: the copy's npm ci says so

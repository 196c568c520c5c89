"""`make sdk-deps-check`: tests/sdk against the SDK's lowest and newest allowed dependency versions.

Each run makes a fresh venv and installs the SDK there, at the lower bounds of its ranges (a pip constraints
file of `name==lowest`, also handed to the README test's own venv through PIP_CONSTRAINT) or at the newest
versions the ranges allow. tests/sdk also starts the reference server in process, so the project venv's
site-packages are appended to the new venv's path (a `.pth` written after the install): the server and pytest
come from there, while the SDK's dependencies resolve to the new venv's copies first.

The file name keeps it out of `make test` (pytest collects it only when named): it takes minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from accessgov_tools.release.sdk_deps import lower_bounds, requirements

REPO = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPO / "generated" / "client"
VERSIONS = """
import importlib.metadata as m, json, sys
names = json.loads(sys.argv[1])
print(json.dumps({n: [m.version(n), str(m.distribution(n).locate_file(''))] for n in names}))
"""


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def _venv(root: Path, constraints: Path | None) -> Path:
    """A venv with the SDK installed (at the lower bounds when `constraints`), then the project's packages behind it."""
    source = root / "client"
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    _run([sys.executable, "-m", "venv", str(root / "venv")], root)
    python = root / "venv" / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, *(["--constraint", str(constraints)] if constraints else []), str(source)], root)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root).strip())
    project_site = sysconfig.get_paths()["purelib"]
    (site / "zz_project_venv.pth").write_text(f"import site; site.addsitedir({project_site!r})\n", encoding="utf-8")
    return python


@pytest.mark.slow
@pytest.mark.parametrize("end", ["lowest", "newest"])
def test_sdk_tests_pass_at_each_end_of_the_dependency_ranges(end: str, tmp_path: Path) -> None:
    constraints = None
    if end == "lowest":
        constraints = tmp_path / "lower-bounds.txt"
        constraints.write_text("\n".join(lower_bounds()) + "\n", encoding="utf-8")
    python = _venv(tmp_path, constraints)
    ranges = {r.name: r for r in requirements()}
    installed = json.loads(_run([str(python), "-c", VERSIONS, json.dumps(sorted(ranges))], tmp_path))
    for name, (version, location) in installed.items():
        assert location.startswith(str(tmp_path / "venv")), f"{name} resolved outside the new venv: {location}"
        assert Requirement(str(ranges[name])).specifier.contains(version, prereleases=True), (name, version)
        if constraints is not None:
            assert f"{name}=={version}" in lower_bounds(), (name, version)
    env = {**os.environ, "PIP_CONSTRAINT": str(constraints)} if constraints else dict(os.environ)
    env.pop("PYTHONPATH", None)
    _run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/sdk"], REPO, env, timeout=1500)

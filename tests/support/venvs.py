"""Fresh virtual environments for the tests that prove a package installs alone (the server, the SDK, the kit).

The environment is made without pip (`ensurepip` costs seconds per environment and is not what is tested) and
filled by the test session's own pip through `pip --python`, which installs into the target interpreter's
environment as that environment's pip would (pip >= 22.3). Only the package under test and its dependencies
end up in it; pip's shared cache is used as usual.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def server_sources(into: Path) -> Path:
    """A copy of the server's project (`accessgov/`, `generated/` it maps its documents from, `pyproject.toml`,
    the README) at `into`, without caches or build leftovers: what `pip install .` or `pip wheel .` reads."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for part in ("accessgov", "generated"):
        shutil.copytree(REPO / part, into / part, ignore=ignore)
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / part, into / part)
    return into


def new_venv(path: Path) -> Path:
    """Create an empty virtual environment at `path` (no pip, no setuptools); return its interpreter."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(path)
    return path / "bin" / "python"


def pip(python: Path, *args: str | Path, cwd: Path, timeout: float = 900) -> str:
    """Run pip for the environment of `python` (`pip --python PYTHON ARGS`) and return its output; fail the test
    with pip's output when it fails."""
    command = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", *map(str, args)]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout

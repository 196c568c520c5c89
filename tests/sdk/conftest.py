"""The SDK's test session: the reference server with the demo tenant, the client package importable from
`generated/client`, and (for the README snippets) a clean virtual environment with only the client installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import seeded_server

REPO = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPO / "generated" / "client"
if str(CLIENT_DIR) not in sys.path:
    sys.path.insert(0, str(CLIENT_DIR))


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the reference server (fresh SQLite database, demo tenant) on a free loopback port."""
    with seeded_server(tmp_path_factory.mktemp("sdk-server")) as (base_url, _config, _sessions):
        yield base_url


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def sdk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a new virtual environment where `pip install ./generated/client` is the only install.

    Uses pip's shared cache; a build or install failure fails the tests that need it (no skip).
    """
    root = tmp_path_factory.mktemp("sdk-venv")
    source = root / "client"
    # Install from a copy: an in-tree setuptools build leaves build/ and *.egg-info/ beside the sources.
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], root)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(source)], root)
    return python

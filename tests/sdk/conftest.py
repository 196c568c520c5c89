"""The SDK's test session: the reference server with the demo tenant, the client package importable from
`generated/client`, and (for the README snippets) a clean virtual environment with only the client installed."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.harness import seeded_server
from tests.support.venvs import new_venv, pip

REPO = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPO / "generated" / "client"
if str(CLIENT_DIR) not in sys.path:
    sys.path.insert(0, str(CLIENT_DIR))


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the reference server (fresh SQLite database, demo tenant) on a free loopback port."""
    with seeded_server(tmp_path_factory.mktemp("sdk-server")) as (base_url, _config, _sessions):
        yield base_url


@pytest.fixture(scope="session")
def sdk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a new virtual environment where `pip install ./generated/client` is the only install.

    Made without pip and filled by the session's pip (tests/support/venvs.py), which uses pip's shared cache; a
    build or install failure fails the tests that need it (no skip). The snippets' processes compile what they
    import, so the install does not byte-compile.
    """
    root = tmp_path_factory.mktemp("sdk-venv")
    source = root / "client"
    # Install from a copy: an in-tree setuptools build leaves build/ and *.egg-info/ beside the sources.
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    python = new_venv(root / "venv")
    pip(python, "install", "--quiet", "--no-compile", source, cwd=root)
    return python

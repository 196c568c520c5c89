"""The SDK's test session: the reference server with the demo tenant, the client package importable from
`generated/client`, and (for the README snippets) the Python of a clean virtual environment with only the client
installed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.harness import seeded_server
from tests.support.venvs import ProductVenv

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
def sdk_python(sdk_venv: ProductVenv) -> Path:
    """The Python of the SDK's clean virtual environment (tests/support/venvs.py): the client's wheel is the only
    install; a build or install failure fails the tests that need it (no skip)."""
    return sdk_venv.python

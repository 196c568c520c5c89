"""Session-wide setup: the test lanes, and a private key file for the keyring that seals signing secrets.

Lanes: `make test-fast` runs what is not marked `slow` or `postgres`; `make test` runs everything. Whole
directories whose tests start processes, browsers or npm are marked `slow` here (`SLOW_DIRECTORIES`), and every
test that reaches the PostgreSQL fixture is marked `postgres`, so a test needs a marker of its own only when it
is the exception in its directory. Under pytest-xdist, tests of one `xdist_group` run in one worker
(`make test` passes `--dist loadgroup`).

The key file is set before any test runs, so in-process servers, the CLI and every `accessgov serve` process the
tests start (they inherit the environment; so do xdist's workers) share one key file in a temporary directory,
never `./data/secret.keys`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

_created: list[str] = []

TESTS = Path(__file__).resolve().parent
# Every test under these starts a server process, a fresh virtualenv, Schemathesis or hypothesis runs over HTTP,
# a browser or npm: the full lane only.
SLOW_DIRECTORIES = frozenset({"bench", "contract", "property", "sdk", "server"})
# Fixtures whose use means a PostgreSQL server (tests/storage/conftest.py).
POSTGRES_FIXTURES = frozenset({"postgres_admin"})


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("ACCESSGOV_SECRET_KEY") and not os.environ.get("ACCESSGOV_SECRET_KEY_FILE"):
        directory = tempfile.mkdtemp(prefix="accessgov-keys-")
        _created.append(directory)
        os.environ["ACCESSGOV_SECRET_KEY_FILE"] = os.path.join(directory, "secret.keys")


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _created:
        shutil.rmtree(directory, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of `SLOW_DIRECTORIES` `slow` and those that reach PostgreSQL `postgres`."""
    for item in items:
        relative = Path(str(item.path)).resolve().relative_to(TESTS)
        if relative.parts[0] in SLOW_DIRECTORIES:
            item.add_marker(pytest.mark.slow)
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)

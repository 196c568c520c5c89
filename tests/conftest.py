"""Session-wide setup: the test lanes, and a private key file for the keyring that seals signing secrets.

Lanes: `make test-fast` runs what is not marked `slow` or `postgres`; `make test` runs everything. Each test file
that starts processes, servers, virtualenvs, browsers or npm marks itself `slow` (`pytestmark = pytest.mark.slow`;
a single slow test of a fast file carries `@pytest.mark.slow`: docs/testing.md), and every test that reaches the
PostgreSQL fixture is marked `postgres` here. Under pytest-xdist, tests of one `xdist_group` run in one worker
(`make test` passes `--dist loadgroup`).

The key file is set before any test runs, so in-process servers, the CLI and every `accessgov serve` process the
tests start (they inherit the environment; so do xdist's workers) share one key file in a temporary directory,
never `./data/secret.keys`.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Fixtures shared by suites of several folders (pytest reads `pytest_plugins` only here, in the root conftest).
pytest_plugins = ["tests.support.postgres", "tests.support.venvs", "tests.support.costs"]

_created: list[str] = []

# Fixtures whose use means a PostgreSQL server (tests/support/postgres.py).
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
    """Mark the tests that reach PostgreSQL `postgres`, and run the files holding slow tests first.

    Under xdist the groups go out first, then single tests in this order: a slow file left to the end of the
    collection (tests/tools/ sorts last) would run alone on one worker while the others sit idle; the fast tests
    fill the workers' last minutes instead. A file moves whole, so its module fixtures are made once per worker."""
    for item in items:
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)

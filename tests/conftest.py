"""Session-wide setup: a private key file for the keyring that seals signing secrets (`accessgov.keys`).

Set before any test runs, so in-process servers, the CLI and every `accessgov serve` process the tests start
(they inherit the environment) share one key file in a temporary directory, never `./data/secret.keys`.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_created: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("ACCESSGOV_SECRET_KEY") and not os.environ.get("ACCESSGOV_SECRET_KEY_FILE"):
        directory = tempfile.mkdtemp(prefix="accessgov-keys-")
        _created.append(directory)
        os.environ["ACCESSGOV_SECRET_KEY_FILE"] = os.path.join(directory, "secret.keys")


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _created:
        shutil.rmtree(directory, ignore_errors=True)

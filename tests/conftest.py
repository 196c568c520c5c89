"""Session-wide setup: a private key file for the keyring that seals signing secrets (`accessgov.keys`).

Set before any test runs, so in-process servers, the CLI and every `accessgov serve` process the tests start
(they inherit the environment) share one key file in a temporary directory, never `./data/secret.keys`. And
`count_loop_lookups`, for the tests of code that spares `asyncio.get_running_loop()` (a system call on 3.11).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from collections.abc import Callable

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


@pytest.fixture
def count_loop_lookups(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[int]]:
    """Call it inside the event loop (`asyncio.run` looks the loop up itself): from then on every
    `asyncio.get_running_loop()` of this thread adds to the list it returns. Other threads are not counted: other
    tests' servers may still be running in threads."""

    def start() -> list[int]:
        lookups: list[int] = []
        real, test_thread = asyncio.get_running_loop, threading.get_ident()

        def counted() -> asyncio.AbstractEventLoop:
            if threading.get_ident() == test_thread:
                lookups.append(1)
            return real()

        monkeypatch.setattr(asyncio, "get_running_loop", counted)
        return lookups

    return start

"""A seeded reference server on a free loopback port for the contract tests (fresh SQLite database)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import seeded_server


@pytest.fixture(scope="session")
def contract_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with seeded_server(tmp_path_factory.mktemp("contract-data")) as (base_url, _config, _sessions):
        yield base_url

"""A seeded reference server on a free loopback port for the contract tests (fresh SQLite database)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accessgov.service.app import create_app
from accessgov.service.config import ServerConfig
from accessgov.service.seed import seed_demo
from accessgov.storage.engine import create_engine, migrate, session_factory
from tests.harness import serve


@pytest.fixture(scope="session")
def contract_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("contract-data")
    config = ServerConfig(database_url=f"sqlite:///{data / 'accessgov.db'}")
    engine = create_engine(config.database_url)
    migrate(engine)
    with session_factory(engine).begin() as session:
        seed_demo(session)
    with serve(create_app(config)) as base_url:
        yield base_url
    engine.dispose()

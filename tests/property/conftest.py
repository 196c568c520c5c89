"""One seeded reference server per database backend for the whole session (SQLite file; fresh PostgreSQL schema,
failing rather than skipping under CI=true when PostgreSQL is absent)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from accessgov.app import create_app
from accessgov.config import ServerConfig
from accessgov.demo.seed import seed_demo
from accessgov.storage.engine import create_engine, migrate, session_factory
from tests.harness import NO_FAILURE_LIMITS, serve
from tests.storage.conftest import BACKENDS, fresh_schema, postgres_admin

__all__ = ["postgres_admin"]  # the fixture, for the PostgreSQL backend


@dataclass
class Served:
    base_url: str
    sessions: sessionmaker[Session]


def _serve(url: str) -> Iterator[Served]:
    engine = create_engine(url)
    try:
        migrate(engine)
        sessions = session_factory(engine)
        with sessions.begin() as session:
            seed_demo(session)
        with serve(create_app(ServerConfig(database_url=url, **NO_FAILURE_LIMITS))) as base_url:
            yield Served(base_url, sessions)
    finally:
        engine.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if request.param == "sqlite":
        data: Path = tmp_path_factory.mktemp("property-db")
        yield from _serve(f"sqlite:///{data / 'accessgov.db'}")
        return
    with fresh_schema(request.getfixturevalue("postgres_admin"), prefix="p") as url:
        yield from _serve(url)

"""Fixtures of the storage suite: every test that takes `db_url` (or `engine`, `sessions`) runs once on a
fresh SQLite file and once on a fresh PostgreSQL schema (dropped afterwards; tests/support/postgres.py says where
PostgreSQL is and when its runs are skipped).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import listeners, tasks
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import alembic_config, migrate, session_factory
from accessgov.storage.schema import Listener
from accessgov.storage.statement_steps import drive
from tests.support.harness import copy_sqlite, sqlite_template
from tests.support.postgres import BACKENDS, fresh_schema

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HMAC_SECRET = "whsec_" + "k" * 32

MakeListener = Callable[..., Listener]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of an empty database of the parametrized backend, private to this test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'accessgov.db'}"
        return
    with fresh_schema(request.getfixturevalue("postgres_admin")) as url:
        yield url


@functools.cache
def _migrated_sqlite_template() -> Path:
    """An empty SQLite database at the newest revision, made once per test process: a migration costs ~0.1 s of
    CPU, copying its file well under a millisecond."""
    return sqlite_template("accessgov-migrated-")


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """A migrated engine on the test's database (SQLite: a copy of the migrated template)."""
    if db_url.startswith("sqlite:///"):
        copy_sqlite(_migrated_sqlite_template(), Path(db_url.removeprefix("sqlite:///")))
    engine = create_engine(db_url)
    migrate(engine)  # a no-op on the copy
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine: Engine) -> sessionmaker[Session]:
    return session_factory(engine)


@pytest.fixture
def make_listener(sessions: sessionmaker[Session]) -> MakeListener:
    """Create committed HMAC listeners: `make_listener(**overrides) -> Listener`."""

    def make(**overrides: object) -> Listener:
        values: dict[str, object] = {
            "auth_method": "HMAC",
            "hmac_secret": HMAC_SECRET,
            "automation_name": "echo",
            "automation_steps": [{"name": "echo", "expression": "ctx.trigger"}],
            "now": NOW,
        }
        values.update(overrides)
        with sessions.begin() as session:
            return listeners.create_listener(session, **values)  # type: ignore[arg-type]

    return make


class DrivenTaskWrites:
    """`tasks.TaskWrites` with each call run at once on a session's transaction (as a writer thread runs them)."""

    def __init__(self, session: Session) -> None:
        connection = session.connection()
        self.steps = tasks.TaskWrites(connection.dialect)
        self._driver = connection.connection.driver_connection

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.steps, name)

        def driven(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            return drive(result, self._driver) if isinstance(result, Generator) else result

        return driven


def plaintext_database(engine: Engine) -> None:
    """The database as revision 0003 left it: listener `wh_old`'s secret `plain-old-secret` and the page-token
    secret `ab` * 32 in plaintext, for the migration that seals them."""
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0003")
        connection.exec_driver_sql(
            "INSERT INTO listeners (id, auth_method, hmac_secret, allowed_cidrs, automation_id, automation_name,"
            " automation_steps, automation_published, trigger_enabled, created_at, updated_at) VALUES"
            " ('wh_old', 'HMAC', 'plain-old-secret', '[]', 'a1', 'old', '[]', true, true,"
            " '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00')"
        )
        connection.exec_driver_sql(f"INSERT INTO settings (key, value) VALUES ('page_token_secret', '{'ab' * 32}')")

"""Fixtures of the storage suite: every test that takes `db_url` (or `engine`, `sessions`) runs once on a
fresh SQLite file and once on a fresh PostgreSQL schema (dropped afterwards).

PostgreSQL is `TEST_POSTGRES_URL` (default: the local `test` database). When it cannot be reached the
PostgreSQL runs are skipped, except under `CI=true`, where they fail: CI must not go green untested.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import listeners, tasks
from accessgov.storage.engine import create_engine, migrate, normalize_database_url, session_factory
from accessgov.storage.schema import Listener
from accessgov.storage.statement_steps import drive
from tests.harness import copy_sqlite, sqlite_template

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HMAC_SECRET = "whsec_" + "k" * 32

MakeListener = Callable[..., Listener]

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def postgres_url() -> str:
    return normalize_database_url(os.environ.get("TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An engine on the PostgreSQL test database, checked once per session."""
    url = postgres_url()
    engine = sa.create_engine(url, poolclass=sa.NullPool, connect_args={"connect_timeout": 3})
    problem = None
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except OperationalError as error:
        problem = str(error.orig or error).splitlines()[0]
    if problem is not None:  # outside the except block, so the report is not a chained traceback
        engine.dispose()
        message = f"PostgreSQL at {sa.make_url(url)!r} is unreachable: {problem}"
        if in_ci():
            pytest.fail(f"{message} (CI=true: the PostgreSQL runs must not be skipped)", pytrace=False)
        pytest.skip(message)
    yield engine
    engine.dispose()


def schema_url(base_url: str, schema: str) -> str:
    """`base_url` with every connection's search_path set to `schema` only."""
    url = sa.make_url(base_url).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of an empty database of the parametrized backend, private to this test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'accessgov.db'}"
        return
    with fresh_schema(request.getfixturevalue("postgres_admin")) as url:
        yield url


@contextlib.contextmanager
def fresh_schema(admin: Engine, base_url: str | None = None, prefix: str = "t") -> Iterator[str]:
    """The URL of a new, empty PostgreSQL schema (on `base_url`, the test server by default), dropped afterwards."""
    schema = f"{prefix}_{secrets.token_hex(8)}"
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield schema_url(base_url or postgres_url(), schema)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')


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

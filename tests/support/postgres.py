"""PostgreSQL for the tests that run on it: the `postgres_admin` fixture (a plugin of tests/conftest.py, so every
suite reaches it) and fresh schemas, dropped afterwards.

PostgreSQL is `TEST_POSTGRES_URL` (default: the local `test` database). When it cannot be reached the PostgreSQL
runs are skipped, except under `CI=true`, where they fail: CI must not go green untested.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from accessgov.storage.engine import normalize_database_url

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"

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

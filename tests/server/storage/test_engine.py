"""Database URL from the environment, engine configuration, UTC datetimes, shared settings."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import Settings
from accessgov.storage import page_keys, settings
from accessgov.storage.backends import create_engine
from accessgov.storage.schema import Task
from tests.support.postgres import postgres_url

PRAGMAS = {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 5000}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgres://u:p@db:5432/app", "postgresql+psycopg://u:p@db:5432/app"),
        ("postgresql://u@db/app?sslmode=require", "postgresql+psycopg://u@db/app?sslmode=require"),
        ("postgresql+psycopg://u@db/app", "postgresql+psycopg://u@db/app"),
        ("sqlite:////srv/x.db", "sqlite:////srv/x.db"),
    ],
)
def test_the_database_url_is_normalised_for_postgres(
    given: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings.validated({"DATABASE_URL": given}).database == expected
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("env", [{}, {"DATABASE_URL": ""}, {"DATABASE_URL": "  "}])
def test_the_database_defaults_to_sqlite_in_data_under_the_working_directory(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings.validated(env).database == f"sqlite:///{tmp_path.resolve()}/data/accessgov.db"
    assert (tmp_path / "data").is_dir()


def test_sqlite_connections_are_configured(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.connect() as connection:
            values = {name: connection.exec_driver_sql(f"PRAGMA {name}").scalar() for name in PRAGMAS}
        assert values == PRAGMAS
    finally:
        engine.dispose()


def test_sqlite_transactions_take_the_write_lock_at_begin(tmp_path: Path) -> None:
    """BEGIN IMMEDIATE: a second transaction cannot even start (to read) while one is open."""
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        with engine.connect() as first, engine.connect() as second:
            first.exec_driver_sql("SELECT count(*) FROM t").scalar()  # begins the transaction
            # On the driver connection: through SQLAlchemy this statement would itself begin (and wait).
            second.connection.driver_connection.execute("PRAGMA busy_timeout = 100")
            with pytest.raises(sa.exc.OperationalError, match="locked"):
                second.exec_driver_sql("SELECT count(*) FROM t")
    finally:
        engine.dispose()


def test_datetimes_are_stored_and_returned_in_utc(sessions: sessionmaker[Session]) -> None:
    plus_two = timezone(timedelta(hours=2))
    written = datetime(2026, 5, 1, 14, 30, tzinfo=plus_two)
    with sessions.begin() as session:
        session.add(Task(id="t1", numeric_id=1, document={}, updated_at=written))
    with sessions() as session:
        stored = session.scalars(sa.select(Task.updated_at)).one()
    assert stored == written
    assert stored.tzinfo is not None and stored.utcoffset() == timedelta(0)
    assert (stored.hour, stored.minute) == (12, 30)


def test_naive_datetimes_are_rejected(sessions: sessionmaker[Session]) -> None:
    with sessions() as session, pytest.raises(StatementError, match="naive datetime"):
        session.add(Task(id="t1", numeric_id=1, document={}, updated_at=datetime(2026, 5, 1)))
        session.flush()


def test_generated_page_token_key_is_created_once_and_shared(engine: Engine, sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        first = page_keys.load_or_create(session)
    with sessions.begin() as session:
        again = page_keys.load_or_create(session)
    assert len(first.current) == 32
    assert again == first
    with sessions() as session:
        stored = settings.get_setting(session, "page_token_keys")
    assert stored is not None and first.current.hex() not in stored  # sealed, not plaintext
    with sessions.begin() as session:
        settings.set_setting(session, "greeting", "hello")
    with sessions() as session:
        assert settings.get_setting(session, "greeting") == "hello"
        assert settings.get_setting(session, "missing") is None


@pytest.mark.postgres
def test_postgres_pings_only_connections_that_sat_idle(postgres_admin: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection in use moments ago goes straight to work (no ping round trip per transaction); one idle for
    longer than the threshold is pinged, and when the server dropped it meanwhile it is replaced unseen."""
    from accessgov.storage import postgres

    monkeypatch.setattr(postgres, "PING_AFTER_IDLE_SECONDS", 0.2)
    engine = create_engine(postgres_url(), pool_size=1, max_overflow=0)
    pings: list[object] = []
    real_ping = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda connection: pings.append(connection) or real_ping(connection))
    try:
        with engine.connect() as connection:
            first_pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        for _ in range(3):  # back to back: never pinged
            with engine.connect() as connection:
                assert connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() == first_pid
        assert pings == []

        time.sleep(0.3)
        with engine.connect() as connection:  # idle past the threshold: pinged, still the same connection
            assert connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() == first_pid
        assert len(pings) == 1

        with postgres_admin.connect() as admin:  # the server drops the pooled connection while it is idle
            admin.exec_driver_sql(f"SELECT pg_terminate_backend({first_pid})")
        time.sleep(0.3)
        with engine.connect() as connection:  # the failed ping swaps in a new connection before any statement
            assert connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() != first_pid
        assert len(pings) == 2
    finally:
        engine.dispose()

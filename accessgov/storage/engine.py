"""Engines for SQLite (default) and PostgreSQL, programmatic Alembic migrations, session factories."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, CursorResult, Engine, Result
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import DEFAULTS
from accessgov.config import normalize_database_url as normalize_database_url  # named here for storage's callers

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")
SQLITE_BUSY_TIMEOUT_MS = 5000
# A writer's transactions take the write lock at once (see `_configure_sqlite`).
SQLITE_BEGIN = "BEGIN IMMEDIATE"
# PostgreSQL: a pooled connection idle for longer than this is pinged before use (see `_ping_when_idle`).
PING_AFTER_IDLE_SECONDS = 10.0


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE changed (`Session.execute` is typed as returning any result, without it)."""
    return cast(CursorResult[Any], result).rowcount


def create_engine(
    url: str,
    *,
    read_only: bool = False,
    loop_writer: bool = False,
    synchronous: str = DEFAULTS.sqlite_synchronous,
    **kwargs: Any,
) -> Engine:
    """An engine configured for this service; `kwargs` go to `sqlalchemy.create_engine`. SQLite: WAL, foreign keys,
    a 5 s busy timeout, transactions begun `BEGIN IMMEDIATE`, commits `synchronous` (ACCESSGOV_SQLITE_SYNCHRONOUS:
    FULL, the default, survives a power loss; NORMAL a crash of the process only); `read_only` connections refuse
    writes and begin deferred ones; `loop_writer` is the event loop's writer (no busy wait, no checkpoint, no fsync:
    a thread syncs). Why each: docs/architecture.md, "Storage settings and their measurements"."""
    url = normalize_database_url(url)
    backend = sa.make_url(url).get_backend_name()
    from accessgov.jsoncodec import dumps, loads

    kwargs.setdefault("json_serializer", dumps)
    kwargs.setdefault("json_deserializer", loads)
    engine = sa.create_engine(url, **kwargs)
    if backend == "sqlite":
        _configure_sqlite(engine, read_only=read_only, loop_writer=loop_writer, synchronous=synchronous)
    elif backend == "postgresql" and not kwargs.get("pool_pre_ping"):
        _ping_when_idle(engine, PING_AFTER_IDLE_SECONDS)
    return engine


def _ping_when_idle(engine: Engine, idle_seconds: float) -> None:
    """Ping a pooled connection before use only when it sat idle for over `idle_seconds` (`pool_pre_ping`, a round
    trip per transaction, measured: p99 20-30 -> 11-16 ms without it; see docs/architecture.md)."""

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["checked_in_at"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        checked_in_at = record.info.get("checked_in_at")
        if checked_in_at is None or time.monotonic() - checked_in_at <= idle_seconds:
            return  # fresh from connect(), or in use moments ago
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            # The pool invalidates this connection and checks out a new one (its `checkout` runs again).
            record.info.pop("checked_in_at", None)
            raise sa.exc.DisconnectionError(f"pooled connection failed its ping: {error}") from error


def _configure_sqlite(engine: Engine, *, read_only: bool, loop_writer: bool, synchronous: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when a transaction begins (see `_do_begin`).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            _enable_wal(cursor)
            cursor.execute("PRAGMA foreign_keys = ON")
            if read_only:
                cursor.execute("PRAGMA query_only = ON")
            elif loop_writer:
                cursor.execute("PRAGMA busy_timeout = 0")
                cursor.execute("PRAGMA wal_autocheckpoint = 0")
                cursor.execute("PRAGMA synchronous = NORMAL")
            else:
                cursor.execute(f"PRAGMA synchronous = {synchronous}")
        finally:
            cursor.close()

    begin = "BEGIN" if read_only else SQLITE_BEGIN

    def _do_begin(dbapi_connection: Any) -> None:
        # The dialect's hook, not a "begin" event (measured: 66 -> 47 us per Session transaction); errors raised
        # here are still wrapped (a taken lock is `OperationalError`).
        dbapi_connection.driver_connection.execute(begin)

    engine.dialect.do_begin = _do_begin  # type: ignore[method-assign]


def _enable_wal(cursor: Any) -> None:
    """Switch a database file to WAL (persistent, so usually already done). The switch's exclusive lock is reported
    busy at once, not through the busy handler: workers opening a new database together retry here."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic Config for the migrations shipped in the package: env.py migrates over `connection` (in the
    caller's transaction), or without one connects to `DATABASE_URL` / the default SQLite file."""
    from alembic.config import Config  # imported when migrating only: it is slow to import

    config = Config()
    # ConfigParser interpolation would read a `%` in the path as a placeholder.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision of the migrations shipped in the package."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise RuntimeError("no Alembic head revision")
    return head


def current_revision(session: Session) -> str | None:
    """The revision the database is migrated to (an error without Alembic's table)."""
    return session.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def migrate(engine: Engine) -> None:
    """`alembic upgrade head` (a no-op when there), safe for workers starting together: one transaction holds a lock
    for the whole upgrade (SQLite's `BEGIN IMMEDIATE`, a PostgreSQL advisory lock)."""
    from alembic import command

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Keyed by database and schema, so unrelated schemas on one server do not queue.
            connection.exec_driver_sql(
                "SELECT pg_advisory_xact_lock(hashtext('accessgov-migrate:' || current_database()"
                " || ':' || coalesce(current_schema(), '')))"
            )
        command.upgrade(alembic_config(connection), "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions whose objects stay readable after commit (`expire_on_commit=False`): handlers use results
    after their short-lived session has been committed and closed."""
    return sessionmaker(bind=engine, expire_on_commit=False)

"""PostgreSQL's `Database`: Session units on reader threads and writer threads (each committing what it took from
the queue together), the hot paths' steps awaited on the event loop on psycopg async connections (`LoopReads` for
reads, `LoopBatches` for group-committed writes), with no thread hand-off each way (docs/architecture.md, "The
database path")."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, TypeVar

import psycopg
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import DEFAULTS
from accessgov.jsoncodec import dumps
from accessgov.storage import events
from accessgov.storage.database import (
    DEFAULT_READERS,
    INSERT_BATCH_SIZE,
    MAX_BATCH,
    BatchSteps,
    Database,
    Unit,
    _Job,
    _run_batch,
    _service_unavailable,
    _settle_outcomes,
    _take_queued,
)
from accessgov.storage.engine import migrate, new_engine, session_factory
from accessgov.storage.loop_batches import PING_AFTER_IDLE_SECONDS, LoopBatches
from accessgov.storage.loop_reads import Connect, LoopReads
from accessgov.storage.statement_steps import Steps

T = TypeVar("T")
# Measured on webhook deliveries: 4 writers committing one unit each cost 1.2 ms of CPU per delivery; 1-2 writers
# committing batches of ~8, 0.3 ms. Restarts went no faster with more writers.
DEFAULT_PG_WRITERS = 2


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


def _copy_rows(connection: sa.Connection, table: sa.Table, rows: Iterable[Mapping[str, Any]]) -> int:
    """`rows` streamed into `table` with COPY (about 4x faster than executemany); how many."""
    columns = list(table.columns)
    sql = f"COPY {table.name} ({', '.join(column.name for column in columns)}) FROM STDIN"
    # JSON columns serialised as their type does (the engine's JSON codec), so reads see the same documents.
    as_json = [isinstance(column.type, sa.JSON) for column in columns]
    names = [column.name for column in columns]
    count = 0
    driver_connection: Any = connection.connection.driver_connection
    try:
        with driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row(
                    [dumps(row[name]) if json else row[name] for name, json in zip(names, as_json, strict=True)]
                )
                count += 1
    except psycopg.Error as error:
        # The driver was used directly: raise what SQLAlchemy would have (e.g. IntegrityError).
        raise sa.exc.DBAPIError.instance(sql, None, error, psycopg.Error, dialect=connection.dialect) from error
    return count


class _ThreadWriter:
    """Writer threads draining one queue of Session units; with `batch > 1`, a thread commits up to `batch` units
    at once."""

    def __init__(self, sessions: sessionmaker[Session], threads: int, batch: int) -> None:
        self.sessions = sessions
        self.batch = batch
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._run, name=f"db-writer-{i}", daemon=True) for i in range(threads)]
        for thread in self.threads:
            thread.start()

    def submit(self, unit: Unit[T]) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.jobs.put(_Job(loop, future, unit))
        return future

    def close(self) -> None:
        for _ in self.threads:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join(10)

    def _run(self) -> None:
        while True:
            first = self.jobs.get()
            if first is None:
                return
            batch, stop = _take_queued(self.jobs, first, self.batch)
            _settle_outcomes(batch, _run_batch(self.sessions, batch))
            if stop:
                return


def _async_connector(engine: Engine, *, autocommit: bool = True) -> Connect:
    """Opens a psycopg `AsyncConnection` with the engine's own connect arguments (its URL's host, database, user
    and options, as SQLAlchemy reads them)."""
    args, kwargs = engine.dialect.create_connect_args(engine.url)

    async def connect() -> Any:
        return await psycopg.AsyncConnection.connect(*args, **kwargs, autocommit=autocommit)

    return connect


def postgres_connections(readers: int, writers: int) -> int:
    """The most PostgreSQL connections one server process opens, each when first needed and then kept: the pool
    (a session and a kept raw connection per reader thread, one per writer thread) and the loop's async
    connections (`readers` for pages, `writers` for deliveries and restarts)."""
    return _pool_size(readers, writers) + readers + writers


def _pool_size(readers: int, writers: int) -> int:
    return 2 * readers + writers


def connection_budget_warning(url: str, *, readers: int, writers: int, workers: int) -> str | None:
    """A warning when `workers` server processes may open more PostgreSQL connections than the server takes from
    clients without superuser rights (`max_connections - superuser_reserved_connections`); None when they fit,
    for SQLite, or when the server cannot be asked (`readyz` reports that)."""
    if "://" not in url or sa.make_url(url).get_backend_name() != "postgresql":
        return None
    needed = workers * postgres_connections(readers, writers)
    engine = PostgresDatabase.create_engine(url, poolclass=sa.NullPool, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            allowed = int(connection.exec_driver_sql("SHOW max_connections").scalar_one())
            reserved = int(connection.exec_driver_sql("SHOW superuser_reserved_connections").scalar_one())
    except sa.exc.DBAPIError:
        return None
    finally:
        engine.dispose()
    if needed <= allowed - reserved:
        return None
    return (
        f"{workers} worker(s) may open up to {needed} PostgreSQL connections ({postgres_connections(readers, writers)} "
        f"each: ACCESSGOV_DB_READERS={readers}, ACCESSGOV_DB_WRITERS={writers}), more than the server's "
        f"max_connections {allowed} less {reserved} reserved: fewer workers or readers, or a larger max_connections"
    )


class PostgresDatabase(Database):
    """PostgreSQL: `readers` reader threads and loop connections, `writers` writer threads and loop connections."""

    backend: ClassVar[str] = "postgresql"
    joins_app_to_page = True  # one round trip instead of two
    writes_in_ctes = True
    # psycopg's own errors too, on the loop's connections (their connect and commit are not wrapped by SQLAlchemy).
    unavailable = (sa.exc.OperationalError, sa.exc.TimeoutError, psycopg.OperationalError)

    @classmethod
    def create_engine(
        cls, url: str, *, read_only: bool = False, synchronous: str = DEFAULTS.sqlite_synchronous, **kwargs: Any
    ) -> Engine:
        """An engine whose pooled connections are pinged after `PING_AFTER_IDLE_SECONDS` idle (unless given
        `pool_pre_ping`); `read_only` and `synchronous` are SQLite's."""
        engine = new_engine(url, **kwargs)
        if not kwargs.get("pool_pre_ping"):
            _ping_when_idle(engine, PING_AFTER_IDLE_SECONDS)
        return engine

    @classmethod
    def lock_migrations(cls, connection: sa.Connection) -> None:
        """An advisory lock, keyed by database and schema (unrelated schemas on one server do not queue)."""
        connection.exec_driver_sql(
            "SELECT pg_advisory_xact_lock(hashtext('accessgov-migrate:' || current_database()"
            " || ':' || coalesce(current_schema(), '')))"
        )

    @classmethod
    def insert_if_absent(cls, session: Session, table: sa.Table, values: Mapping[str, Any]) -> None:
        session.execute(postgresql.insert(table).values(**values).on_conflict_do_nothing())

    @classmethod
    def insert_rows(
        cls, session: Session, table: sa.Table, rows: Iterable[Mapping[str, Any]], batch_size: int = INSERT_BATCH_SIZE
    ) -> int:
        """With psycopg, the rows streamed with COPY (`_copy_rows`)."""
        connection = session.connection()
        if connection.dialect.driver != "psycopg":
            return super().insert_rows(session, table, rows, batch_size)
        return _copy_rows(connection, table, rows)

    @classmethod
    def connection_budget_warning(cls, url: str, *, readers: int, writers: int, workers: int) -> str | None:
        return connection_budget_warning(url, readers=readers, writers=writers, workers=workers)

    def __init__(
        self,
        url: str,
        *,
        readers: int = DEFAULT_READERS,
        writers: int | None = None,
        synchronous: str = DEFAULTS.sqlite_synchronous,
    ) -> None:
        """`synchronous` is SQLite's (PostgreSQL's durability is its server's `synchronous_commit`)."""
        self.url = url
        writers = writers or DEFAULT_PG_WRITERS
        self.write_engine = self.create_engine(url, pool_size=_pool_size(readers, writers), max_overflow=0)
        self.read_engine = self.write_engine
        migrate(self.write_engine)
        self._readers = ThreadPoolExecutor(max_workers=readers, thread_name_prefix="db-reader")
        self._loop_reads = LoopReads(_async_connector(self.read_engine), readers)
        self._loop_batches = LoopBatches(
            _async_connector(self.write_engine, autocommit=False), writers, self.write_engine.dialect, MAX_BATCH
        )
        self._writer = _ThreadWriter(session_factory(self.write_engine), threads=writers, batch=MAX_BATCH)
        self.sessions = session_factory(self.write_engine)
        self.read_sessions = self.sessions

    async def read(self, unit: Unit[T]) -> T:
        """`unit(session)` in a read transaction, on a reader thread."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self._readers, self._read, unit)
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    def _read(self, unit: Unit[T]) -> T:
        with self.read_sessions() as session, session.begin():
            return unit(session)

    async def read_steps(self, make: Callable[[], Steps[T]]) -> T:
        """The steps awaited on a connection of `LoopReads`, without a thread."""
        try:
            return await self._loop_reads.run(make)
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    @property
    def delivery_steps(self) -> BatchSteps:
        return events.claim_each  # other servers may write the same events meanwhile

    def _submit(self, unit: Unit[Any] | None = None, steps: BatchSteps | None = None, item: Any = None) -> Any:
        if steps is not None:
            return self._loop_batches.submit(steps, item)
        assert unit is not None
        return self._writer.submit(unit)

    def close(self) -> None:
        self._writer.close()
        self._loop_reads.close()
        self._loop_batches.close()
        self._readers.shutdown(wait=True, cancel_futures=True)
        self.write_engine.dispose()

"""PostgreSQL's `Database`: Session units on reader threads and writer threads (each committing what it took from
the queue together), the hot paths' steps awaited on the event loop on psycopg async connections (`LoopReads` for
reads, `LoopBatches` for group-committed writes), with no thread hand-off each way (docs/architecture.md, "The
database path")."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, TypeVar

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.storage import events
from accessgov.storage.database import (
    DEFAULT_READERS,
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
from accessgov.storage.engine import create_engine, migrate, session_factory
from accessgov.storage.loop_batches import LoopBatches
from accessgov.storage.loop_reads import Connect, LoopReads
from accessgov.storage.statement_steps import Steps

T = TypeVar("T")
# Measured on webhook deliveries: 4 writers committing one unit each cost 1.2 ms of CPU per delivery; 1-2 writers
# committing batches of ~8, 0.3 ms. Restarts went no faster with more writers.
DEFAULT_PG_WRITERS = 2


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
    engine = create_engine(url, poolclass=sa.NullPool, connect_args={"connect_timeout": 3})
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
    # psycopg's own errors too, on the loop's connections (their connect and commit are not wrapped by SQLAlchemy).
    unavailable = (sa.exc.OperationalError, sa.exc.TimeoutError, psycopg.OperationalError)

    def __init__(self, url: str, *, readers: int = DEFAULT_READERS, writers: int | None = None) -> None:
        self.url = url
        writers = writers or DEFAULT_PG_WRITERS
        self.write_engine = create_engine(url, pool_size=_pool_size(readers, writers), max_overflow=0)
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

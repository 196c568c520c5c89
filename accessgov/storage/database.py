"""The one path from handlers to the database (design and measurements: docs/architecture.md, "The database path").

Handlers await `read`/`write` (a function of a `Session`), `read_raw` (of a DBAPI connection), `fetch` (one
prepared statement) or `write_batched` (a `BatchUnit` called once with the items of a batch, in queue order).
A unit does no I/O besides the database and raises `ApiError` (404, 409, ...) before writing anything, so the
batch goes on without it; any other exception rolls the batch back and each unit is retried alone. A result is
delivered only after its transaction committed (and, on SQLite, its WAL was fdatasynced).
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Dialect as Dialect  # re-exported: a `BatchUnit` is handed the dialect
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import DEFAULTS, Settings
from accessgov.errors import ApiError, ErrorCode, ServiceUnavailable
from accessgov.observability import metrics
from accessgov.running_loop import running_loop
from accessgov.storage.engine import (
    SQLITE_BEGIN,
    SQLITE_BUSY_TIMEOUT_MS,
    create_engine,
    migrate,
    session_factory,
)
from accessgov.storage.loop_batches import AsyncBatchUnit, LoopBatches
from accessgov.storage.loop_reads import Connect, LoopReads
from accessgov.storage.prepared import PreparedQuery

log = logging.getLogger(__name__)
T = TypeVar("T")
U = TypeVar("U")
Unit = Callable[[Session], T]
# `unit(dbapi_connection, dialect, items)`, on a DBAPI connection inside the batch's transaction: one result per
# item, in order; an `ApiError` in the list is raised to that item's caller.
BatchUnit = Callable[[Any, Dialect, list[Any]], list[Any]]

DEFAULT_READERS = 4
# Measured on webhook deliveries: 4 writers committing one unit each cost 1.2 ms of CPU per delivery; 1-2 writers
# committing batches of ~8, 0.3 ms. Restarts went no faster with more writers.
DEFAULT_PG_WRITERS = 2
# Units committed together at most; bounds the latency one batch adds and the work redone if a commit fails.
MAX_BATCH = 64
# SQLite: the WAL is copied into the database file at most this often (by a thread, after commits).
CHECKPOINT_SECONDS = 1.0
# SQLite: loop turns a batch may wait for more units while it is still growing (see `_LoopWriter._flush`).
MAX_GROWING_TURNS = 4
# SQLite: a batch that found the write lock taken (another process) is tried again after this long.
BUSY_RETRY_SECONDS = 0.002
# SQLite: successive fdatasyncs of the WAL start at least this far apart (PostgreSQL's commit_delay, applied only
# under load): commits that arrive meanwhile share the next one. Measured under wrk (16 connections, HMAC
# deliveries): 322-467 -> 241-243 µs CPU per delivery and p99 8-11 -> 7 ms at 2 ms; 4 ms did worse than 2.
SYNC_MIN_INTERVAL_SECONDS = 0.002


class _Job(NamedTuple):  # not a frozen dataclass: one per write, whose `__init__` cost several times a tuple's
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    unit: Unit[Any] | None = None
    batch_unit: BatchUnit | None = None
    item: Any = None


def _settle(future: asyncio.Future[Any], result: Any = None, error: BaseException | None = None) -> None:
    if future.done():  # the awaiting request was cancelled (client gone): nothing to deliver
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _settle_all(settled: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, error in settled:
        _settle(future, result, error)


def _run_batch(sessions: Callable[[], Session], batch: list[_Job]) -> list[tuple[Any, BaseException | None]]:
    """Run `batch` in one transaction; on failure, each job again in a transaction of its own. One outcome (result,
    error) per job. `_Busy` (the write lock is taken) is raised before any unit ran, for the caller to retry."""
    outcomes: list[tuple[Any, BaseException | None]] = [(None, None)] * len(batch)
    try:
        if isinstance(sessions, _KeptSession) and all(job.unit is None for job in batch):
            sessions.transaction(lambda dbapi, dialect: _run_batch_units(batch, outcomes, dbapi, dialect))
        else:
            with sessions() as session, session.begin():
                _begin(session)
                for index, job in enumerate(batch):
                    if job.unit is None:
                        continue
                    try:
                        outcomes[index] = (job.unit(session), None)
                    except ApiError as error:  # raised before the unit wrote: the batch goes on
                        outcomes[index] = (None, error)
                connection = session.connection()
                _run_batch_units(batch, outcomes, connection.connection.driver_connection, connection.dialect)
    except _Busy:
        raise
    except Exception as error:  # a unit broke, or the commit failed: nothing of the batch is stored
        if len(batch) == 1:
            return [(None, error)]
        log.warning("group commit of %d units failed (%s); retrying them one by one", len(batch), error)
        return [_run_alone(sessions, job) for job in batch]
    return outcomes


def _run_batch_units(
    batch: list[_Job], outcomes: list[tuple[Any, BaseException | None]], dbapi: Any, dialect: Dialect
) -> None:
    """Each batch unit of `batch` called once with all of its items, in queue order; their outcomes into
    `outcomes`."""
    grouped: dict[BatchUnit, list[int]] = {}
    for index, job in enumerate(batch):
        if job.batch_unit is not None:
            grouped.setdefault(job.batch_unit, []).append(index)
    for batch_unit, indexes in grouped.items():
        results = batch_unit(dbapi, dialect, [batch[index].item for index in indexes])
        for index, result in zip(indexes, results, strict=True):
            outcomes[index] = (None, result) if isinstance(result, ApiError) else (result, None)


def _run_alone(sessions: Callable[[], Session], job: _Job) -> tuple[Any, BaseException | None]:
    try:
        return _run_batch(sessions, [job])[0]
    except _Busy as busy:  # another process took the lock between two retries: this unit fails, none runs twice
        return None, busy


class _Busy(Exception):
    """Another connection (another process) holds SQLite's write lock."""


def _begin(session: Session) -> None:
    """Open the transaction now (SQLite: `BEGIN IMMEDIATE`, the write lock), so that a taken lock is told apart
    from a failing unit."""
    try:
        session.connection()
    except sa.exc.OperationalError as error:
        if _is_busy(error):
            raise _Busy(str(error)) from error
        raise


def _is_busy(error: Exception) -> bool:
    """Whether SQLite refused a transaction because another connection holds its write lock."""
    return "locked" in str(error) or "busy" in str(error)


def _settle_outcomes(batch: list[_Job], outcomes: list[tuple[Any, BaseException | None]]) -> None:
    """Deliver each job's outcome on its event loop: one wake-up per loop and batch, not one per unit."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]] = {}
    for job, (result, error) in zip(batch, outcomes, strict=True):
        by_loop.setdefault(job.loop, []).append((job.future, result, error))
    for loop, settled in by_loop.items():
        loop.call_soon_threadsafe(_settle_all, settled)


Q = TypeVar("Q")


def _take_queued(jobs: queue.SimpleQueue[Q | None], first: Q, limit: int | None = None) -> tuple[list[Q], bool]:
    """`first` and what else is queued already (up to `limit` in all); True when the stop sentinel (None) was
    among them."""
    taken = [first]
    while limit is None or len(taken) < limit:
        try:
            item = jobs.get_nowait()
        except queue.Empty:
            break
        if item is None:
            return taken, True
        taken.append(item)
    return taken, False


class _ThreadWriter:
    """PostgreSQL: writer threads draining one queue; with `batch > 1`, a thread commits up to `batch` units at
    once."""

    def __init__(self, sessions: sessionmaker[Session], threads: int, batch: int) -> None:
        self.sessions = sessions
        self.batch = batch
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._run, name=f"db-writer-{i}", daemon=True) for i in range(threads)]
        for thread in self.threads:
            thread.start()

    def submit(self, unit: Unit[T] | None = None, batch_unit: BatchUnit | None = None, item: Any = None) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.jobs.put(_Job(loop, future, unit, batch_unit, item))
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


class _WalSync:
    """SQLite: `fdatasync` of the WAL on a thread, then the outcomes of every batch committed before it are
    delivered; batches queued meanwhile share the next sync, started no sooner than `min_interval` after the last."""

    def __init__(self, database_file: Path, min_interval: float = SYNC_MIN_INTERVAL_SECONDS) -> None:
        self.min_interval = min_interval
        self.sleep = time.sleep
        self.database_file = database_file
        self.wal = database_file.with_name(database_file.name + "-wal")
        self.requests: queue.SimpleQueue[tuple[list[_Job], list[tuple[Any, BaseException | None]]] | None]
        self.requests = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="db-wal-sync", daemon=True)
        self.thread.start()

    def after_sync(self, batch: list[_Job], outcomes: list[tuple[Any, BaseException | None]]) -> None:
        self.requests.put((batch, outcomes))

    def close(self) -> None:
        self.requests.put(None)
        self.thread.join(10)

    def _run(self) -> None:
        stop = False
        last_started = -float("inf")
        while not stop:
            first = self.requests.get()
            if first is None:
                return
            wait = last_started + self.min_interval - time.monotonic()
            if wait > 0:  # a sync ran moments ago: more commits are likely on their way, let them share the next
                self.sleep(wait)
            last_started = time.monotonic()
            waiting, stop = _take_queued(self.requests, first)
            try:
                self._sync()
                error: OSError | None = None
            except OSError as failed:  # committed, but not known to be on disk: the callers are told so
                log.error("fdatasync of %s failed: %s", self.wal, failed)
                error = failed
            synced = time.monotonic() - last_started
            jobs = [job for batch, _ in waiting for job in batch]
            outcomes = [outcome for _, batch_outcomes in waiting for outcome in batch_outcomes]
            _settle_outcomes(jobs, outcomes if error is None else [(None, error)] * len(jobs))
            metrics.sqlite_wal_synced(synced)  # after the callers are on their way

    def _sync(self) -> None:
        try:  # opened each time: a checkpoint may truncate the WAL, a last connection closing may remove it
            descriptor = os.open(self.wal, os.O_RDONLY)
        except FileNotFoundError:  # checkpointed into the database file and removed
            descriptor = os.open(self.database_file, os.O_RDONLY)
        try:
            os.fdatasync(descriptor)
        finally:
            os.close(descriptor)


class _Checkpointer:
    """`wal_checkpoint(PASSIVE)` on a thread, at most every `interval` seconds and only after commits."""

    def __init__(self, engine: Engine, interval: float = CHECKPOINT_SECONDS) -> None:
        self.engine = engine
        self.interval = interval
        self.committed = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="db-checkpoint", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stopping.set()
        self.committed.set()
        self.thread.join(10)

    def _run(self) -> None:
        connection: Any = None
        while True:
            self.committed.wait()
            if self.stopping.is_set():
                break
            self.committed.clear()
            try:
                # A raw connection in autocommit: through a SQLAlchemy Connection the pragma would run inside the
                # transaction it begins (BEGIN IMMEDIATE here), where SQLite cannot checkpoint at all.
                connection = connection or self.engine.raw_connection()
                started = time.monotonic()
                connection.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                metrics.sqlite_checkpointed(time.monotonic() - started)
            except Exception:  # the next round retries; a WAL that grows is no reason to stop serving
                log.exception("SQLite checkpoint failed")
                if connection is not None:
                    connection.invalidate()
                    connection = None
            self.stopping.wait(self.interval)
        if connection is not None:
            connection.close()


class _KeptSession:
    """The SQLite loop writer's Session on one Connection kept for the writer's life; `transaction` runs batch units
    on that connection with no Session at all. The loop's thread only, a batch at a time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.factory = session_factory(engine)
        self.connection: sa.Connection | None = None
        self.session: Session | None = None

    def __call__(self) -> Session:
        connection = self.connection
        if self.session is None or connection is None or connection.closed or connection.invalidated:
            self.close()  # an invalidated connection (a broken DBAPI connection) is replaced, not reused
            self.connection = self.engine.connect()
            self.session = self.factory(bind=self.connection)
        return self.session

    def transaction(self, work: Callable[[Any, Dialect], None]) -> None:
        """`work(dbapi_connection, dialect)` in one `BEGIN IMMEDIATE` transaction of the kept connection, committed
        (rolled back when `work` raises). `_Busy` when another connection holds the write lock; the driver's
        errors raised as SQLAlchemy's, as through the Session."""
        self()  # the kept connection, replaced when broken
        connection = self.connection
        assert connection is not None
        dialect = connection.dialect
        dbapi: Any = connection.connection.driver_connection
        try:
            dbapi.execute(SQLITE_BEGIN)
        except sqlite3.Error as error:
            wrapped = _driver_error(SQLITE_BEGIN, error, dialect)
            if _is_busy(error):
                raise _Busy(str(error)) from wrapped
            raise wrapped from error
        try:
            work(dbapi, dialect)
        except BaseException:
            self._roll_back(dbapi)
            raise
        try:
            dbapi.commit()
        except sqlite3.Error as error:
            self._roll_back(dbapi)
            raise _driver_error("COMMIT", error, dialect) from error

    def _roll_back(self, dbapi: Any) -> None:
        try:
            dbapi.rollback()
        except sqlite3.Error:  # the connection itself broke: the next batch opens another
            self.close()

    def close(self) -> None:
        session, connection, self.session, self.connection = self.session, self.connection, None, None
        if session is not None:
            session.close()
        if connection is not None:
            connection.close()


def _driver_error(statement: str, error: sqlite3.Error, dialect: Dialect) -> Exception:
    """`error` as SQLAlchemy raises it (`OperationalError`, ...), so callers handle one family of exceptions."""
    return sa.exc.DBAPIError.instance(statement, None, error, sqlite3.Error, dialect=dialect)


class _LoopWriter:
    """SQLite: units run on the event loop, committed together (a batch per loop turn, at most `batch`), made
    durable by `_WalSync` before callers hear; a batch finding the write lock taken is retried for the busy timeout."""

    def __init__(
        self, sessions: _KeptSession, batch: int, wal_sync: _WalSync | None, checkpointer: _Checkpointer
    ) -> None:
        self.sessions = sessions
        self.batch = batch
        self.wal_sync = wal_sync
        self.checkpointer = checkpointer
        self.pending: list[_Job] = []
        self.scheduled_on: asyncio.AbstractEventLoop | None = None
        self.busy_since: float | None = None
        self.seen = 0  # units pending at the last look of a batch still growing
        self.growing_turns = 0

    def submit(self, unit: Unit[T] | None = None, batch_unit: BatchUnit | None = None, item: Any = None) -> Any:
        loop = running_loop(self.scheduled_on)  # a unit joining a flush scheduled this turn takes its loop
        future: asyncio.Future[Any] = loop.create_future()
        self.pending.append(_Job(loop, future, unit, batch_unit, item))
        self._schedule(loop)  # also when a loop that closed had a flush scheduled, which it never ran
        return future

    def _flush(self) -> None:
        if self._still_growing():
            self.scheduled_on.call_soon(self._flush)  # type: ignore[union-attr]
            return
        loop, self.scheduled_on = self.scheduled_on, None
        self.pending = [job for job in self.pending if not job.loop.is_closed()]
        batch, self.pending = self.pending[: self.batch], self.pending[self.batch :]
        if not batch:
            return
        try:
            outcomes = _run_batch(self.sessions, batch)
        except _Busy as busy:
            self.pending[:0] = batch
            now = time.monotonic()
            self.busy_since = self.busy_since or now
            if now - self.busy_since < SQLITE_BUSY_TIMEOUT_MS / 1000:
                self._schedule(loop, BUSY_RETRY_SECONDS)
                return
            log.error("SQLite write lock held by another connection for %.1f s: failing a batch", now - self.busy_since)
            self.pending = self.pending[len(batch) :]
            outcomes = [(None, busy.__cause__ or busy)] * len(batch)
        self.busy_since = None
        if self.pending:
            self._schedule(loop)
        self.checkpointer.committed.set()
        if self.wal_sync is None:
            _settle_outcomes(batch, outcomes)
        else:
            self.wal_sync.after_sync(batch, outcomes)

    def _still_growing(self) -> bool:
        """Whether the batch grew since the last look, so it waits another loop turn (`MAX_GROWING_TURNS` at most)
        for the rest of the wave to share its commit."""
        pending = len(self.pending)
        if pending > self.seen and pending < self.batch and self.growing_turns < MAX_GROWING_TURNS:
            self.seen = pending
            self.growing_turns += 1
            return True
        self.seen = self.growing_turns = 0
        return False

    def _schedule(self, loop: asyncio.AbstractEventLoop | None, delay: float = 0.0) -> None:
        if loop is None or loop.is_closed() or self.scheduled_on is loop:
            return
        self.scheduled_on = loop
        loop.call_later(delay, self._flush) if delay else loop.call_soon(self._flush)

    def close(self) -> None:
        if self.pending:  # the loop stopped with units queued: commit them here rather than drop them
            batch, self.pending = self.pending, []
            _settle_outcomes(batch, _run_batch(self.sessions, batch))
        self.sessions.close()
        if self.wal_sync is not None:
            self.wal_sync.close()
        self.checkpointer.close()


def _unavailable_errors(backend: str) -> tuple[type[Exception], ...]:
    """What says the database cannot take the work now: a connection refused, lost or timed out, a pool exhausted,
    SQLite's lock held past its busy timeout or its disk full (SQLAlchemy's `OperationalError`), and psycopg's own
    on the loop's connections (their connect and commit are not wrapped by SQLAlchemy)."""
    if backend != "postgresql":
        return (sa.exc.OperationalError, sa.exc.TimeoutError)
    import psycopg

    return (sa.exc.OperationalError, sa.exc.TimeoutError, psycopg.OperationalError)


def _service_unavailable(error: Exception) -> ServiceUnavailable:
    """503 `SERVICE_UNAVAILABLE` for a request the database could not serve: a client retries it (the SDK does)
    instead of reading a 500 as a fault of the server's code."""
    log.warning("database unavailable: %s: %s", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    return ServiceUnavailable(ErrorCode.SERVICE_UNAVAILABLE, "the database is unavailable; retry later")


def _async_connector(engine: Engine, *, autocommit: bool = True) -> Connect:
    """Opens a psycopg `AsyncConnection` with the engine's own connect arguments (its URL's host, database, user
    and options, as SQLAlchemy reads them)."""
    import psycopg

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


class Database:
    """Engines, migrations and the bounded read and write paths of one server process."""

    def __init__(
        self,
        url: str,
        *,
        readers: int = DEFAULT_READERS,
        writers: int | None = None,
        synchronous: str = DEFAULTS.sqlite_synchronous,
    ) -> None:
        self.url = url
        self.backend = sa.make_url(url).get_backend_name() if "://" in url else "sqlite"
        self._unavailable = _unavailable_errors(self.backend)
        self.on_loop = self.backend == "sqlite"
        self._local = threading.local()
        self._writer: _LoopWriter | _ThreadWriter
        if self.on_loop:
            # One connection for the checkpoint thread, one for synchronous callers (startup, the CLI).
            self.write_engine = create_engine(url, pool_size=2, max_overflow=0, synchronous=synchronous)
            # The loop's long-lived raw connection (`read_raw`) and one for read sessions.
            self.read_engine = create_engine(url, pool_size=2, max_overflow=0, read_only=True)
            migrate(self.write_engine)
            self._loop_engine = create_engine(url, pool_size=1, max_overflow=0, loop_writer=True)
            database_file = self._loop_engine.url.database
            durable = synchronous != "NORMAL" and database_file not in (None, "", ":memory:")
            self._writer = _LoopWriter(
                _KeptSession(self._loop_engine),
                MAX_BATCH,
                _WalSync(Path(str(database_file)).resolve()) if durable else None,
                _Checkpointer(self.write_engine),
            )
        else:
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
        self.read_sessions = session_factory(self.read_engine)

    @classmethod
    def open(cls, settings: Settings) -> Database:
        """The database `settings` name, with their readers, writers and SQLite durability."""
        return cls(
            settings.database,
            readers=settings.db_readers,
            writers=settings.db_writers,
            synchronous=settings.sqlite_synchronous,
        )

    @property
    def engine(self) -> Engine:
        return self.write_engine

    async def read(self, unit: Unit[T]) -> T:
        """`unit(session)` in a read transaction (SQLite: on the loop; PostgreSQL: on a reader thread)."""
        return await self._on_reader(self._read, unit)

    async def _on_reader(self, read: Callable[[U], T], unit: U) -> T:
        """`read(unit)` on the loop (SQLite) or a reader thread (PostgreSQL); 503 when the database is away."""
        try:
            if self.on_loop:
                return read(unit)
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._readers, read, unit)
        except self._unavailable as error:
            raise _service_unavailable(error) from error

    def _read(self, unit: Unit[T]) -> T:
        with self.read_sessions() as session, session.begin():
            return unit(session)

    async def read_raw(self, unit: Callable[[Any], T]) -> T:
        """`unit(dbapi_connection)` on a connection kept for the thread's life (SQLite: the loop's; PostgreSQL: a
        reader thread's), in autocommit (each statement reads one consistent snapshot). For the hot reads."""
        return await self._on_reader(self._read_raw, unit)

    def _read_raw(self, unit: Callable[[Any], T]) -> T:
        connection = getattr(self._local, "raw", None)
        if connection is None:
            connection = self.read_engine.raw_connection()
            driver: Any = connection.driver_connection
            if self.backend == "postgresql":
                driver.autocommit = True
            self._local.raw = connection
        try:
            return unit(connection.driver_connection)
        except Exception:
            # A broken connection is not kept: the next read opens another.
            self._local.raw = None
            connection.invalidate()
            raise

    async def fetch(self, query: PreparedQuery, **values: Any) -> list[tuple[Any, ...]]:
        """The rows of one prepared statement, read on the loop: SQLite's connection (`read_raw`'s), or on
        PostgreSQL a connection of `LoopReads`, awaited without a thread. For the hottest reads."""
        try:
            if self.on_loop:
                return self._read_raw(lambda connection: query.run(connection, **values))
            return await self._loop_reads.run(query, values)
        except self._unavailable as error:
            raise _service_unavailable(error) from error

    async def write(self, unit: Unit[T]) -> T:
        """`unit(session)` in a write transaction; returns once that transaction committed."""
        try:
            result: T = await self._writer.submit(unit)
            return result
        except self._unavailable as error:
            raise _service_unavailable(error) from error

    async def write_batched(self, batch_unit: BatchUnit, item: Any, *, on_loop: AsyncBatchUnit | None = None) -> Any:
        """`batch_unit(dbapi_connection, dialect, [..., item, ...])[i]`, with the other items of the batch queued for
        `batch_unit`; returns once the transaction committed. On PostgreSQL, `on_loop` (the same work on a psycopg
        async connection) runs instead when given, on the loop's connections (`storage.loop_batches`)."""
        try:
            if on_loop is not None and not self.on_loop:
                return await self._loop_batches.submit(on_loop, item)
            return await self._writer.submit(batch_unit=batch_unit, item=item)
        except self._unavailable as error:
            raise _service_unavailable(error) from error

    def close(self) -> None:
        self._writer.close()
        if self.on_loop:
            self._loop_engine.dispose()
        else:
            self._loop_reads.close()
            self._loop_batches.close()
            self._readers.shutdown(wait=True, cancel_futures=True)
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()

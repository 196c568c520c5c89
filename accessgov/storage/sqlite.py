"""SQLite's `Database`: every statement runs on the event loop (tens of microseconds of CPU, which a thread would
spend waiting for the GIL), writes are committed together by `_LoopWriter`, made durable by `_WalSync`'s thread
before any caller hears, and checkpointed by `_Checkpointer`'s (docs/architecture.md, "The database path")."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.orm import Session

from accessgov.config import DEFAULTS
from accessgov.running_loop import running_loop
from accessgov.storage import events
from accessgov.storage.database import (
    DEFAULT_READERS,
    MAX_BATCH,
    BatchSteps,
    Database,
    Unit,
    _Busy,
    _is_busy,
    _Job,
    _run_batch,
    _service_unavailable,
    _settle_outcomes,
    _take_queued,
)
from accessgov.storage.engine import migrate, new_engine, session_factory
from accessgov.storage.statement_steps import Steps, drive

log = logging.getLogger(__name__)
T = TypeVar("T")
SQLITE_BUSY_TIMEOUT_MS = 5000
# A writer's transactions take the write lock at once (see `_configure`).
SQLITE_BEGIN = "BEGIN IMMEDIATE"
# The WAL is copied into the database file at most this often (by a thread, after commits).
CHECKPOINT_SECONDS = 1.0
# Loop turns a batch may wait for more units while it is still growing (see `_LoopWriter._flush`).
MAX_GROWING_TURNS = 4
# A batch that found the write lock taken (another process) is tried again after this long.
BUSY_RETRY_SECONDS = 0.002
# Successive fdatasyncs of the WAL start at least this far apart (PostgreSQL's commit_delay, applied only
# under load): commits that arrive meanwhile share the next one. Measured under wrk (16 connections, HMAC
# deliveries): 322-467 -> 241-243 µs CPU per delivery and p99 8-11 -> 7 ms at 2 ms; 4 ms did worse than 2.
SYNC_MIN_INTERVAL_SECONDS = 0.002


def _configure(engine: Engine, *, read_only: bool, loop_writer: bool, synchronous: str) -> None:
    """WAL, foreign keys, a 5 s busy timeout, transactions begun `BEGIN IMMEDIATE`, commits `synchronous` (FULL, the
    default, survives a power loss; NORMAL a crash of the process only); `read_only` connections refuse writes and
    begin deferred ones; `loop_writer` is the event loop's writer (no busy wait, no checkpoint, no fsync: a thread
    syncs). Why each: docs/architecture.md, "Storage settings and their measurements"."""
    # Datetimes stored as SQLAlchemy's DATETIME stores them, the text cut faster (`_DateTimeText`).
    engine.dialect.colspecs = {**engine.dialect.colspecs, sa.DateTime: _DateTimeText}

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


class _DateTimeText(sqlite.DATETIME):
    """SQLite's DATETIME, whose text for a datetime is cut from one `isoformat` call (measured: 1.75 -> 1.1 µs a
    datetime, three a delivery) instead of formatted from its seven fields; the same text."""

    def bind_processor(self, dialect: Dialect) -> Any:
        formatted = super().bind_processor(dialect)
        if self._storage_format != sqlite.DATETIME._storage_format or formatted is None:
            return formatted
        datetime = dt.datetime

        def process(value: Any) -> Any:
            if type(value) is datetime:
                return value.isoformat(" ", "microseconds")[:26]  # without an offset, as the format
            return formatted(value)

        return process


class _WalSync:
    """`fdatasync` of the WAL on a thread, then the outcomes of every batch committed before it are
    delivered; batches queued meanwhile share the next sync, started no sooner than `min_interval` after the last."""

    def __init__(self, database_file: Path, min_interval: float = SYNC_MIN_INTERVAL_SECONDS) -> None:
        from accessgov.observability import metrics  # imported by a server only: an engine (the CLI's) needs none

        self.synced = metrics.sqlite_wal_synced
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
            self.synced(synced)  # after the callers are on their way

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
        from accessgov.observability import metrics

        self.checkpointed = metrics.sqlite_checkpointed
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
                self.checkpointed(time.monotonic() - started)
            except Exception:  # the next round retries; a WAL that grows is no reason to stop serving
                log.exception("SQLite checkpoint failed")
                if connection is not None:
                    connection.invalidate()
                    connection = None
            self.stopping.wait(self.interval)
        if connection is not None:
            connection.close()


class _KeptSession:
    """The loop writer's Session on one Connection kept for the writer's life; `transaction` runs batch steps
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
    """Units run on the event loop, committed together (a batch per loop turn, at most `batch`), made
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

    def submit(self, unit: Unit[Any] | None = None, steps: BatchSteps | None = None, item: Any = None) -> Any:
        loop = running_loop(self.scheduled_on)  # a unit joining a flush scheduled this turn takes its loop
        future: asyncio.Future[Any] = loop.create_future()
        self.pending.append(_Job(loop, future, unit, steps, item))
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
            outcomes = _run_batch(self.sessions, batch, self.sessions.transaction)
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
            _settle_outcomes(batch, _run_batch(self.sessions, batch, self.sessions.transaction))
        self.sessions.close()
        if self.wal_sync is not None:
            self.wal_sync.close()
        self.checkpointer.close()


class SQLiteDatabase(Database):
    """SQLite: reads and writes on the event loop; a thread syncs the WAL, another checkpoints it."""

    backend: ClassVar[str] = "sqlite"
    joins_app_to_page = False  # the join's plan sorted the page in a temporary b-tree: 52 against 18 µs
    alters_by_copy = True  # ALTER TABLE cannot change most things in place

    @classmethod
    def create_engine(
        cls,
        url: str,
        *,
        read_only: bool = False,
        synchronous: str = DEFAULTS.sqlite_synchronous,
        loop_writer: bool = False,
        **kwargs: Any,
    ) -> Engine:
        """An engine configured by `_configure` (`loop_writer`: the event loop's writer's, this module's own)."""
        engine = new_engine(url, **kwargs)
        _configure(engine, read_only=read_only, loop_writer=loop_writer, synchronous=synchronous)
        return engine

    @classmethod
    def insert_if_absent(cls, session: Session, table: sa.Table, values: Mapping[str, Any]) -> None:
        session.execute(sqlite.insert(table).values(**values).on_conflict_do_nothing())

    @classmethod
    def database_file(cls, url: str) -> Path | None:
        """The file of `url` (a bare path is one), None for an in-memory database."""
        database = sa.make_url(url).database if "://" in url else url
        if not database or database == ":memory:":
            return None
        return Path(database).expanduser().absolute()

    def __init__(
        self,
        url: str,
        *,
        readers: int = DEFAULT_READERS,
        writers: int | None = None,
        synchronous: str = DEFAULTS.sqlite_synchronous,
    ) -> None:
        """`readers` and `writers` are PostgreSQL's: reads and writes all run on the event loop here."""
        self.url = url
        self._local = threading.local()
        # One connection for the checkpoint thread, one for synchronous callers (startup, the CLI).
        self.write_engine = self.create_engine(url, pool_size=2, max_overflow=0, synchronous=synchronous)
        # The loop's long-lived raw connection (`read_steps`) and one for read sessions.
        self.read_engine = self.create_engine(url, pool_size=2, max_overflow=0, read_only=True)
        migrate(self.write_engine)
        self._loop_engine = self.create_engine(url, pool_size=1, max_overflow=0, loop_writer=True)
        database_file = self._loop_engine.url.database
        durable = synchronous != "NORMAL" and database_file not in (None, "", ":memory:")
        self._writer = _LoopWriter(
            _KeptSession(self._loop_engine),
            MAX_BATCH,
            _WalSync(Path(str(database_file)).resolve()) if durable else None,
            _Checkpointer(self.write_engine),
        )
        self.sessions = session_factory(self.write_engine)
        self.read_sessions = session_factory(self.read_engine)

    async def read(self, unit: Unit[T]) -> T:
        """`unit(session)` in a read transaction, on the loop."""
        try:
            with self.read_sessions() as session, session.begin():
                return unit(session)
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    async def read_steps(self, make: Callable[[], Steps[T]]) -> T:
        """The steps run on the loop, on a connection kept for the thread's life in autocommit."""
        try:
            connection = getattr(self._local, "raw", None)
            if connection is None:
                connection = self._local.raw = self.read_engine.raw_connection()
            try:
                return drive(make(), connection.driver_connection)
            except Exception:
                # A broken connection is not kept: the next read opens another.
                self._local.raw = None
                connection.invalidate()
                raise
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    @property
    def delivery_steps(self) -> BatchSteps:
        return events.record_looked_up  # the writer holds the write lock: one look-up decides

    def _submit(self, unit: Unit[Any] | None = None, steps: BatchSteps | None = None, item: Any = None) -> Any:
        return self._writer.submit(unit, steps, item)

    def close(self) -> None:
        self._writer.close()
        self._loop_engine.dispose()
        self.write_engine.dispose()
        self.read_engine.dispose()

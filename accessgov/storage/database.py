"""The one path from the event loop to the database: bounded thread pools sized to the connection pools.

Handlers never touch a connection on the event loop. They hand a function of a `Session` to `read` or
`write` and await its result:

- `read` runs it on one of `readers` threads, each with its own pooled connection. On SQLite a read is a
  deferred transaction on a separate read-only engine, so it never takes the write lock and never waits for
  a writer (WAL).
- `write` queues it for the writer threads. SQLite has one writer thread (SQLite has one writer anyway, and a
  single thread never waits on the lock); it commits queued units of work together, so one fsync covers a
  whole batch (group commit). PostgreSQL has `writers` threads (2 by default), each committing what it took
  from the queue together too; a batch that fails (a deadlock between two writers' batches, say) is retried
  unit by unit.

Some work is cheaper decided for many requests at once (recording webhook deliveries: one look-up and one
multi-row insert for the batch). `write_batched(fn, item)` queues `item`; the writer calls `fn(session, items)`
once for all items of a batch queued with the same `fn`, in queue order, and `fn` returns one result (or
`ApiError`) per item.

The contract for units: an `ApiError` (404, 409, ...) is raised before the unit writes anything, so the batch
goes on without it. Any other exception rolls the whole batch back, and each of its units is then retried in
a transaction of its own, so one broken unit never takes its neighbours' writes with it (no savepoint per
unit: they cost more than the inserts of a webhook delivery).

A unit's result is delivered only after its transaction committed. Connection pools are exactly as large as
the thread pools (no overflow), so connections are opened once and kept.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.errors import ApiError
from accessgov.storage.engine import create_engine, migrate, session_factory

log = logging.getLogger(__name__)
T = TypeVar("T")
Unit = Callable[[Session], T]
# Results per item, in order; an `ApiError` in the list is raised to that item's caller.
BatchUnit = Callable[[Session, list[Any]], list[Any]]

DEFAULT_READERS = 4
# Measured on webhook deliveries: 4 writers committing one unit each cost 1.2 ms of CPU per delivery; 1-2 writers
# committing batches of ~8, 0.3 ms. Restarts went no faster with more writers.
DEFAULT_PG_WRITERS = 2
# Units committed together at most; bounds the latency one batch adds and the work redone if a commit fails.
MAX_BATCH = 64


@dataclass(frozen=True)
class _Job:
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


class _Writer:
    """Writer threads draining one queue; with `batch > 1`, a thread commits up to `batch` units at once."""

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
            batch = [first]
            stop = False
            while len(batch) < self.batch:
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stop = True
                    break
                batch.append(job)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[_Job]) -> None:
        outcomes: list[tuple[Any, BaseException | None]] = [(None, None)] * len(batch)
        try:
            with self.sessions() as session, session.begin():
                grouped: dict[BatchUnit, list[int]] = {}
                for index, job in enumerate(batch):
                    if job.batch_unit is not None:
                        grouped.setdefault(job.batch_unit, []).append(index)
                        continue
                    try:
                        outcomes[index] = (job.unit(session), None)  # type: ignore[misc]
                    except ApiError as error:  # raised before the unit wrote: the batch goes on
                        outcomes[index] = (None, error)
                for batch_unit, indexes in grouped.items():
                    results = batch_unit(session, [batch[index].item for index in indexes])
                    for index, result in zip(indexes, results, strict=True):
                        outcomes[index] = (None, result) if isinstance(result, ApiError) else (result, None)
        except Exception as error:  # a unit broke, or the commit failed: nothing of the batch is stored
            if len(batch) > 1:
                log.warning("group commit of %d units failed (%s); retrying them one by one", len(batch), error)
                for job in batch:
                    self._commit([job])
                return
            outcomes = [(None, error)]
        # One wake-up of each event loop per batch, not one per unit: fewer self-pipe writes and GIL handoffs.
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]] = {}
        for job, (result, error) in zip(batch, outcomes, strict=True):
            by_loop.setdefault(job.loop, []).append((job.future, result, error))
        for loop, settled in by_loop.items():
            loop.call_soon_threadsafe(_settle_all, settled)


class Database:
    """Engines, migrations and the bounded read and write paths of one server process."""

    def __init__(self, url: str, *, readers: int = DEFAULT_READERS, writers: int | None = None) -> None:
        self.url = url
        self.backend = sa.make_url(url).get_backend_name() if "://" in url else "sqlite"
        sqlite = self.backend == "sqlite"
        writers = 1 if sqlite else (writers or DEFAULT_PG_WRITERS)
        if sqlite:
            self.write_engine = create_engine(url, pool_size=writers, max_overflow=0)
            # Two connections per reader thread: its long-lived raw one (`read_raw`) and one for sessions.
            self.read_engine = create_engine(url, pool_size=2 * readers, max_overflow=0, read_only=True)
        else:
            self.write_engine = create_engine(url, pool_size=2 * readers + writers, max_overflow=0)
            self.read_engine = self.write_engine
        migrate(self.write_engine)
        self.sessions = session_factory(self.write_engine)
        self.read_sessions = session_factory(self.read_engine)
        self._readers = ThreadPoolExecutor(max_workers=readers, thread_name_prefix="db-reader")
        self._local = threading.local()
        self._writer = _Writer(self.sessions, threads=writers, batch=MAX_BATCH)

    @property
    def engine(self) -> Engine:
        return self.write_engine

    async def read(self, unit: Unit[T]) -> T:
        """`unit(session)` in a read transaction on a reader thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._read, unit)

    def _read(self, unit: Unit[T]) -> T:
        with self.read_sessions() as session, session.begin():
            return unit(session)

    async def read_raw(self, unit: Callable[[Any], T]) -> T:
        """`unit(dbapi_connection)` on a reader thread: its own connection, kept for the thread's life, in
        autocommit (each statement reads one consistent snapshot). For the hot single-query reads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._read_raw, unit)

    def _read_raw(self, unit: Callable[[Any], T]) -> T:
        connection = getattr(self._local, "raw", None)
        if connection is None:
            connection = self.read_engine.raw_connection()
            driver = connection.driver_connection
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

    async def write(self, unit: Unit[T]) -> T:
        """`unit(session)` in a write transaction; returns once that transaction committed."""
        return await self._writer.submit(unit)

    async def write_batched(self, batch_unit: BatchUnit, item: Any) -> Any:
        """`batch_unit(session, [..., item, ...])[i]`, with the other items of the batch queued for `batch_unit`;
        returns once the transaction committed."""
        return await self._writer.submit(batch_unit=batch_unit, item=item)

    def close(self) -> None:
        self._writer.close()
        self._readers.shutdown(wait=True, cancel_futures=True)
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()

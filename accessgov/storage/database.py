"""The one path from the event loop to the database: bounded thread pools sized to the connection pools.

Handlers never touch a connection on the event loop. They hand a function of a `Session` to `read` or
`write` and await its result:

- `read` runs it on one of `readers` threads, each with its own pooled connection. On SQLite a read is a
  deferred transaction on a separate read-only engine, so it never takes the write lock and never waits for
  a writer (WAL).
- `write` queues it for the writer threads. SQLite has one writer thread (SQLite has one writer anyway, and a
  single thread never waits on the lock); it commits queued units of work together, each in its own
  savepoint, so one fsync covers a whole batch (group commit) while a unit that raises is rolled back alone.
  PostgreSQL has `writers` threads, one transaction per unit; the server batches concurrent commits itself.

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

from accessgov.storage.engine import create_engine, migrate, session_factory

log = logging.getLogger(__name__)
T = TypeVar("T")
Unit = Callable[[Session], T]

DEFAULT_READERS = 4
DEFAULT_PG_WRITERS = 4
# Units committed together at most; bounds the latency one batch adds and the work redone if a commit fails.
MAX_BATCH = 64


@dataclass(frozen=True)
class _Job:
    unit: Unit[Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


def _settle(future: asyncio.Future[Any], result: Any = None, error: BaseException | None = None) -> None:
    if future.done():  # the awaiting request was cancelled (client gone): nothing to deliver
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class _Writer:
    """Writer threads draining one queue; with `batch > 1`, a thread commits up to `batch` units at once."""

    def __init__(self, sessions: sessionmaker[Session], threads: int, batch: int) -> None:
        self.sessions = sessions
        self.batch = batch
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._run, name=f"db-writer-{i}", daemon=True) for i in range(threads)]
        for thread in self.threads:
            thread.start()

    def submit(self, unit: Unit[T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.jobs.put(_Job(unit, loop, future))
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
        outcomes: list[tuple[Any, BaseException | None]] = []
        try:
            with self.sessions() as session, session.begin():
                if len(batch) == 1:
                    outcomes.append(self._attempt(session, batch[0].unit))
                else:
                    for job in batch:
                        outcomes.append(self._attempt_in_savepoint(session, job.unit))
        except Exception as error:  # the commit itself failed: nothing of the batch is stored
            if len(batch) > 1:
                log.warning("group commit of %d units failed (%s); retrying them one by one", len(batch), error)
                for job in batch:
                    self._commit([job])
                return
            outcomes = [(None, error)]
        for job, (result, error) in zip(batch, outcomes, strict=True):
            job.loop.call_soon_threadsafe(_settle, job.future, result, error)

    @staticmethod
    def _attempt(session: Session, unit: Unit[Any]) -> tuple[Any, BaseException | None]:
        result = unit(session)  # an exception rolls the whole (one-unit) transaction back, via _commit
        return result, None

    @staticmethod
    def _attempt_in_savepoint(session: Session, unit: Unit[Any]) -> tuple[Any, BaseException | None]:
        try:
            with session.begin_nested():
                return unit(session), None
        except Exception as error:  # this unit is rolled back to its savepoint; the batch goes on
            return None, error


class Database:
    """Engines, migrations and the bounded read and write paths of one server process."""

    def __init__(self, url: str, *, readers: int = DEFAULT_READERS, writers: int | None = None) -> None:
        self.url = url
        self.backend = sa.make_url(url).get_backend_name() if "://" in url else "sqlite"
        sqlite = self.backend == "sqlite"
        writers = 1 if sqlite else (writers or DEFAULT_PG_WRITERS)
        if sqlite:
            self.write_engine = create_engine(url, pool_size=writers, max_overflow=0)
            self.read_engine = create_engine(url, pool_size=readers, max_overflow=0, read_only=True)
        else:
            self.write_engine = create_engine(url, pool_size=readers + writers, max_overflow=0)
            self.read_engine = self.write_engine
        migrate(self.write_engine)
        self.sessions = session_factory(self.write_engine)
        self.read_sessions = session_factory(self.read_engine)
        self._readers = ThreadPoolExecutor(max_workers=readers, thread_name_prefix="db-reader")
        self._writer = _Writer(self.sessions, threads=writers, batch=MAX_BATCH if sqlite else 1)

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

    async def write(self, unit: Unit[T]) -> T:
        """`unit(session)` in a write transaction; returns once that transaction committed."""
        return await self._writer.submit(unit)

    def close(self) -> None:
        self._writer.close()
        self._readers.shutdown(wait=True, cancel_futures=True)
        self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            self.read_engine.dispose()

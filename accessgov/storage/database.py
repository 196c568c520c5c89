"""The one path from the handlers to the database: the `Database` protocol, its two implementations
(`storage.sqlite`, `storage.postgres`) and what they share (design and measurements: docs/architecture.md, "The
database path").

Two styles of work, and no third: `read`/`write` take a function of a SQLAlchemy `Session` (everything but the hot
paths); the hot paths (a restart, a page of entitlements, a webhook delivery) are prepared statements yielded by
statement steps (`storage.statement_steps`): `read_steps` runs a read's steps, `write_steps` a `BatchSteps` (the
steps of a batch of items, in queue order) with the other items queued for it (group commit). A unit does no I/O
besides the database and raises `ApiError` (404, 409, ...) before writing anything, so the batch goes on without
it; any other exception rolls the batch back and each unit is retried alone. A result is delivered only after its
transaction committed (and, on SQLite, its WAL was fdatasynced). Which thread or connection runs what is each
implementation's own, and nothing outside them asks which backend it is: what differs between backends is an attribute
or a method of `Database` (`Database.of(dialect)` is the implementation of an engine's dialect), so a backend is one
module.
"""

from __future__ import annotations

import asyncio
import logging
import queue
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Dialect as Dialect  # re-exported: batch steps are handed the dialect
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import DEFAULTS
from accessgov.errors import ApiError, ErrorCode, ServiceUnavailable
from accessgov.storage.statement_steps import BatchSteps as BatchSteps  # re-exported, as Dialect
from accessgov.storage.statement_steps import Steps, drive

log = logging.getLogger(__name__)
T = TypeVar("T")
Unit = Callable[[Session], T]
# `bare(work)`: `work(dbapi_connection, dialect)` in a transaction of its own, without a Session.
Bare = Callable[[Callable[[Any, Dialect], None]], None]

DEFAULT_READERS = 4
# Rows per executemany of `Database.insert_rows` (where the backend has no faster way): amortises round trips, bounds
# memory.
INSERT_BATCH_SIZE = 5000
# Units committed together at most; bounds the latency one batch adds and the work redone if a commit fails.
MAX_BATCH = 64


class _Job(NamedTuple):  # not a frozen dataclass: one per write, whose `__init__` cost several times a tuple's
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    unit: Unit[Any] | None = None
    steps: BatchSteps | None = None
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


def _run_batch(
    sessions: Callable[[], Session], batch: list[_Job], bare: Bare | None = None
) -> list[tuple[Any, BaseException | None]]:
    """Run `batch` in one transaction; on failure, each job again in a transaction of its own. One outcome (result,
    error) per job. A batch of batch steps only runs in `bare(work)` when given (a transaction without a Session).
    `_Busy` (the write lock is taken) is raised before any unit ran, for the caller to retry."""
    outcomes: list[tuple[Any, BaseException | None]] = [(None, None)] * len(batch)
    try:
        if bare is not None and all(job.unit is None for job in batch):
            bare(lambda dbapi, dialect: _run_batch_steps(batch, outcomes, dbapi, dialect))
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
                _run_batch_steps(batch, outcomes, connection.connection.driver_connection, connection.dialect)
    except _Busy:
        raise
    except Exception as error:  # a unit broke, or the commit failed: nothing of the batch is stored
        if len(batch) == 1:
            return [(None, error)]
        log.warning("group commit of %d units failed (%s); retrying them one by one", len(batch), error)
        return [_run_alone(sessions, job, bare) for job in batch]
    return outcomes


def _run_batch_steps(
    batch: list[_Job], outcomes: list[tuple[Any, BaseException | None]], dbapi: Any, dialect: Dialect
) -> None:
    """Each batch's steps of `batch` run once with all of its items, in queue order, on `dbapi` (in its
    transaction); their outcomes into `outcomes`."""
    grouped: dict[BatchSteps, list[int]] = {}
    for index, job in enumerate(batch):
        if job.steps is not None:
            grouped.setdefault(job.steps, []).append(index)
    for steps, indexes in grouped.items():
        results = drive(steps(dialect, [batch[index].item for index in indexes]), dbapi)
        for index, result in zip(indexes, results, strict=True):
            outcomes[index] = (None, result) if isinstance(result, ApiError) else (result, None)


def _run_alone(sessions: Callable[[], Session], job: _Job, bare: Bare | None) -> tuple[Any, BaseException | None]:
    try:
        return _run_batch(sessions, [job], bare)[0]
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


def _service_unavailable(error: Exception) -> ServiceUnavailable:
    """503 `SERVICE_UNAVAILABLE` for a request the database could not serve: a client retries it (the SDK does)
    instead of reading a 500 as a fault of the server's code."""
    log.warning("database unavailable: %s: %s", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    return ServiceUnavailable(ErrorCode.SERVICE_UNAVAILABLE, "the database is unavailable; retry later")


# Each implementation of `Database`, by its engines' dialect name (`Database.__init_subclass__` fills it).
_IMPLEMENTATIONS: dict[str, type[Database]] = {}


class Database(ABC):
    """Engines, migrations and the bounded read and write paths of one server process (`storage.backends` opens
    the implementation a URL names). Its class attributes and class methods are what differs between backends, for
    the code that holds only an engine, a connection or a dialect (`Database.of`)."""

    # The dialect name of its engines (`sqlalchemy.engine.Dialect.name`); a subclass naming one is the
    # implementation `Database.of` finds for that dialect.
    backend: ClassVar[str]
    # A page of entitlements: the app joined to the page in one statement, or read first, on its own (a plan
    # choice measured per backend: docs/architecture.md, "A page of entitlements").
    joins_app_to_page: ClassVar[bool]
    # Whether a statement's CTEs may write (data-modifying `WITH`): a restart's writes then go as one statement
    # (`storage.tasks`).
    writes_in_ctes: ClassVar[bool] = False
    # Whether a migration copies a table to alter it (Alembic's batch mode), where ALTER TABLE cannot do most
    # changes in place.
    alters_by_copy: ClassVar[bool] = False
    # What says the database cannot take the work now (answered 503, see `_service_unavailable`).
    unavailable: ClassVar[tuple[type[Exception], ...]] = (sa.exc.OperationalError, sa.exc.TimeoutError)
    url: str
    write_engine: Engine
    read_engine: Engine
    sessions: sessionmaker[Session]
    read_sessions: sessionmaker[Session]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "backend" in cls.__dict__:  # an implementation (a subclass of one, e.g. a test's, keeps its entry)
            _IMPLEMENTATIONS[cls.backend] = cls

    @staticmethod
    def of(dialect: Dialect) -> type[Database]:
        """The implementation whose engines speak `dialect` (engines are made by `create_engine`, which imports it)."""
        try:
            return _IMPLEMENTATIONS[dialect.name]
        except KeyError:
            raise LookupError(
                f"no storage implementation for the {dialect.name!r} dialect: open engines with "
                "storage.backends.create_engine"
            ) from None

    @classmethod
    @abstractmethod
    def create_engine(
        cls, url: str, *, read_only: bool = False, synchronous: str = DEFAULTS.sqlite_synchronous, **kwargs: Any
    ) -> Engine:
        """An engine on `url` configured for this service (`storage.engine.new_engine`, and the backend's own
        connection settings); `read_only` connections refuse writes where the backend can, `synchronous` is
        SQLite's durability (ACCESSGOV_SQLITE_SYNCHRONOUS); `kwargs` go to `sqlalchemy.create_engine`."""

    @abstractmethod
    def __init__(
        self,
        url: str,
        *,
        readers: int = DEFAULT_READERS,
        writers: int | None = None,
        synchronous: str = DEFAULTS.sqlite_synchronous,
    ) -> None:
        """Open the database at `url` (migrated to the newest revision): `readers` and `writers` threads or
        connections, `synchronous` SQLite's durability; each implementation takes those of its own backend."""

    @classmethod
    def database_file(cls, url: str) -> Path | None:
        """The file that holds the database at `url`, None where it is not one file (the key file's default place
        is beside it: `keys.keyring.key_source`)."""
        return None

    @classmethod
    def connection_budget_warning(cls, url: str, *, readers: int, writers: int, workers: int) -> str | None:
        """A warning when `workers` server processes may open more connections than the database server accepts
        (`cli serve` prints it); None when they fit, or where there is no such limit."""
        return None

    @classmethod
    def lock_migrations(cls, connection: sa.Connection) -> None:
        """Hold, until `connection`'s transaction ends, the lock that makes workers migrating together take turns
        (`storage.engine.migrate`); none by default, where beginning the transaction already takes it."""
        return None

    @classmethod
    def insert_if_absent(cls, session: Session, table: sa.Table, values: Mapping[str, Any]) -> None:
        """Insert the row `values` into `table` unless one with its primary key exists (another worker may insert
        it meanwhile): in a savepoint, by default, whose conflict is ignored."""
        try:
            with session.begin_nested():
                session.execute(sa.insert(table).values(**values))
        except sa.exc.IntegrityError:
            pass  # another worker stored it first

    @classmethod
    def insert_rows(
        cls, session: Session, table: sa.Table, rows: Iterable[Mapping[str, Any]], batch_size: int = INSERT_BATCH_SIZE
    ) -> int:
        """Insert `rows` (dicts of all of `table`'s columns) in the session's transaction, for the bulk loads
        (millions of rows); how many. By default executemany in batches of `batch_size`."""
        count = 0
        statement = sa.insert(table)
        iterator = iter(rows)
        while batch := list(islice(iterator, batch_size)):
            session.execute(statement, batch)
            count += len(batch)
        return count

    @property
    def engine(self) -> Engine:
        return self.write_engine

    @property
    def dialect(self) -> Dialect:
        return self.read_engine.dialect

    @property
    @abstractmethod
    def delivery_steps(self) -> BatchSteps:
        """The steps that record a batch of webhook deliveries (`storage.events`): how depends on who else may
        write meanwhile."""

    @abstractmethod
    async def read(self, unit: Unit[T]) -> T:
        """`unit(session)` in a read transaction."""

    @abstractmethod
    async def read_steps(self, make: Callable[[], Steps[T]]) -> T:
        """What the steps `make()` returns yield, read in autocommit (each statement reads one consistent
        snapshot); `make` may be called again when a kept connection turns out broken (a read is safe to repeat).
        For the hot reads."""

    async def write(self, unit: Unit[T]) -> T:
        """`unit(session)` in a write transaction; returns once that transaction committed."""
        try:
            result: T = await self._submit(unit=unit)
            return result
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    async def write_steps(self, steps: BatchSteps, item: Any) -> Any:
        """`drive(steps(dialect, [..., item, ...]))[i]`, with the other items of the batch queued for `steps`;
        returns once the transaction committed."""
        try:
            return await self._submit(steps=steps, item=item)
        except self.unavailable as error:
            raise _service_unavailable(error) from error

    @abstractmethod
    def _submit(self, unit: Unit[Any] | None = None, steps: BatchSteps | None = None, item: Any = None) -> Any:
        """The future result of a write: a Session `unit`, or `item` for the batch `steps`."""

    @abstractmethod
    def close(self) -> None:
        """Stop the writers and readers (what is queued is committed first) and close every connection."""

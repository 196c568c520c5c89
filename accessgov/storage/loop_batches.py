"""PostgreSQL's hottest writes on the event loop, statement steps awaited on psycopg async connections: what is
queued while every connection is busy is committed in one transaction (at most `max_batch` items) by the next
connection free. A batch that failed, not by losing its connection, is run again an item per transaction; a
connection that failed is closed and its write not repeated elsewhere (whether it committed is unknown: the caller
is told it failed).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, NamedTuple

from sqlalchemy.engine import Dialect

from accessgov.errors import ApiError
from accessgov.storage.loop_reads import Connect, close_connection
from accessgov.storage.statement_steps import BatchSteps, drive_async

# A connection idle for longer than this is pinged before use (here, and in the pool: `storage.postgres`).
PING_AFTER_IDLE_SECONDS = 10.0


class _Item(NamedTuple):
    unit: BatchSteps
    item: Any
    future: asyncio.Future[Any]


class LoopBatches:
    """At most `size` transactions at a time, each committing what was queued when its connection came free."""

    def __init__(
        self, connect: Connect, size: int, dialect: Dialect, max_batch: int, ping_after: float = PING_AFTER_IDLE_SECONDS
    ) -> None:
        if size < 1:
            raise ValueError("loop batches need at least one connection")
        self._connect = connect
        self.size = size
        self.dialect = dialect
        self.max_batch = max_batch
        self.ping_after = ping_after
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[_Item] = []
        self._idle: list[tuple[Any, float]] = []  # (connection, when it was last used)
        self._drainers = 0
        self._tasks: set[asyncio.Task[None]] = set()  # referenced until done (the loop keeps only weak references)
        self._closed = False

    def submit(self, unit: BatchSteps, item: Any) -> asyncio.Future[Any]:
        """The future result of `unit` for `item`, settled once its transaction committed."""
        if self._closed:
            raise RuntimeError("the database was closed")
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # another (or a closed) loop's connections cannot serve this one
            self._drop_idle()
            self._loop, self._drainers = loop, 0
        future = loop.create_future()
        self._pending.append(_Item(unit, item, future))
        if self._drainers < self.size:
            self._drainers += 1
            task = loop.create_task(self._drain(loop))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return future

    async def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            while self._pending and self._loop is loop:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                await self._commit(batch)
        finally:
            if self._loop is loop:
                self._drainers -= 1

    async def _commit(self, batch: list[_Item]) -> None:
        try:
            connection = await self._checkout()
        except Exception as error:  # no connection: nothing of the batch ran
            _fail(batch, error)
            return
        try:
            outcomes = await self._run(connection, batch)
        except BaseException as error:
            lost = bool(connection.closed)
            close_connection(connection)
            if not isinstance(error, Exception):  # cancelled (the loop is closing): nothing more runs
                _fail(batch, error)
                raise
            if len(batch) == 1 or lost:
                _fail(batch, error)
                return
            for item in batch:  # one transaction each; the first to fail alone takes nobody with it
                await self._commit([item])
            return
        if self._closed or self._loop is not asyncio.get_running_loop():
            close_connection(connection)
        else:
            self._idle.append((connection, time.monotonic()))
        for item, outcome in zip(batch, outcomes, strict=True):
            if not item.future.done():  # a caller that went away has nothing to receive
                if isinstance(outcome, ApiError):
                    item.future.set_exception(outcome)
                else:
                    item.future.set_result(outcome)

    async def _checkout(self) -> Any:
        """The most recently used idle connection, pinged first when it sat idle for over `ping_after` seconds (as
        the engine's pool does: a write is never repeated, so a connection that broke while idle must not take
        one down with it); else a new one."""
        while self._idle:
            connection, last_used = self._idle.pop()
            if time.monotonic() - last_used <= self.ping_after:
                return connection
            try:
                await connection.execute("SELECT 1")
                await connection.rollback()  # the ping's own transaction (the connection is not autocommit)
                return connection
            except Exception:  # gone while idle: close it and try the next, or open one
                close_connection(connection)
        return await self._connect()

    async def _run(self, connection: Any, batch: list[_Item]) -> list[Any]:
        outcomes: list[Any] = [None] * len(batch)
        grouped: dict[BatchSteps, list[int]] = {}
        for index, item in enumerate(batch):
            grouped.setdefault(item.unit, []).append(index)
        try:
            for unit, indexes in grouped.items():
                results = await drive_async(unit(self.dialect, [batch[index].item for index in indexes]), connection)
                for index, result in zip(indexes, results, strict=True):
                    outcomes[index] = result
            await connection.commit()
        except BaseException:
            if not connection.closed:
                with contextlib.suppress(Exception):  # the error that got us here is the one to report
                    await connection.rollback()
            raise
        return outcomes

    def close(self) -> None:
        """Close the idle connections now and every other one when its transaction ends."""
        self._closed = True
        self._drop_idle()

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            close_connection(connection)


def _fail(batch: list[_Item], error: BaseException) -> None:
    for item in batch:
        if item.future.done():
            continue
        if isinstance(error, asyncio.CancelledError):
            item.future.cancel()
        else:
            item.future.set_exception(error)

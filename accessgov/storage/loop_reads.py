"""PostgreSQL's hot reads on the event loop, statement steps awaited on a semaphore and a stack of psycopg async
connections (measured against reader threads and psycopg_pool: docs/architecture.md, "The database path").

Connections are autocommit, opened on first use up to `size`, most recently used first, and belong to one event
loop (another loop starts over). A connection that failed, or whose statement was cancelled, is closed; a read
that failed because a kept connection had broken is tried once more on a new one (a read is safe to repeat).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError

from accessgov.storage.statement_steps import Steps, drive_async

T = TypeVar("T")

Connect = Callable[[], Awaitable[Any]]  # -> psycopg.AsyncConnection in autocommit


class LoopReads:
    """At most `size` connections, each used by one statement at a time; `run` waits for a free one."""

    def __init__(self, connect: Connect, size: int) -> None:
        if size < 1:
            raise ValueError("a pool of loop reads needs at least one connection")
        self._connect = connect
        self.size = size
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = asyncio.Semaphore(size)
        self._idle: list[Any] = []
        self._closed = False

    @property
    def idle(self) -> int:
        """Open connections waiting for a statement."""
        return len(self._idle)

    async def run(self, make: Callable[[], Steps[T]]) -> T:
        """What the steps `make()` return, read on a connection of this loop's pool (`make` is called again, once,
        when a kept connection turns out broken)."""
        if self._closed:
            raise RuntimeError("the database was closed")
        self._bind(asyncio.get_running_loop())
        slots = self._slots
        await slots.acquire()
        try:
            try:
                return await self._run_on(self._idle.pop() if self._idle else None, make)
            except _Broken:  # a kept connection had gone away: once more, on a new one
                return await self._run_on(None, make)
        finally:
            slots.release()

    async def _run_on(self, connection: Any, make: Callable[[], Steps[T]]) -> T:
        kept = connection is not None
        if connection is None:
            connection = await self._connect()
        try:
            rows = await drive_async(make(), connection)
        except BaseException as error:
            lost = kept and _connection_lost(error, connection)
            close_connection(connection)
            if lost:
                raise _Broken from error
            raise
        if self._closed or self._loop is not asyncio.get_running_loop():
            close_connection(connection)
        else:
            self._idle.append(connection)
        return rows

    def _bind(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        # Connections and the semaphore of another (or a closed) loop cannot serve this one.
        self._drop_idle()
        self._loop = loop
        self._slots = asyncio.Semaphore(self.size)

    def close(self) -> None:
        """Close the idle connections now and every other one when its statement ends."""
        self._closed = True
        self._drop_idle()

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            close_connection(connection)


class _Broken(Exception):
    """A kept connection's statement failed because the connection had broken."""


def _connection_lost(error: BaseException, connection: Any) -> bool:
    """Whether `error` came from a connection that no longer works (rather than from the statement itself)."""
    return isinstance(error, DBAPIError) and bool(connection.closed)


def close_connection(connection: Any) -> None:
    """Close without awaiting: libpq's PQfinish is a local call (a terminate message and a close)."""
    if not connection.closed:
        connection.pgconn.finish()

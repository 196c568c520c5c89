"""`LoopReads` (PostgreSQL's hot reads on the event loop: bounded, self-healing); `Database.read_steps` on both
backends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from accessgov.storage.backends import create_engine, open_url
from accessgov.storage.loop_reads import LoopReads
from accessgov.storage.postgres import _async_connector
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.statement_steps import Steps, read
from tests.support.postgres import postgres_url

BACKEND_PID = sa.select(sa.func.pg_backend_pid())
SLEEP = sa.select(sa.func.pg_sleep(sa.bindparam("seconds", type_=sa.Float)))
AS_INTEGER = sa.select(sa.cast(sa.bindparam("text", type_=sa.String), sa.Integer))


class Opened:
    """A connector that keeps every connection it opened."""

    def __init__(self, engine: Engine, *, autocommit: bool = True) -> None:
        self.connect = _async_connector(engine, autocommit=autocommit)
        self.connections: list[Any] = []

    async def __call__(self) -> Any:
        connection = await self.connect()
        self.connections.append(connection)
        return connection


@pytest.fixture
def engine(postgres_admin: Engine) -> Iterator[Engine]:
    engine = create_engine(postgres_url(), poolclass=sa.NullPool)
    yield engine
    engine.dispose()


def rows_of(query: PreparedQuery, values: dict[str, Any]) -> Callable[[], Steps[list[tuple[Any, ...]]]]:
    """The steps of one read of `query`, as `LoopReads.run` takes them."""

    def steps() -> Steps[list[tuple[Any, ...]]]:
        rows: list[tuple[Any, ...]] = yield read(query, **values)
        return rows

    return steps


def _query(engine: Engine, stmt: sa.Select[Any]) -> PreparedQuery:
    return PreparedQuery(stmt, engine.dialect)


def _reads(engine: Engine, size: int) -> tuple[LoopReads, Opened]:
    opened = Opened(engine)
    return LoopReads(opened, size), opened


def _terminate(admin: Engine, pid: int) -> None:
    with admin.begin() as connection:
        assert connection.execute(sa.select(sa.func.pg_terminate_backend(pid))).scalar_one() is True


@pytest.mark.postgres
def test_concurrent_reads_share_at_most_size_connections(engine: Engine) -> None:
    reads, opened = _reads(engine, 2)
    pid, sleep = _query(engine, BACKEND_PID), _query(engine, SLEEP)

    async def main() -> set[int]:
        await asyncio.gather(*(reads.run(rows_of(sleep, {"seconds": 0.02})) for _ in range(6)))
        return {rows[0][0] for rows in await asyncio.gather(*(reads.run(rows_of(pid, {})) for _ in range(10)))}

    backends = asyncio.run(main())
    assert len(opened.connections) == 2
    assert len(backends) == 2
    assert reads.idle == 2  # kept for the next read
    reads.close()


@pytest.mark.postgres
def test_a_connection_the_server_dropped_is_replaced_and_the_read_repeated(
    engine: Engine, postgres_admin: Engine
) -> None:
    reads, opened = _reads(engine, 1)
    pid = _query(engine, BACKEND_PID)

    async def main() -> tuple[int, int]:
        first = (await reads.run(rows_of(pid, {})))[0][0]
        _terminate(postgres_admin, first)
        return first, (await reads.run(rows_of(pid, {})))[0][0]

    first, second = asyncio.run(main())
    assert first != second
    assert len(opened.connections) == 2
    assert opened.connections[0].closed


@pytest.mark.postgres
def test_a_failing_statement_is_not_repeated_and_its_connection_not_kept(engine: Engine) -> None:
    reads, opened = _reads(engine, 1)

    async def main() -> list[tuple[Any, ...]]:
        with pytest.raises(DBAPIError, match="invalid input syntax"):  # raised as Core raises driver errors
            await reads.run(rows_of(_query(engine, AS_INTEGER), {"text": "not a number"}))
        assert reads.idle == 0
        return await reads.run(rows_of(_query(engine, AS_INTEGER), {"text": "42"}))

    assert asyncio.run(main()) == [(42,)]
    assert len(opened.connections) == 2
    assert opened.connections[0].closed


@pytest.mark.postgres
def test_a_cancelled_read_frees_its_slot_and_closes_its_connection(engine: Engine) -> None:
    reads, opened = _reads(engine, 1)

    async def main() -> list[tuple[Any, ...]]:
        slow = asyncio.ensure_future(reads.run(rows_of(_query(engine, SLEEP), {"seconds": 30})))
        await asyncio.sleep(0.2)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        return await asyncio.wait_for(reads.run(rows_of(_query(engine, AS_INTEGER), {"text": "7"})), 5)

    assert asyncio.run(main()) == [(7,)]
    assert opened.connections[0].closed


@pytest.mark.postgres
def test_another_loop_starts_over_and_close_ends_the_pool(engine: Engine) -> None:
    reads, opened = _reads(engine, 2)
    query = _query(engine, AS_INTEGER)
    assert asyncio.run(reads.run(rows_of(query, {"text": "1"}))) == [(1,)]
    assert asyncio.run(reads.run(rows_of(query, {"text": "2"}))) == [(2,)]
    assert len(opened.connections) == 2
    assert opened.connections[0].closed  # the first loop's connection cannot serve the second
    assert reads.idle == 1
    reads.close()
    assert reads.idle == 0 and opened.connections[1].closed
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(reads.run(rows_of(query, {"text": "3"})))


def test_a_pool_needs_a_connection() -> None:
    with pytest.raises(ValueError, match="at least one"):
        LoopReads(lambda: None, 0)  # type: ignore[arg-type,return-value]


def test_read_steps_reads_on_either_backend(db_url: str) -> None:
    db = open_url(db_url)
    try:
        query = PreparedQuery(sa.select(sa.bindparam("n", type_=sa.Integer) + 1), db.dialect)
        assert asyncio.run(db.read_steps(rows_of(query, {"n": 41}))) == [(42,)]
    finally:
        db.close()

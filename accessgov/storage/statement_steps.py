"""Database work written once for both kinds of connection: a generator yields each `Statement` it needs run and
receives its result; `drive` runs it on a DBAPI connection (a thread's session, SQLite's loop connection), and
`drive_async` on a psycopg `AsyncConnection` awaited on the event loop (`storage.loop_batches`).

The work decides what to run next from what came back (a task's row, then its history's new steps, then the
policy its baseline defers to), so it cannot be a list of statements; as a generator it needs no second copy
with `await` in it.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from accessgov.storage.prepared import PreparedQuery

T = TypeVar("T")


class Statement(NamedTuple):
    """One prepared statement to run: its rows back (`read`), else executed once with `values` (the first row back
    when it returns any), or, with `rows` of parameters made by `PreparedQuery.params`, once per row (the number of
    rows changed back)."""

    query: PreparedQuery
    values: Mapping[str, Any]
    read: bool = False
    rows: Sequence[Sequence[Any] | Mapping[str, Any]] | None = None


Steps = Generator[Statement, Any, T]


def read(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, values, read=True)


def write(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, values)


def write_many(query: PreparedQuery, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> Statement:
    return Statement(query, {}, rows=rows)


def drive(steps: Steps[T], dbapi_connection: Any) -> T:
    """What `steps` returns, its statements run on a DBAPI connection."""
    result: Any = None
    while True:
        try:
            statement = steps.send(result)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        query, rows = statement.query, statement.rows
        if rows is not None and len(rows) == 1:  # psycopg's executemany runs a pipeline: ~3x a statement's CPU
            query.execute_params(dbapi_connection, rows[0])
            result = 1
        elif rows is not None:
            result = query.execute_many(dbapi_connection, rows)
        elif statement.read:
            result = query.run(dbapi_connection, **statement.values)
        else:
            result = query.execute(dbapi_connection, **statement.values)


async def drive_async(steps: Steps[T], connection: Any) -> T:
    """What `steps` returns, its statements awaited on a psycopg `AsyncConnection`."""
    result: Any = None
    while True:
        try:
            statement = steps.send(result)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        query, rows = statement.query, statement.rows
        if rows is not None and len(rows) == 1:
            await query.execute_params_async(connection, rows[0])
            result = 1
        elif rows is not None:
            result = await query.execute_many_async(connection, rows)
        elif statement.read:
            result = await query.run_async(connection, **statement.values)
        else:
            result = await query.execute_async(connection, **statement.values)

"""Database work written once for both kinds of connection: a generator yields each `Statement` it needs run and
receives its result; `drive` runs it on a DBAPI connection, `drive_async` on a psycopg `AsyncConnection` awaited on
the event loop. The work decides what to run next from what came back (a task's row, its history's new steps, the
policy its baseline defers to), and as a generator needs no second copy with `await` in it.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from accessgov.storage.prepared import PreparedQuery

T = TypeVar("T")


# What a driver does with a statement's parameters.
READ, WRITE, WRITE_MANY = 0, 1, 2


class Statement(NamedTuple):
    """One prepared statement to run, its parameters made by `PreparedQuery.params`: its rows back (`READ`),
    executed once (`WRITE`: the first row back when it returns any), or once per row of `params` (`WRITE_MANY`:
    the number of rows changed back)."""

    query: PreparedQuery
    params: Any
    kind: int


Steps = Generator[Statement, Any, T]


def read(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, query.params(values), READ)


def write(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, query.params(values), WRITE)


def write_many(query: PreparedQuery, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> Statement:
    """`rows` made by `params`; one row is executed as a plain statement (psycopg's executemany runs a pipeline:
    ~3x the CPU of one statement)."""
    return Statement(query, rows[0], WRITE) if len(rows) == 1 else Statement(query, rows, WRITE_MANY)


# The `PreparedQuery` method of each kind, for each kind of connection.
_ON_SESSION = (PreparedQuery.run_params, PreparedQuery.execute_params, PreparedQuery.execute_many)
_ON_LOOP = (PreparedQuery.run_params_async, PreparedQuery.execute_params_async, PreparedQuery.execute_many_async)


def _next(steps: Steps[T], result: Any) -> tuple[Statement | None, T | None]:
    """The statement `steps` wants run after `result`, or (None, what `steps` returned) once it is done."""
    try:
        return steps.send(result), None
    except StopIteration as done:
        return None, done.value


def drive(steps: Steps[T], dbapi_connection: Any) -> T:
    """What `steps` returns, its statements run on a DBAPI connection."""
    statement, returned = _next(steps, None)
    while statement is not None:
        query, params, kind = statement
        statement, returned = _next(steps, _ON_SESSION[kind](query, dbapi_connection, params))
    return returned  # type: ignore[return-value]


async def drive_async(steps: Steps[T], connection: Any) -> T:
    """What `steps` returns, its statements awaited on a psycopg `AsyncConnection`."""
    statement, returned = _next(steps, None)
    while statement is not None:
        query, params, kind = statement
        statement, returned = _next(steps, await _ON_LOOP[kind](query, connection, params))
    return returned  # type: ignore[return-value]

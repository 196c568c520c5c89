"""The hot paths' one style of database work (a restart, a page of entitlements, a webhook delivery, the runner's
claims): prepared statements (`storage.prepared`) yielded by a generator, which receives each one's result and
decides what to run next from it (a task's row, its history's new steps, the policy its baseline defers to).
Written once for both kinds of connection: `drive` runs the steps on a DBAPI connection (SQLite's loop, a
Session's transaction), `drive_async` awaits them on a psycopg `AsyncConnection` (PostgreSQL's loop); as a
generator the work needs no second copy with `await` in it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from accessgov.storage.prepared import PreparedQuery

T = TypeVar("T")


# What a driver does with a statement's parameters.
READ, WRITE, WRITE_MANY, WRITE_MANY_RETURNING = 0, 1, 2, 3


class Statement(NamedTuple):
    """One prepared statement to run, its parameters made by `PreparedQuery.params`: its rows back (`READ`),
    executed once (`WRITE`: the first row back when it returns any), once per row of `params` (`WRITE_MANY`:
    the number of rows changed back; `WRITE_MANY_RETURNING`, psycopg only: the first row of each, pipelined)."""

    query: PreparedQuery
    params: Any
    kind: int


Steps = Generator[Statement, Any, T]
# `steps(dialect, items)`: the statement steps of a batch, inside its transaction: one result per item, in order;
# an `ApiError` in the list is raised to that item's caller.
BatchSteps = Callable[[Dialect, list[Any]], Steps[list[Any]]]


def read(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, query.params(values), READ)


def write(query: PreparedQuery, **values: Any) -> Statement:
    return Statement(query, query.params(values), WRITE)


def write_many(query: PreparedQuery, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> Statement:
    """`rows` made by `params`; one row is executed as a plain statement (psycopg's executemany runs a pipeline:
    ~3x the CPU of one statement)."""
    return Statement(query, rows[0], WRITE) if len(rows) == 1 else Statement(query, rows, WRITE_MANY)


def write_many_returning(query: PreparedQuery, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> Statement:
    """psycopg: `rows` made by `params`, executed in one pipelined `executemany`; the first row of each back."""
    return Statement(query, rows, WRITE_MANY_RETURNING)


# The `PreparedQuery` method of each kind, for each kind of connection.
_ON_SESSION = (
    PreparedQuery.run_params,
    PreparedQuery.execute_params,
    PreparedQuery.execute_many,
    PreparedQuery.execute_many_returning,
)
_ON_LOOP = (
    PreparedQuery.run_params_async,
    PreparedQuery.execute_params_async,
    PreparedQuery.execute_many_async,
    PreparedQuery.execute_many_returning_async,
)


def _next(steps: Steps[T], result: Any) -> tuple[Statement | None, T | None]:
    """The statement `steps` wants run after `result`, or (None, what `steps` returned) once it is done."""
    try:
        return steps.send(result), None
    except StopIteration as done:
        return None, done.value


def drive(steps: Steps[T], dbapi_connection: Any) -> T:
    """What `steps` returns, its statements run on a DBAPI connection (in its caller's transaction, if any)."""
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


def drive_in(session: Session, steps: Steps[T]) -> T:
    """What `steps` returns, its statements run in `session`'s transaction (on its connection's DBAPI connection)."""
    return drive(steps, session.connection().connection.driver_connection)

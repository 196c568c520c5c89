"""Statements compiled once per dialect by SQLAlchemy and executed on a plain DBAPI connection: for the queries on
every request's path, Core's statement building, cache key and result machinery cost several times the query
(measured: 192 against 13 µs for a page on SQLite)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar, cast

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from accessgov.jsoncodec import loads

T = TypeVar("T")


def per_dialect(build: Callable[[Dialect], T]) -> Callable[[Dialect], T]:
    """`build(dialect)` once per dialect name, then the same value: a module's statements, compiled once."""
    built: dict[str, T] = {}

    def get(dialect: Dialect) -> T:
        value = built.get(dialect.name)
        if value is None:
            value = built[dialect.name] = build(dialect)
        return value

    return get


class PreparedQuery:
    """One statement, compiled for one dialect; `run` executes it on a DBAPI connection. Parameters go through the
    bind processors Core would apply, so rows written here read back exactly as rows written through Core."""

    def __init__(self, stmt: ClauseElement, dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, stmt.compile(dialect=dialect))  # a statement's compiler, not DDL's
        self.dialect = dialect
        self.sql = str(compiled)
        self.positional = bool(compiled.positional)
        self.order: Sequence[str] = tuple(compiled.positiontup or ()) if self.positional else ()
        # The positional values in order, in one C call (a generator per call cost ~5x more with 11 columns).
        self._in_order = _getter(self.order)
        # Constants SQLAlchemy bound itself (SQLite renders `LIMIT ? OFFSET ?` with OFFSET 0; `.values(x=None)`).
        self.defaults = {name: value for name, value in compiled.params.items() if not compiled.binds[name].required}
        self.processors = {
            name: processor
            for name, bind in compiled.binds.items()
            if (processor := bind.type.dialect_impl(dialect).bind_processor(dialect)) is not None
        }
        # For `typed`: each selected column's result processor (None where the driver's value is final).
        selected = getattr(stmt, "selected_columns", ())
        self.result_processors = [
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in selected
        ]

    def params(self, values: Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
        return self._arranged(self._processed({**self.defaults, **values}))

    def params_many(self, rows: Sequence[Mapping[str, Any]], **shared: Any) -> list[Sequence[Any] | Mapping[str, Any]]:
        """`params` of each row with the `shared` values added, which are processed once (a batch's timestamp: on
        SQLite a datetime's bind processor costs more than the rest of a row)."""
        common = self._processed({**self.defaults, **shared})
        return [self._arranged({**common, **self._processed(row)}) for row in rows]

    def _processed(self, values: Mapping[str, Any]) -> dict[str, Any]:
        processed = dict(values)
        for name, processor in self.processors.items():
            if name in processed:  # None too: a JSON column stores JSON null for it, as through Core
                processed[name] = processor(processed[name])
        return processed

    def _arranged(self, merged: dict[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
        return self._in_order(merged) if self.positional else merged

    def _raise(self, error: Exception, params: Any) -> NoReturn:
        """A driver error raised as Core would have raised it (IntegrityError, OperationalError, ...), so callers
        handle one family of exceptions."""
        raise DBAPIError.instance(
            self.sql, params, error, self.dialect.loaded_dbapi.Error, dialect=self.dialect
        ) from error

    # The methods below open and close their cursor inline: a generator-based context manager cost as much as a
    # page's statement on SQLite (py-spy: contextlib's __enter__/__exit__ ~6 % of a restart's loop time).

    def execute(self, dbapi_connection: Any, **values: Any) -> tuple[Any, ...] | None:
        """Execute (a write, say) and return the first row when the statement returns rows."""
        return self.execute_params(dbapi_connection, self.params(values))

    def execute_params(
        self, dbapi_connection: Any, params: Sequence[Any] | Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        """`execute` with parameters already made by `params`."""
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(self.sql, params)
            return cursor.fetchone() if cursor.description else None
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, params)
        finally:
            cursor.close()

    async def execute_params_async(
        self, connection: Any, params: Sequence[Any] | Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        """`execute_params` on a psycopg `AsyncConnection`."""
        cursor = connection.cursor()
        try:
            await cursor.execute(self.sql, params)
            return await cursor.fetchone() if cursor.description else None
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, params)
        finally:
            await cursor.close()

    def execute_many(self, dbapi_connection: Any, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> int:
        """Execute once per row of parameters already made by `params` (DBAPI `executemany`); returns the rows
        changed in all (sqlite3 and psycopg both sum `rowcount` over the executions)."""
        cursor = dbapi_connection.cursor()
        try:
            cursor.executemany(self.sql, rows)
            return int(cursor.rowcount)
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, rows)
        finally:
            cursor.close()

    async def execute_many_async(self, connection: Any, rows: Sequence[Sequence[Any] | Mapping[str, Any]]) -> int:
        """`execute_many` on a psycopg `AsyncConnection`."""
        cursor = connection.cursor()
        try:
            await cursor.executemany(self.sql, rows)
            return int(cursor.rowcount)
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, rows)
        finally:
            await cursor.close()

    def execute_many_returning(
        self, dbapi_connection: Any, rows: Sequence[Sequence[Any] | Mapping[str, Any]]
    ) -> list[tuple[Any, ...] | None]:
        """psycopg only: `executemany` of a statement with RETURNING (pipelined), the first row of each."""
        cursor = dbapi_connection.cursor()
        try:
            cursor.executemany(self.sql, rows, returning=True)
            firsts: list[tuple[Any, ...] | None] = []
            while True:
                firsts.append(cursor.fetchone())
                if not cursor.nextset():
                    return firsts
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, rows)
        finally:
            cursor.close()

    async def execute_many_returning_async(
        self, connection: Any, rows: Sequence[Sequence[Any] | Mapping[str, Any]]
    ) -> list[tuple[Any, ...] | None]:
        """`execute_many_returning` on a psycopg `AsyncConnection`."""
        cursor = connection.cursor()
        try:
            await cursor.executemany(self.sql, rows, returning=True)
            firsts: list[tuple[Any, ...] | None] = []
            while True:
                firsts.append(await cursor.fetchone())
                if not cursor.nextset():
                    return firsts
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, rows)
        finally:
            await cursor.close()

    def run(self, dbapi_connection: Any, **values: Any) -> list[tuple[Any, ...]]:
        return self.run_params(dbapi_connection, self.params(values))

    def run_params(self, dbapi_connection: Any, params: Sequence[Any] | Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """`run` with parameters already made by `params`."""
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(self.sql, params)
            return list(cursor.fetchall())
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, params)
        finally:
            cursor.close()

    async def run_async(self, connection: Any, **values: Any) -> list[tuple[Any, ...]]:
        """`run` on a psycopg `AsyncConnection` (see `storage.loop_reads`)."""
        return await self.run_params_async(connection, self.params(values))

    async def run_params_async(
        self, connection: Any, params: Sequence[Any] | Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """`run_params` on a psycopg `AsyncConnection`."""
        cursor = connection.cursor()
        try:
            await cursor.execute(self.sql, params)
            return list(await cursor.fetchall())
        except self.dialect.loaded_dbapi.Error as error:
            self._raise(error, params)
        finally:
            await cursor.close()

    def typed(self, rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
        """`rows` of this SELECT as the driver returned them, their values converted as Core converts them (aware
        datetimes, parsed JSON), for callers that need typed rows."""
        processors = self.result_processors
        return [
            tuple(value if process is None else process(value) for process, value in zip(processors, row, strict=True))
            for row in rows
        ]


def _getter(names: Sequence[str]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The values of `names` in a mapping, as a tuple (itemgetter returns a bare value for one name)."""
    if len(names) == 1:
        name = names[0]
        return lambda values: (values[name],)
    if not names:
        return lambda values: ()
    return operator.itemgetter(*names)


def json_column(value: Any) -> Any:
    """A JSON column's value as a DBAPI connection returns it: SQLite hands over the text, psycopg the parsed value."""
    return loads(value) if isinstance(value, str | bytes) else value

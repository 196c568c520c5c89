"""Keyset SQL: the page after a cursor as an index range scan, never OFFSET."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import NoSuchColumnError
from sqlalchemy.orm import Session
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import ColumnElement, UnaryExpression

from accessgov.paging.errors import PageTokenError
from accessgov.paging.limits import Cursor, CursorValue
from accessgov.paging.request import PageRequest


@dataclass(frozen=True)
class _SortKey:
    column: ColumnElement[Any]
    descending: bool
    original: Any


def _sort_keys(order_by: Sequence[Any]) -> list[_SortKey]:
    if isinstance(order_by, str) or not order_by:
        raise ValueError("order_by needs at least one column")
    keys = []
    for expr in order_by:
        descending = False
        element = expr
        if isinstance(expr, UnaryExpression):
            if expr.modifier is operators.desc_op:
                descending = True
            elif expr.modifier is not operators.asc_op:
                raise ValueError(f"order_by takes columns, col.asc() or col.desc(), got {expr}")
            element = expr.element
        column = element.__clause_element__() if hasattr(element, "__clause_element__") else element
        if not isinstance(column, ColumnElement):
            raise TypeError(f"order_by takes column expressions, got {expr!r}")
        keys.append(_SortKey(column, descending, expr))
    return keys


def _fits(column: ColumnElement[Any], value: CursorValue) -> bool:
    """Whether a cursor value has the column's Python type (a signed token may still be of another listing's
    shape after a change of sort key; the database must never see an int compared with a string)."""
    try:
        expected = column.type.python_type
    except NotImplementedError:
        return True
    if expected is int:
        return isinstance(value, int) and -(2**63) <= value < 2**63
    return isinstance(value, expected)


def keyset_condition(
    order_by: Sequence[Any], cursor: Sequence[CursorValue], *, row_values: bool = True
) -> ColumnElement[bool]:
    """The WHERE clause selecting the items strictly after `cursor` in `order_by` order.

    Ascending (or all-descending) keys become a row-value comparison, ``(a, b) > (:a, :b)``, which PostgreSQL
    and SQLite (3.15+) both serve as one index range scan; mixed directions, or ``row_values=False``, the
    equivalent ``a > :a OR (a = :a AND b > :b)``. The key columns must be NOT NULL and together unique.
    """
    keys = _sort_keys(order_by)
    if len(cursor) != len(keys):
        raise PageTokenError(
            f"page_token has {len(cursor)} sort key values, this listing sorts on {len(keys)}", reason="cursor"
        )
    for key, value in zip(keys, cursor, strict=True):
        if not _fits(key.column, value):
            raise PageTokenError(f"page_token's cursor does not match the sort key {key.column}", reason="cursor")
    binds = [sa.literal(value, key.column.type) for key, value in zip(keys, cursor, strict=True)]
    if len(keys) == 1:
        key = keys[0]
        return key.column < binds[0] if key.descending else key.column > binds[0]
    if row_values and len({key.descending for key in keys}) == 1:
        left, right = sa.tuple_(*(key.column for key in keys)), sa.tuple_(*binds)
        return left < right if keys[0].descending else left > right
    alternatives = []
    for i, key in enumerate(keys):
        equal = [keys[j].column == binds[j] for j in range(i)]
        after = key.column < binds[i] if key.descending else key.column > binds[i]
        alternatives.append(sa.and_(*equal, after))
    return sa.or_(*alternatives)


def keyset_statement(
    stmt: sa.Select[Any], order_by: Sequence[Any], request: PageRequest, *, row_values: bool = True
) -> sa.Select[Any]:
    """`stmt` restricted to the page of `request`: after its cursor, in key order, ``LIMIT size + 1``.

    Any ORDER BY already on `stmt` is replaced by `order_by`. There is no OFFSET (SQLite's compiler renders
    a constant ``OFFSET 0`` after every LIMIT; other dialects render none).
    """
    if request.cursor is not None:
        stmt = stmt.where(keyset_condition(order_by, request.cursor, row_values=row_values))
    ordering = [key.column.desc() if key.descending else key.column for key in _sort_keys(order_by)]
    return stmt.order_by(None).order_by(*ordering).limit(request.size + 1)


def keyset_page(
    session: Session | Connection,
    stmt: sa.Select[Any],
    order_by: Sequence[Any],
    request: PageRequest,
    *,
    key: Callable[[Any], Sequence[CursorValue]] | None = None,
    row_values: bool = True,
) -> tuple[list[Any], Cursor | None]:
    """One page of `stmt` in `order_by` order, and the cursor of its last item if more remain (else ``None``).

    `stmt` selects and filters; this adds the keyset condition, the ordering and ``LIMIT size + 1`` (the extra
    row says whether another page exists, without a COUNT). Items are rows as ``session.execute`` returns them,
    except that a select of one ORM entity gives the entity instances (as ``session.scalars`` does).

    The cursor is read from the last item: an entity's mapped attributes, or a row's columns (the key columns
    must then be selected). `key` overrides that, e.g. for computed sort keys. Key values must be str or int.
    """
    keys = _sort_keys(order_by)
    result = session.execute(keyset_statement(stmt, order_by, request, row_values=row_values))
    items = list(result.scalars()) if _selects_one_entity(stmt) else list(result)
    if len(items) <= request.size:
        return items, None
    items = items[: request.size]
    last = items[-1]
    values = tuple(key(last)) if key is not None else tuple(_key_value(last, k) for k in keys)
    return items, values


def _selects_one_entity(stmt: sa.Select[Any]) -> bool:
    descriptions = stmt.column_descriptions
    if len(descriptions) != 1:
        return False
    inspected = sa.inspect(descriptions[0]["expr"], raiseerr=False)
    return bool(getattr(inspected, "is_mapper", False) or getattr(inspected, "is_aliased_class", False))


def _key_value(item: Any, key: _SortKey) -> Any:
    mapping = getattr(item, "_mapping", None)
    if mapping is not None:  # a Row
        for candidate in (key.column, key.original):
            try:
                return mapping[candidate]
            except (NoSuchColumnError, KeyError):
                continue
        raise LookupError(f"the sort key column {key.column} is not among the selected columns")
    state = sa.inspect(item, raiseerr=False)
    mapper = getattr(state, "mapper", None)
    if mapper is None:
        raise TypeError(f"cannot read sort keys from {type(item).__name__}; pass key=")
    try:
        return getattr(item, mapper.get_property_by_column(key.column).key)
    except Exception as error:  # UnmappedColumnError and friends
        raise LookupError(f"the sort key column {key.column} is not mapped on {type(item).__name__}") from error

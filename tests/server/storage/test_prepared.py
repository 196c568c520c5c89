"""`storage.prepared`: statements compiled once and run on the DBAPI connection store and read values exactly as
Core does, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Engine

from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import UTCDateTime

MOMENT = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
PROBES = sa.Table(
    "prepared_probes",
    sa.MetaData(),
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("value", sa.Text, nullable=True),
    sa.Column("document", sa.JSON, nullable=True),
    sa.Column("at", UTCDateTime, nullable=True),
)


@pytest.fixture
def probes(engine: Engine) -> Iterator[Engine]:
    PROBES.create(engine)
    yield engine
    PROBES.drop(engine)


def test_values_are_stored_as_core_stores_them_and_read_back_as_core_reads_them(probes: Engine) -> None:
    """On SQLite a datetime is text: a prepared write must spell it as Core does (SQLite compares the text);
    a typed read gives back what Core gives (an aware UTC datetime, parsed JSON)."""
    write = PreparedQuery(insert(PROBES).values({c.name: bindparam(c.name) for c in PROBES.columns}), probes.dialect)
    document = {"n": 2**70, "list": [1.5, "ü"]}
    with probes.begin() as connection:
        dbapi = connection.connection.driver_connection
        write.execute(dbapi, key="prepared", value="v", document=document, at=MOMENT)
        connection.execute(insert(PROBES).values(key="core", value="v", document=document, at=MOMENT))
    read = select(PROBES.c.key, PROBES.c.document, PROBES.c.at).order_by(PROBES.c.key)
    as_text = select(PROBES.c.key, sa.cast(PROBES.c.at, sa.Text))
    with probes.connect() as connection:
        stored = dict(connection.execute(as_text).all())
        through_core = [tuple(row) for row in connection.execute(read)]
        query = PreparedQuery(read, probes.dialect)
        typed = query.typed(query.run(connection.connection.driver_connection))
    assert stored["prepared"] == stored["core"]
    assert typed == through_core == [("core", document, MOMENT), ("prepared", document, MOMENT)]
    assert all(moment.tzinfo is UTC for _, _, moment in typed)


def test_constants_of_the_statement_are_bound_and_execute_many_counts_every_row(probes: Engine) -> None:
    with probes.begin() as connection:
        connection.execute(insert(PROBES), [{"key": f"k{n}", "value": "v"} for n in range(3)])
    # `value=None` is a constant SQLAlchemy binds itself: the caller names only `k`.
    clear = PreparedQuery(update(PROBES).where(PROBES.c.key == bindparam("k")).values(value=None), probes.dialect)
    with probes.begin() as connection:
        dbapi = connection.connection.driver_connection
        changed = clear.execute_many(dbapi, [clear.params({"k": key}) for key in ("k0", "k2", "absent")])
    assert changed == 2
    with probes.connect() as connection:
        values = dict(connection.execute(select(PROBES.c.key, PROBES.c.value)).all())
    assert values == {"k0": None, "k1": "v", "k2": None}


def test_a_limit_is_a_parameter(probes: Engine) -> None:
    with probes.begin() as connection:
        connection.execute(insert(PROBES), [{"key": f"k{n}"} for n in range(5)])
    first = PreparedQuery(select(PROBES.c.key).order_by(PROBES.c.key).limit(bindparam("limit")), probes.dialect)
    with probes.connect() as connection:
        dbapi = connection.connection.driver_connection
        assert first.typed(first.run(dbapi, limit=2)) == [("k0",), ("k1",)]
        assert len(first.typed(first.run(dbapi, limit=10))) == 5


def test_driver_errors_are_raised_as_core_raises_them(probes: Engine) -> None:
    """Callers handle one family of exceptions: a duplicate key is SQLAlchemy's IntegrityError from `execute`,
    `execute_many` and `run` alike, with the statement attached."""
    write = PreparedQuery(insert(PROBES).values(key=bindparam("key")), probes.dialect)
    returning = PreparedQuery(insert(PROBES).values(key=bindparam("key")).returning(PROBES.c.key), probes.dialect)
    with probes.begin() as connection:
        write.execute(connection.connection.driver_connection, key="taken")
    for attempt in (
        lambda dbapi: write.execute(dbapi, key="taken"),
        lambda dbapi: write.execute_many(dbapi, [write.params({"key": "new"}), write.params({"key": "taken"})]),
        lambda dbapi: returning.run(dbapi, key="taken"),
    ):
        with probes.connect() as connection, pytest.raises(sa.exc.IntegrityError) as raised:
            attempt(connection.connection.driver_connection)
        assert "prepared_probes" in str(raised.value.statement)

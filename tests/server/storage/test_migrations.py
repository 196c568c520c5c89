"""The shipped migrations create exactly the models, are idempotent, and index what is queried."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

from accessgov.storage.backends import create_engine
from accessgov.storage.engine import alembic_config, migrate
from accessgov.storage.schema import Base
from tests.support.postgres import BACKENDS

POSTGRES = BACKENDS[1]


def schema_diff(connection: Connection, metadata: sa.MetaData = Base.metadata) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True, "compare_server_default": True})
    return compare_metadata(context, metadata)


def snapshot(engine: Engine) -> dict[str, Any]:
    """Tables, columns, indexes and the Alembic revision, as the database reports them."""
    with engine.connect() as connection:
        inspector = sa.inspect(connection)
        tables = {
            name: (
                [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(name)],
                sorted((i["name"], tuple(i["column_names"])) for i in inspector.get_indexes(name)),
            )
            for name in inspector.get_table_names()
        }
        revisions = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    return {"tables": tables, "revisions": revisions}


def test_migrated_database_matches_the_models(engine: Engine) -> None:
    with engine.connect() as connection:
        assert schema_diff(connection) == []


def test_schema_comparison_detects_a_difference(engine: Engine) -> None:
    """The check above can fail: a model the migration lacks (and a column it lacks) show up."""
    metadata = sa.MetaData()
    for table in Base.metadata.tables.values():
        table.to_metadata(metadata)
    metadata.tables["users"].append_column(sa.Column("email", sa.String(200)))
    sa.Table("extra", metadata, sa.Column("id", sa.Integer, primary_key=True))
    with engine.connect() as connection:
        kinds = sorted(change[0] for change in schema_diff(connection, metadata))
    assert kinds == ["add_column", "add_table"]


def test_upgrade_head_twice_is_a_no_op(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        migrate(engine)
        first = snapshot(engine)
        migrate(engine)
        assert snapshot(engine) == first
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
        assert first["revisions"] == [head] == ["0005"]
        assert set(first["tables"]) == {*Base.metadata.tables, "alembic_version"}
    finally:
        engine.dispose()


def test_concurrent_migrations_do_not_collide(db_url: str) -> None:
    """Several workers starting at once on an empty database: one migrates, the others find it done."""
    engines = [create_engine(db_url) for _ in range(4)]
    barrier = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def start(engine: Engine) -> None:
        barrier.wait()
        try:
            migrate(engine)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=start, args=(engine,)) for engine in engines]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == []
        with engines[0].connect() as connection:
            assert schema_diff(connection) == []
    finally:
        for engine in engines:
            engine.dispose()


def test_keyset_query_is_an_index_range_scan(engine: Engine) -> None:
    """WHERE app_id = ? AND id > ? ORDER BY id LIMIT n walks the primary key: no table scan, no sort."""
    query = "SELECT id FROM app_entitlements WHERE app_id = 'a' AND id > 'x' ORDER BY id LIMIT 50"
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            plan = " | ".join(row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {query}"))
            assert "USING" in plan and "INDEX" in plan and "app_id=? AND id>?" in plan, plan
            assert "TEMP B-TREE" not in plan, plan
        else:
            # An empty table would be scanned sequentially anyway; forbid that to see which index serves it.
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
            plan = " | ".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {query}"))
            assert "Index" in plan and "pk_app_entitlements" in plan, plan
            assert "Sort" not in plan, plan


@pytest.mark.parametrize("db_url", [POSTGRES], indirect=True)
def test_postgres_entitlement_ids_sort_bytewise(engine: Engine) -> None:
    """`COLLATE "C"` on PostgreSQL, so ids order as on SQLite whatever the database's locale."""
    with engine.connect() as connection:
        collations = dict(
            connection.exec_driver_sql(
                "SELECT column_name, collation_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = 'app_entitlements'"
                " AND column_name IN ('app_id', 'id')"
            ).all()
        )
    assert collations == {"app_id": "C", "id": "C"}

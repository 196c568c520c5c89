"""Alembic environment of the accessgov schema; run by `accessgov.storage.engine.migrate`."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from accessgov.config import Settings
from accessgov.storage.backends import create_engine
from accessgov.storage.database import Database
from accessgov.storage.schema import Base

config = context.config
target_metadata = Base.metadata


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # Batch mode copies the table, where ALTER TABLE cannot change most things in place (SQLite).
        render_as_batch=Database.of(connection.dialect).alters_by_copy,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    # Invoked without a connection (e.g. the alembic CLI): use the server's own configuration.
    engine = create_engine(config.get_main_option("sqlalchemy.url") or Settings.load().database)
    try:
        with engine.begin() as connection:
            run_migrations(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run against a database")
main()

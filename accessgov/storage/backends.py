"""The two implementations of `storage.database.Database`, by the URL they are opened for."""

from __future__ import annotations

import sqlalchemy as sa

from accessgov.config import DEFAULTS, Settings
from accessgov.storage.database import DEFAULT_READERS, Database


def open_database(settings: Settings) -> Database:
    """The database `settings` name, with their readers, writers and SQLite durability."""
    return open_url(
        settings.database,
        readers=settings.db_readers,
        writers=settings.db_writers,
        synchronous=settings.sqlite_synchronous,
    )


def open_url(
    url: str,
    *,
    readers: int = DEFAULT_READERS,
    writers: int | None = None,
    synchronous: str = DEFAULTS.sqlite_synchronous,
) -> Database:
    """The implementation for `url`: SQLite's (`storage.sqlite`), else PostgreSQL's (`storage.postgres`)."""
    # Each imported when used: a SQLite server never loads psycopg.
    if "://" not in url or sa.make_url(url).get_backend_name() == "sqlite":
        from accessgov.storage.sqlite import SQLiteDatabase

        return SQLiteDatabase(url, synchronous=synchronous)
    from accessgov.storage.postgres import PostgresDatabase

    return PostgresDatabase(url, readers=readers, writers=writers)

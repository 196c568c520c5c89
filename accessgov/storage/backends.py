"""The two implementations of `storage.database.Database`, by the URL they are opened for: the one place that maps
a URL to a backend (each implementation is `storage.sqlite` or `storage.postgres`, one module a backend)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from accessgov.config import DEFAULTS, Settings
from accessgov.storage.database import DEFAULT_READERS, Database


def implementation(url: str) -> type[Database]:
    """The implementation for `url`: SQLite's (`storage.sqlite`) for a `sqlite:` URL or a bare path, else
    PostgreSQL's (`storage.postgres`)."""
    # Each imported when used: a SQLite server never loads psycopg.
    if "://" not in url or sa.make_url(url).get_backend_name() == "sqlite":
        from accessgov.storage.sqlite import SQLiteDatabase

        return SQLiteDatabase
    from accessgov.storage.postgres import PostgresDatabase

    return PostgresDatabase


def create_engine(
    url: str, *, read_only: bool = False, synchronous: str = DEFAULTS.sqlite_synchronous, **kwargs: Any
) -> Engine:
    """An engine on `url`, configured by its implementation (`Database.create_engine`)."""
    return implementation(url).create_engine(url, read_only=read_only, synchronous=synchronous, **kwargs)


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
    """The implementation for `url`, opened (each takes the settings of its own backend)."""
    return implementation(url)(url, readers=readers, writers=writers, synchronous=synchronous)

"""What every backend's engines share: their creation (`new_engine`), programmatic Alembic migrations, session
factories. Each backend's own settings are its implementation's (`storage.sqlite`, `storage.postgres`); an engine is
opened by `storage.backends.create_engine`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, CursorResult, Engine, Result
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import normalize_database_url as normalize_database_url  # named here for storage's callers
from accessgov.storage.database import Database

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE changed (`Session.execute` is typed as returning any result, without it)."""
    return cast(CursorResult[Any], result).rowcount


def new_engine(url: str, **kwargs: Any) -> Engine:
    """`sqlalchemy.create_engine(url, **kwargs)` with the service's JSON codec, for an implementation's
    `Database.create_engine` to configure further."""
    from accessgov.jsoncodec import dumps, loads

    kwargs.setdefault("json_serializer", dumps)
    kwargs.setdefault("json_deserializer", loads)
    return sa.create_engine(normalize_database_url(url), **kwargs)


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic Config for the migrations shipped in the package: env.py migrates over `connection` (in the
    caller's transaction), or without one connects to `DATABASE_URL` / the default SQLite file."""
    from alembic.config import Config  # imported when migrating only: it is slow to import

    config = Config()
    # ConfigParser interpolation would read a `%` in the path as a placeholder.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision of the migrations shipped in the package."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise RuntimeError("no Alembic head revision")
    return head


def current_revision(session: Session) -> str | None:
    """The revision the database is migrated to (an error without Alembic's table)."""
    return session.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def migrate(engine: Engine) -> None:
    """`alembic upgrade head` (a no-op when there), safe for workers starting together: one transaction holds a lock
    for the whole upgrade (`Database.lock_migrations`: SQLite's `BEGIN IMMEDIATE`, a PostgreSQL advisory lock)."""
    from alembic import command

    with engine.begin() as connection:
        Database.of(connection.dialect).lock_migrations(connection)
        command.upgrade(alembic_config(connection), "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions whose objects stay readable after commit (`expire_on_commit=False`): handlers use results
    after their short-lived session has been committed and closed."""
    return sessionmaker(bind=engine, expire_on_commit=False)

"""Server-wide settings shared by every worker process, e.g. the (sealed) page-token keys."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from accessgov.storage.schema import Setting

SECRET_BYTES = 32


def get_setting(session: Session, key: str) -> str | None:
    return session.scalar(select(Setting.value).where(Setting.key == key))


def set_setting(session: Session, key: str, value: str) -> None:
    """Insert or replace a setting. The caller commits."""
    row = session.get(Setting, key)
    if row is None:
        session.add(Setting(key=key, value=value))
    else:
        row.value = value
    session.flush()


def insert_if_absent(session: Session, key: str, value: str) -> None:
    table = Setting.__table__
    dialect = session.get_bind().dialect.name
    if dialect in ("postgresql", "sqlite"):
        dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        session.execute(dialect_insert(table).values(key=key, value=value).on_conflict_do_nothing())
        return
    try:
        with session.begin_nested():
            session.execute(insert(table).values(key=key, value=value))
    except IntegrityError:
        pass  # another worker stored it first

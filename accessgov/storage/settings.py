"""Server-wide settings shared by every worker process, e.g. secrets generated on first start."""

from __future__ import annotations

import secrets

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


def _insert_if_absent(session: Session, key: str, value: str) -> None:
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


def get_or_create_secret(session: Session, key: str) -> bytes:
    """The secret stored under `key`, generating 32 random bytes on first use.

    Workers starting together all end up with the same value: the first insert wins (ON CONFLICT DO
    NOTHING), and everyone then reads what was stored. The caller commits.
    """
    _insert_if_absent(session, key, secrets.token_hex(SECRET_BYTES))
    value = get_setting(session, key)
    if value is None:  # pragma: no cover - the row was inserted or already present just above
        raise RuntimeError(f"setting {key!r} vanished")
    return bytes.fromhex(value)

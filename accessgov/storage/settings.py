"""Server-wide settings shared by every worker process, e.g. the (sealed) page-token keys."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from accessgov.storage.database import Database
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
    """Store a setting unless one is stored (another worker may store it meanwhile: the first one wins)."""
    Database.of(session.get_bind().dialect).insert_if_absent(session, Setting.__table__, {"key": key, "value": value})

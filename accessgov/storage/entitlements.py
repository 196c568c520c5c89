"""App entitlements: the list operation's keyset pages (never OFFSET) and bulk inserts fast enough to seed millions of
rows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Select, Text, bindparam, cast, exists, select, true
from sqlalchemy.orm import Session

from accessgov.storage import ids
from accessgov.storage.database import INSERT_BATCH_SIZE, Database
from accessgov.storage.prepared import PreparedQuery, json_column
from accessgov.storage.schema import App, AppEntitlement, DirectoryObject
from accessgov.storage.statement_steps import Steps, read


def _rows(app_id: str, docs: Iterable[Mapping[str, Any]], now: datetime) -> Iterator[dict[str, Any]]:
    for doc in docs:
        entitlement_id = doc.get("id")
        if not isinstance(entitlement_id, str) or not entitlement_id:
            raise ValueError(f"entitlement document without a string id: {doc!r:.200}")
        if doc.get("appId", app_id) != app_id:
            raise ValueError(f"entitlement {entitlement_id!r} belongs to app {doc['appId']!r}, not {app_id!r}")
        yield {"app_id": app_id, "id": entitlement_id, "document": doc, "created_at": now}


def insert_entitlements(
    session: Session,
    app_id: str,
    docs: Iterable[Mapping[str, Any]],
    *,
    now: datetime | None = None,
    batch_size: int = INSERT_BATCH_SIZE,
) -> int:
    """Insert entitlement documents of `app_id` (each with an `id`); returns how many. An existing id fails the
    primary key (IntegrityError); all or nothing; the caller commits. The backend's bulk insert
    (`Database.insert_rows`: PostgreSQL streams the rows with COPY, about 4x faster than executemany; SQLite
    executemany in batches of `batch_size`)."""
    rows = _rows(app_id, docs, now or ids.utcnow())
    # A savepoint makes the call all-or-nothing, and leaves the caller's transaction usable after a bad
    # document or a duplicate id (on PostgreSQL a failed COPY would otherwise abort the transaction).
    with session.begin_nested():
        implementation = Database.of(session.connection().dialect)
        return implementation.insert_rows(session, AppEntitlement.__table__, rows, batch_size)


def get_entitlement(session: Session, app_id: str, entitlement_id: str) -> dict[str, Any] | None:
    """The document of one entitlement, or None."""
    row = session.get(AppEntitlement, (app_id, entitlement_id))
    return None if row is None else row.document


def app_exists(session: Session, app_id: str) -> bool:
    """Whether `app_id` is a known app (the entitlement list of an unknown app is a 404, not empty)."""
    return bool(session.scalar(select(exists().where(App.id == app_id))))


# Documents as stored text (a no-op on SQLite): they are parsed on the event loop (see
# `api.entitlements`), never by psycopg on a reader thread.
_COLUMNS = select(AppEntitlement.id, cast(AppEntitlement.document, Text).label("document")).where(
    AppEntitlement.app_id == bindparam("app_id")
)
# Keyset paging on the (app_id, id) primary key: a range scan whatever the depth, never OFFSET.
FIRST_ROWS = _COLUMNS.order_by(AppEntitlement.id).limit(bindparam("limit"))
NEXT_ROWS = _COLUMNS.where(AppEntitlement.id > bindparam("after")).order_by(AppEntitlement.id).limit(bindparam("limit"))
APP_DOCUMENT = select(cast(App.document, Text)).where(App.id == bindparam("app_id"))


def _with_app(page: Select[str, str]) -> Select[str, str, str]:
    """`page` with the app's document on every row, in one statement: none when there is no such app (404), one
    row of NULLs when the page is empty."""
    rows = page.subquery()
    return (
        select(cast(App.document, Text), rows.c.id, rows.c.document)
        .select_from(App.__table__.outerjoin(rows, true()))
        .where(App.id == bindparam("app_id"))
        .order_by(rows.c.id)
    )


FIRST_PAGE = _with_app(FIRST_ROWS)
NEXT_PAGE = _with_app(NEXT_ROWS)
DIRECTORY_DOCUMENT = select(DirectoryObject.document).where(
    DirectoryObject.kind == bindparam("kind"), DirectoryObject.id == bindparam("object_id")
)
Rows = list[tuple[str, str]]


class EntitlementPages:
    """The reads of the list operation, as statement steps: the app's document and one page of its entitlements
    (id, document text), or None without such an app; the directory objects the entitlements name. PostgreSQL:
    one statement (`_with_app`); SQLite: the app, then the page (docs/architecture.md, "A page of entitlements"),
    each its own snapshot, which is safe: the app only decides the 404 and a page never depends on its document."""

    def __init__(self, db: Database) -> None:
        self.db = db
        dialect = db.dialect
        self.joined = db.joins_app_to_page
        self.first = PreparedQuery(FIRST_PAGE if self.joined else FIRST_ROWS, dialect)
        self.next = PreparedQuery(NEXT_PAGE if self.joined else NEXT_ROWS, dialect)
        self.app = PreparedQuery(APP_DOCUMENT, dialect)
        self.directory_document = PreparedQuery(DIRECTORY_DOCUMENT, dialect)

    async def read(self, values: dict[str, Any]) -> tuple[str, Rows] | None:
        """`values`: `app_id`, `limit` and, after the first page, `after` (the last id of the previous page)."""
        return await self.db.read_steps(lambda: self._page(values))

    def _page(self, values: dict[str, Any]) -> Steps[tuple[str, Rows] | None]:
        query = self.next if "after" in values else self.first
        if self.joined:
            found = yield read(query, **values)
            if not found:
                return None
            return found[0][0], [(key, text) for _app, key, text in found if key is not None]
        app = yield read(self.app, app_id=values["app_id"])
        if not app:
            return None
        return app[0][0], (yield read(query, **values))

    def directory(self, kind: str, object_id: str) -> Steps[dict[str, Any] | None]:
        """A directory object's document, or None (steps, for the expansion of a page: `Database.read_steps`)."""
        rows = yield read(self.directory_document, kind=kind, object_id=object_id)
        return json_column(rows[0][0]) if rows else None

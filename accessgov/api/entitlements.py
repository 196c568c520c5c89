"""`GET /api/v1/apps/{app_id}/entitlements`: the pagination convention, by declaration."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select

from accessgov.errors import NotFound
from accessgov.http.context import RequestContext
from accessgov.jsoncodec import loads
from accessgov.paging import PageTokenCodec, page_response, parse_page_request
from accessgov.paging.errors import PageTokenError
from accessgov.storage.database import Database
from accessgov.storage.prepared import PreparedQuery
from accessgov.storage.schema import App, AppEntitlement

_COLUMNS = select(AppEntitlement.id, AppEntitlement.document).where(AppEntitlement.app_id == bindparam("app_id"))
# Keyset paging on the (app_id, id) primary key: a range scan whatever the depth, never OFFSET.
FIRST_PAGE = _COLUMNS.order_by(AppEntitlement.id).limit(bindparam("limit"))
NEXT_PAGE = _COLUMNS.where(AppEntitlement.id > bindparam("after")).order_by(AppEntitlement.id).limit(bindparam("limit"))
APP_EXISTS = select(App.id).where(App.id == bindparam("app_id"))


class ListEntitlementsHandler:
    """Keyset-paged entitlements of one app, ordered by id; tokens are bound to the app's collection."""

    def __init__(self, db: Database, codec: PageTokenCodec) -> None:
        self.db = db
        self.codec = codec
        dialect = db.read_engine.dialect
        self.first, self.next = PreparedQuery(FIRST_PAGE, dialect), PreparedQuery(NEXT_PAGE, dialect)
        self.app_exists = PreparedQuery(APP_EXISTS, dialect)

    async def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        app_id = ctx.path_params["app_id"]
        collection = f"apps/{app_id}/entitlements"
        # PagingError is an InvalidRequest: a 400 naming the parameter, before any database work.
        page = parse_page_request(
            ctx.query.get("page_size"), ctx.query.get("page_token"), codec=self.codec, collection=collection
        )
        after: str | None = None
        if page.cursor is not None:
            if len(page.cursor) != 1 or not isinstance(page.cursor[0], str):
                raise PageTokenError("page_token's cursor does not fit this listing", reason="cursor")
            after = page.cursor[0]

        def read(connection: Any) -> list[tuple[Any, ...]] | None:
            # One query per page (size + 1 rows tell whether more remain); the app is looked up only when
            # the page comes back empty, where "no such app" and "no more items" must be told apart.
            if after is None:
                rows = self.first.run(connection, app_id=app_id, limit=page.size + 1)
            else:
                rows = self.next.run(connection, app_id=app_id, after=after, limit=page.size + 1)
            if not rows and not self.app_exists.run(connection, app_id=app_id):
                return None
            return rows

        rows = await self.db.read_raw(read)
        if rows is None:
            raise NotFound(f"no app with id {app_id!r}")
        cursor = (rows[page.size - 1][0],) if len(rows) > page.size else None
        items = [{"appEntitlement": _document(document)} for _id, document in rows[: page.size]]
        return 200, page_response(items, cursor, codec=self.codec, collection=collection)


def _document(value: Any) -> Any:
    """SQLite hands JSON columns over as text; psycopg parses them already."""
    return loads(value) if isinstance(value, str | bytes) else value

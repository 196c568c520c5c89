"""`GET /api/v1/apps/{app_id}/entitlements`: the pagination convention, by declaration."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from accessgov.errors import NotFound
from accessgov.http.context import RequestContext
from accessgov.paging import PageRequest, PageTokenCodec, keyset_page, page_response, parse_page_request
from accessgov.storage import directory
from accessgov.storage.database import Database
from accessgov.storage.schema import AppEntitlement

ORDER = (AppEntitlement.id,)


class ListEntitlementsHandler:
    """Keyset-paged entitlements of one app, ordered by id; tokens are bound to the app's collection."""

    def __init__(self, db: Database, codec: PageTokenCodec) -> None:
        self.db = db
        self.codec = codec

    async def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        app_id = ctx.path_params["app_id"]
        collection = f"apps/{app_id}/entitlements"
        # PagingError is an InvalidRequest: a 400 naming the parameter, before any database work.
        page = parse_page_request(
            ctx.query.get("page_size"), ctx.query.get("page_token"), codec=self.codec, collection=collection
        )

        def read(session: Session) -> tuple[list[Any], Any] | None:
            if not directory.app_exists(session, app_id):
                return None
            stmt = select(AppEntitlement.id, AppEntitlement.document).where(AppEntitlement.app_id == app_id)
            return keyset_page(session, stmt, ORDER, page)

        found = await self.db.read(read)
        if found is None:
            raise NotFound(f"no app with id {app_id!r}")
        rows, cursor = found
        items = [{"appEntitlement": row.document} for row in rows]
        return 200, page_response(items, cursor, codec=self.codec, collection=collection)


__all__ = ["ListEntitlementsHandler", "PageRequest"]

"""Handler of `GET /api/v1/apps/{app_id}/entitlements`: the pagination convention, by declaration."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from accessgov.paging import PageTokenCodec, keyset_page, page_response, parse_page_request
from accessgov.service.errors import bad_request, detail, not_found
from accessgov.service.spec_app import RequestContext
from accessgov.storage import directory
from accessgov.storage.schema import AppEntitlement


class ListEntitlementsHandler:
    """Keyset-paged entitlements of one app, ordered by id; tokens are bound to the app's collection."""

    def __init__(self, sessions: sessionmaker[Session], codec: PageTokenCodec) -> None:
        self.sessions = sessions
        self.codec = codec

    def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        app_id = ctx.path_params["app_id"]
        collection = f"apps/{app_id}/entitlements"
        try:
            page = parse_page_request(
                ctx.query.get("page_size"), ctx.query.get("page_token"), codec=self.codec, collection=collection
            )
        except ValueError as error:
            code = getattr(error, "code", "INVALID_ARGUMENT")
            name = "page_size" if code == "INVALID_PAGE_SIZE" else "page_token"
            raise bad_request(code, str(error), detail("query", str(error), name)) from None
        with self.sessions() as session:
            if not directory.app_exists(session, app_id):
                raise not_found(f"no app with id {app_id!r}")
            stmt = select(AppEntitlement).where(AppEntitlement.app_id == app_id)
            rows, cursor = keyset_page(session, stmt, [AppEntitlement.id], page)
            items = [{"appEntitlement": row.document} for row in rows]
        return 200, page_response(items, cursor, codec=self.codec, collection=collection)

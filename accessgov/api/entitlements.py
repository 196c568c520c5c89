"""`GET /api/v1/apps/{app_id}/entitlements`: the pagination convention, by declaration."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from sqlalchemy import Select, Text, bindparam, cast, select, true
from sqlalchemy.engine import Dialect

from accessgov.errors import NotFound
from accessgov.http.context import RequestContext
from accessgov.paging import PageTokenCodec, page_response, parse_page_request
from accessgov.paging.errors import PageTokenError
from accessgov.storage.database import Database
from accessgov.storage.parsed_documents import ParsedDocuments
from accessgov.storage.prepared import PreparedQuery, json_column
from accessgov.storage.schema import App, AppEntitlement, DirectoryObject

# Documents as stored text (a no-op on SQLite): they are parsed on the event loop (see
# `ListEntitlementsHandler.__call__`), never by psycopg on a reader thread.
_COLUMNS = select(AppEntitlement.id, cast(AppEntitlement.document, Text).label("document")).where(
    AppEntitlement.app_id == bindparam("app_id")
)
# Keyset paging on the (app_id, id) primary key: a range scan whatever the depth, never OFFSET.
FIRST_ROWS = _COLUMNS.order_by(AppEntitlement.id).limit(bindparam("limit"))
NEXT_ROWS = _COLUMNS.where(AppEntitlement.id > bindparam("after")).order_by(AppEntitlement.id).limit(bindparam("limit"))
APP_DOCUMENT = select(cast(App.document, Text)).where(App.id == bindparam("app_id"))


def _with_app(page: Select[Any]) -> Select[Any]:
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
TYPE_PREFIX = "type.googleapis.com/svc.api.app.v1"
APP_PATH = "$.expanded[0]"  # where `expanded` holds the app: first
Rows = list[tuple[str, str]]


class _Entitlement(NamedTuple):
    """A stored entitlement as a page needs it, derived once per stored text (see `_ENTITLEMENTS`)."""

    document: dict[str, Any]
    related: bool  # `_names_related`: its view needs directory lookups (the general path, `_expand`)
    app_id: str  # its `appId` as `Expansion.view` compares it
    view: dict[str, Any]  # its view when its app leads `expanded`: shared by every page showing it, never modified


def _entitlement(document: dict[str, Any]) -> _Entitlement:
    return _Entitlement(
        document,
        _names_related(document),
        str(document.get("appId", "")),
        {"appEntitlement": document, "appPath": APP_PATH},
    )


# Entitlements by id: parsing a page's 25 was ~20 us of its ~300 us (with the integer check), and deriving what a
# page needs of each (`_Entitlement`) another 10 us of a page's ~60 us of CPU in process. Keyed by id alone, not
# (app id, id), whose tuples cost 2 us a page: an entry is used only for its very text, and nothing derived from
# it depends on the app it was read for (`_expand_unrelated` compares `app_id`).
_ENTITLEMENTS = ParsedDocuments(max_text_chars=4 * 2**20, derive=_entitlement)
_APPS = ParsedDocuments(max_text_chars=2**20)


class _PageReads:
    """The app's document and one page of its entitlements (id, document text), or None without such an app.

    PostgreSQL: one statement (`_with_app`), a single round trip on a connection of the loop's
    (`Database.fetch`). SQLite: the app, then the page, on the loop's connection; the join's plan materialises the
    page and sorts it in a temporary b-tree, 52 us against 18 us for the two statements (25 entitlements). Each
    reads its own snapshot there: the app only decides the 404 and leads `expanded`, and a page never depends on
    the app's document.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.joined = dialect.name != "sqlite"
        self.first = PreparedQuery(FIRST_PAGE if self.joined else FIRST_ROWS, dialect)
        self.next = PreparedQuery(NEXT_PAGE if self.joined else NEXT_ROWS, dialect)
        self.app = PreparedQuery(APP_DOCUMENT, dialect)

    async def read(self, db: Database, values: dict[str, Any]) -> tuple[str, Rows] | None:
        query = self.next if "after" in values else self.first
        if self.joined:
            found = await db.fetch(query, **values)
            if not found:
                return None
            return found[0][0], [(key, text) for _app, key, text in found if key is not None]
        app = await db.fetch(self.app, app_id=values["app_id"])
        return (app[0][0], await db.fetch(query, **values)) if app else None


class ListEntitlementsHandler:
    """Keyset-paged entitlements of one app, ordered by id; tokens are bound to the app's collection."""

    def __init__(
        self, db: Database, codec: PageTokenCodec, refresh_keys: Callable[[], Awaitable[bool]] | None = None
    ) -> None:
        self.db = db
        self.codec = codec
        # Re-reads the page-token keys (rate-limited); True when they changed. A token signed by a key another
        # worker already uses after a rotation is then verified here too, instead of failing until our reload.
        self.refresh_keys = refresh_keys
        dialect = db.read_engine.dialect
        self.pages = _PageReads(dialect)
        self.directory_document = PreparedQuery(DIRECTORY_DOCUMENT, dialect)

    async def __call__(self, ctx: RequestContext) -> tuple[int, dict[str, Any]]:
        app_id = ctx.path_params["app_id"]
        collection = f"apps/{app_id}/entitlements"
        # PagingError is an InvalidRequest: a 400 naming the parameter, before any database work.
        try:
            page = parse_page_request(
                ctx.query.get("page_size"), ctx.query.get("page_token"), codec=self.codec, collection=collection
            )
        except PageTokenError as error:
            if error.reason != "signature" or self.refresh_keys is None or not await self.refresh_keys():
                raise
            page = parse_page_request(
                ctx.query.get("page_size"), ctx.query.get("page_token"), codec=self.codec, collection=collection
            )
        after: str | None = None
        if page.cursor is not None:
            if len(page.cursor) != 1 or not isinstance(page.cursor[0], str):
                raise PageTokenError("page_token's cursor does not fit this listing", reason="cursor")
            after = page.cursor[0]

        values = {"app_id": app_id, "limit": page.size + 1}
        if after is not None:
            values["after"] = after
        # The app (the 404 check and the first related object of `expanded`) and the page, whose size + 1 rows
        # tell whether more remain.
        found = await self.pages.read(self.db, values)
        if found is None:
            raise NotFound(f"no app with id {app_id!r}")
        app_text, rows = found
        # Parsed and expanded here, not in the reader: Python work on a reader thread contends for the GIL with the
        # event loop (measured in process, 16 concurrent pages: ~700 -> ~530 us CPU per page once moved here).
        # Documents read before are not parsed again while their stored text is unchanged.
        app = _APPS.parse(app_id, app_text)
        shown = rows[: page.size]
        entitlements = _ENTITLEMENTS.parse_many([key for key, _ in shown], [text for _, text in shown])
        if any(entitlement.related for entitlement in entitlements):
            documents = [entitlement.document for entitlement in entitlements]
            items, expanded = await self.db.read_raw(
                lambda connection: self._expand_looking_up(connection, app, documents)
            )
        else:
            items, expanded = _expand_unrelated(app, entitlements)
        cursor = (rows[page.size - 1][0],) if len(rows) > page.size else None
        body = page_response(items, cursor, codec=self.codec, collection=collection)
        body["expanded"] = expanded
        return 200, body

    def _expand_looking_up(
        self, connection: Any, app: dict[str, Any] | None, documents: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return _expand(lambda kind, object_id: self._directory(connection, kind, object_id), app, documents)

    def _directory(self, connection: Any, kind: str, object_id: str) -> dict[str, Any] | None:
        rows = self.directory_document.run(connection, kind=kind, object_id=object_id)
        return json_column(rows[0][0]) if rows else None


class Expansion:
    """The page's `expanded` array (each related object once) and the path fields that locate them: the app of
    every item, and the app resource and its type when the entitlement names them and the directory has them."""

    def __init__(self, lookup: Callable[[str, str], dict[str, Any] | None]) -> None:
        self.objects: list[dict[str, Any]] = []
        self._index: dict[tuple[str, str], int | None] = {}
        self._lookup = lookup

    def add(self, kind: str, type_name: str, document: dict[str, Any] | None) -> int | None:
        if document is None:
            return None
        self._index[(kind, str(document.get("id", "")))] = len(self.objects)
        self.objects.append({"@type": f"{TYPE_PREFIX}.{type_name}", **document})
        return len(self.objects) - 1

    def _find(self, kind: str, type_name: str, object_id: Any) -> int | None:
        if not isinstance(object_id, str) or not object_id:
            return None
        if (kind, object_id) not in self._index:
            self._index[(kind, object_id)] = self.add(kind, type_name, self._lookup(kind, object_id))
        return self._index[(kind, object_id)]

    def view(self, entitlement: dict[str, Any]) -> dict[str, Any]:
        """The AppEntitlementView of one entitlement."""
        item: dict[str, Any] = {"appEntitlement": entitlement}
        app = self._index.get(("app", str(entitlement.get("appId", ""))))
        if app is not None:
            item["appPath"] = f"$.expanded[{app}]"
        if not _names_related(entitlement):
            return item  # `_find` would find nothing (most entitlements): spare its calls
        resource_id, type_id = entitlement.get("appResourceId"), entitlement.get("appResourceTypeId")
        resource = self._find("resource", "AppResource", resource_id)
        if resource is not None:
            item["appResourcePath"] = f"$.expanded[{resource}]"
        if not type_id and resource is not None:
            type_id = self.objects[resource].get("resourceTypeId")
        resource_type = self._find("resource_type", "AppResourceType", type_id)
        if resource_type is not None:
            item["appResourceTypePath"] = f"$.expanded[{resource_type}]"
        return item


def _expand(
    lookup: Callable[[str, str], dict[str, Any] | None], app: dict[str, Any] | None, documents: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The page's items (AppEntitlementViews) and `expanded` array, the app (its parsed document) first."""
    expansion = Expansion(lookup)
    expansion.add("app", "App", app)
    return [expansion.view(document) for document in documents], expansion.objects


def _expand_unrelated(
    app: dict[str, Any] | None, entitlements: list[_Entitlement]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`_expand` of entitlements none of which names a related object (see `_names_related`): `expanded` holds
    the app alone, and an item locates it when the entitlement is the app's (its `view`, made once). One
    comprehension instead of a `view` per entitlement (most pages)."""
    expansion = Expansion(_nothing_related)
    expansion.add("app", "App", app)
    if app is None:
        return [{"appEntitlement": entitlement.document} for entitlement in entitlements], expansion.objects
    app_id = str(app.get("id", ""))
    items = [
        entitlement.view if entitlement.app_id == app_id else {"appEntitlement": entitlement.document}
        for entitlement in entitlements
    ]
    return items, expansion.objects


def _is_id(value: Any) -> bool:
    """Whether `Expansion._find` looks `value` up: a non-empty string."""
    return isinstance(value, str) and value != ""


def _names_related(entitlement: dict[str, Any]) -> bool:
    """Whether `Expansion.view` looks up a related object for `entitlement` (a resource, a resource type)."""
    return _is_id(entitlement.get("appResourceId")) or _is_id(entitlement.get("appResourceTypeId"))


def _nothing_related(kind: str, object_id: str) -> dict[str, Any] | None:
    raise AssertionError(f"no lookup expected, got {kind} {object_id!r}")  # see `_names_related`

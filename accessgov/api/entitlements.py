"""`GET /api/v1/apps/{app_id}/entitlements`: keyset pages under signed page tokens (`accessgov.paging`), read by
`storage.entitlements.EntitlementPages`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from accessgov.errors import NotFound, quoted
from accessgov.http.context import RequestContext
from accessgov.paging import PageTokenCodec, page_response, parse_page_request
from accessgov.paging.errors import PageTokenError
from accessgov.storage.database import Database
from accessgov.storage.entitlements import EntitlementPages
from accessgov.storage.parsed_documents import ParsedDocuments
from accessgov.storage.statement_steps import Steps

TYPE_PREFIX = "type.googleapis.com/svc.api.app.v1"
# (kind, id) -> the steps that read a directory object's document (`EntitlementPages.directory`), or None.
Lookup = Callable[[str, str], Steps[dict[str, Any] | None]]
APP_PATH = "$.expanded[0]"  # where `expanded` holds the app: first


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
        self.pages = EntitlementPages(db)

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
        found = await self.pages.read(values)
        if found is None:
            raise NotFound(f"no app with id {quoted(app_id)}")
        app_text, rows = found
        # Parsed and expanded here, not in the reader: Python work on a reader thread contends for the GIL with the
        # event loop (measured in process, 16 concurrent pages: ~700 -> ~530 us CPU per page once moved here).
        # Documents read before are not parsed again while their stored text is unchanged.
        app = _APPS.parse(app_id, app_text)
        shown = rows[: page.size]
        entitlements = _ENTITLEMENTS.parse_many([key for key, _ in shown], [text for _, text in shown])
        if any(entitlement.related for entitlement in entitlements):
            documents = [entitlement.document for entitlement in entitlements]
            items, expanded = await self.db.read_steps(lambda: _expand(self.pages.directory, app, documents))
        else:
            items, expanded = _expand_unrelated(app, entitlements)
        cursor = (rows[page.size - 1][0],) if len(rows) > page.size else None
        body = page_response(items, cursor, codec=self.codec, collection=collection)
        body["expanded"] = expanded
        return 200, body


class Expansion:
    """The page's `expanded` array (each related object once) and the path fields that locate them: the app of
    every item, and the app resource and its type when the entitlement names them and the directory has them."""

    def __init__(self, lookup: Lookup) -> None:
        self.objects: list[dict[str, Any]] = []
        self._index: dict[tuple[str, str], int | None] = {}
        self._lookup = lookup

    def add(self, kind: str, type_name: str, document: dict[str, Any] | None) -> int | None:
        if document is None:
            return None
        self._index[(kind, str(document.get("id", "")))] = len(self.objects)
        self.objects.append({"@type": f"{TYPE_PREFIX}.{type_name}", **document})
        return len(self.objects) - 1

    def _find(self, kind: str, type_name: str, object_id: Any) -> Steps[int | None]:
        if not isinstance(object_id, str) or not object_id:
            return None
        if (kind, object_id) not in self._index:
            self._index[(kind, object_id)] = self.add(kind, type_name, (yield from self._lookup(kind, object_id)))
        return self._index[(kind, object_id)]

    def view(self, entitlement: dict[str, Any]) -> Steps[dict[str, Any]]:
        """The AppEntitlementView of one entitlement (steps: it reads the related objects not read yet)."""
        item: dict[str, Any] = {"appEntitlement": entitlement}
        app = self._index.get(("app", str(entitlement.get("appId", ""))))
        if app is not None:
            item["appPath"] = f"$.expanded[{app}]"
        if not _names_related(entitlement):
            return item  # `_find` would find nothing (most entitlements): spare its calls
        resource_id, type_id = entitlement.get("appResourceId"), entitlement.get("appResourceTypeId")
        resource = yield from self._find("resource", "AppResource", resource_id)
        if resource is not None:
            item["appResourcePath"] = f"$.expanded[{resource}]"
        if not type_id and resource is not None:
            type_id = self.objects[resource].get("resourceTypeId")
        resource_type = yield from self._find("resource_type", "AppResourceType", type_id)
        if resource_type is not None:
            item["appResourceTypePath"] = f"$.expanded[{resource_type}]"
        return item


def _expand(
    lookup: Lookup, app: dict[str, Any] | None, documents: list[dict[str, Any]]
) -> Steps[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """The page's items (AppEntitlementViews) and `expanded` array, the app (its parsed document) first; steps,
    which read each related object once, when an entitlement first names it."""
    expansion = Expansion(lookup)
    expansion.add("app", "App", app)
    items = []
    for document in documents:
        items.append((yield from expansion.view(document)))
    return items, expansion.objects


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


def _nothing_related(kind: str, object_id: str) -> Steps[dict[str, Any] | None]:
    raise AssertionError(f"no lookup expected, got {kind} {object_id!r}")  # see `_names_related`

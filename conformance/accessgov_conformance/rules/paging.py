"""The pagination convention, on `GET /api/v1/apps/{app_id}/entitlements`: page sizes, tokens, full walks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .. import spec
from ..context import Context, Exchange
from ..registry import Variant, rule, variants
from ..verdicts import Fail, NoEvidence, NotApplicable

FAMILY = "paging"
LIST = "spec/paths/api_v1_apps_{app_id}_entitlements.yaml"
SIZE = "spec/components/parameters/PageSize.yaml"
SECTION = "Endpoints > List and search operations (pagination convention)"
MAX_PAGES = 1000
PATH_FIELD = re.compile(r"^\$\.expanded\[(\d+)\]$")


def _app(ctx: Context, *, other: bool = False, need: int = 0) -> str:
    """The configured app (or the other one), which must hold at least `need` entitlements for the rule."""
    app_id = ctx.config.other_app_id if other else ctx.config.app_id
    if not app_id:
        key = "other_app_id" if other else "app_id"
        raise NotApplicable(f"the configuration names no app (fixtures.{key})")
    _need(ctx, need)
    return app_id


def _list(ctx: Context, app_id: str, params: dict[str, Any], token: str | None = "default") -> Exchange:
    path = f"/api/v1/apps/{app_id}/entitlements"
    return ctx.api("GET", spec.LIST_ENTITLEMENTS, path, params=params, token=token)


def _page(ctx: Context, app_id: str, what: str, *, token: str | None = "default", **params: Any) -> dict[str, Any]:
    """A 200 page of `app_id`, held to being about that app: every entitlement it names is the app's."""
    exchange = _list(ctx, app_id, params, token)
    if exchange.status == 404 and not params.get("page_token"):
        raise NoEvidence(f"the configured app {app_id!r} does not exist on the target (404)")
    body = ctx.expect(exchange, 200, what=what)
    for item in body.get("list") or []:
        entitlement = item.get("appEntitlement") if isinstance(item, dict) else None
        if not isinstance(entitlement, dict):
            continue  # a malformed item is the schema's to judge (`expect` held the page to it)
        owner = entitlement.get("appId")
        if isinstance(owner, str) and owner != app_id:
            raise Fail(f"{what}: listing app {app_id} returned entitlement {entitlement.get('id')!r} of app {owner!r}")
    return dict(body)


def _ids(page: dict[str, Any]) -> list[str]:
    return [str((item.get("appEntitlement") or {}).get("id")) for item in page.get("list") or []]


def _need(ctx: Context, count: int) -> None:
    """The rule can only be shown with an app of at least `count` entitlements."""
    if ctx.config.min_entitlements < count:
        raise NotApplicable(f"needs an app with more than {count - 1} entitlements (fixtures.min_entitlements)")


def walk(ctx: Context, app_id: str, page_size: int) -> list[list[str]]:
    """Every page of the app at `page_size`, following `nextPageToken` until it is empty; checks each page.

    A walk is kept for the rest of the run (walks are the kit's slowest part): a second rule needing the same
    one reads the same pages."""
    cache = ctx.run.walks if ctx.run is not None else {}
    if (app_id, page_size) not in cache:
        cache[(app_id, page_size)] = _walk(ctx, app_id, page_size)
    return cache[(app_id, page_size)]


def _walk(ctx: Context, app_id: str, page_size: int) -> list[list[str]]:
    pages: list[list[str]] = []
    token = ""
    while True:
        params: dict[str, Any] = {"page_size": page_size}
        if token:
            params["page_token"] = token
        page = _page(ctx, app_id, f"page {len(pages) + 1} at page_size {page_size}", **params)
        ids = _ids(page)
        pages.append(ids)
        token = page.get("nextPageToken", "")
        if token and len(ids) == 0:
            raise Fail(f"page {len(pages)} at page_size {page_size} is empty but has a nextPageToken")
        if not token:
            return pages
        if len(ids) != page_size:
            raise Fail(
                f"page {len(pages)} at page_size {page_size} has {len(ids)} items and a nextPageToken "
                "(only the last page may be short)"
            )
        if len(pages) >= MAX_PAGES:
            raise Fail(f"the walk at page_size {page_size} did not end after {MAX_PAGES} pages")


@dataclass(frozen=True)
class Sizes:
    """Page sizes asked for and the size of page each must give (None: the size asked), shown with an app of at
    least `need` entitlements."""

    need: int
    asked: tuple[Any, ...]
    expected: int | None = None


def page_sizes(ctx: Context, value: Sizes) -> None:
    """Each size asked, on the first page and on a later one (the page after a first page of 10, asked with its
    nextPageToken): the convention is the same on every page, the token carries a position, not a size."""
    _need(ctx, value.need)
    app_id = _app(ctx)
    later: str | None = None
    for asked in value.asked:
        expected = asked if value.expected is None else value.expected
        params = {} if asked is None else {"page_size": asked}
        shown = "absent" if asked is None else repr(asked)
        got = len(_page(ctx, app_id, f"page_size {asked!r}", **params).get("list") or [])
        if got != expected:
            raise Fail(f"page_size {shown} gave {got} items, expected {expected}")
        if ctx.config.is_mock or ctx.config.min_entitlements < 10 + expected:
            continue  # a mock keeps no position; a later page of `expected` items needs that many more
        later = later or _first_page(ctx, app_id)[1]
        what = f"page_size {shown} on the page after a first page of 10"
        got = len(_page(ctx, app_id, what, page_token=later, **params).get("list") or [])
        if got != expected:
            raise Fail(f"{what} gave {got} items, expected {expected} (as on a first page)")


variants(
    FAMILY,
    page_sizes,
    (
        Variant(
            "PG-SIZE-001",
            title="page_size defaults to 25",
            text="Without page_size, a collection of more than 25 items is served 25 at a time.",
            spec=f"{SIZE}#/schema/default",
            requirements=f"{SECTION} page_size; Limits (page_size range)",
            value=Sizes(26, (None,), 25),
        ),
        Variant(
            "PG-SIZE-002",
            title="page_size below 10 is treated as 10",
            text="page_size 9, 1, 0, -1 and -25 each give pages of 10 items (clamped, not rejected, not the default).",
            spec=f"{SIZE}#/description",
            requirements=f"{SECTION} page_size",
            value=Sizes(26, (9, 1, 0, -1, -25), 10),
        ),
        Variant(
            "PG-SIZE-003",
            title="page_size above 100 is treated as 100",
            text="page_size 101, 1000 and 10**20 (beyond 64 bits) each give pages of 100 items (clamped, not "
            "rejected).",
            spec=f"{SIZE}#/description",
            requirements=f"{SECTION} page_size",
            value=Sizes(101, (101, 1000, 10**20), 100),
        ),
        Variant(
            "PG-SIZE-004",
            title="page_size within 10..100 is honoured",
            text="page_size 10, 11, 37, 99 and 100 give pages of exactly that many items.",
            spec=f"{SIZE}#/description",
            requirements=f"{SECTION} page_size",
            value=Sizes(101, (10, 11, 37, 99, 100)),
        ),
    ),
)


NOT_INTEGERS = ("ten", "1.5", "10.0", "1e2", "", " 10", "10 ", "0x10", "1_0")


@rule(
    "PG-SIZE-005",
    family=FAMILY,
    title="A page_size that is not an integer is rejected",
    text="page_size ten, 1.5, 10.0, 1e2, empty, with surrounding whitespace, 0x10 or 1_0 is answered 400 "
    "INVALID_PAGE_SIZE (not clamped, not the default).",
    spec=f"{SIZE}#/x-error-code",
    requirements=f"{SECTION} page_size",
    mock=True,
)
def not_integer(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    for value in NOT_INTEGERS if not ctx.config.is_mock else ("ten", "1.5"):
        exchange = _list(ctx, app_id, {"page_size": value})
        ctx.expect(exchange, 400, code="INVALID_PAGE_SIZE", what=f"page_size={value!r}")


variants(
    FAMILY,
    page_sizes,
    (
        Variant(
            "PG-SIZE-006",
            title="Every decimal spelling of an integer is an integer",
            text="page_size 020 (leading zero) and +20 (explicit sign) give pages of 20 items.",
            spec=f"{SIZE}#/description",
            requirements=f"{SECTION} page_size",
            value=Sizes(21, ("020", "+20"), 20),
        ),
    ),
)


@rule(
    "PG-WALK-001",
    family=FAMILY,
    title="A walk of all pages returns each item exactly once",
    text="Following nextPageToken at page_size 100 and again at 99 returns the same items in the same order, "
    "no item twice, every page but the last full (and the count named by fixtures.expected_entitlements).",
    spec=f"{LIST}#/get/description",
    requirements=f"{SECTION} page_token",
)
def full_walk(ctx: Context) -> None:
    app_id = _app(ctx)
    walks = {size: [item for page in walk(ctx, app_id, size) for item in page] for size in (100, 99)}
    for size, items in walks.items():
        seen: set[str] = set()
        repeated: list[str] = []
        for item in items:
            if item in seen:
                repeated.append(item)
            seen.add(item)
        if repeated:
            raise Fail(f"the walk at page_size {size} returned {len(repeated)} item(s) twice, e.g. {repeated[0]}")
    if walks[100] != walks[99]:
        missing = set(walks[100]) ^ set(walks[99])
        detail = f"{len(missing)} item(s) in one walk only, e.g. {sorted(missing)[0]}" if missing else "another order"
        raise Fail(f"walks at page_size 100 and 99 differ: {detail} (gaps or an unstable order)")
    expected = ctx.config.expected_entitlements
    if expected is not None and len(walks[100]) != expected:
        raise Fail(f"the walk returned {len(walks[100])} items, the configuration expects {expected}")
    if len(walks[100]) < ctx.config.min_entitlements:
        raise NoEvidence(
            f"the app has {len(walks[100])} entitlements, fewer than fixtures.min_entitlements "
            f"({ctx.config.min_entitlements})"
        )


@rule(
    "PG-TOKEN-001",
    family=FAMILY,
    title="nextPageToken is empty exactly on the last page",
    text='nextPageToken is non-empty while items remain and "" on the page holding the last item (also when '
    "the count is a multiple of the page size: no empty page after it).",
    spec="spec/components/schemas/NextPageToken.yaml",
    requirements=f"{SECTION} (Response shape)",
)
def last_page(ctx: Context) -> None:
    app_id = _app(ctx, need=11)
    expected = ctx.config.expected_entitlements
    sizes = [100]
    if expected:
        # A size that divides the count puts the last item at the end of a full page: the classic off-by-one.
        divisor = next((size for size in range(100, 9, -1) if expected % size == 0), None)
        if divisor and divisor != 100:
            sizes.append(divisor)
    for size in sizes:
        pages = walk(ctx, app_id, size)
        if len(pages) > 1 and not pages[-1]:
            raise Fail(f'at page_size {size} the walk ended on an empty page: the previous page\'s token was not ""')
        if len(pages) < 2 and ctx.config.min_entitlements > size:
            raise Fail(f"at page_size {size} the first page of more than {size} items had an empty nextPageToken")


def _first_page(ctx: Context, app_id: str) -> tuple[dict[str, Any], str]:
    """The first page at page_size 10 and its nextPageToken (the app has more)."""
    first = _page(ctx, app_id, "first page", page_size=10)
    token = first.get("nextPageToken")
    if not token:
        raise Fail("the first page of a collection larger than the page has no nextPageToken")
    return first, str(token)


def _first_two(ctx: Context, app_id: str) -> tuple[dict[str, Any], list[str]]:
    """The first page at page_size 10 (with a token: the app has more) and the ids of the page after it."""
    first, token = _first_page(ctx, app_id)
    second = _ids(_page(ctx, app_id, "second page", page_size=10, page_token=token))
    if not _ids(first) or second == _ids(first):
        raise Fail("the page after the first page's nextPageToken is the first page again")
    return first, second


@rule(
    "PG-TOKEN-002",
    family=FAMILY,
    title="An empty page_token means the first page",
    text='page_token="" returns the first page (the same items as no page_token, not those of the next page).',
    spec="spec/components/parameters/PageToken.yaml#/description",
    requirements=f"{SECTION} page_token",
)
def empty_token(ctx: Context) -> None:
    app_id = _app(ctx, need=11)
    first, _ = _first_two(ctx, app_id)
    empty = _ids(_page(ctx, app_id, "empty page_token", page_size=10, page_token=""))
    if empty != _ids(first):
        raise Fail('page_token="" returned another page than the first')


@rule(
    "PG-TOKEN-003",
    family=FAMILY,
    title="A page token is bound to its collection",
    text="A nextPageToken issued for one app is refused on another app with 400 INVALID_PAGE_TOKEN.",
    spec=f"{LIST}#/get/description",
    requirements=f"{SECTION} page_token",
)
def bound_token(ctx: Context) -> None:
    app_id, other = _app(ctx), _app(ctx, other=True, need=11)
    _, token = _first_page(ctx, app_id)
    exchange = _list(ctx, other, {"page_size": 10, "page_token": token})
    ctx.expect(exchange, 400, code="INVALID_PAGE_TOKEN", what=f"{app_id}'s token on {other}")


@rule(
    "PG-TOKEN-004",
    family=FAMILY,
    title="An altered page token is refused",
    text="A nextPageToken with one character changed, truncated, extended, or a made-up token (garbage, or "
    "well-formed base64url) is answered 400 INVALID_PAGE_TOKEN.",
    spec=f"{LIST}#/get/description",
    requirements=f"{SECTION} page_token",
)
def altered_token(ctx: Context) -> None:
    app_id = _app(ctx, need=11)
    _, token = _first_page(ctx, app_id)
    middle = len(token) // 2
    flipped = token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1 :]
    made_up = "".join(ctx.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for _ in token)
    variants = (
        ("altered", flipped),
        ("truncated", token[: max(1, len(token) - 4)]),
        ("extended", token + "AAAA"),
        ("garbage", "not a page token!"),
        ("made-up", made_up),
    )
    for label, value in variants:
        exchange = _list(ctx, app_id, {"page_token": value})
        ctx.expect(exchange, 400, code="INVALID_PAGE_TOKEN", what=f"{label} token")


@rule(
    "PG-TOKEN-005",
    family=FAMILY,
    title="A page token can be used again",
    text="The same nextPageToken sent twice (also after the walk reached the last page) returns the same page "
    "both times.",
    spec="spec/components/schemas/PageToken.yaml#/description",
    requirements=f"{SECTION} page_token",
)
def reused_token(ctx: Context) -> None:
    app_id = _app(ctx, need=21)
    first, second = _first_two(ctx, app_id)
    token = first["nextPageToken"]
    again = _ids(_page(ctx, app_id, "second page again", page_size=10, page_token=token))
    if again != second:
        raise Fail("the same page_token sent again returned another page")
    _walk(ctx, app_id, 100)  # to the last page, now (not a walk of the run kept from before the token)
    after = _ids(_page(ctx, app_id, "second page after a whole walk", page_size=10, page_token=token))
    if after != second:
        raise Fail("a page_token sent again after a walk reached the last page returned another page")


@rule(
    "PG-TOKEN-006",
    family=FAMILY,
    title="A page token is bound to the collection, not to the caller",
    text="A nextPageToken issued to one credential (the API token) returns the same next page for another "
    "credential allowed to list the collection (an OAuth access token).",
    spec="spec/components/schemas/PageToken.yaml#/description",
    requirements=f"{SECTION} page_token",
)
def other_caller(ctx: Context) -> None:
    app_id = _app(ctx, need=21)
    if not (ctx.config.token and ctx.config.oauth_client_id and ctx.config.oauth_client_secret):
        raise NotApplicable("needs both auth.token and an OAuth client (auth.oauth_client_id / secret)")
    first, second = _first_two(ctx, app_id)
    body = ctx.expect(ctx.client_credentials(), 200, what="OAuth access token")
    what = "the API token's page_token with the OAuth access token"
    page = _page(ctx, app_id, what, token=body["access_token"], page_size=10, page_token=first["nextPageToken"])
    if _ids(page) != second:
        raise Fail(f"{what} returned another page than the API token got")


@rule(
    "PG-ORDER-001",
    family=FAMILY,
    title="Pages come in a stable order",
    text="The first page asked twice returns the same items in the same order, and the second page continues "
    "where the first ended.",
    spec=f"{LIST}#/get/description",
    requirements=f"{SECTION} page_token",
)
def stable(ctx: Context) -> None:
    app_id = _app(ctx, need=21)
    once, second = _first_two(ctx, app_id)
    again = _page(ctx, app_id, "first page again", page_size=10)
    if _ids(once) != _ids(again):
        raise Fail("the same first page came back with other items or in another order")
    if set(second) & set(_ids(once)):
        raise Fail("the second page repeats items of the first")


@rule(
    "PG-ORDER-002",
    family=FAMILY,
    title="One order across pages and page sizes",
    text="The first three pages at page_size 10 (and at 25, without page_size) hold, in order, the first items of "
    "the walk at page_size 100: pages cut one stable order, whatever their size.",
    spec="spec/components/schemas/AppEntitlementsServiceListResponse.yaml#/properties/list/description",
    requirements=f"{SECTION} page_token",
)
def one_order(ctx: Context) -> None:
    app_id = _app(ctx, need=76)
    reference = [item for page in walk(ctx, app_id, 100) for item in page]
    for size in (10, None):
        items: list[str] = []
        token = ""
        for number in range(1, 4):
            params: dict[str, Any] = {} if size is None else {"page_size": size}
            if token:
                params["page_token"] = token
            page = _page(ctx, app_id, f"page {number} at page_size {size or 'default'}", **params)
            items += _ids(page)
            token = str(page.get("nextPageToken") or "")
            if not token:
                break
        if items != reference[: len(items)]:
            at = next(i for i, (a, b) in enumerate(zip(items, reference, strict=False)) if a != b) if items else 0
            got = items[at] if at < len(items) else None
            wanted = reference[at] if at < len(reference) else None
            raise Fail(
                f"pages at page_size {size or 'default'} differ from the walk at 100 at item {at + 1} "
                f"({got!r} against {wanted!r})"
            )


PAGE_PATHS = ("appPath", "appResourcePath", "appResourceTypePath")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@rule(
    "PG-EXPAND-001",
    family=FAMILY,
    title="A page's related objects are each included once and located by its items",
    text="On the first pages at page_size 100 and 10 and the page after the first at 10, `expanded` holds no "
    "object twice (the same object, or two with the same @type and id), and every set path field of an item "
    "(appPath, appResourcePath, appResourceTypePath) is `$.expanded[i]` inside `expanded`; appPath locates the "
    "entitlement's app. The pages must follow page_size (more than 10 items; 10; then others), else no evidence.",
    spec="spec/components/schemas/AppEntitlementsServiceListResponse.yaml#/properties/expanded/description",
    requirements=f"{SECTION} (Response shape)",
)
def expanded_once(ctx: Context) -> None:
    app_id = _app(ctx, need=11)
    sizes: dict[str, int] = {}
    items: dict[str, list[str]] = {}
    asked: list[tuple[str, dict[str, Any]]] = [
        ("the first page at page_size 100", {"page_size": 100}),
        ("the first page at page_size 10", {"page_size": 10}),
    ]
    for what, params in asked:
        page = _page(ctx, app_id, what, **params)
        sizes[what] = len(page.get("list") or [])
        items[what] = _ids(page)
        token = page.get("nextPageToken")
        if params == {"page_size": 10} and isinstance(token, str) and token:
            asked.append(("the page after the first at page_size 10", {"page_size": 10, "page_token": token}))
        expanded = page.get("expanded") or []
        seen: dict[str, int] = {}
        for index, obj in enumerate(expanded):
            keys = [_canonical(obj)]
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                keys.append(_canonical([obj.get("@type"), obj["id"]]))
            for key in keys:
                if key in seen:
                    raise Fail(
                        f"{what}: expanded[{index}] is expanded[{seen[key]}] again (each object is included once)"
                    )
                seen[key] = index
        for number, item in enumerate(page.get("list") or [], 1):
            for name in PAGE_PATHS:
                value = item.get(name) if isinstance(item, dict) else None
                if value in (None, ""):
                    continue
                match = PATH_FIELD.match(str(value))
                if not match or int(match.group(1)) >= len(expanded):
                    raise Fail(
                        f"{what}: item {number}'s {name}={value!r} locates nothing in `expanded` ({len(expanded)})"
                    )
                located = expanded[int(match.group(1))]
                owner = (item.get("appEntitlement") or {}).get("appId")
                if name == "appPath" and isinstance(located, dict) and "id" in located and located["id"] != owner:
                    raise Fail(f"{what}: item {number}'s appPath locates {located.get('id')!r}, not its app {owner!r}")
    # "Each once" on a page means something only on pages cut by page_size from the collection: a page of more
    # than 10 items, two of 10, the second after the first (a mock's one example for every request is none).
    later, first = "the page after the first at page_size 10", "the first page at page_size 10"
    if (
        sizes["the first page at page_size 100"] <= 10
        or sizes[first] != 10
        or not items.get(later)
        or set(items[later]) & set(items[first])
    ):
        shown = ", ".join(f"{what}: {count} items" for what, count in sizes.items())
        raise NoEvidence(
            f"the pages do not follow page_size over an app of more than 10 entitlements ({shown}; the page after "
            "the first needs its nextPageToken and items of its own), so no page shows its related objects each "
            "included once"
        )


@rule(
    "PG-404-001",
    family=FAMILY,
    title="An unknown app is 404",
    text="Listing the entitlements of an app the target does not have is answered 404 NOT_FOUND.",
    spec=f"{LIST}#/get/responses/404",
    requirements=SECTION,
)
def unknown_app(ctx: Context) -> None:
    app_id = f"app-conformance-unknown-{ctx.rng.getrandbits(32):08x}"
    ctx.expect(_list(ctx, app_id, {}), 404, code="NOT_FOUND")

"""Paging mutants: the page_size clamp at both ends, the default, what is and is not an integer, `nextPageToken`
at and before the end, the `list` member, walks that repeat, skip or reorder items, and page tokens (altered,
foreign, reused, another caller's). Each breaks the one traceability variant its `covers` names
(`conformance/accessgov_conformance/traceability.yaml`, section `paging`)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response, path_param
from tests.conformance.selftest.mutants.base import Mutant, on_response, refuse
from tests.conformance.selftest.target import Fixtures

END_MARKER = "selftest-past-the-end-"


def _page_size(request: Request) -> int | None:
    value = request.query().get("page_size", "")
    try:
        return int(value)
    except ValueError:
        return None


def _token(request: Request) -> str:
    return request.query().get("page_token", "")


def _page(response: Response) -> dict[str, Any] | None:
    document = response.json()
    ok = response.status == 200 and isinstance(document, dict) and isinstance(document.get("list"), list)
    return document if ok else None


def _small_not_clamped(_: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        size = _page_size(request)
        response = await forward(request)
        page = _page(response)
        if page is not None and size is not None and 1 <= size < 10:
            return response.with_json({**page, "list": page["list"][:size]})
        return response

    return {"list": handle}


def _large_not_clamped(_: Fixtures) -> dict[str, Handler]:
    """Serves page_size items (up to 500) by following the reference server's own tokens."""

    async def handle(request: Request, forward: Forward) -> Response:
        size = _page_size(request)
        response = await forward(request)
        page = _page(response)
        if page is None or size is None or size <= 100:
            return response
        items = list(page["list"])
        while page is not None and page.get("nextPageToken") and len(items) < min(size, 500):
            following = await forward(request.with_query({**request.query(), "page_token": page["nextPageToken"]}))
            page = _page(following)
            if page is not None:
                items.extend(page["list"])
        token = page.get("nextPageToken", "") if page is not None else ""
        return response.with_json({"list": items[: min(size, 500)], "nextPageToken": token})

    return {"list": handle}


def _default_size(size: int) -> Any:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if "page_size" not in request.query():
                request = request.with_query({**request.query(), "page_size": str(size)})
            return await forward(request)

        return {"list": handle}

    return handlers


def _last_token_not_empty(_: Fixtures) -> dict[str, Handler]:
    """The last page points one page further, and that page is empty (a common off-by-one of offset paging)."""

    async def handle(request: Request, forward: Forward) -> Response:
        if _token(request).startswith(END_MARKER):
            return Response.of_json(200, {"list": [], "nextPageToken": ""})
        response = await forward(request)
        page = _page(response)
        if page is not None and page.get("nextPageToken") == "":
            return response.with_json({**page, "nextPageToken": END_MARKER + uuid.uuid4().hex})
        return response

    return {"list": handle}


def _last_token_missing(request: Request, response: Response) -> Response:
    page = _page(response)
    if page is not None and page.get("nextPageToken") == "":
        return response.with_json({"list": page["list"]})
    return response


def _empty_before_end(request: Request, response: Response) -> Response:
    """The walk ends after the second page: its `nextPageToken` is empty though more results remain."""
    page = _page(response)
    if page is not None and _token(request) and page.get("nextPageToken"):
        return response.with_json({**page, "nextPageToken": ""})
    return response


def _repeats(_: Fixtures) -> dict[str, Handler]:
    """Each later page starts with the previous page's last item (`>=` instead of `>` in the keyset)."""
    last_item: dict[str, Any] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        page = _page(response)
        if page is None:
            return response
        items = list(page["list"])
        if _token(request) in last_item and items:
            items = [last_item[_token(request)], *items[:-1]]
        if page.get("nextPageToken") and page["list"]:
            last_item[page["nextPageToken"]] = page["list"][-1]
        return response.with_json({**page, "list": items})

    return {"list": handle}


def _skips(request: Request, response: Response) -> Response:
    """Each later page loses its first item."""
    page = _page(response)
    if page is not None and _token(request) and page["list"]:
        return response.with_json({**page, "list": page["list"][1:]})
    return response


def _issued_tokens(foreign: bool) -> Any:
    """Tokens checked only for being ours (`foreign`: any app's token is taken) or not at all (an unknown token
    restarts the walk at the first page)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        issued: dict[str, str] = {}

        async def handle(request: Request, forward: Forward) -> Response:
            app_id, token = path_param(request, "list", "app_id"), _token(request)
            lenient = token and (issued.get(token, app_id) != app_id if foreign else token not in issued)
            if lenient:
                query = {k: v for k, v in request.query().items() if k != "page_token"}
                request = request.with_query(query)
            response = await forward(request)
            page = _page(response)
            if page is not None and page.get("nextPageToken"):
                issued[page["nextPageToken"]] = app_id
            return response

        return {"list": handle}

    return handlers


INT64_MAX = 2**63 - 1
BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def _size_rewrite(change: Callable[[str], str | None]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The server reads page_size as `change(raw text)` (None: as if absent; the text itself: as sent)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            query = request.query()
            if "page_size" in query:
                value = change(query["page_size"])
                if value != query["page_size"]:
                    rest = {k: v for k, v in query.items() if k != "page_size"}
                    request = request.with_query(rest if value is None else {**rest, "page_size": value})
            return await forward(request)

        return {"list": handle}

    return handlers


def _python_int(text: str, base: int = 10) -> int | None:
    try:
        return int(text, base)
    except ValueError:
        return None


def _zero_as_default(text: str) -> str | None:
    number = _python_int(text)
    return None if number is not None and number <= 0 else text


def _fraction(text: str) -> str | None:
    if re.fullmatch(r"[+-]?[0-9]+\.[0-9]+", text):
        return str(int(float(text)))
    return text


def _exponent(text: str) -> str | None:
    if re.fullmatch(r"[0-9]+[eE][0-9]+", text):
        return str(int(float(text)))
    return text


def _word_as_default(text: str) -> str | None:
    return None if re.fullmatch(r"[A-Za-z]+", text) else text


def _empty_as_default(text: str) -> str | None:
    return None if text == "" else text


def _whitespace(text: str) -> str | None:
    return text.strip() if text != text.strip() and re.fullmatch(r"[+-]?[0-9]+", text.strip()) else text


def _hexadecimal(text: str) -> str | None:
    return str(int(text, 16)) if re.fullmatch(r"0[xX][0-9a-fA-F]+", text) else text


def _separators(text: str) -> str | None:
    return str(int(text)) if "_" in text and _python_int(text) is not None else text


def _refuse_size(condition: Callable[[str], bool], why: str) -> Callable[[Fixtures], dict[str, Handler]]:
    return refuse(
        "list", lambda r: "page_size" in r.query() and condition(r.query()["page_size"]), 400, "INVALID_PAGE_SIZE", why
    )


def _in_range_short(request: Request, response: Response) -> Response:
    """A page_size strictly inside 10..100 serves one item less (an off-by-one in the limit)."""
    size, page = _page_size(request), _page(response)
    if page is None or size is None or not 10 < size < 100 or len(page["list"]) < size:
        return response
    return response.with_json({**page, "list": page["list"][:-1]})


def _unstable_order(_: Fixtures) -> dict[str, Handler]:
    """Every other first page comes in reverse order (no ORDER BY: the database's order of the moment)."""
    served = [0]

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        page = _page(response)
        if page is None or _token(request):
            return response
        served[0] += 1
        return response.with_json({**page, "list": page["list"][::-1]}) if served[0] % 2 == 0 else response

    return {"list": handle}


def _last_token_null(request: Request, response: Response) -> Response:
    page = _page(response)
    if page is not None and page.get("nextPageToken") == "":
        return response.with_json({**page, "nextPageToken": None})
    return response


def _list_renamed(request: Request, response: Response) -> Response:
    page = _page(response)
    if page is None:
        return response
    return response.with_json({"items": page["list"], **{k: v for k, v in page.items() if k != "list"}})


def _tokens_near(match: Callable[[str, str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A token that is not one issued but `match`es an issued one (of the same app) is taken as that one."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        issued: dict[str, str] = {}

        async def handle(request: Request, forward: Forward) -> Response:
            app_id, token = path_param(request, "list", "app_id"), _token(request)
            if token and token not in issued:
                found = next((t for t, app in issued.items() if app == app_id and match(token, t)), None)
                if found is not None:
                    request = request.with_query({**request.query(), "page_token": found})
            response = await forward(request)
            page = _page(response)
            if page is not None and page.get("nextPageToken"):
                issued[page["nextPageToken"]] = app_id
            return response

        return {"list": handle}

    return handlers


def _garbage_first_page(_: Fixtures) -> dict[str, Handler]:
    """A token that is not base64url text at all is taken as no token (the first page)."""

    async def handle(request: Request, forward: Forward) -> Response:
        token = _token(request)
        if token and not BASE64URL.fullmatch(token):
            request = request.with_query({k: v for k, v in request.query().items() if k != "page_token"})
        return await forward(request)

    return {"list": handle}


def _token_uses(
    refuse_when: Callable[[dict[str, Any], str, str], bool], why: str
) -> Callable[[Fixtures], dict[str, Handler]]:
    """Tokens remembered server-side: `refuse_when(state, app, token)` decides 400 INVALID_PAGE_TOKEN."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        state: dict[str, Any] = {"used": set(), "issued": {}, "ended": {}}

        async def handle(request: Request, forward: Forward) -> Response:
            app_id, token = path_param(request, "list", "app_id"), _token(request)
            if token and refuse_when(state, app_id, token):
                return Response.error(400, "INVALID_PAGE_TOKEN", f"page_token {why}")
            response = await forward(request)
            page = _page(response)
            if page is not None:
                if token:
                    state["used"].add(token)
                if page.get("nextPageToken"):
                    state["issued"][page["nextPageToken"]] = (
                        app_id,
                        request.header("authorization"),
                        len(state["ended"].get(app_id, ())),
                    )
                else:
                    state["ended"].setdefault(app_id, []).append(True)
            return response

        return {"list": handle}

    return handlers


def _single_use(state: dict[str, Any], app_id: str, token: str) -> bool:
    return token in state["used"]


def _dies_at_end(state: dict[str, Any], app_id: str, token: str) -> bool:
    """A token issued before the walk of its app last reached the end no longer works."""
    issued = state["issued"].get(token)
    return issued is not None and issued[2] < len(state["ended"].get(app_id, ()))


def _caller_bound(_: Fixtures) -> dict[str, Handler]:
    """A token works only with the Authorization header it was issued to."""
    issued: dict[str, str | None] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        token = _token(request)
        if token in issued and issued[token] != request.header("authorization"):
            return Response.error(400, "INVALID_PAGE_TOKEN", "page_token was issued to another caller")
        response = await forward(request)
        page = _page(response)
        if page is not None and page.get("nextPageToken"):
            issued[page["nextPageToken"]] = request.header("authorization")
        return response

    return {"list": handle}


def _unknown_app_empty(request: Request, response: Response) -> Response:
    if response.status == 404:
        return Response.of_json(200, {"list": [], "nextPageToken": ""})
    return response


def _other_app_items(request: Request, response: Response) -> Response:
    """Every item names another app than the one listed (a canned page)."""
    page = _page(response)
    if page is None:
        return response
    items = [
        {**item, "appEntitlement": {**item["appEntitlement"], "appId": "app-canned"}}
        if isinstance(item, dict) and isinstance(item.get("appEntitlement"), dict)
        else item
        for item in page["list"]
    ]
    return response.with_json({**page, "list": items})


def _m(mutant_id: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str) -> Mutant:
    return Mutant(mutant_id, "paging", breaks, handlers, covers=covers)


MUTANTS = [
    _m(
        "paging-small-size-not-clamped",
        "A page_size below 10 is served as given (page_size=5 gives 5 items) instead of being raised to 10.",
        _small_not_clamped,
        "PAGING-CLAMP-LOW/served-as-given",
    ),
    _m(
        "paging-small-size-rejected",
        "A page_size below 10 is refused 400 INVALID_PAGE_SIZE instead of being raised to 10.",
        _refuse_size(lambda text: (_python_int(text) or 0) in range(1, 10), "page_size < 10"),
        "PAGING-CLAMP-LOW/rejected",
    ),
    _m(
        "paging-zero-as-default",
        "page_size 0 or a negative one is taken as absent (25 items) instead of being raised to 10.",
        _size_rewrite(_zero_as_default),
        "PAGING-CLAMP-LOW/zero-or-negative-as-default",
    ),
    _m(
        "paging-zero-rejected",
        "page_size 0 or a negative one is refused 400 INVALID_PAGE_SIZE instead of being raised to 10.",
        _refuse_size(lambda text: (n := _python_int(text)) is not None and n <= 0, "page_size <= 0"),
        "PAGING-CLAMP-LOW/zero-or-negative-rejected",
    ),
    _m(
        "paging-large-size-not-clamped",
        "A page_size above 100 is served as given (up to 500 items) instead of being lowered to 100.",
        _large_not_clamped,
        "PAGING-CLAMP-HIGH/served-as-given",
    ),
    _m(
        "paging-large-size-rejected",
        "A page_size above 100 is refused 400 INVALID_PAGE_SIZE instead of being lowered to 100.",
        _refuse_size(lambda text: 100 < (_python_int(text) or 0) <= INT64_MAX, "page_size > 100"),
        "PAGING-CLAMP-HIGH/rejected",
    ),
    _m(
        "paging-beyond-64-bits-rejected",
        "A page_size beyond 64 bits is refused 400 INVALID_PAGE_SIZE (parsed into an int64) instead of 100.",
        _refuse_size(lambda text: (_python_int(text) or 0) > INT64_MAX, "page_size out of range"),
        "PAGING-CLAMP-HIGH/beyond-64-bits",
    ),
    _m(
        "paging-wrong-default",
        "Without page_size a page holds 20 items, not the default 25.",
        _default_size(20),
        "PAGING-DEFAULT/other-default",
    ),
    _m(
        "paging-in-range-short",
        "A page_size strictly between 10 and 100 gives one item less than asked.",
        on_response("list", _in_range_short),
        "PAGING-IN-RANGE/one-less",
    ),
    _m(
        "paging-fraction-truncated",
        "A fractional page_size (1.5, 10.0) is truncated to an integer instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_fraction),
        "PAGING-NOT-INTEGER/fraction",
    ),
    _m(
        "paging-exponent-accepted",
        "page_size 1e2 is read as 100 instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_exponent),
        "PAGING-NOT-INTEGER/exponent",
    ),
    _m(
        "paging-word-as-default",
        "A page_size that is a word (ten) is ignored (the default) instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_word_as_default),
        "PAGING-NOT-INTEGER/word",
    ),
    _m(
        "paging-empty-size-as-default",
        "An empty page_size is taken as absent (the default) instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_empty_as_default),
        "PAGING-NOT-INTEGER/empty",
    ),
    _m(
        "paging-size-whitespace-trimmed",
        'A page_size with surrounding whitespace (" 10") is trimmed instead of 400 INVALID_PAGE_SIZE.',
        _size_rewrite(_whitespace),
        "PAGING-NOT-INTEGER/whitespace",
    ),
    _m(
        "paging-size-hexadecimal",
        "page_size 0x10 is read as 16 instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_hexadecimal),
        "PAGING-NOT-INTEGER/hexadecimal",
    ),
    _m(
        "paging-size-separators",
        "page_size 1_0 is read as 10 (Python's int()) instead of 400 INVALID_PAGE_SIZE.",
        _size_rewrite(_separators),
        "PAGING-NOT-INTEGER/digit-separator",
    ),
    _m(
        "paging-leading-zero-refused",
        "A page_size with a leading zero (020) is refused 400 instead of read as 20.",
        _refuse_size(lambda text: bool(re.fullmatch(r"[+-]?0[0-9]+", text)), "page_size has a leading zero"),
        "PAGING-INTEGER-SPELLING/leading-zero",
    ),
    _m(
        "paging-plus-sign-refused",
        "A page_size with an explicit + sign (+20) is refused 400 instead of read as 20.",
        _refuse_size(lambda text: text.startswith("+"), "page_size has a sign"),
        "PAGING-INTEGER-SPELLING/plus-sign",
    ),
    _m(
        "paging-last-token-not-empty",
        "The last page has a non-empty nextPageToken (leading to an empty page) instead of the empty string.",
        _last_token_not_empty,
        "PAGING-LAST-TOKEN/not-empty-at-end",
    ),
    _m(
        "paging-last-token-missing",
        "The last page has no nextPageToken member at all instead of the empty string.",
        on_response("list", _last_token_missing),
        "PAGING-LAST-TOKEN/missing",
    ),
    _m(
        "paging-last-token-null",
        'The last page has nextPageToken null instead of the empty string "".',
        on_response("list", _last_token_null),
        "PAGING-LAST-TOKEN/null",
    ),
    _m(
        "paging-empty-token-before-end",
        "nextPageToken is empty on the second page although more results remain.",
        on_response("list", _empty_before_end),
        "PAGING-LAST-TOKEN/empty-before-end",
    ),
    _m(
        "paging-list-renamed",
        "The results come in a member named `items` instead of `list`.",
        on_response("list", _list_renamed),
        "PAGING-SHAPE/list-renamed",
    ),
    _m(
        "paging-other-app-items",
        "Every item of a page names another app than the one listed (a canned page).",
        on_response("list", _other_app_items),
        "PAGING-SHAPE/other-app-items",
    ),
    _m(
        "paging-repeats-items",
        "Each later page starts with the previous page's last item (and loses its own last one).",
        _repeats,
        "PAGING-WALK/repeats",
    ),
    _m(
        "paging-skips-items",
        "Each later page loses its first item: a walk of all pages has gaps.",
        on_response("list", _skips),
        "PAGING-WALK/skips",
    ),
    _m(
        "paging-unstable-order",
        "Every other first page comes in reverse order.",
        _unstable_order,
        "PAGING-WALK/unstable-order",
    ),
    _m(
        "paging-empty-token-refused",
        'page_token="" is refused 400 INVALID_PAGE_TOKEN instead of meaning the first page.',
        refuse("list", lambda r: r.query().get("page_token", None) == "", 400, "INVALID_PAGE_TOKEN", "empty"),
        "PAGING-EMPTY-TOKEN/refused",
    ),
    _m(
        "paging-token-not-bound",
        "A token issued for one app is accepted for another (its walk starts over) instead of 400.",
        _issued_tokens(foreign=True),
        "PAGING-TOKEN-BOUND/other-app",
    ),
    _m(
        "paging-tampered-token-accepted",
        "An altered or made-up token is accepted (the walk starts over) instead of 400 INVALID_PAGE_TOKEN.",
        _issued_tokens(foreign=False),
        "PAGING-TOKEN-INTACT/altered",
        "PAGING-TOKEN-INTACT/made-up",
    ),
    _m(
        "paging-truncated-token-accepted",
        "A token that is a prefix of an issued one is taken as that token (a lenient decoder).",
        _tokens_near(lambda sent, issued: issued.startswith(sent) and sent != issued),
        "PAGING-TOKEN-INTACT/truncated",
    ),
    _m(
        "paging-extended-token-accepted",
        "A token that is an issued one plus trailing characters is taken as that token.",
        _tokens_near(lambda sent, issued: sent.startswith(issued) and sent != issued),
        "PAGING-TOKEN-INTACT/extended",
    ),
    _m(
        "paging-garbage-token-first-page",
        "A token that is not base64url text is ignored (the first page) instead of 400 INVALID_PAGE_TOKEN.",
        _garbage_first_page,
        "PAGING-TOKEN-INTACT/garbage",
    ),
    _m(
        "paging-token-single-use",
        "A page token works once: sent again it is refused 400 INVALID_PAGE_TOKEN.",
        _token_uses(_single_use, "was already used"),
        "PAGING-TOKEN-REUSE/second-use",
    ),
    _m(
        "paging-token-dies-at-end",
        "Once a walk of the app reached its last page, tokens issued before are refused 400.",
        _token_uses(_dies_at_end, "belongs to a finished walk"),
        "PAGING-TOKEN-REUSE/after-last-page",
    ),
    _m(
        "paging-token-bound-to-caller",
        "A page token is refused 400 when sent with another credential than it was issued to.",
        _caller_bound,
        "PAGING-TOKEN-CALLER/other-credential",
    ),
    _m(
        "paging-unknown-app-empty",
        "An unknown app is answered 200 with an empty page instead of 404 NOT_FOUND.",
        on_response("list", _unknown_app_empty),
        "PAGING-404/empty-page",
    ),
]
